// JSON forms of counter results, for the result document and the journal. Every counter is an
// object; one that could not be counted has "value": null and "unavailable": "unavailable: …".
#pragma once

#include <nlohmann/json.hpp>

#include "core/counters_derived.hpp"
#include "platform/perf/counter_set.hpp"

namespace tokscope::platform::perf {

// What was opened: {"target", "perf_event_paranoid", "threads_attached", "open_fds", "notes",
// "events": [{"name", "source", "software", "note"?, "unavailable"?, "parts": [{"pmu", "type",
// "config" (hex text), "per_cluster", "kernel_counted", "fds", "unavailable"?}]}]}.
nlohmann::json to_json(const CounterSet& set);

// One window: {"<event name>": {"value", "count", "scaled", "time_enabled_ns",
// "time_running_ns", "parts"? (one per PMU when opened per cluster)}}; an event not counted in
// the window is {"value": null, "unavailable": "unavailable: …"}.
nlohmann::json to_json(const CounterWindow& window);

// Derived figures; a missing figure is null. Field names carry the units.
nlohmann::json to_json(const core::CounterDerived& derived);

}  // namespace tokscope::platform::perf
