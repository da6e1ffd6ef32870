#include "platform/clock.hpp"

#include <cerrno>
#include <ctime>

namespace tokscope::platform {
namespace {

std::int64_t to_ns(const timespec& ts) noexcept {
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

MonotonicClock::MonotonicClock() noexcept : clock_id_(CLOCK_MONOTONIC) {
#ifdef CLOCK_MONOTONIC_RAW
  timespec ts{};
  if (clock_gettime(CLOCK_MONOTONIC_RAW, &ts) == 0) clock_id_ = CLOCK_MONOTONIC_RAW;
#endif
}

std::int64_t MonotonicClock::now_ns() const noexcept {
  timespec ts{};
  clock_gettime(clock_id_, &ts);
  return to_ns(ts);
}

const char* MonotonicClock::name() const noexcept {
#ifdef CLOCK_MONOTONIC_RAW
  if (clock_id_ == CLOCK_MONOTONIC_RAW) return "CLOCK_MONOTONIC_RAW";
#endif
  return "CLOCK_MONOTONIC";
}

std::int64_t monotonic_now_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return to_ns(ts);
}

void sleep_until_monotonic_ns(std::int64_t deadline_ns, std::int64_t spin_ns) noexcept {
  const std::int64_t wake_ns = deadline_ns - spin_ns;
  if (monotonic_now_ns() < wake_ns) {
    timespec ts{};
    ts.tv_sec = static_cast<time_t>(wake_ns / 1'000'000'000);
    ts.tv_nsec = static_cast<long>(wake_ns % 1'000'000'000);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
  }
  while (monotonic_now_ns() < deadline_ns) {
  }
}

}  // namespace tokscope::platform
