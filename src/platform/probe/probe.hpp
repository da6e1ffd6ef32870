// `tokscope probe`: measures this machine's memory bandwidth (the B of the decode ceiling
// B / (W + K·c)) and compute peaks (the P of the prefill ceiling) with tokscope's own kernels,
// on all cpus and on each core type, and returns one JSON document:
//
//   schema                    "tokscope.probe/1"
//   tokscope_version, git_commit, started_at, finished_at (UTC ISO 8601), duration_s
//   quick                     true: small arrays, not a bandwidth figure (never cached)
//   identity                  {kernel_release, cpu, logical_cpus}: the cache key
//   machine                   {hostname, kernel_release, arch, cpu, logical_cpus}
//   topology                  {online_cpus "0-7", online_unavailable?, grouping, llc {level, type,
//                             bytes} | "unavailable: ...", core_types [{name, role, cpus,
//                             capacity?, part?, max_freq_khz?}], notes [...]}
//   memory                    {array_bytes, elements, array_size_reason, repetitions,
//                             warmup_passes, bytes_counted, gb, groups [{name, core_type, cpus,
//                             threads, pin_failures [...], kernels {sum|copy|scale|add|triad:
//                             {bytes_per_pass, best_gbps, avg_gbps, min_gbps, max_gbps,
//                             seconds [...]}}}]}
//   compute                   {groups [{name, cpus, threads, fp32_fma {isa, best_gflops,
//                             avg_gflops, min_gflops, max_gflops, per_core_best_gflops,
//                             iterations, ops_per_pass, seconds, pin_failures}, int8_dot {isa,
//                             best_gops, ...}}], isas_available {fp32_fma [...], int8_dot [...]}}
//                             or {"skipped": reason}
//   peak_read_bandwidth_gbps  the sum kernel's best GB/s on all selected cpus: the roofline's B
//   peak_fp32_gflops, peak_int8_gops   best on all selected cpus (absent when compute skipped)
//   notes                     [...] what was missing or could not be done (pinning, sizes)
//
// Groups are named "all" (every selected cpu) and then each core type's name ("Cortex-A55",
// "Cortex-A76") when the topology has more than one; with one core type "all" is that type.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "platform/probe/probe_cache.hpp"

namespace tokscope::platform::probe {

inline constexpr std::string_view kProbeSchema = "tokscope.probe/1";

struct ProbeOptions {
  std::filesystem::path root = "/";  // sysfs/procfs root for topology and meminfo (tests: fixture)
  std::vector<int> cpus;             // empty: every online cpu; else exactly these (online ones)
  bool per_core_type = true;         // also run each core type's cpus when there are several
  std::uint64_t array_bytes = 0;     // per array; 0: max(4 × LLC, 64 MiB) (quick: 2 MiB)
  int repetitions = 0;               // timed memory passes; 0: 10 (quick: 3)
  bool quick = false;                // smoke/tests: small arrays, 3 reps, 10 ms compute passes
  bool compute = true;               // also measure fp32 FMA and int8 dot-product peaks
  double compute_seconds = 0;        // one timed compute pass; 0: 0.2 s (quick: 0.01 s)
};

// Runs the probe; blocks for tens of seconds on a full run (the arrays are 3 × 4 × LLC; the VM
// this was written on has a 480 MiB LLC, so 5.6 GiB). Errors: kUsage (bad options, a cpu that is
// not online), kUnavailable (no memory for the arrays), kInternal (a kernel produced a wrong
// result or a thread could not start). Pinning failures are reported in the document, not
// errors. Does not touch the cache: the caller stores the result (store_cached_probe).
Expected<nlohmann::json> run_probe(const ProbeOptions& options);

// The bytes per array, and why that many. Pure.
//   requested > 0  → requested ("requested")
//   quick          → 2 MiB ("quick: ...")
//   otherwise      → max(4 × llc, 64 MiB), or 64 MiB when the LLC is unknown
// then capped so the three arrays take at most half of mem_available (when known), rounded down
// to a multiple of 1 MiB, with the cap stated in the reason.
struct ArraySize {
  std::uint64_t bytes = 0;
  std::string reason;
};
ArraySize choose_array_bytes(std::optional<std::uint64_t> llc_bytes, std::uint64_t requested,
                             bool quick, std::optional<std::uint64_t> mem_available_bytes);

// "MemAvailable:  23767 kB" from /proc/meminfo text → bytes (kB = 1024). Pure.
std::optional<std::uint64_t> parse_mem_available(std::string_view meminfo_text);

}  // namespace tokscope::platform::probe
