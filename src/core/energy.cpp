// Implementation of energy.hpp: window energy from counters and power samples, baselines,
// energy per token. Pure; no clock is read here.
#include "core/energy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace tokscope::core {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kNsPerS = 1e9;
constexpr double kUjPerMj = 1e3;
// Power × time to millijoules: µW·ns = 1e-6 W × 1e-9 s = 1e-12 mJ; mW·ns = 1e-9 mJ.
constexpr double kMjPerUwNs = 1e-12;
constexpr double kMjPerMwNs = 1e-9;

// "1.250 s" for a duration in ns, for reasons a reader can act on.
std::string seconds_text(std::int64_t ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(ns) / kNsPerS);
  return buf;
}

std::string number_text(double value) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.6g", value);
  return buf;
}

WindowEnergy unavailable(WindowEnergy result, std::string reason) {
  result.status = EnergyStatus::kUnavailable;
  result.energy_mj = kNaN;
  result.covered_energy_mj = kNaN;
  result.reason = std::move(reason);
  return result;
}

// What the first pass over a series finds: where the usable samples start and end.
struct Coverage {
  std::size_t usable = 0;
  std::int64_t t_first_ns = 0;
  std::int64_t t_last_ns = 0;
};

// Checks the series and the window and fills in the covered part of the window. Returns an
// empty string when an energy can be computed over [covered_t0_ns, covered_t1_ns] of `result`
// (status kComplete or kPartial with its reason set), else the reason it cannot.
std::string cover_window(std::span<const std::int64_t> t_ns, std::span<const double> values,
                         WindowEnergy& result) {
  if (t_ns.size() != values.size()) {
    return "internal: " + std::to_string(t_ns.size()) + " timestamps but " +
           std::to_string(values.size()) + " values";
  }
  if (result.t1_ns < result.t0_ns) {
    return "the window ends " + seconds_text(result.t0_ns - result.t1_ns) + " before it starts";
  }
  Coverage cov;
  for (std::size_t i = 0; i < t_ns.size(); ++i) {
    if (std::isnan(values[i])) continue;
    if (cov.usable > 0 && t_ns[i] <= cov.t_last_ns) {
      return "sample " + std::to_string(i) + " is not later than the sample before it";
    }
    if (cov.usable == 0) cov.t_first_ns = t_ns[i];
    cov.t_last_ns = t_ns[i];
    ++cov.usable;
  }
  if (cov.usable == 0) return "no usable samples (none, or all failed readings)";
  if (cov.usable == 1) return "one usable sample; an energy needs at least two";
  if (result.t1_ns < cov.t_first_ns) {
    return "the window ends " + seconds_text(cov.t_first_ns - result.t1_ns) +
           " before the first sample";
  }
  if (result.t0_ns > cov.t_last_ns) {
    return "the window starts " + seconds_text(result.t0_ns - cov.t_last_ns) +
           " after the last sample";
  }
  result.covered_t0_ns = std::max(result.t0_ns, cov.t_first_ns);
  result.covered_t1_ns = std::min(result.t1_ns, cov.t_last_ns);
  std::string partial;
  if (result.covered_t0_ns > result.t0_ns) {
    partial = "the samples start " + seconds_text(result.covered_t0_ns - result.t0_ns) +
              " after the window starts";
  }
  if (result.covered_t1_ns < result.t1_ns) {
    if (!partial.empty()) partial += "; ";
    partial += "the samples end " + seconds_text(result.t1_ns - result.covered_t1_ns) +
               " before the window ends";
  }
  result.status = partial.empty() ? EnergyStatus::kComplete : EnergyStatus::kPartial;
  result.reason = partial.empty() ? std::string() : partial + " (not extrapolated)";
  return {};
}

// Sets the energies of a covered result from the energy over the covered part, mJ.
WindowEnergy finish(WindowEnergy result, double covered_mj) {
  result.covered_energy_mj = covered_mj;
  result.energy_mj = result.status == EnergyStatus::kComplete ? covered_mj : kNaN;
  return result;
}

