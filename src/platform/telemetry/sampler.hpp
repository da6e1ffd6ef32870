// The telemetry sampler: a background thread that reads every ChannelSource each period into a
// preallocated ring of rows, so each measured request can be stamped with the readings nearest
// its t_submit and t_done, and each stratum gets a time series.
//
// Cost contract: after start() the sampling thread allocates nothing; one period costs one
// pread per channel file plus a parse. Its own CPU time is measured (CLOCK_THREAD_CPUTIME_ID)
// and reported by cost(), so the result can show it stayed under 1% of a core.
//
// Thread-safety: one writer (the sampling thread); any number of readers (rows_written,
// read_row, nearest_row, cost) on any thread, lock-free. A row that the writer overwrites while
// a reader copies it is detected (per-slot sequence, seqlock style) and read_row returns false.
// mark_locked must be called before start().
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string_view>
#include <thread>
#include <vector>

#include "platform/clock.hpp"
#include "platform/telemetry/channel.hpp"

namespace tokscope::platform {

struct SamplerOptions {
  double period_ms = 100;            // > 0
  std::size_t capacity_rows = 8192;  // ring size; at 100 ms, 13.6 minutes of history
};

// One sampled instant: values in channels() order (kNoReading where a read failed).
struct SampleRow {
  std::uint64_t seq = 0;  // 0, 1, 2, … in the order rows were taken
  std::int64_t t_ns = 0;  // the harness clock at the start of the row's reads
  bool throttled = false;
  std::vector<double> values;
};

// Throttling evidence in one row: a temperature at or above its passive trip point, or a locked
// frequency more than `tolerance` below the value it was locked to. Pure.
bool row_throttled(std::span<const double> values, std::span<const ChannelInfo> channels,
                   std::span<const std::optional<double>> locked_values, double tolerance = 0.02);

// Sampler CPU cost so far.
struct SamplerCost {
  std::uint64_t rows = 0;
  std::int64_t thread_cpu_ns = 0;  // CPU time of the sampling thread
  std::int64_t wall_ns = 0;        // since start()
  [[nodiscard]] double core_fraction() const {
    return wall_ns > 0 ? static_cast<double>(thread_cpu_ns) / static_cast<double>(wall_ns) : 0.0;
  }
};

class Sampler {
 public:
  // Takes ownership of the sources; the clock must outlive the sampler.
  Sampler(std::vector<std::unique_ptr<ChannelSource>> sources, const Clock& clock,
          SamplerOptions options);
  ~Sampler();  // stops the thread
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  [[nodiscard]] const std::vector<ChannelInfo>& channels() const { return channels_; }
  [[nodiscard]] const SamplerOptions& options() const { return options_; }

  // Declares that a channel is held at `value` by a frequency lock; a reading below it marks
  // the row throttled. Returns false when no channel has that name. Call before start().
  bool mark_locked(std::string_view channel, double value);

  // Takes one row at once (so even a request shorter than a period has a reading), then one per
  // period until stop(). Idempotent.
  void start();
  void stop();

  // Takes one row on the caller's thread. For tests and for a sampler that is not started.
  void sample_now();

  [[nodiscard]] std::uint64_t rows_written() const {
    return written_.load(std::memory_order_acquire);
  }
  // Copies row `seq` into out (reusing out.values' capacity). False when the row is not written
  // yet or has been overwritten by the ring.
  bool read_row(std::uint64_t seq, SampleRow& out) const;
  // The seq of the row nearest in time to t_ns among those still in the ring; nullopt if none.
  [[nodiscard]] std::optional<std::uint64_t> nearest_row(std::int64_t t_ns) const;
  [[nodiscard]] SamplerCost cost() const;
  // The value channel i was marked locked at (mark_locked), nullopt when not locked or out of
  // range. Written only before start(), so reading it afterwards needs no synchronisation.
  [[nodiscard]] std::optional<double> locked_value(std::size_t i) const {
    return i < locked_.size() ? locked_[i] : std::nullopt;
  }

 private:
  void loop();
  void take_row();

  std::vector<std::unique_ptr<ChannelSource>> sources_;
  std::vector<ChannelInfo> channels_;
  std::vector<std::optional<double>> locked_;
  const Clock& clock_;
  SamplerOptions options_;
  std::size_t width_ = 0;                                   // channels per row
  std::unique_ptr<std::atomic<double>[]> values_;           // capacity × width
  std::unique_ptr<std::atomic<std::int64_t>[]> t_ns_;       // per slot
  std::unique_ptr<std::atomic<std::uint64_t>[]> slot_seq_;  // seq + 1 of the row in the slot
  std::unique_ptr<std::atomic<bool>[]> throttled_;          // per slot
  std::vector<double> scratch_;                             // one row, sampling thread only
  std::atomic<std::uint64_t> written_{0};
  std::atomic<std::int64_t> thread_cpu_ns_{0};
  std::atomic<std::int64_t> started_ns_{0};
  std::atomic<std::int64_t> stopped_ns_{0};
  std::mutex mutex_;  // guards stop_ and the condition variable only; never held while sampling
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace tokscope::platform
