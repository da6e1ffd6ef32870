// The idle window and the marker pulse bench runs before the first request, and the clock sync
// point: durations are honoured, Ctrl-C cancels, the pulse's start instant is on the clock.
#include "platform/pre_run.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace tokscope::platform {
namespace {

TEST(PreRun, IdleWindowLastsAtLeastWhatWasAsked) {
  MonotonicClock clock;
  std::atomic<bool> stop{false};
  auto w = idle_for(clock, stop, 0.06);
  ASSERT_TRUE(w.ok());
  EXPECT_GE(w->t1_ns - w->t0_ns, 60'000'000);
  EXPECT_FALSE(idle_for(clock, stop, 0).ok());
}

TEST(PreRun, StopCancelsTheIdleWindow) {
  MonotonicClock clock;
  std::atomic<bool> stop{false};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    stop.store(true);
  });
  const std::int64_t t0 = clock.now_ns();
  auto w = idle_for(clock, stop, 30.0);
  stopper.join();
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().kind, ErrorKind::kCancelled);
  EXPECT_LT(clock.now_ns() - t0, 5'000'000'000);
}

TEST(PreRun, MarkerPulseRunsItsShapeAndStampsItsStart) {
  MonotonicClock clock;
  std::atomic<bool> stop{false};
  MarkerPulse shape;
  shape.idle_before_ns = 20'000'000;
  shape.duration_ns = 50'000'000;
  shape.idle_after_ns = 20'000'000;
  const std::int64_t t0 = clock.now_ns();
  auto p = run_marker_pulse(clock, stop, {0}, shape);
  const std::int64_t t1 = clock.now_ns();
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_GE(p->start_ns - t0, shape.idle_before_ns);
  EXPECT_GE(t1 - p->start_ns, shape.duration_ns + shape.idle_after_ns);
  EXPECT_EQ(p->duration_ns, shape.duration_ns);
}

TEST(PreRun, MarkerPulseJsonRoundTripsAndRejectsNonsense) {
  MarkerPulse p;
  p.start_ns = 123;
  const auto back = marker_pulse_from_json(marker_pulse_json(p));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->start_ns, 123);
  EXPECT_EQ(back->duration_ns, p.duration_ns);
  nlohmann::json bad = marker_pulse_json(p);
  bad["duration_ns"] = 0;
  EXPECT_FALSE(marker_pulse_from_json(bad).has_value());
  EXPECT_FALSE(marker_pulse_from_json(nullptr).has_value());
  bad = marker_pulse_json(p);
  bad.erase("start_ns");
  EXPECT_FALSE(marker_pulse_from_json(bad).has_value());
}

TEST(PreRun, ClockSyncPointPairsBothClocks) {
  MonotonicClock clock;
  const std::int64_t before = clock.now_ns();
  const auto sync = clock_sync_point(clock);
  EXPECT_GE(sync["monotonic_ns"].get<std::int64_t>(), before);
  EXPECT_GT(sync["realtime_ns"].get<std::int64_t>(), 1'600'000'000'000'000'000LL);  // after 2020
  EXPECT_GT(sync["uncertainty_ns"].get<std::int64_t>(), 0);
}

}  // namespace
}  // namespace tokscope::platform
