// An external power meter's log (`--power-log FILE`, docs/power-log.md) placed on a run's
// timeline and turned into the energy series the result builder integrates per phase.
//
// The offset between the log's clock and tokscope's comes from, in this order:
//  1. --power-log-offset-s S (the user knows it);
//  2. the marker pulse the run made (`bench --marker-pulse`, kept in the journal header's
//     environment.marker_pulse), found in the log by platform::find_marker_pulse;
//  3. for a log in Unix time (epoch numbers or ISO-8601 with a zone), the run's clock sync point
//     (environment.clock_sync: tokscope's clock and CLOCK_REALTIME read together) — right when
//     the meter was logged by this machine or one whose clock agrees with it (NTP).
// Otherwise a kUsage error says which of the three to provide. Pure (no I/O, no clock).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/expected.hpp"
#include "platform/power_log.hpp"
#include "report/energy_attribution.hpp"

namespace tokscope::run {

struct RunPowerLog {
  report::EnergySeries series;  // power samples, µW, on tokscope's timeline
  // {"file", "rows", "median_period_ms", "time_column", "power_from", "clock", "offset_ns",
  //  "method", "pulse": {edge_log_ns, uncertainty_ns, snr, runner_up_ratio, pulse_mw, idle_mw}
  //  | null, "notes": [...]} for the result's environment.power_log.
  nlohmann::json info;
};

// environment: the journal header's environment object.
Expected<RunPowerLog> align_run_power_log(const platform::PowerLog& log,
                                          const nlohmann::json& environment,
                                          std::optional<double> offset_s);

// Reads the file (platform::read_power_log) and aligns it. Errors name the file and the fix.
Expected<RunPowerLog> load_run_power_log(const std::string& path, const nlohmann::json& environment,
                                         std::optional<double> offset_s);

}  // namespace tokscope::run