// One interval between consecutive usable samples, a → b, clipped to the covered window as
// [lo, hi]. Calls visit(a, b, lo, hi) for every interval that overlaps the covered window by
// more than a point; returns the number of usable samples those intervals touch.
template <class Visit>
std::size_t for_each_overlap(std::span<const std::int64_t> t_ns, std::span<const double> values,
                             const WindowEnergy& result, Visit&& visit) {
  std::size_t touched = 0;
  std::size_t a = t_ns.size();  // previous usable sample; t_ns.size() = none yet
  for (std::size_t b = 0; b < t_ns.size(); ++b) {
    if (std::isnan(values[b])) continue;
    if (a != t_ns.size()) {
      const std::int64_t lo = std::max(t_ns[a], result.covered_t0_ns);
      const std::int64_t hi = std::min(t_ns[b], result.covered_t1_ns);
      if (lo < hi) {
        touched += touched == 0 ? 2 : 1;
        if (!visit(a, b, lo, hi)) return touched;
      }
    }
    a = b;
  }
  return touched;
}

// Fraction of the way from ta to tb at t.
double fraction(std::int64_t ta, std::int64_t tb, std::int64_t t) {
  return static_cast<double>(t - ta) / static_cast<double>(tb - ta);
}

}  // namespace

const char* to_string(EnergyStatus status) noexcept {
  switch (status) {
    case EnergyStatus::kComplete:
      return "complete";
    case EnergyStatus::kPartial:
      return "partial";
    case EnergyStatus::kUnavailable:
      return "unavailable";
  }
  return "unavailable";
}

WindowEnergy energy_from_counter(std::span<const std::int64_t> t_ns,
                                 std::span<const double> energy_uj,
                                 std::optional<double> wrap_at_uj, std::int64_t t0_ns,
                                 std::int64_t t1_ns) {
  WindowEnergy result;
  result.t0_ns = t0_ns;
  result.t1_ns = t1_ns;
  if (std::string why = cover_window(t_ns, energy_uj, result); !why.empty()) {
    return unavailable(std::move(result), std::move(why));
  }
  if (wrap_at_uj && !(std::isfinite(*wrap_at_uj) && *wrap_at_uj > 0)) {
    return unavailable(std::move(result),
                       "internal: wrap value " + number_text(*wrap_at_uj) + " µJ is not positive");
  }
  double covered_uj = 0;
  std::string failure;
  result.samples = for_each_overlap(
      t_ns, energy_uj, result, [&](std::size_t a, std::size_t b, std::int64_t lo, std::int64_t hi) {
        double delta_uj = energy_uj[b] - energy_uj[a];
        if (delta_uj < 0) {
          if (!wrap_at_uj) {
            failure = "the counter decreased from " + number_text(energy_uj[a]) + " to " +
                      number_text(energy_uj[b]) + " µJ at sample " + std::to_string(b) +
                      " and no wrap value (max_energy_range_uj) is known";
            return false;
          }
          delta_uj += *wrap_at_uj;
          ++result.wraps;
          if (delta_uj < 0) {
            failure = "the counter reading " + number_text(energy_uj[a]) + " µJ at sample " +
                      std::to_string(a) + " is above its wrap value " + number_text(*wrap_at_uj);
            return false;
          }
        }
        // The counter is linear between samples, so the clipped part is a share of the delta.
        covered_uj += delta_uj * (fraction(t_ns[a], t_ns[b], hi) - fraction(t_ns[a], t_ns[b], lo));
        result.max_gap_ns = std::max(result.max_gap_ns, t_ns[b] - t_ns[a]);
        return true;
      });
  if (!failure.empty()) return unavailable(std::move(result), std::move(failure));
  return finish(std::move(result), covered_uj / kUjPerMj);
}

