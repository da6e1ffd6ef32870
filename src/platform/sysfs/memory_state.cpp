#include "platform/sysfs/memory_state.hpp"

#include <algorithm>

#include "platform/sysfs/sysfs_file.hpp"

namespace tokscope::platform {
namespace {

namespace fs = std::filesystem;
using sysfs::Presence;

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

bool is_octal(char c) noexcept {
  return c >= '0' && c <= '7';
}

// The kernel prints swap file names with seq_file_path(), escaping " \t\n\\" as \ooo.
std::string decode_octal_escapes(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size() && is_octal(text[i + 1]) && is_octal(text[i + 2]) &&
        is_octal(text[i + 3])) {
      out += static_cast<char>((text[i + 1] - '0') * 64 + (text[i + 2] - '0') * 8 +
                               (text[i + 3] - '0'));
      i += 3;
    } else {
      out += text[i];
    }
  }
  return out;
}

MemInfo read_meminfo(const fs::path& path, std::vector<std::string>& unavailable) {
  MemInfo info;
  const auto text = sysfs::read_string(path, Presence::kRequired, unavailable);
  if (!text) return info;
  const auto values = parse_meminfo(*text);
  const auto pick = [&](const char* key) -> std::optional<std::uint64_t> {
    if (const auto it = values.find(key); it != values.end()) return it->second;
    unavailable.push_back(sysfs::unavailable_line(
        path.string(), std::string("no readable \"") + key + ": <n> kB\" line"));
    return std::nullopt;
  };
  info.mem_total_kib = pick("MemTotal");
  info.mem_available_kib = pick("MemAvailable");
  info.swap_total_kib = pick("SwapTotal");
  info.swap_free_kib = pick("SwapFree");
  return info;
}

}  // namespace

std::map<std::string, std::uint64_t> parse_meminfo(std::string_view text) {
  std::map<std::string, std::uint64_t> values;
  for (const std::string_view line : split_lines(text)) {
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view value = sysfs::trim(line.substr(colon + 1));
    if (value.size() >= 2 && value.substr(value.size() - 2) == "kB") {
      value.remove_suffix(2);
    }
    if (const auto number = sysfs::parse_u64(value)) {
      values[std::string(sysfs::trim(line.substr(0, colon)))] = *number;
    }
  }
  return values;
}

bool is_zram_device(std::string_view filename) noexcept {
  constexpr std::string_view kPrefix = "/dev/zram";
  return filename.size() > kPrefix.size() && filename.substr(0, kPrefix.size()) == kPrefix &&
         sysfs::parse_u64(filename.substr(kPrefix.size())).has_value();
}

Expected<std::vector<SwapEntry>> parse_swaps(std::string_view text) {
  std::vector<SwapEntry> entries;
  bool header = false;
  for (const std::string_view line : split_lines(text)) {
    if (sysfs::trim(line).empty()) continue;
    const auto words = sysfs::split_words(line);
    if (!header) {
      if (words.empty() || words.front() != "Filename") {
        return make_error(ErrorKind::kInput,
                          "first line \"" + std::string(sysfs::trim(line)) +
                              "\" is not the \"Filename Type Size Used Priority\" header");
      }
      header = true;
      continue;
    }
    // Plain values rather than optionals: gcc 12 -O3 sees a maybe-uninitialized optional here.
    std::uint64_t size = 0;
    std::uint64_t used = 0;
    std::int64_t priority = 0;
    bool valid = words.size() == 5;
    if (valid) {
      const auto s = sysfs::parse_u64(words[2]);
      const auto u = sysfs::parse_u64(words[3]);
      const auto p = sysfs::parse_i64(words[4]);
      valid = s.has_value() && u.has_value() && p.has_value();
      if (valid) {
        size = s.value();
        used = u.value();
        priority = p.value();
      }
    }
    if (!valid || priority < -32768 || priority > 32767) {
      return make_error(ErrorKind::kInput,
                        "line \"" + std::string(sysfs::trim(line)) +
                            "\" is not \"<filename> <type> <size kB> <used kB> <priority>\"");
    }
    SwapEntry e;
    e.filename = decode_octal_escapes(words[0]);
    e.type = words[1];
    e.size_kib = size;
    e.used_kib = used;
    e.priority = static_cast<int>(priority);
    e.zram = is_zram_device(e.filename);
    entries.push_back(std::move(e));
  }
  if (!header) return make_error(ErrorKind::kInput, "empty: no header line");
  return entries;
}

bool MemoryState::zram_swap() const noexcept {
  return std::any_of(swaps.begin(), swaps.end(), [](const SwapEntry& e) { return e.zram; });
}

MemoryState read_memory_state(const fs::path& root) {
  MemoryState state;
  state.meminfo = read_meminfo(root / "proc/meminfo", state.unavailable);

  const fs::path swaps_path = root / "proc/swaps";
  if (const auto text = sysfs::read_string(swaps_path, Presence::kRequired, state.unavailable)) {
    auto swaps = parse_swaps(*text);
    if (swaps.ok()) {
      state.swaps = std::move(*swaps);
      state.swaps_known = true;
    } else {
      state.unavailable.push_back(sysfs::malformed_line(
          swaps_path, "the /proc/swaps table (" + swaps.error().message + ")", *text));
    }
  }

  const fs::path swappiness_path = root / "proc/sys/vm/swappiness";
  const auto swappiness = sysfs::read_i64(swappiness_path, "an integer from 0 to 200",
                                          Presence::kRequired, state.unavailable);
  if (swappiness && *swappiness >= 0 && *swappiness <= 200) {
    state.swappiness = static_cast<int>(*swappiness);
  } else if (swappiness) {
    state.unavailable.push_back(sysfs::malformed_line(swappiness_path, "an integer from 0 to 200",
                                                      std::to_string(*swappiness)));
  }

  const fs::path thp_path = root / "sys/kernel/mm/transparent_hugepage/enabled";
  if (const auto text = sysfs::read_string(thp_path, Presence::kRequired, state.unavailable)) {
    auto choice = sysfs::parse_bracketed_choice(*text);
    if (choice.ok()) {
      state.thp_enabled = std::move(*choice);
    } else {
      state.unavailable.push_back(sysfs::malformed_line(
          thp_path, "one [bracketed] choice such as \"always [madvise] never\"", *text));
    }
  }
  return state;
}

}  // namespace tokscope::platform
