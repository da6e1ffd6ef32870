// `tokscope doctor`: the pre-flight checklist as pure functions. gather.hpp reads a DoctorInputs
// under a root; run_checks() turns it into one Finding per check, every time (severity ok when
// fine), so the checklist printed is always complete.
//
// Severities (docs/doctor.md):
//   blocking  measurements taken now would be wrong, not merely noisy: a debug or sanitizer
//             build (its numbers are not the product's), a thermal zone at or over its passive
//             trip (the kernel is throttling), other processes using more than
//             kBlockingOtherCpuPct of a core in total (they take the cores being measured).
//   warning   measurements are valid but less repeatable or less comparable: frequencies not
//             locked, zram/swappiness, thermal headroom below kMinHeadroomC, deep idle states,
//             counters unavailable, a low mlock limit, some other process above
//             kBusyProcessPct.
//   info      the check could not run here ("unavailable: <reason>") or was skipped.
//   ok        checked and fine.
// Fixes are written for the machine the tree comes from: paths are the board's (/sys/...), also
// when --sysfs-root points at a copy.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "platform/sysfs/cpufreq.hpp"
#include "platform/sysfs/devfreq.hpp"
#include "platform/sysfs/memory_state.hpp"
#include "platform/sysfs/thermal.hpp"

namespace tokscope::platform::doctor {

enum class Severity { kBlocking, kWarning, kInfo, kOk };  // in the order the checklist sorts

const char* to_string(Severity severity) noexcept;  // "blocking", "warning", "info", "ok"

struct Finding {
  std::string id;  // the check: "build", "governors", … (kCheckIds)
  Severity severity = Severity::kInfo;
  std::string title;             // one line: what is wrong or fine
  std::string detail;            // what was read, naming the file
  std::vector<std::string> fix;  // exact shell commands or flags, one per element; empty when ok
};

// Every check id, in checklist order.
inline constexpr std::string_view kCheckIds[] = {"build",    "thermal", "cpu-load", "governors",
                                                 "ddr",      "npu",     "swap",     "cpuidle",
                                                 "counters", "memlock"};

inline constexpr double kMinHeadroomC = 15.0;         // below: warning
inline constexpr double kBusyProcessPct = 5.0;        // % of one core: a process worth naming
inline constexpr double kBlockingOtherCpuPct = 50.0;  // % of one core, all others together
inline constexpr int kMaxSwappiness = 10;             // above: warning
inline constexpr std::uint64_t kMinMemlockBytes = std::uint64_t{1} << 30;  // 1 GiB

// One cpuidle state of one cpu: sys/devices/system/cpu/cpuN/cpuidle/stateK.
struct CpuIdleState {
  int cpu = 0;
  int state = 0;                            // K
  std::string name;                         // "WFI", "cpu-sleep", "POLL", "" when unread
  std::optional<std::uint64_t> latency_us;  // exit latency
  std::optional<bool> disabled;             // "disable" file; nullopt when unread
};

// CPU time of one process over the sampling interval.
struct ProcessCpuUsage {
  int pid = 0;
  std::string comm;
  double cpu_pct = 0;  // % of one core (200 = two cores busy)
};

// One requested hardware counter event: "" when it counts, else "unavailable: <reason>".
struct CounterProbe {
  std::string event;
  std::string unavailable;
};

struct DoctorInputs {
  std::filesystem::path root = "/";

  CpufreqState cpufreq;
  DevfreqState devfreq;
  ThermalState thermal;
  MemoryState memory;

  // What `tokscope lock` would write, per lock channel name ("cpufreq.policy4", "devfreq.dmc"):
  // "echo V | sudo tee /sys/...", board paths. Empty when nothing could be planned.
  std::map<std::string, std::vector<std::string>> lock_writes;

  std::string build_type;  // CMAKE_BUILD_TYPE of this binary ("Release", "Debug", "")
  std::string sanitizer;   // TOKSCOPE_SANITIZE ("" or "address,undefined")

  std::optional<std::uint64_t> memlock_bytes;  // soft RLIMIT_MEMLOCK; nullopt: unknown
  bool memlock_unlimited = false;
  bool memlock_privileged = false;  // CAP_IPC_LOCK (root): RLIMIT_MEMLOCK does not apply
  std::string memlock_source;       // the file read, or "getrlimit(RLIMIT_MEMLOCK)"
  std::string memlock_unavailable;  // reason when unknown

  std::optional<std::uint64_t> model_file_bytes;  // --model-file
  std::string model_file;

  // Other processes' CPU use over interval_s, sorted by cpu_pct descending; nullopt when not
  // measured (reason in cpu_usage_unavailable).
  std::optional<std::vector<ProcessCpuUsage>> cpu_usage;
  double interval_s = 0;
  std::string cpu_usage_unavailable;

  std::vector<CpuIdleState> cpuidle;
  std::string cpuidle_unavailable;  // why no state was read ("" when some were)

  // Hardware counters opened for this process; empty with counters_unavailable set when not
  // probed (a --sysfs-root tree: counters belong to the running kernel).
  std::vector<CounterProbe> counters;
  std::optional<int> perf_event_paranoid;
  std::string counters_unavailable;
};

// The checklist: one finding per id of kCheckIds, in that order. Pure.
std::vector<Finding> run_checks(const DoctorInputs& inputs);

// The findings of the ids in `skip` become info "skipped (--skip <id>)", their previous
// severity and detail kept in the detail. kUsage naming the id for one that is not in kCheckIds.
// Pure.
Expected<std::vector<Finding>> apply_skips(std::vector<Finding> findings,
                                           const std::vector<std::string>& skip);

// Stable sort blocking → warning → info → ok (checklist order within a severity). Pure.
void sort_by_severity(std::vector<Finding>& findings);

// Number of findings of a severity. Pure.
std::size_t count(const std::vector<Finding>& findings, Severity severity) noexcept;

// {"id", "severity", "title", "detail", "fix": [...]}.
nlohmann::json to_json(const Finding& finding);

}  // namespace tokscope::platform::doctor
