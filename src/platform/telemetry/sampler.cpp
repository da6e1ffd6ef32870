#include "platform/telemetry/sampler.hpp"

#include <time.h>

#include <chrono>
#include <cmath>
#include <cstdlib>

namespace tokscope::platform {
namespace {

constexpr std::uint64_t kSlotBeingWritten = ~std::uint64_t{0};

std::int64_t thread_cpu_now_ns() noexcept {
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

bool row_throttled(std::span<const double> values, std::span<const ChannelInfo> channels,
                   std::span<const std::optional<double>> locked_values, double tolerance) {
  for (std::size_t i = 0; i < values.size() && i < channels.size(); ++i) {
    const double v = values[i];
    if (std::isnan(v)) continue;
    if (channels[i].passive_trip_c && v >= *channels[i].passive_trip_c) return true;
    if (i < locked_values.size() && locked_values[i] && v < *locked_values[i] * (1.0 - tolerance))
      return true;
  }
  return false;
}

Sampler::Sampler(std::vector<std::unique_ptr<ChannelSource>> sources, const Clock& clock,
                 SamplerOptions options)
    : sources_(std::move(sources)), clock_(clock), options_(options) {
  if (!(options_.period_ms > 0)) options_.period_ms = 100;
  if (options_.capacity_rows < 2) options_.capacity_rows = 2;
  for (const auto& s : sources_) {
    for (const auto& c : s->channels()) channels_.push_back(c);
  }
  width_ = channels_.size();
  locked_.assign(width_, std::nullopt);
  const std::size_t slots = options_.capacity_rows;
  values_ = std::make_unique<std::atomic<double>[]>(slots * (width_ == 0 ? 1 : width_));
  t_ns_ = std::make_unique<std::atomic<std::int64_t>[]>(slots);
  slot_seq_ = std::make_unique<std::atomic<std::uint64_t>[]>(slots);
  throttled_ = std::make_unique<std::atomic<bool>[]>(slots);
  for (std::size_t i = 0; i < slots; ++i) slot_seq_[i].store(0, std::memory_order_relaxed);
  scratch_.assign(width_, kNoReading);
}

Sampler::~Sampler() {
  stop();
}

bool Sampler::mark_locked(std::string_view channel, double value) {
  for (std::size_t i = 0; i < width_; ++i) {
    if (channels_[i].name == channel) {
      locked_[i] = value;
      return true;
    }
  }
  return false;
}

void Sampler::take_row() {
  const std::uint64_t seq = written_.load(std::memory_order_relaxed);
  const std::size_t slot = seq % options_.capacity_rows;
  const std::int64_t t = clock_.now_ns();
  std::size_t at = 0;
  for (auto& s : sources_) {
    const std::size_t n = s->channels().size();
    s->read(std::span<double>(scratch_.data() + at, n));
    at += n;
  }
  const bool throttled = row_throttled(scratch_, channels_, locked_);
  // Seqlock publish without fences (TSan does not model atomic_thread_fence): mark the slot as
  // being written, then release-store the data (so a reader that sees any new value also sees
  // the mark on its re-check), then stamp the slot with seq + 1.
  slot_seq_[slot].store(kSlotBeingWritten, std::memory_order_relaxed);
  std::atomic<double>* row = values_.get() + slot * width_;
  for (std::size_t i = 0; i < width_; ++i) row[i].store(scratch_[i], std::memory_order_release);
  t_ns_[slot].store(t, std::memory_order_release);
  throttled_[slot].store(throttled, std::memory_order_release);
  slot_seq_[slot].store(seq + 1, std::memory_order_release);
  written_.store(seq + 1, std::memory_order_release);
}

void Sampler::sample_now() {
  take_row();
}

void Sampler::start() {
  std::lock_guard lock(mutex_);
  if (thread_.joinable()) return;
  stop_ = false;
  started_ns_.store(clock_.now_ns());
  thread_ = std::thread([this] { loop(); });
}

void Sampler::stop() {
  {
    std::lock_guard lock(mutex_);
    if (!thread_.joinable()) return;
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
  stopped_ns_.store(clock_.now_ns());
}

void Sampler::loop() {
  const auto period = std::chrono::nanoseconds(static_cast<std::int64_t>(options_.period_ms * 1e6));
  auto due = std::chrono::steady_clock::now();
  while (true) {
    take_row();
    thread_cpu_ns_.store(thread_cpu_now_ns(), std::memory_order_relaxed);
    due += period;
    const auto now = std::chrono::steady_clock::now();
    if (due < now) due = now;  // fell behind (a stalled read): skip, never burst
    std::unique_lock lock(mutex_);
    if (wake_.wait_until(lock, due, [this] { return stop_; })) return;
  }
}

bool Sampler::read_row(std::uint64_t seq, SampleRow& out) const {
  if (seq >= rows_written()) return false;
  const std::size_t slot = seq % options_.capacity_rows;
  if (slot_seq_[slot].load(std::memory_order_acquire) != seq + 1) return false;
  out.values.resize(width_);
  const std::atomic<double>* row = values_.get() + slot * width_;
  // Acquire loads: the re-check of the slot below cannot move above them (Boehm, "Can seqlocks
  // get along with programming language memory models?", 2012).
  for (std::size_t i = 0; i < width_; ++i) out.values[i] = row[i].load(std::memory_order_acquire);
  out.t_ns = t_ns_[slot].load(std::memory_order_acquire);
  out.throttled = throttled_[slot].load(std::memory_order_acquire);
  if (slot_seq_[slot].load(std::memory_order_relaxed) != seq + 1) return false;  // overwritten
  out.seq = seq;
  return true;
}

std::optional<std::uint64_t> Sampler::nearest_row(std::int64_t t_ns) const {
  const std::uint64_t n = rows_written();
  if (n == 0) return std::nullopt;
  const std::uint64_t cap = options_.capacity_rows;
  // Keep one slot of margin: the oldest slot may be being overwritten right now.
  const std::uint64_t oldest = n > cap - 1 ? n - (cap - 1) : 0;
  const auto t_of = [this](std::uint64_t seq) {
    return t_ns_[seq % options_.capacity_rows].load(std::memory_order_relaxed);
  };
  // Rows are in time order: binary search for the first row at or after t_ns (or the newest).
  std::uint64_t lo = oldest;
  std::uint64_t hi = n - 1;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (t_of(mid) < t_ns) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo > oldest && std::llabs(t_of(lo - 1) - t_ns) <= std::llabs(t_of(lo) - t_ns)) return lo - 1;
  return lo;
}

SamplerCost Sampler::cost() const {
  SamplerCost c;
  c.rows = rows_written();
  c.thread_cpu_ns = thread_cpu_ns_.load(std::memory_order_relaxed);
  const std::int64_t start = started_ns_.load();
  const std::int64_t stop = stopped_ns_.load();
  if (start != 0) c.wall_ns = (stop > start ? stop : clock_.now_ns()) - start;
  return c;
}

}  // namespace tokscope::platform
