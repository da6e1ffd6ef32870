#include "core/counters_derived.hpp"

#include <cmath>

namespace tokscope::core {
namespace {

bool usable(std::optional<double> x) {
  return x && std::isfinite(*x);
}

}  // namespace

std::optional<double> instructions_per_cycle(std::optional<double> instructions,
                                             std::optional<double> cycles) noexcept {
  if (!usable(instructions) || !usable(cycles) || *cycles <= 0) return std::nullopt;
  return *instructions / *cycles;
}

std::optional<double> per_token(std::optional<double> count, std::uint64_t tokens) noexcept {
  if (!usable(count) || tokens == 0) return std::nullopt;
  return *count / static_cast<double>(tokens);
}

std::optional<double> estimated_dram_bytes(std::optional<double> line_fills,
                                           double line_bytes) noexcept {
  if (!usable(line_fills) || !(line_bytes > 0) || !std::isfinite(line_bytes)) return std::nullopt;
  return *line_fills * line_bytes;
}

std::optional<double> bandwidth_gbps(std::optional<double> bytes, double seconds) noexcept {
  if (!usable(bytes) || !(seconds > 0) || !std::isfinite(seconds)) return std::nullopt;
  constexpr double kBytesPerGb = 1e9;
  return *bytes / seconds / kBytesPerGb;
}

std::optional<double> bandwidth_utilization(std::optional<double> bytes, double seconds,
                                            double peak_gbps) noexcept {
  const auto gbps = bandwidth_gbps(bytes, seconds);
  if (!gbps || !(peak_gbps > 0) || !std::isfinite(peak_gbps)) return std::nullopt;
  return *gbps / peak_gbps;
}

CounterDerived derive_counter_metrics(const CounterWindowCounts& counts) noexcept {
  CounterDerived out;
  out.line_bytes = counts.line_bytes;
  out.ipc = instructions_per_cycle(counts.instructions, counts.cycles);
  out.instructions_per_token = per_token(counts.instructions, counts.tokens);
  out.cycles_per_token = per_token(counts.cycles, counts.tokens);
  out.dram_bytes = estimated_dram_bytes(counts.dram_line_fills, counts.line_bytes);
  out.dram_bytes_per_token = per_token(out.dram_bytes, counts.tokens);
  out.dram_gbps = bandwidth_gbps(out.dram_bytes, counts.seconds);
  if (counts.peak_gbps) {
    out.bandwidth_utilization =
        bandwidth_utilization(out.dram_bytes, counts.seconds, *counts.peak_gbps);
  }
  return out;
}

}  // namespace tokscope::core
