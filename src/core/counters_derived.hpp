// Figures derived from performance-counter counts of one window (the prefill or the decode of a
// request). Pure: numbers in, numbers out. A figure whose inputs are missing (an unavailable
// counter: nullopt), or that would divide by zero, is nullopt, never NaN or 0.
//
// The DRAM estimate is a model, not a measurement: bytes = line fills × line size, where the
// fills come from whichever counter the caller trusts for "lines brought in from beyond the
// last cache" (ARM: l3d_cache_refill, ll_cache_miss_rd, bus_access_rd; x86: LLC-load-misses).
// It ignores write-backs and counts prefetched lines only when the event does, so it is a
// rough lower bound of read traffic, good for comparing runs on one machine. The line size is
// 64 bytes unless stated (the Cortex-A55/A76 and x86 cache line). GB are 10^9 bytes, as
// memory bandwidth figures are quoted (33.8 GB/s for RK3588 LPDDR4X-4224).
#pragma once

#include <cstdint>
#include <optional>

namespace tokscope::core {

inline constexpr double kDefaultCacheLineBytes = 64.0;

// instructions / cycles.
std::optional<double> instructions_per_cycle(std::optional<double> instructions,
                                             std::optional<double> cycles) noexcept;

// count / tokens (events per generated or prompt token).
std::optional<double> per_token(std::optional<double> count, std::uint64_t tokens) noexcept;

// line_fills × line_bytes. nullopt for a missing count or a line size that is not positive.
std::optional<double> estimated_dram_bytes(std::optional<double> line_fills,
                                           double line_bytes = kDefaultCacheLineBytes) noexcept;

// bytes / seconds / 1e9.
std::optional<double> bandwidth_gbps(std::optional<double> bytes, double seconds) noexcept;

// Achieved bandwidth as a fraction of peak_gbps (1.0 = the whole bus; above 1 means the
// estimate or the peak is wrong).
std::optional<double> bandwidth_utilization(std::optional<double> bytes, double seconds,
                                            double peak_gbps) noexcept;

// The counts of one window and what they are divided by.
struct CounterWindowCounts {
  std::optional<double> instructions;
  std::optional<double> cycles;
  std::optional<double> dram_line_fills;  // the caller's chosen line-fill counter
  double seconds = 0;                     // window length, s
  std::uint64_t tokens = 0;               // tokens of the window (prompt or generated)
  double line_bytes = kDefaultCacheLineBytes;
  std::optional<double> peak_gbps;  // the bus's peak, GB/s (a profile or the probe)
};

struct CounterDerived {
  double line_bytes = kDefaultCacheLineBytes;  // line size the DRAM estimate assumed, bytes
  std::optional<double> ipc;
  std::optional<double> instructions_per_token;
  std::optional<double> cycles_per_token;
  std::optional<double> dram_bytes;             // estimate, bytes
  std::optional<double> dram_bytes_per_token;   // estimate, bytes
  std::optional<double> dram_gbps;              // estimate, GB/s
  std::optional<double> bandwidth_utilization;  // dram_gbps / peak_gbps
};

CounterDerived derive_counter_metrics(const CounterWindowCounts& counts) noexcept;

}  // namespace tokscope::core
