// The "counters" field of a journal request record: the Recorder's counter snapshots turned into
// the prefill and decode windows (run/recorder.hpp says where they are read).
//   {"scope": "process",
//    "prefill": {event: {"value", "count", "scaled", "time_enabled_ns", "time_running_ns",
//                        "parts"?} | {"value": null, "unavailable": "unavailable: …"}} | null,
//    "decode":  {… the same …} | null}
// (event objects: platform/perf/counter_json.hpp). A window is null when the request did not
// reach both of its ends (no first token, or no end). "scope" "process": the counts are of the
// whole harness process's counted threads (every engine worker), so with concurrency > 1 the
// windows of overlapping requests include each other's work.
// Runs after the request ended, off the token path (it allocates).
#pragma once

#include <nlohmann/json.hpp>

#include "run/recorder.hpp"

namespace tokscope::run {

inline constexpr const char* kCounterScopeProcess = "process";

// Null when the recorder has no counter set.
nlohmann::json counter_record(const Recorder& recorder);

}  // namespace tokscope::run
