// Builds the result document (schema "tokscope.result/1", docs/result-schema.md) from a journal
// header and its request records. `tokscope bench` and `tokscope report JOURNAL` both go through
// this one function, so a result rebuilt from a journal equals the one written by the run.
// Pure: no clock, no I/O.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "report/energy_attribution.hpp"

namespace tokscope::report {

inline constexpr const char* kResultSchema = "tokscope.result/1";

struct BuildOptions {
  bool complete = true;      // the run reached its end
  bool interrupted = false;  // stopped by Ctrl-C / SIGTERM
  // The journal's "telemetry" lines (sampler rows), for per-stratum time series; may be null.
  const std::vector<nlohmann::json>* telemetry = nullptr;
  // The journal end line's sampler_cost (rows, thread_cpu_ms, wall_ms, core_fraction); null
  // when the run had no sampler or did not end.
  nlohmann::json sampler_cost;
  // An external meter's power series on the run's timeline (`--power-log`), used for energy
  // instead of the telemetry channels; null = none. power_log_info describes it (file, offset
  // and how it was found) and goes into the result's "energy" object.
  const EnergySeries* power_log = nullptr;
  nlohmann::json power_log_info;
};

nlohmann::json build_result(const nlohmann::json& header,
                            const std::vector<nlohmann::json>& requests,
                            const BuildOptions& options);

// Flags that make `bench`/`report` exit 1 (the run finished but its numbers cannot be trusted).
bool is_blocking_flag(const std::string& flag);

// True when any stratum of the result carries a blocking flag.
bool has_blocking_flags(const nlohmann::json& result);

}  // namespace tokscope::report
