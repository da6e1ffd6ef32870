// User-facing counter event names → the perf_event_attr encodings to open, one per CPU PMU on a
// machine with several (big.LITTLE). Names are tried in this order:
//  1. perf's generic names from a built-in table, so the common ones need no libpfm:
//     hardware (instructions, cycles, cache-misses, branch-misses, …), hardware cache
//     (L1-dcache-load-misses, LLC-load-misses, …) and software (task-clock, context-switches,
//     page-faults, cpu-migrations, …);
//  2. raw codes "rNNN" (hex, perf's syntax): PERF_TYPE_RAW, or each CPU PMU's own type;
//  3. events a CPU PMU lists in sysfs (ARM: bus_access, l2d_cache_refill, inst_retired, …),
//     encoded from its events/ and format/ files; when no CPU PMU lists the name, any other PMU
//     that does (x86 "cpu", which has no "cpus" file);
//  4. libpfm4 names (arm_ac76::L2D_CACHE_REFILL, perf::…) via pfm_get_os_event_encoding.
// A name none of these know is a kUsage error listing examples. A name that is known but cannot
// be counted here (an ARMv8 event on an x86 PC, a libpfm PMU this libpfm lacks) resolves with
// `unavailable` set, so one event list works on the board and on a PC.
//
// Several CPU PMUs (RK3588 mainline: armv8_cortex_a55 on cpus 0-3, armv8_cortex_a76 on 4-7;
// Intel hybrid: cpu_atom, cpu_core): a task-bound event on one PMU counts only while the task runs
// on that PMU's cpus, so every hardware event is opened once per CPU PMU and the counts are
// summed. Generic hardware events become the PMU's own sysfs event when it lists the ARMv8
// equivalent (instructions → inst_retired, cycles → cpu_cycles, cache-misses →
// l1d_cache_refill, …: the kernel's PMUv3 mapping), which works on every kernel; otherwise the
// PMU type goes in config bits 32-63 (PERF_PMU_TYPE_SHIFT, "extended type"), which older kernels
// refuse with an error rather than miscount. With one CPU PMU (x86 "cpu", a BSP kernel's single
// armv8_pmuv3) or none, events are opened once as they are.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/expected.hpp"
#include "platform/perf/pfm_encoder.hpp"
#include "platform/perf/pmu.hpp"

namespace tokscope::platform::perf {

// perf_event_attr.type values (uapi linux/perf_event.h), named here so callers need not include
// the kernel header.
inline constexpr std::uint32_t kTypeHardware = 0;
inline constexpr std::uint32_t kTypeSoftware = 1;
inline constexpr std::uint32_t kTypeHwCache = 3;
inline constexpr std::uint32_t kTypeRaw = 4;
inline constexpr int kPmuTypeShift = 32;  // PERF_PMU_TYPE_SHIFT: extended hardware type

// One perf_event_attr to open.
struct EventEncoding {
  std::string pmu;  // the PMU it is opened on; "" when the kernel picks (generic, software, raw)
  // One of several per-cluster CPU PMUs: counts only while the task runs on that PMU's cpus.
  bool per_cluster = false;
  std::uint32_t type = 0;
  ConfigWords words;
  bool operator==(const EventEncoding&) const = default;
};

struct ResolvedEvent {
  std::string name;    // as written by the user
  std::string source;  // how it was resolved: "perf generic", "raw", "sysfs", "libpfm <canonical>"
  bool software = false;                 // a kernel software event: one open, never multiplexed
  std::vector<EventEncoding> encodings;  // empty when unavailable
  std::string unavailable;               // "" or "unavailable: reason"
  std::string note;                      // e.g. which CPU PMUs do not list the event
};

// Some names that resolve, for error messages and help text.
std::vector<std::string> example_event_names();

// Owns the PMU list of one machine (read once, at construction) and a PfmEncoder.
// Thread-safety: not thread-safe (see PfmEncoder); resolve on one thread, before measuring.
class EventResolver {
 public:
  // Discovers PMUs under root ("/" on a live system).
  explicit EventResolver(const std::filesystem::path& root = "/");
  // A given PMU list (tests).
  explicit EventResolver(PmuList pmus);

  // include_kernel only selects libpfm's privilege levels; counting domains are set at open.
  Expected<ResolvedEvent> resolve(const std::string& name, bool include_kernel = true);

  [[nodiscard]] const PmuList& pmus() const noexcept { return pmus_; }
  [[nodiscard]] const std::vector<PmuInfo>& cpu_pmu_list() const noexcept { return cpu_pmus_; }

 private:
  ResolvedEvent hardware(const std::string& name, std::uint32_t type, std::uint64_t config,
                         const char* arm_alias, std::string source) const;
  ResolvedEvent raw(const std::string& name, const ConfigWords& words, std::string source) const;

  PmuList pmus_;
  std::vector<PmuInfo> cpu_pmus_;
  PfmEncoder pfm_;
};

}  // namespace tokscope::platform::perf
