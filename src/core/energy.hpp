// Energy over a time window, from the two kinds of series a power source gives, and energy per
// token of the two phases (docs/metrics.md). Pure: no I/O, no clocks, no globals.
//
// Series are parallel spans: t_ns[i] (nanoseconds on tokscope's monotonic timeline) and
// value[i]. Several channels read at the same instants can share one t_ns span.
//   - A NaN value is a failed reading (platform::kNoReading) and is skipped: the series is the
//     polyline through the remaining samples.
//   - Timestamps of the non-NaN samples must increase strictly; otherwise the result is
//     kUnavailable with a reason naming the sample index.
// Between samples a quantity is interpolated linearly: for a cumulative counter that is the
// counter's value (so the total over a window is exact at samples and split linearly inside a
// sample interval); for power samples it is the power (trapezoid rule).
//
// A window [t0_ns, t1_ns] that is not covered by the samples is never extrapolated: the result
// is kPartial (energy_mj NaN, covered_energy_mj over the covered part and why) or kUnavailable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>

#include "core/expected.hpp"
#include "core/timeline.hpp"

namespace tokscope::core {

enum class EnergyStatus {
  kComplete,     // the samples cover the whole window: energy_mj is the energy over it
  kPartial,      // they cover only [covered_t0_ns, covered_t1_ns]: energy_mj is NaN
  kUnavailable,  // no energy can be given for any part of the window (reason says why)
};

const char* to_string(EnergyStatus status) noexcept;

struct WindowEnergy {
  EnergyStatus status = EnergyStatus::kUnavailable;
  std::int64_t t0_ns = 0;  // the window asked for
  std::int64_t t1_ns = 0;
  // Energy over [t0_ns, t1_ns], millijoules; NaN unless status is kComplete.
  double energy_mj = std::numeric_limits<double>::quiet_NaN();
  // Energy over the covered part [covered_t0_ns, covered_t1_ns], mJ (equal to energy_mj when
  // complete; NaN when unavailable).
  double covered_energy_mj = std::numeric_limits<double>::quiet_NaN();
  std::int64_t covered_t0_ns = 0;
  std::int64_t covered_t1_ns = 0;
  // Longest interval between consecutive usable samples that overlaps the window, ns: over it
  // the energy split (counter) or the power (samples) was interpolated, so a long gap says the
  // figure rests on few readings.
  std::int64_t max_gap_ns = 0;
  std::size_t samples = 0;  // usable (non-NaN) samples inside the window or bracketing it
  std::uint32_t wraps = 0;  // counter wrap-arounds inside the window (counter input only)
  std::string reason;       // "" when complete; otherwise what is missing, in words
};

// Energy over [t0_ns, t1_ns] from a cumulative energy counter: energy_uj[i] is the counter, µJ,
// read at t_ns[i] (RAPL energy_uj). The counter wraps to 0 after wrap_at_uj (RAPL
// max_energy_range_uj): a decrease between consecutive usable samples is taken as exactly one
// wrap, adding wrap_at_uj (the counter's true modulus may exceed max_energy_range_uj by one
// counter unit, a few dozen µJ on RAPL; that is ignored). Sampling must be fast enough that the
// counter cannot wrap twice between two readings; more than one wrap is undetectable. A
// decrease without wrap_at_uj makes the result kUnavailable. t0_ns <= t1_ns.
WindowEnergy energy_from_counter(std::span<const std::int64_t> t_ns,
                                 std::span<const double> energy_uj,
                                 std::optional<double> wrap_at_uj, std::int64_t t0_ns,
                                 std::int64_t t1_ns);

enum class PowerUnit { kMicrowatt, kMilliwatt };

// Energy over [t0_ns, t1_ns] by trapezoid integration of power samples (power[i] in `unit`,
// read at t_ns[i]), the power interpolated linearly at the window's edges. t0_ns <= t1_ns.
WindowEnergy energy_from_power(std::span<const std::int64_t> t_ns, std::span<const double> power,
                               PowerUnit unit, std::int64_t t0_ns, std::int64_t t1_ns);

// Mean power over the window of a complete result, mW: energy_mj / duration. This is the
// time-weighted mean, not the mean of the samples (which over-weights bursts of fast sampling).
// Used as the idle baseline when the window is an idle period. kUnavailable error when the
// result is not complete, and for an empty window (duration 0).
Expected<double> mean_power_mw(const WindowEnergy& window);

// Energy above an idle baseline: energy_mj - baseline_power_mw × duration.
struct NetEnergy {
  double energy_mj = 0;    // net energy, mJ; never below 0 unless allow_negative was given
  double baseline_mj = 0;  // baseline_power_mw × window duration, mJ
  bool clamped = false;    // the net energy came out negative and was set to 0
  std::string note;        // "" or why the value was clamped / is negative
};

// Subtracts the baseline from a complete result. A net energy below zero means the baseline
// was taken in a higher power state than the measured window (another frequency, temperature
// or background load); it is set to 0 and marked clamped, with a note, unless allow_negative
// (then it is kept, with the same note). kUnavailable error when `gross` is not complete;
// kUsage error for a baseline that is negative or not finite.
Expected<NetEnergy> subtract_baseline(const WindowEnergy& gross, double baseline_power_mw,
                                      bool allow_negative);

// A time window on tokscope's timeline, ns; t0_ns <= t1_ns.
struct TimeWindow {
  std::int64_t t0_ns = 0;
  std::int64_t t1_ns = 0;
};

// The prefill window of a request: [t_submit, t_token[0]], the interval ttft_ms measures.
// nullopt when the request produced no token.
std::optional<TimeWindow> prefill_window(const TimelineView& timeline);

// The decode window of a request: [t_token[0], t_token[n-1]], the interval the n - 1 ITLs of
// the request add up to. nullopt for fewer than two tokens. When all tokens came in the first
// chunk the window is empty (t0 = t1), as their ITLs are 0 (docs/metrics.md).
std::optional<TimeWindow> decode_window(const TimelineView& timeline);

// Prefill energy per prompt token, mJ/token: prefill energy / prompt_tokens. NaN when
// prompt_tokens is 0 or the energy is NaN (a partial or unavailable window).
double prefill_mj_per_token(double prefill_energy_mj, std::uint32_t prompt_tokens) noexcept;

// Decode energy per generated token, mJ/token: decode energy / (output_tokens - 1). A request
// of n tokens has n - 1 decode steps: the first token is the product of prefill and its energy
// is in the prefill window, exactly as ITL and TPOT count (docs/metrics.md). NaN for fewer
// than two output tokens or a NaN energy.
double decode_mj_per_token(double decode_energy_mj, std::uint32_t output_tokens) noexcept;

}  // namespace tokscope::core