WindowEnergy energy_from_power(std::span<const std::int64_t> t_ns, std::span<const double> power,
                               PowerUnit unit, std::int64_t t0_ns, std::int64_t t1_ns) {
  WindowEnergy result;
  result.t0_ns = t0_ns;
  result.t1_ns = t1_ns;
  if (std::string why = cover_window(t_ns, power, result); !why.empty()) {
    return unavailable(std::move(result), std::move(why));
  }
  double covered_unit_ns = 0;  // power unit × ns
  result.samples = for_each_overlap(
      t_ns, power, result, [&](std::size_t a, std::size_t b, std::int64_t lo, std::int64_t hi) {
        const double slope = power[b] - power[a];
        const double p_lo = power[a] + slope * fraction(t_ns[a], t_ns[b], lo);
        const double p_hi = power[a] + slope * fraction(t_ns[a], t_ns[b], hi);
        covered_unit_ns += static_cast<double>(hi - lo) * (p_lo + p_hi) / 2;
        result.max_gap_ns = std::max(result.max_gap_ns, t_ns[b] - t_ns[a]);
        return true;
      });
  const double scale = unit == PowerUnit::kMicrowatt ? kMjPerUwNs : kMjPerMwNs;
  return finish(std::move(result), covered_unit_ns * scale);
}

Expected<double> mean_power_mw(const WindowEnergy& window) {
  if (window.status != EnergyStatus::kComplete) {
    return make_error(ErrorKind::kUnavailable,
                      std::string("no mean power: the energy of the window is ") +
                          to_string(window.status) + " (" + window.reason + ")");
  }
  if (window.t1_ns <= window.t0_ns) {
    return make_error(ErrorKind::kUnavailable, "no mean power over an empty window");
  }
  return window.energy_mj / (static_cast<double>(window.t1_ns - window.t0_ns) / kNsPerS);
}

Expected<NetEnergy> subtract_baseline(const WindowEnergy& gross, double baseline_power_mw,
                                      bool allow_negative) {
  if (gross.status != EnergyStatus::kComplete) {
    return make_error(ErrorKind::kUnavailable,
                      std::string("no net energy: the energy of the window is ") +
                          to_string(gross.status) + " (" + gross.reason + ")");
  }
  if (!std::isfinite(baseline_power_mw) || baseline_power_mw < 0) {
    return make_error(ErrorKind::kUsage, "idle baseline power " + number_text(baseline_power_mw) +
                                             " mW is not a finite power >= 0; measure the "
                                             "baseline over a complete idle window");
  }
  NetEnergy net;
  net.baseline_mj = baseline_power_mw * static_cast<double>(gross.t1_ns - gross.t0_ns) / kNsPerS;
  net.energy_mj = gross.energy_mj - net.baseline_mj;
  if (net.energy_mj < 0) {
    net.note = "energy " + number_text(gross.energy_mj) + " mJ is below the idle baseline's " +
               number_text(net.baseline_mj) +
               " mJ: the baseline was taken in a higher power state (frequency, temperature or "
               "background load) than the measured window";
    if (!allow_negative) {
      net.energy_mj = 0;
      net.clamped = true;
      net.note += "; set to 0";
    }
  }
  return net;
}

std::optional<TimeWindow> prefill_window(const TimelineView& timeline) {
  for (const Chunk& chunk : timeline.chunks) {
    if (chunk.tokens > 0) return TimeWindow{timeline.t_submit_ns, chunk.t_ns};
  }
  return std::nullopt;
}

std::optional<TimeWindow> decode_window(const TimelineView& timeline) {
  const Chunk* first = nullptr;
  const Chunk* last = nullptr;
  std::uint64_t tokens = 0;
  for (const Chunk& chunk : timeline.chunks) {
    if (chunk.tokens == 0) continue;
    if (first == nullptr) first = &chunk;
    last = &chunk;
    tokens += chunk.tokens;
  }
  if (tokens < 2) return std::nullopt;
  return TimeWindow{first->t_ns, last->t_ns};
}

double prefill_mj_per_token(double prefill_energy_mj, std::uint32_t prompt_tokens) noexcept {
  if (prompt_tokens == 0) return kNaN;
  return prefill_energy_mj / static_cast<double>(prompt_tokens);
}

double decode_mj_per_token(double decode_energy_mj, std::uint32_t output_tokens) noexcept {
  if (output_tokens < 2) return kNaN;
  return decode_energy_mj / static_cast<double>(output_tokens - 1);
}

}  // namespace tokscope::core
