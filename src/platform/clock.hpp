// The harness's clock. Every instant of a request is stamped through a Clock owned by the
// harness, never by an engine (spec/metrics.md: one monotonic clock, CLOCK_MONOTONIC_RAW where
// available, else CLOCK_MONOTONIC). Thread-safety: now_ns() may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>

namespace tokscope::platform {

class Clock {
 public:
  virtual ~Clock() = default;
  // Nanoseconds on a monotonic clock; only differences are meaningful.
  [[nodiscard]] virtual std::int64_t now_ns() const noexcept = 0;
  // Which clock, for the result's provenance ("CLOCK_MONOTONIC_RAW", "manual", ...).
  [[nodiscard]] virtual const char* name() const noexcept = 0;
};

// CLOCK_MONOTONIC_RAW (not slewed by NTP) when the kernel has it, else CLOCK_MONOTONIC.
class MonotonicClock final : public Clock {
 public:
  MonotonicClock() noexcept;
  [[nodiscard]] std::int64_t now_ns() const noexcept override;
  [[nodiscard]] const char* name() const noexcept override;

 private:
  int clock_id_;
};

// A clock tests advance by hand. Thread-safe.
class ManualClock final : public Clock {
 public:
  [[nodiscard]] std::int64_t now_ns() const noexcept override { return t_.load(); }
  [[nodiscard]] const char* name() const noexcept override { return "manual"; }
  void set_ns(std::int64_t t) noexcept { t_.store(t); }
  void advance_ns(std::int64_t dt) noexcept { t_.fetch_add(dt); }

 private:
  std::atomic<std::int64_t> t_{0};
};

// Sleeps until the CLOCK_MONOTONIC instant `deadline_ns` (see monotonic_now_ns), sleeping in the
// kernel until `spin_ns` before it and spinning the rest, for sub-millisecond accuracy.
// Used by the simulated engine to execute its schedule in real time.
std::int64_t monotonic_now_ns() noexcept;
void sleep_until_monotonic_ns(std::int64_t deadline_ns, std::int64_t spin_ns = 200'000) noexcept;

}  // namespace tokscope::platform
