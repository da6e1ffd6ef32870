// The `tokscope soak` loop: requests back to back on the calling thread (concurrency 1, synthetic
// prompt ids, ignore_eos) until the duration has passed or the run is interrupted, cutting the
// run into windows (report/soak_table.hpp) as it goes.
//
// Each request is stamped by a Recorder (per-token path: no allocation, no lock). Between
// requests the loop turns the request's chunks into decode intervals, copies the sampler rows
// taken since the last request, and closes every window that has ended: a window is final once
// a request finished after its end (no later token can fall in it) and a sampler row taken after
// its end was read. Closed windows go to the WindowSink at once (the journal), so a crash loses
// at most the window in progress. The last request is cut at the end of the duration (its tokens
// so far count); after Ctrl-C the request in flight is abandoned but its tokens count too, and
// the last window is closed short (complete = false).
// Thread-safety: run_soak runs on one thread; the sampler (if any) has its own thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/expected.hpp"
#include "engines/engine.hpp"
#include "platform/clock.hpp"
#include "platform/telemetry/sampler.hpp"
#include "report/soak_table.hpp"

namespace tokscope::run {

struct SoakLoopOptions {
  double duration_s = 60;  // > 0
  double window_s = 60;    // > 0
  std::uint32_t prompt_tokens = 128;
  std::uint32_t output_tokens = 256;
  std::uint64_t seed = 42;
  double timeout_s = 300;  // per request
  // Consecutive failed requests after which the soak stops with an error (an engine that fails
  // every request would otherwise spin for the whole duration).
  std::uint32_t max_consecutive_failures = 3;
};

struct SoakLoopOutcome {
  std::vector<report::SoakWindow> windows;  // drop_pct filled in
  std::uint32_t requests = 0;               // started and finished (cut ones included)
  std::uint32_t failed = 0;                 // engine errors other than the cut at the end
  std::string last_failure;                 // message of the last failed request
  bool interrupted = false;
  double elapsed_s = 0;
  std::uint64_t lost_rows = 0;  // sampler rows overwritten before they were read
};

// Called once per closed window, in order; an error stops the run (the journal cannot be
// written). progress is called with the same window after it was accepted.
using WindowSink = std::function<Expected<void>(const report::SoakWindow&)>;

// The report mirror of the sampler's channels.
std::vector<report::SoakChannel> soak_channels(const std::vector<platform::ChannelInfo>& channels);

// sampler may be null (no telemetry); it is started here and stopped before returning.
// Returns an error when the sink failed or max_consecutive_failures requests failed in a row;
// the windows closed before that were already handed to the sink.
Expected<SoakLoopOutcome> run_soak(engines::Engine& engine, const platform::Clock& clock,
                                   const std::atomic<bool>& interrupted, platform::Sampler* sampler,
                                   const SoakLoopOptions& options, const WindowSink& sink);

}  // namespace tokscope::run
