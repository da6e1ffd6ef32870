// Frequency values for the lock: parsing sysfs frequency lists and flag values, and refusing a
// requested frequency the device does not offer, with the reason and the values meant. The
// classic mistake is a scale slip: 211200000 for the DDR when the board offers 2112000000 (ten
// times too low), or kHz typed where Hz are expected. Units are the sysfs ones: devfreq (DDR, NPU,
// GPU) in Hz, cpufreq in kHz. Everything here is pure (text in, value out).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"

namespace tokscope::platform::lock {

// A sysfs frequency list ("528000000 1068000000\n", cpufreq's "408000 600000 " with a trailing
// space) → sorted unique values. Empty text → empty list. A non-number is a kInput error.
Expected<std::vector<std::uint64_t>> parse_frequency_list(std::string_view text);

// A flag value: decimal digits only, greater than zero ("2112000000"). kUsage naming the flag and
// the unit otherwise ("--ddr-freq 2.1G: not a whole number of Hz").
Expected<std::uint64_t> parse_frequency_flag(std::string_view flag, std::string_view text,
                                             std::string_view unit);

// --cpu-freq: one value in kHz for every policy ("2352000"), or per-policy values
// ("policy0=1800000,policy4=2352000"; policies not named keep the performance governor).
struct CpuFreqArg {
  std::optional<std::uint64_t> all_khz;
  std::map<std::string, std::uint64_t> per_policy_khz;  // "policy4" → kHz
};
Expected<CpuFreqArg> parse_cpu_freq_flag(std::string_view text);

// The available values nearest to value: the closest below and the closest above (one of them
// at either end of the list, none for an empty list). available is sorted.
std::vector<std::uint64_t> nearest_frequencies(std::uint64_t value,
                                               const std::vector<std::uint64_t>& available);

// A slip of scale: value × 10, 100, 1000 or 1e6 (or ÷ 10, 100, 1000) is an available value.
struct ScaleSlip {
  std::string description;  // "ten times too low", "1000 times too low (kHz given for Hz?)"
  std::uint64_t suggestion = 0;
};
std::optional<ScaleSlip> detect_scale_slip(std::uint64_t value,
                                           const std::vector<std::uint64_t>& available,
                                           std::string_view unit);

// ok when value is in available (sorted). Otherwise kUsage: "<flag> <value>: <device> cannot run
// at <value> <unit>: <slip>; did you mean <suggestion>? (available: ... <unit>)", or "...: not an
// available frequency; nearest valid: A or B (available: ...)".
Expected<void> check_frequency(std::string_view flag, std::string_view device, std::uint64_t value,
                               const std::vector<std::uint64_t>& available, std::string_view unit);

// "528000000 1068000000 1560000000 2112000000". Pure.
std::string join_frequencies(const std::vector<std::uint64_t>& values);

}  // namespace tokscope::platform::lock
