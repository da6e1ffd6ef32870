#include "platform/lock/freq_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>

namespace tokscope::platform::lock {
namespace {

// Whole decimal number, nothing else; nullopt otherwise (also on overflow).
std::optional<std::uint64_t> parse_u64(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool contains(const std::vector<std::uint64_t>& sorted, std::uint64_t value) {
  return std::binary_search(sorted.begin(), sorted.end(), value);
}

struct Factor {
  std::uint64_t factor;
  const char* words;
};
constexpr std::array<Factor, 4> kFactors = {
    {{10, "ten"}, {1000, "a thousand"}, {100, "a hundred"}, {1000000, "a million"}}};

std::string unit_hint(std::string_view unit, std::uint64_t factor, bool too_low) {
  if (unit == "Hz" && too_low && factor == 1000) return " (kHz given for a value in Hz?)";
  if (unit == "Hz" && too_low && factor == 1000000) return " (MHz given for a value in Hz?)";
  if (unit == "kHz" && too_low && factor == 1000) return " (MHz given for a value in kHz?)";
  if (unit == "kHz" && !too_low && factor == 1000) return " (Hz given for a value in kHz?)";
  return "";
}

}  // namespace

Expected<std::vector<std::uint64_t>> parse_frequency_list(std::string_view text) {
  std::vector<std::uint64_t> values;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::string_view(" \t\r\n").find(text[i]) != std::string_view::npos)
      ++i;
    if (i == text.size()) break;
    std::size_t j = i;
    while (j < text.size() && std::string_view(" \t\r\n").find(text[j]) == std::string_view::npos)
      ++j;
    const auto value = parse_u64(text.substr(i, j - i));
    if (!value) {
      return make_error(ErrorKind::kInput,
                        fmt::format("malformed frequency list '{}': '{}' is not a number",
                                    text.substr(0, 200), text.substr(i, j - i)));
    }
    values.push_back(*value);
    i = j;
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

Expected<std::uint64_t> parse_frequency_flag(std::string_view flag, std::string_view text,
                                             std::string_view unit) {
  const auto value = parse_u64(text);
  if (!value || *value == 0) {
    return make_error(ErrorKind::kUsage,
                      fmt::format("{} {}: not a whole number of {} greater than 0 (digits only, "
                                  "e.g. {})",
                                  flag, text, unit, unit == "kHz" ? "2352000" : "2112000000"));
  }
  return *value;
}

Expected<CpuFreqArg> parse_cpu_freq_flag(std::string_view text) {
  CpuFreqArg arg;
  if (text.find('=') == std::string_view::npos) {
    auto value = parse_frequency_flag("--cpu-freq", text, "kHz");
    if (!value) return value.error();
    arg.all_khz = *value;
    return arg;
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    const std::size_t eq = item.find('=');
    const std::string_view name = item.substr(0, std::min(eq, item.size()));
    const bool numbered =
        name.size() > 6 && name.substr(0, 6) == "policy" && parse_u64(name.substr(6)).has_value();
    if (eq == std::string_view::npos || !numbered) {
      return make_error(ErrorKind::kUsage,
                        fmt::format("--cpu-freq {}: '{}' is not POLICY=KHZ (e.g. "
                                    "policy0=1800000,policy4=2352000) nor one value in kHz",
                                    text, item));
    }
    auto value =
        parse_frequency_flag("--cpu-freq " + std::string(name), item.substr(eq + 1), "kHz");
    if (!value) return value.error();
    if (!arg.per_policy_khz.emplace(std::string(name), *value).second) {
      return make_error(ErrorKind::kUsage,
                        fmt::format("--cpu-freq {}: {} is given twice", text, name));
    }
    start = comma + 1;
  }
  return arg;
}

std::vector<std::uint64_t> nearest_frequencies(std::uint64_t value,
                                               const std::vector<std::uint64_t>& available) {
  std::vector<std::uint64_t> out;
  const auto above = std::lower_bound(available.begin(), available.end(), value);
  if (above != available.begin()) out.push_back(*std::prev(above));
  if (above != available.end()) out.push_back(*above);
  return out;
}

std::optional<ScaleSlip> detect_scale_slip(std::uint64_t value,
                                           const std::vector<std::uint64_t>& available,
                                           std::string_view unit) {
  if (value == 0) return std::nullopt;
  for (const Factor& f : kFactors) {
    if (value <= std::numeric_limits<std::uint64_t>::max() / f.factor &&
        contains(available, value * f.factor)) {
      return ScaleSlip{fmt::format("{} times too low{}", f.words, unit_hint(unit, f.factor, true)),
                       value * f.factor};
    }
  }
  for (const Factor& f : kFactors) {
    if (f.factor > 1000) continue;
    if (value % f.factor == 0 && contains(available, value / f.factor)) {
      return ScaleSlip{
          fmt::format("{} times too high{}", f.words, unit_hint(unit, f.factor, false)),
          value / f.factor};
    }
  }
  return std::nullopt;
}

std::string join_frequencies(const std::vector<std::uint64_t>& values) {
  return fmt::format("{}", fmt::join(values, " "));
}

Expected<void> check_frequency(std::string_view flag, std::string_view device, std::uint64_t value,
                               const std::vector<std::uint64_t>& available, std::string_view unit) {
  if (contains(available, value)) return {};
  const std::string listed = fmt::format("(available: {} {})", join_frequencies(available), unit);
  if (const auto slip = detect_scale_slip(value, available, unit)) {
    return make_error(
        ErrorKind::kUsage,
        fmt::format("{} {}: {} cannot run at {} {}: {}; did you mean {}? {}", flag, value, device,
                    value, unit, slip->description, slip->suggestion, listed));
  }
  const auto near = nearest_frequencies(value, available);
  std::string nearest;
  for (std::size_t i = 0; i < near.size(); ++i) {
    nearest += (i == 0 ? "" : " or ") + std::to_string(near[i]);
  }
  return make_error(ErrorKind::kUsage,
                    fmt::format("{} {}: not an available frequency of {}; nearest valid: {} {}",
                                flag, value, device, nearest.empty() ? "none" : nearest, listed));
}

}  // namespace tokscope::platform::lock
