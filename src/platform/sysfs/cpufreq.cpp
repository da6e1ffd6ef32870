#include "platform/sysfs/cpufreq.hpp"

#include "platform/sysfs/sysfs_file.hpp"

namespace tokscope::platform {
namespace {

namespace fs = std::filesystem;
using sysfs::Presence;

constexpr std::string_view kKhz = "an integer in kHz";

std::vector<int> read_cpus(const fs::path& path, std::vector<std::string>& unavailable) {
  const auto text = sysfs::read_string(path, Presence::kRequired, unavailable);
  if (!text) return {};
  auto cpus = parse_cpufreq_cpus(*text);
  if (!cpus.ok()) {
    unavailable.push_back(sysfs::malformed_line(path, "space-separated cpu ids", *text));
    return {};
  }
  return std::move(*cpus);
}

CpufreqPolicy read_policy(int index, const fs::path& dir, std::vector<std::string>& unavailable) {
  CpufreqPolicy p;
  p.policy = index;
  p.dir = dir;
  p.affected_cpus = read_cpus(dir / "affected_cpus", unavailable);
  p.related_cpus = read_cpus(dir / "related_cpus", unavailable);
  p.driver = sysfs::read_string(dir / "scaling_driver", Presence::kRequired, unavailable)
                 .value_or(std::string());
  p.governor = sysfs::read_string(dir / "scaling_governor", Presence::kRequired, unavailable)
                   .value_or(std::string());

  // scaling_cur_freq first; cpuinfo_cur_freq exists only for drivers with get() and is
  // root-only, so its absence alone is not worth a line.
  std::vector<std::string> cur_problems;
  p.cur_khz = sysfs::read_u64(dir / "scaling_cur_freq", kKhz, Presence::kRequired, cur_problems);
  if (p.cur_khz) {
    p.cur_source = "scaling_cur_freq";
  } else {
    p.cur_khz = sysfs::read_u64(dir / "cpuinfo_cur_freq", kKhz, Presence::kOptional, cur_problems);
    if (p.cur_khz) p.cur_source = "cpuinfo_cur_freq";
    unavailable.insert(unavailable.end(), cur_problems.begin(), cur_problems.end());
  }

  p.scaling_min_khz =
      sysfs::read_u64(dir / "scaling_min_freq", kKhz, Presence::kRequired, unavailable);
  p.scaling_max_khz =
      sysfs::read_u64(dir / "scaling_max_freq", kKhz, Presence::kRequired, unavailable);
  p.cpuinfo_min_khz =
      sysfs::read_u64(dir / "cpuinfo_min_freq", kKhz, Presence::kRequired, unavailable);
  p.cpuinfo_max_khz =
      sysfs::read_u64(dir / "cpuinfo_max_freq", kKhz, Presence::kRequired, unavailable);
  p.available_khz =
      sysfs::read_u64_list(dir / "scaling_available_frequencies", "space-separated kHz values",
                           Presence::kOptional, unavailable);
  p.available_governors =
      sysfs::read_words(dir / "scaling_available_governors", Presence::kRequired, unavailable);
  return p;
}

}  // namespace

Expected<std::vector<int>> parse_cpufreq_cpus(std::string_view text) {
  std::vector<int> cpus;
  for (const auto& word : sysfs::split_words(text)) {
    const auto cpu = sysfs::parse_u64(word);
    if (!cpu || *cpu > 1023) {
      return make_error(ErrorKind::kInput, "\"" + word + "\" is not a cpu id (0-1023)");
    }
    cpus.push_back(static_cast<int>(*cpu));
  }
  return cpus;
}

CpufreqState read_cpufreq(const fs::path& root) {
  CpufreqState state;
  const fs::path dir = root / "sys/devices/system/cpu/cpufreq";
  const auto entries = sysfs::list_indexed_dirs(dir, "policy");
  if (!entries.ok()) {
    state.unavailable.push_back(sysfs::unavailable_line("cpufreq", entries.error().message));
    return state;
  }
  if (entries->empty()) {
    state.unavailable.push_back(
        sysfs::unavailable_line("cpufreq", "no policyN under " + dir.string()));
  }
  for (const auto& entry : *entries) {
    state.policies.push_back(read_policy(entry.index, entry.path, state.unavailable));
  }
  return state;
}

}  // namespace tokscope::platform
