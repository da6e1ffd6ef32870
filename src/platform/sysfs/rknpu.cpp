#include "platform/sysfs/rknpu.hpp"

#include <algorithm>

#include "platform/sysfs/sysfs_file.hpp"

namespace tokscope::platform {
namespace {

namespace fs = std::filesystem;

// "12%", " 0%", "  %" → percent; nullopt for anything else.
std::optional<double> parse_percent(std::string_view text) noexcept {
  const std::string_view body = sysfs::trim(text);
  if (body.empty() || body.back() != '%') return std::nullopt;
  const std::string_view digits = sysfs::trim(body.substr(0, body.size() - 1));
  if (digits.empty()) return 0.0;
  const auto value = sysfs::parse_u64(digits);
  if (!value || *value > 100) return std::nullopt;
  return static_cast<double>(*value);
}

}  // namespace

std::optional<std::size_t> parse_rknpu_load_into(std::string_view text,
                                                 std::span<RknpuCoreLoad> out) noexcept {
  constexpr std::string_view kPrefix = "NPU load:";
  std::string_view rest = sysfs::trim(text);
  if (rest.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  rest.remove_prefix(kPrefix.size());

  std::size_t count = 0;
  bool single_form = false;
  std::size_t start = 0;
  while (start <= rest.size()) {
    const std::size_t comma = std::min(rest.find(',', start), rest.size());
    const std::string_view token = sysfs::trim(rest.substr(start, comma - start));
    const bool last = comma == rest.size();
    start = comma + 1;
    if (token.empty()) {
      if (last) break;  // the trailing "," of the multi-core form
      return std::nullopt;
    }
    if (count == out.size() || single_form) return std::nullopt;
    RknpuCoreLoad entry;
    if (token.substr(0, 4) == "Core") {
      const std::size_t colon = token.find(':');
      if (colon == std::string_view::npos) return std::nullopt;
      const auto core = sysfs::index_after_prefix(token.substr(0, colon), "Core");
      if (!core) return std::nullopt;
      entry.core = *core;
      const auto pct = parse_percent(token.substr(colon + 1));
      if (!pct) return std::nullopt;
      entry.load_pct = *pct;
    } else {
      if (count != 0) return std::nullopt;  // a bare percentage only in the single-core form
      const auto pct = parse_percent(token);
      if (!pct) return std::nullopt;
      entry.load_pct = *pct;
      single_form = true;
    }
    out[count++] = entry;
    if (last) break;
  }
  if (count == 0) return std::nullopt;
  return count;
}

Expected<std::vector<RknpuCoreLoad>> parse_rknpu_load(std::string_view text) {
  RknpuCoreLoad cores[kMaxRknpuCores];
  const auto count = parse_rknpu_load_into(text, cores);
  if (!count) {
    return make_error(ErrorKind::kInput,
                      "malformed rknpu load: expected \"NPU load:  Core0: 12%, ...\" or "
                      "\"NPU load: 35%\"");
  }
  return std::vector<RknpuCoreLoad>(cores, cores + *count);
}

std::vector<fs::path> rknpu_load_paths(const fs::path& root) {
  return {root / "sys/kernel/debug/rknpu/load", root / "proc/rknpu/load"};
}

RknpuLoadState read_rknpu_load(const fs::path& root) {
  RknpuLoadState state;
  std::string reasons;
  for (const auto& path : rknpu_load_paths(root)) {
    auto text = sysfs::read_text(path);
    if (!text.ok()) {
      if (!reasons.empty()) reasons += "; ";
      reasons += text.error().message;
      continue;
    }
    state.file = path;
    auto cores = parse_rknpu_load(*text);
    if (cores.ok()) {
      state.cores = std::move(*cores);
    } else {
      state.unavailable.push_back(sysfs::malformed_line(
          path, "\"NPU load:  Core0: 12%, ...\" or \"NPU load: 35%\"", *text));
    }
    return state;
  }
  state.unavailable.push_back(sysfs::unavailable_line("rknpu load", reasons));
  return state;
}

}  // namespace tokscope::platform
