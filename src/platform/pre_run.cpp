#include "platform/pre_run.hpp"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "platform/probe/pinned_threads.hpp"

namespace tokscope::platform {

namespace {

constexpr std::int64_t kPollNs = 50'000'000;

// Sleeps until clock reaches t_end_ns, polling stop. False when stopped.
bool sleep_until(const Clock& clock, const std::atomic<bool>& stop, std::int64_t t_end_ns) {
  for (;;) {
    if (stop.load(std::memory_order_relaxed)) return false;
    const std::int64_t left = t_end_ns - clock.now_ns();
    if (left <= 0) return true;
    std::this_thread::sleep_for(std::chrono::nanoseconds(std::min(left, kPollNs)));
  }
}

Error cancelled(const char* what) {
  return make_error(ErrorKind::kCancelled, std::string(what) + " interrupted (Ctrl-C)");
}

}  // namespace

Expected<IdleWindow> idle_for(const Clock& clock, const std::atomic<bool>& stop, double seconds) {
  if (!(seconds > 0)) return make_error(ErrorKind::kUsage, "idle window must be longer than 0 s");
  IdleWindow w;
  w.t0_ns = clock.now_ns();
  if (!sleep_until(clock, stop, w.t0_ns + static_cast<std::int64_t>(seconds * 1e9))) {
    return cancelled("idle baseline");
  }
  w.t1_ns = clock.now_ns();
  return w;
}

Expected<MarkerPulse> run_marker_pulse(const Clock& clock, const std::atomic<bool>& stop,
                                       const std::vector<int>& cpus, MarkerPulse shape) {
  if (cpus.empty()) return make_error(ErrorKind::kInternal, "marker pulse: no cpu to run on");
  if (!sleep_until(clock, stop, clock.now_ns() + shape.idle_before_ns)) {
    return cancelled("marker pulse");
  }
  std::atomic<std::int64_t> start_ns{0};
  std::atomic<bool> stopped{false};
  // Every thread spins until the common end; the first to start fixes the start instant.
  auto spun = probe::run_pinned(cpus, [&](std::size_t) {
    std::int64_t expected = 0;
    const std::int64_t now = clock.now_ns();
    start_ns.compare_exchange_strong(expected, now);
    const std::int64_t end = start_ns.load() + shape.duration_ns;
    volatile std::uint64_t sink = 0;
    while (clock.now_ns() < end) {
      for (int i = 0; i < 1000; ++i) sink = sink + static_cast<std::uint64_t>(i);
      if (stop.load(std::memory_order_relaxed)) {
        stopped.store(true);
        return;
      }
    }
  });
  if (!spun) return spun.error();
  if (stopped.load()) return cancelled("marker pulse");
  shape.start_ns = start_ns.load();
  if (!sleep_until(clock, stop, shape.start_ns + shape.duration_ns + shape.idle_after_ns)) {
    return cancelled("marker pulse");
  }
  return shape;
}

nlohmann::json clock_sync_point(const Clock& clock) {
  timespec a{}, b{};
  clock_gettime(CLOCK_REALTIME, &a);
  const std::int64_t mono = clock.now_ns();
  clock_gettime(CLOCK_REALTIME, &b);
  const std::int64_t ra = static_cast<std::int64_t>(a.tv_sec) * 1'000'000'000 + a.tv_nsec;
  const std::int64_t rb = static_cast<std::int64_t>(b.tv_sec) * 1'000'000'000 + b.tv_nsec;
  return {{"monotonic_ns", mono},
          {"realtime_ns", ra + (rb - ra) / 2},
          {"uncertainty_ns", (rb - ra) / 2 + 1}};
}

nlohmann::json marker_pulse_json(const MarkerPulse& pulse) {
  return {{"start_ns", pulse.start_ns},
          {"duration_ns", pulse.duration_ns},
          {"idle_before_ns", pulse.idle_before_ns},
          {"idle_after_ns", pulse.idle_after_ns}};
}

std::optional<MarkerPulse> marker_pulse_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  for (const char* k : {"start_ns", "duration_ns", "idle_before_ns", "idle_after_ns"}) {
    if (!j.contains(k) || !j[k].is_number_integer()) return std::nullopt;
  }
  MarkerPulse p;
  p.start_ns = j["start_ns"].get<std::int64_t>();
  p.duration_ns = j["duration_ns"].get<std::int64_t>();
  p.idle_before_ns = j["idle_before_ns"].get<std::int64_t>();
  p.idle_after_ns = j["idle_after_ns"].get<std::int64_t>();
  if (p.duration_ns <= 0 || p.idle_before_ns < 0 || p.idle_after_ns < 0) return std::nullopt;
  return p;
}

}  // namespace tokscope::platform
