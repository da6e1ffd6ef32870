// Per-stratum telemetry time series, cut from the journal's "telemetry" lines by the stratum's
// time window (its first request's t_request_ns to its last request's t_done_ns, warm-ups
// included: they heat the chip too). Pure.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

namespace tokscope::report {

// {"t_ms": [since the window start], "throttled": [...], "channels": {name: [values/null]},
//  "throttled_rows": k}, or null when there are no channels or no rows in the window.
// channels: the header's environment.telemetry.channels; lines: the journal telemetry lines.
nlohmann::json stratum_series(const nlohmann::json& channels,
                              const std::vector<nlohmann::json>& lines, std::int64_t t0_ns,
                              std::int64_t t1_ns);

}  // namespace tokscope::report
