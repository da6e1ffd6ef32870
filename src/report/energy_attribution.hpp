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
// the energies are null unless their window is complete.
nlohmann::json request_energy(const EnergySeries& series, const core::TimelineView& timeline,
                              std::uint32_t output_tokens);

}  // namespace tokscope::report
