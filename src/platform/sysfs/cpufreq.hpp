// cpufreq policies (Documentation/admin-guide/pm/cpufreq.rst): one directory
// sys/devices/system/cpu/cpufreq/policyN per group of cpus sharing a clock (RK3588: policy0 =
// cpus 0-3 Cortex-A55, policy4 = 4-5 and policy6 = 6-7 Cortex-A76; intel_pstate: one per cpu).
// Every frequency is in kHz, as the kernel prints it. Read under an injectable root; missing or
// malformed files follow the contract of sysfs_file.hpp. Nothing is cached.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"

namespace tokscope::platform {

struct CpufreqPolicy {
  int policy = 0;                  // N of policyN (the first cpu of the policy)
  std::filesystem::path dir;       // root/sys/devices/system/cpu/cpufreq/policyN
  std::vector<int> affected_cpus;  // online cpus this policy drives now
  std::vector<int> related_cpus;   // every cpu sharing the clock, online or not
  std::string driver;              // scaling_driver ("cpufreq-dt", "intel_pstate"), "" unread
  std::string governor;            // scaling_governor ("schedutil", "powersave"), "" unread
  // scaling_cur_freq (what the governor last set), or cpuinfo_cur_freq (the driver's get(),
  // root-only) when the former is unreadable; kHz.
  std::optional<std::uint64_t> cur_khz;
  std::string cur_source;  // "scaling_cur_freq", "cpuinfo_cur_freq" or "" (cur_khz absent)
  std::optional<std::uint64_t> scaling_min_khz;  // limits the governor works within
  std::optional<std::uint64_t> scaling_max_khz;
  std::optional<std::uint64_t> cpuinfo_min_khz;  // what the hardware allows
  std::optional<std::uint64_t> cpuinfo_max_khz;
  // scaling_available_frequencies, as listed; empty for drivers without a frequency table
  // (intel_pstate, amd-pstate) or when unreadable.
  std::vector<std::uint64_t> available_khz;
  std::vector<std::string> available_governors;  // scaling_available_governors
};

struct CpufreqState {
  std::vector<CpufreqPolicy> policies;   // sorted by policy number
  std::vector<std::string> unavailable;  // "unavailable: ..." lines, see sysfs_file.hpp
};

// A cpufreq cpu list ("0 1 2 3\n": space-separated ids, unlike the ranges of cpu/online) →
// the ids in order. kInput error naming the first word that is not a cpu id. Pure.
Expected<std::vector<int>> parse_cpufreq_cpus(std::string_view text);

// Reads every policyN under root/sys/devices/system/cpu/cpufreq. No cpufreq directory (most VMs)
// gives no policies and one unavailable line.
CpufreqState read_cpufreq(const std::filesystem::path& root);

}  // namespace tokscope::platform
