// The harness side of an engine's EventSink: stamps every event with the harness clock into
// buffers sized before the request starts. The per-token path (on_tokens) allocates nothing
// and takes no lock: one clock read and two stores.
// Thread-safety: one Recorder per in-flight request; its owner thread resets and reads it.
// The stop flag is shared (set by the signal watcher) and read with relaxed atomics.
//
// Performance counters (optional, set_counters): the Recorder reads the CounterSet into three
// preallocated snapshots: after stamping on_submit, after stamping the first on_tokens of the
// request, and after stamping on_done (or the first on_error). So the prefill window is
// t_submit → t_token[0] and the decode window t_token[0] → t_done (which follows t_token[n−1]
// by the engine's end-of-generation work). The token path reads counters once per request (at
// the first token only): one read() syscall per counter fd, no allocation, no lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "core/expected.hpp"
#include "core/timeline.hpp"
#include "engines/engine.hpp"
#include "platform/clock.hpp"
#include "platform/perf/counter_set.hpp"

namespace tokscope::run {

class Recorder final : public engines::EventSink {
 public:
  // capacity_chunks: how many chunks can be stamped; later chunks are merged into the last one
  // and counted in overflow_chunks() (the request is then flagged, never silently wrong).
  Recorder(const platform::Clock& clock, const std::atomic<bool>& interrupted,
           std::size_t capacity_chunks);

  // Prepares for a new request without allocating when capacity suffices.
  void reset(std::size_t capacity_chunks, std::int64_t deadline_ns);
  void mark_request() noexcept { t_request_ns_ = clock_.now_ns(); }
  void mark_tokenized() noexcept { t_tokenized_ns_ = clock_.now_ns(); }
  // The input was already token ids: t_tokenized = t_request (spec/metrics.md).
  void mark_ids_in_hand() noexcept { t_tokenized_ns_ = t_request_ns_; }

  // Counters read at submit, first token and done from now on; null = none. The set must
  // outlive the Recorder's use. Call between requests, not during one.
  void set_counters(const platform::perf::CounterSet* counters) noexcept { counters_ = counters; }

  void on_submit() noexcept override;
  void on_tokens(std::uint32_t count) noexcept override;
  void on_done() noexcept override;
  void on_error(ErrorKind kind, std::string_view message) noexcept override;
  [[nodiscard]] bool should_stop() const noexcept override;
  void on_engine_stats(const nlohmann::json& stats) override { engine_stats_ = stats; }
  // The engine's own figures for the request (null when it gave none).
  [[nodiscard]] const nlohmann::json& engine_stats() const noexcept { return engine_stats_; }

  [[nodiscard]] core::TimelineView timeline(std::uint32_t prompt_tokens) const noexcept;
  [[nodiscard]] std::int64_t t_request_ns() const noexcept { return t_request_ns_; }
  [[nodiscard]] std::int64_t t_tokenized_ns() const noexcept { return t_tokenized_ns_; }
  [[nodiscard]] std::int64_t t_submit_ns() const noexcept { return t_submit_ns_; }
  [[nodiscard]] std::int64_t t_done_ns() const noexcept { return t_done_ns_; }
  [[nodiscard]] std::size_t chunk_count() const noexcept { return n_chunks_; }
  [[nodiscard]] std::uint32_t overflow_chunks() const noexcept { return overflow_chunks_; }
  [[nodiscard]] bool has_error() const noexcept { return has_error_; }
  [[nodiscard]] ErrorKind error_kind() const noexcept { return error_kind_; }
  [[nodiscard]] const std::string& error_message() const noexcept { return error_message_; }

  // The counter set and the snapshots of the current request; a snapshot is null when the
  // request did not reach that point (or no counters are set).
  [[nodiscard]] const platform::perf::CounterSet* counters() const noexcept { return counters_; }
  [[nodiscard]] const platform::perf::CounterSnapshot* counters_at_submit() const noexcept {
    return counters_ != nullptr && have_submit_ ? &at_submit_ : nullptr;
  }
  [[nodiscard]] const platform::perf::CounterSnapshot* counters_at_first_token() const noexcept {
    return counters_ != nullptr && have_first_token_ ? &at_first_token_ : nullptr;
  }
  [[nodiscard]] const platform::perf::CounterSnapshot* counters_at_done() const noexcept {
    return counters_ != nullptr && have_done_ ? &at_done_ : nullptr;
  }

 private:
  const platform::Clock& clock_;
  const std::atomic<bool>& interrupted_;
  std::vector<core::Chunk> chunks_;  // size() is the capacity; n_chunks_ are used
  std::size_t n_chunks_ = 0;
  std::uint32_t overflow_chunks_ = 0;
  std::int64_t deadline_ns_ = 0;
  std::int64_t t_request_ns_ = 0, t_tokenized_ns_ = 0, t_submit_ns_ = 0, t_done_ns_ = 0;
  bool has_error_ = false;
  ErrorKind error_kind_ = ErrorKind::kInternal;
  std::string error_message_;
  nlohmann::json engine_stats_;  // set after the last token, reset per request  // reserved up
                                 // front; written off the per-token path
  const platform::perf::CounterSet* counters_ = nullptr;
  platform::perf::CounterSnapshot at_submit_{}, at_first_token_{}, at_done_{};
  bool have_submit_ = false, have_first_token_ = false, have_done_ = false;
};

}  // namespace tokscope::run
