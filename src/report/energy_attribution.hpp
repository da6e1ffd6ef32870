// Energy per phase of each request, from the run's telemetry rows (journal "telemetry" lines):
// the prefill window [t_submit, first token] and the decode window [first token, last token]
// (docs/metrics.md), integrated from a cumulative energy counter (RAPL energy_uj, hwmon
// energy*_input) or, failing that, from power samples (hwmon power*_input, trapezoid). Done when
// the result is built, not when the request completes, so the row after each window is there.
// Pure.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/timeline.hpp"

namespace tokscope::report {

// One channel's samples over the whole run.
struct EnergySeries {
  std::string channel;            // "rapl.package-0.energy_uj", "hwmon.ina226.power1_uw", …
  bool cumulative = false;        // an energy counter (µJ) rather than power samples (µW)
  std::optional<double> wrap_at;  // counter modulus (RAPL max_energy_range_uj)
  std::vector<std::int64_t> t_ns;
  std::vector<double> values;  // NaN where unreadable
};

// Picks the channel that best measures the whole chip: a RAPL package counter, else any RAPL
// counter, else an hwmon energy counter, else an hwmon power input. nullopt when none.
// channels: the header's environment.telemetry.channels.
std::optional<EnergySeries> energy_series(const nlohmann::json& channels,
                                          const std::vector<nlohmann::json>& lines);

// {"source", "prefill_mj", "decode_mj", "prefill_mj_per_token", "decode_mj_per_token",
//  "status": {"prefill": "complete" | "partial: …" | "unavailable: …", "decode": …}};
// the energies are null unless their window is complete. With idle_baseline_mw (subtraction
// asked for): also "prefill_net_mj", "decode_net_mj", "prefill_net_mj_per_token",
// "decode_net_mj_per_token" (energy − baseline power × window duration; a negative net is set to
// 0 and listed in "net_clamped": ["prefill"|"decode"]).
nlohmann::json request_energy(const EnergySeries& series, const core::TimelineView& timeline,
                              std::uint32_t output_tokens,
                              std::optional<double> idle_baseline_mw = std::nullopt);

// The idle baseline: time-weighted mean power of the series over [t0_ns, t1_ns] (the run's idle
// window, `bench --idle-baseline-s`). {"source", "t0_ns", "t1_ns", "window_s", "power_mw":
// number | null, "status": "complete" | "partial: …" | "unavailable: …"}.
nlohmann::json idle_baseline(const EnergySeries& series, std::int64_t t0_ns, std::int64_t t1_ns);

}  // namespace tokscope::report
