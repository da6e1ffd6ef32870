#include "platform/sysfs/devfreq.hpp"

#include <algorithm>

#include "platform/sysfs/sysfs_file.hpp"

namespace tokscope::platform {
namespace {

namespace fs = std::filesystem;
using sysfs::Presence;

constexpr std::string_view kHz = "an integer in Hz";

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t newline = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, newline - start));
    start = newline + 1;
  }
  return lines;
}

std::optional<DevfreqTransStat> read_trans_stat(const fs::path& path,
                                                std::vector<std::string>& unavailable) {
  const auto text = sysfs::read_string(path, Presence::kOptional, unavailable);
  if (!text) return std::nullopt;
  auto parsed = parse_devfreq_trans_stat(*text);
  if (parsed.ok()) return std::move(*parsed);
  // "Not Supported." is the driver saying it keeps no table: not a problem worth a line.
  if (parsed.error().kind != ErrorKind::kUnavailable) {
    unavailable.push_back(sysfs::malformed_line(
        path, "the devfreq transition table (" + parsed.error().message + ")", *text));
  }
  return std::nullopt;
}

DevfreqDevice read_device(const std::string& name, const fs::path& dir,
                          std::vector<std::string>& unavailable) {
  DevfreqDevice d;
  d.name = name;
  d.dir = dir;
  d.governor = sysfs::read_string(dir / "governor", Presence::kRequired, unavailable)
                   .value_or(std::string());
  d.cur_hz = sysfs::read_u64(dir / "cur_freq", kHz, Presence::kRequired, unavailable);
  d.min_hz = sysfs::read_u64(dir / "min_freq", kHz, Presence::kRequired, unavailable);
  d.max_hz = sysfs::read_u64(dir / "max_freq", kHz, Presence::kRequired, unavailable);
  d.available_hz = sysfs::read_u64_list(dir / "available_frequencies", "space-separated Hz values",
                                        Presence::kRequired, unavailable);
  d.available_governors =
      sysfs::read_words(dir / "available_governors", Presence::kRequired, unavailable);
  d.trans_stat = read_trans_stat(dir / "trans_stat", unavailable);
  return d;
}

}  // namespace

Expected<DevfreqTransStat> parse_devfreq_trans_stat(std::string_view text) {
  if (sysfs::trim(text) == "Not Supported.") {
    return make_error(ErrorKind::kUnavailable, "trans_stat not supported by the driver");
  }
  const auto bad = [](std::string_view line, std::string_view why) {
    return make_error(ErrorKind::kInput,
                      std::string(why) + " in line \"" + std::string(sysfs::trim(line)) + "\"");
  };
  DevfreqTransStat stat;
  bool have_total = false;
  for (const std::string_view raw : split_lines(text)) {
    std::string_view line = sysfs::trim(raw);
    if (line.empty() || line.find("From") != std::string_view::npos) continue;
    if (line.front() == ':') continue;  // the header of "To" frequencies
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return bad(line, "no ':'");
    if (line.substr(0, colon).find("Total transition") != std::string_view::npos) {
      const auto total = sysfs::parse_u64(line.substr(colon + 1));
      if (!total) return bad(line, "no transition count");
      stat.total_transitions = *total;
      have_total = true;
      continue;
    }
    const bool current = line.front() == '*';
    if (current) line.remove_prefix(1);
    const std::size_t row_colon = line.find(':');
    const auto freq = sysfs::parse_u64(line.substr(0, row_colon));
    auto numbers = sysfs::parse_u64_list(line.substr(row_colon + 1));
    if (!freq || !numbers.ok() || numbers->empty()) return bad(raw, "not a table row");
    DevfreqTransStat::State state;
    state.freq_hz = *freq;
    state.time_ms = numbers->back();
    numbers->pop_back();
    state.transitions_to = std::move(*numbers);
    if (current) stat.current_hz = *freq;
    stat.states.push_back(std::move(state));
  }
  if (stat.states.empty()) return make_error(ErrorKind::kInput, "no table rows");
  for (const auto& state : stat.states) {
    if (state.transitions_to.size() != stat.states.size()) {
      return make_error(ErrorKind::kInput, "row of " + std::to_string(state.freq_hz) + " Hz has " +
                                               std::to_string(state.transitions_to.size()) +
                                               " transition counts for " +
                                               std::to_string(stat.states.size()) + " states");
    }
  }
  if (!have_total) return make_error(ErrorKind::kInput, "no \"Total transition\" line");
  return stat;
}

DevfreqState read_devfreq(const fs::path& root) {
  DevfreqState state;
  const fs::path dir = root / "sys/class/devfreq";
  const auto names = sysfs::list_dir_names(dir);
  if (!names.ok()) {
    state.unavailable.push_back(sysfs::unavailable_line("devfreq", names.error().message));
    return state;
  }
  if (names->empty()) {
    state.unavailable.push_back(
        sysfs::unavailable_line("devfreq", "no device under " + dir.string()));
  }
  for (const auto& name : *names) {
    state.devices.push_back(read_device(name, dir / name, state.unavailable));
  }
  return state;
}

}  // namespace tokscope::platform
