// Reading the inputs of `tokscope doctor` (checks.hpp) under an injectable root: the sysfs
// readers, the lock plan, cpuidle states, /proc/<pid>/stat CPU times sampled twice,
// /proc/self/limits, this binary's build type and a hardware counter probe. A source that is
// missing or unreadable is never an error here: it leaves the input absent with its reason, and
// the check becomes an info "unavailable: …" finding.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "platform/doctor/checks.hpp"

namespace tokscope::platform::doctor {

// The CPU time of one process at one instant, from /proc/<pid>/stat.
struct ProcStat {
  int pid = 0;
  std::string comm;
  std::uint64_t cpu_ticks = 0;  // utime + stime, clock ticks (sysconf(_SC_CLK_TCK))
};

// One /proc/<pid>/stat line → pid, comm and utime+stime (fields 14 and 15). comm may hold
// spaces and parentheses, so it runs to the last ')'. kInput naming what is missing. Pure.
Expected<ProcStat> parse_proc_stat(std::string_view text);

// Each process's CPU use between two snapshots taken elapsed_s apart, as % of one core,
// excluding exclude_pid (tokscope itself), sorted by cpu_pct descending (then pid). A process
// only in `after` started during the interval: all its ticks count. A process whose ticks went
// down is a reused pid and counts from 0 as well. Processes with 0 ticks are left out.
// elapsed_s <= 0 or ticks_per_s <= 0 gives an empty list. Pure.
std::vector<ProcessCpuUsage> cpu_usage_between(const std::vector<ProcStat>& before,
                                               const std::vector<ProcStat>& after, double elapsed_s,
                                               double ticks_per_s, int exclude_pid);

// Every readable root/proc/<digits>/stat (processes exiting while listed are skipped).
std::vector<ProcStat> read_proc_stats(const std::filesystem::path& root);

// The soft "Max locked memory" of a /proc/<pid>/limits text, bytes; nullopt when "unlimited".
// kInput when the line is missing or malformed. Pure.
Expected<std::optional<std::uint64_t>> parse_memlock_limit(std::string_view limits_text);

// Every root/sys/devices/system/cpu/cpuN/cpuidle/stateK, sorted by cpu then state. `unavailable`
// gets the reason when there is none.
std::vector<CpuIdleState> read_cpuidle(const std::filesystem::path& root, std::string& unavailable);

struct GatherOptions {
  std::filesystem::path root = "/";
  // Between the two /proc/<pid>/stat snapshots; 0 takes no second snapshot and leaves the
  // cpu-load check unavailable (tests).
  double interval_s = 1.0;
  std::optional<std::filesystem::path> model_file;  // its size is the mlock need
  // Open hardware counters for this process. nullopt: only when root is "/" (counters belong
  // to the running kernel, not to a copied tree).
  std::optional<bool> probe_counters;
  std::optional<int> self_pid;  // excluded from cpu-load; nullopt: getpid()
};

// Reads everything under options.root. Errors: kUsage for a negative or non-finite interval;
// kInput for a --model-file that cannot be stat'ed. Sleeps interval_s.
Expected<DoctorInputs> gather_inputs(const GatherOptions& options);

}  // namespace tokscope::platform::doctor
