// Placing an external power log on a run's timeline: a given offset, the run's marker pulse
// found in the log, or the clock sync point for a log in Unix time; otherwise an error naming
// the flags that would fix it.
#include "run/power_log_alignment.hpp"

#include <gtest/gtest.h>

#include "platform/pre_run.hpp"

namespace tokscope::run {
namespace {

using nlohmann::json;

// A 10 Hz log whose clock starts at log_t0_ns: idle 2 W, with a 6 W pulse of 2 s starting at
// pulse_log_ns (log clock), and a little deterministic ripple.
platform::PowerLog log_with_pulse(std::int64_t log_t0_ns, std::int64_t pulse_log_ns,
                                  platform::LogClock clock) {
  platform::PowerLog log;
  log.source = "meter.csv";
  log.clock = clock;
  log.median_period_ns = 100'000'000;
  for (int i = 0; i < 300; ++i) {
    const std::int64_t t = log_t0_ns + i * 100'000'000LL;
    log.t_log_ns.push_back(t);
    const bool busy = t >= pulse_log_ns && t < pulse_log_ns + 2'000'000'000;
    log.power_mw.push_back((busy ? 6000.0 : 2000.0) + (i % 3) * 20.0);
  }
  return log;
}

TEST(PowerLogAlignment, GivenOffsetWins) {
  const auto log = log_with_pulse(0, 5'000'000'000, platform::LogClock::kRelative);
  auto r = align_run_power_log(log, json::object(), 12.5);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->info["offset_ns"], 12'500'000'000LL);
  EXPECT_EQ(r->series.t_ns.front(), 12'500'000'000LL);
  EXPECT_DOUBLE_EQ(r->series.values.front(), 2000.0 * 1000.0);  // mW → µW
  EXPECT_EQ(r->series.channel, "power-log:meter.csv");
  EXPECT_FALSE(r->series.cumulative);
}

TEST(PowerLogAlignment, TheRunsMarkerPulseIsFoundInTheLog) {
  // The pulse began at 5 s on the log's clock and at 1000 s on tokscope's.
  const auto log = log_with_pulse(0, 5'000'000'000, platform::LogClock::kRelative);
  platform::MarkerPulse pulse;
  pulse.start_ns = 1'000'000'000'000LL;
  const json env = {{"marker_pulse", platform::marker_pulse_json(pulse)}};
  auto r = align_run_power_log(log, env, std::nullopt);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto offset = r->info["offset_ns"].get<std::int64_t>();
  EXPECT_NEAR(static_cast<double>(offset), 995e9, 100e6);  // within one sampling interval
  EXPECT_NE(r->info["method"].get<std::string>().find("marker pulse"), std::string::npos);
  EXPECT_GT(r->info["pulse"]["snr"].get<double>(), 3.0);
}

TEST(PowerLogAlignment, APulseThatIsNotInTheLogIsAnErrorNamingTheFix) {
  platform::PowerLog flat = log_with_pulse(0, 999'000'000'000LL, platform::LogClock::kRelative);
  const json env = {{"marker_pulse", platform::marker_pulse_json(platform::MarkerPulse{})}};
  auto r = align_run_power_log(flat, env, std::nullopt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("marker pulse was not found"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("meter.csv"), std::string::npos);
}

TEST(PowerLogAlignment, AUnixTimeLogUsesTheClockSyncPoint) {
  const std::int64_t epoch = 1'796'000'000'000'000'000LL;
  const auto log = log_with_pulse(epoch, epoch + 5'000'000'000, platform::LogClock::kEpoch);
  const json env = {{"clock_sync", {{"monotonic_ns", 50'000'000'000LL}, {"realtime_ns", epoch}}}};
  auto r = align_run_power_log(log, env, std::nullopt);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->series.t_ns.front(), 50'000'000'000LL);
  EXPECT_EQ(r->info["clock"], "epoch");
}

TEST(PowerLogAlignment, ARelativeLogWithoutPulseOrOffsetNamesTheFlags) {
  const auto log = log_with_pulse(0, 5'000'000'000, platform::LogClock::kRelative);
  const json env = {{"clock_sync", {{"monotonic_ns", 1}, {"realtime_ns", 2}}}};
  auto r = align_run_power_log(log, env, std::nullopt);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kUsage);
  EXPECT_NE(r.error().message.find("--power-log-offset-s"), std::string::npos);
  EXPECT_NE(r.error().message.find("--marker-pulse"), std::string::npos);
}

}  // namespace
}  // namespace tokscope::run
