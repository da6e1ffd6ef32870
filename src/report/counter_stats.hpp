// A stratum's performance-counter statistics, from the "counters" of its request records
// (run/counter_record.hpp), recomputed from the raw counts so that `tokscope report JOURNAL`
// gives what bench gave. Pure.
//
//   {"scope": "process",
//    "overlapping": bool,  // concurrency > 1: each window also holds the other requests' work
//    "note": "…" | null,
//    "prefill": {event: stat object (metric_stats.hpp) + "unavailable"? + "scaled_requests"?},
//    "decode":  {…},
//    "derived": {"line_fill_event": name | null, "line_bytes": 64, "peak_gbps": x | null,
//                "prefill": {"ipc", "instructions_per_token", "cycles_per_token",
//                            "dram_bytes_per_token_estimate", "dram_gbps_estimate",
//                            "bandwidth_utilization"}, "decode": {…}}}
// Each derived figure is computed per request (core/counters_derived.hpp) and then summarized
// like any metric. Windows: prefill t_submit → t_token[0] over prompt_tokens; decode t_token[0]
// → t_done over the tokens after the first chunk. When the windows overlap (concurrency > 1)
// the per-token, DRAM and bandwidth figures are null (they would count other requests' work);
// IPC, a ratio of the same counted work, is kept.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tokscope::report {

// Candidates for the DRAM line-fill event when the plan names none, in order of preference.
const std::vector<std::string>& default_line_fill_events();

// members: indices into requests of the stratum's measured requests (warm-ups, failed and
// discarded requests already left out). stratum: its "concurrency" and "ceiling.bandwidth_gbps"
// (the peak for bandwidth_utilization) are read. settings: the plan ("counter_line_fill_event").
// Null when no member carries counters.
nlohmann::json stratum_counters(const std::vector<nlohmann::json>& requests,
                                const std::vector<std::size_t>& members,
                                const nlohmann::json& stratum, const nlohmann::json& settings,
                                std::uint64_t seed, int resamples);

}  // namespace tokscope::report
