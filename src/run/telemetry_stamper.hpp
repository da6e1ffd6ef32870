// Ties the telemetry sampler to the run: stamps each request record with the readings nearest
// its t_submit and t_done (spec/metrics.md "Environment stamped on every sample") and turns the
// sampler's rows into journal lines, so the time series is on disk with the requests.
//
// Journal line (one per drain, only when rows were taken since the last one):
//   {"type":"telemetry", "t_ns":[…], "throttled":[…], "values":[[v per channel]…], "lost_rows":k}
// with values in the order of the header's environment.telemetry.channels; null = unreadable.
//
// Thread-safety: stamp() is const and lock-free (it only reads the sampler); drain() keeps a
// cursor and must have one caller at a time (the runner's completion lock, where records are
// journaled). Neither runs on the per-token path.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

#include "platform/telemetry/sampler.hpp"

namespace tokscope::run {

// The header's description of the sampler: period and channels (name, kind, passive trip point,
// locked value).
nlohmann::json telemetry_channels_json(const platform::Sampler& sampler);

class TelemetryStamper {
 public:
  explicit TelemetryStamper(const platform::Sampler& sampler) : sampler_(sampler) {}

  // Adds record["telemetry"] = {"submit": {channel: value}, "done": {…}, "throttled": bool,
  // "rows": n}: the rows nearest t_submit_ns and t_done_ns (t_submit_ns alone when the request
  // never finished), `throttled` when either of them or any row between them is, and how many
  // rows fell inside the request. No rows yet → {"unavailable": "no telemetry sample yet"}.
  void stamp(nlohmann::json& record) const;

  // The rows taken since the previous drain as one journal line; nullopt when there are none.
  std::optional<nlohmann::json> drain();

 private:
  const platform::Sampler& sampler_;
  std::uint64_t next_ = 0;  // first row not yet drained
};

}  // namespace tokscope::run
