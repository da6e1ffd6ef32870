// The runner: executes strata against one engine in a closed loop, `concurrency` requests in
// flight, warm-up first, then measured requests until the repetitions (and the optional minimum
// duration) are met. Each completed request, ok or failed, is handed to the RecordSink (the
// journal) before the worker starts its next request. The harness owns the clock.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/expected.hpp"
#include "engines/engine.hpp"
#include "platform/clock.hpp"
#include "platform/perf/counter_set.hpp"
#include "workload/strata.hpp"

namespace tokscope::run {

struct RunnerOptions {
  std::uint32_t warmup = 3;
  std::uint32_t repetitions = 10;
  double min_duration_s = 0;
  std::uint32_t max_requests = 10000;
  double timeout_s = 300;
  std::uint64_t seed = 42;
  std::vector<std::string> dataset;  // prompt texts; empty = synthetic token ids
  // Performance counters read by every worker's Recorder (run/recorder.hpp) and written to each
  // record's "counters" (run/counter_record.hpp); null = off. Must be opened, for own-process
  // counting, on the thread that calls run() before it (the workers it creates are inherited),
  // and outlive run().
  const platform::perf::CounterSet* counters = nullptr;
};

// Live figures for a progress line. Called from worker threads after each completion, under the
// runner's completion lock (never on the per-token path).
struct Progress {
  std::uint32_t stratum = 0, strata = 0;
  const workload::Stratum* current = nullptr;
  std::uint32_t completed = 0, planned = 0, failed = 0;
  double last_itl_p50_ms = 0;  // median ITL of the request that just completed (NaN if none)
  bool warmup = false;         // the request that just completed was a warm-up
};

// Receives each completed request as a journal "request" record. Returning an error stops the
// run (a journal that cannot be written means measurements would be lost).
using RecordSink = std::function<Expected<void>(const nlohmann::json& record)>;
using ProgressSink = std::function<void(const Progress&)>;

struct RunOutcome {
  std::uint32_t completed = 0;
  std::uint32_t failed = 0;
  bool interrupted = false;
};

class Runner {
 public:
  Runner(engines::Engine& engine, const platform::Clock& clock,
         const std::atomic<bool>& interrupted, RunnerOptions options);

  // Replaces options.counters (see RunnerOptions); call before run().
  void set_counters(const platform::perf::CounterSet* counters) noexcept {
    options_.counters = counters;
  }

  // done: (stratum id, request index) pairs already in the journal (resume); they are skipped.
  Expected<RunOutcome> run(const std::vector<workload::Stratum>& strata,
                           const std::set<std::pair<std::uint32_t, std::uint32_t>>& done,
                           const RecordSink& record_sink, const ProgressSink& progress_sink);

 private:
  engines::Engine& engine_;
  const platform::Clock& clock_;
  const std::atomic<bool>& interrupted_;
  RunnerOptions options_;
};

}  // namespace tokscope::run
