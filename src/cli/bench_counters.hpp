// Performance counters of `tokscope bench` (--counters, --counter-line-fill-event): opening the
// counter set for the run, and what the result's environment says about it.
//
// Own-process counting (platform/perf/counter_set.hpp): the set counts the thread that opens it
// and the threads it creates afterwards, so bench opens it on the main thread after the telemetry
// sampler has started (the sampler's thread is not counted) and before the engine loads (the
// threads an in-process engine starts in load() and the runner's workers are). The sim engine runs
// in-process; an engine server in another process would be counted with a pid instead. PMUs are
// always discovered under "/" (not --sysfs-root): the counters are the running kernel's, and a
// board tree's PMU types would mean other events here.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "core/expected.hpp"
#include "platform/perf/counter_set.hpp"
#include "run/settings.hpp"

namespace tokscope::cli {

// nullopt when counters are off (settings.counters empty). kUsage naming --counters (or
// --counter-line-fill-event) for an unknown event name; unavailable events do not fail.
Expected<std::optional<platform::perf::CounterSet>> open_bench_counters(
    const run::Settings& settings);

// environment.counters: {"scope": "process", "target", "perf_event_paranoid", "events":
// [{"name", "source", "software", "unavailable"? , "note"?}], "notes", "line_fill_event"}; null
// when off.
nlohmann::json counters_environment(const std::optional<platform::perf::CounterSet>& set,
                                    const run::Settings& settings);

// environment.telemetry_available.perf_counters: true when at least one event counts, else
// "unavailable: <why>".
nlohmann::json counters_available(const std::optional<platform::perf::CounterSet>& set);

}  // namespace tokscope::cli
