#include "engines/sim_engine.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "platform/clock.hpp"

namespace tokscope::engines {
namespace {

class TestSink final : public EventSink {
 public:
  void on_submit() noexcept override { submitted = true; }
  void on_tokens(std::uint32_t n) noexcept override {
    tokens += n;
    if (stop_after > 0 && tokens >= stop_after) stop = true;
  }
  void on_done() noexcept override { done = true; }
  void on_error(ErrorKind k, std::string_view) noexcept override {
    error = true;
    kind = k;
  }
  bool should_stop() const noexcept override { return stop; }
  bool submitted = false, done = false, error = false, stop = false;
  std::uint32_t tokens = 0, stop_after = 0;
  ErrorKind kind = ErrorKind::kInternal;
};

SimEngine make(double prefill_tps, double itl_ms, double jitter = 0) {
  ExplicitScheduleParams p;
  p.prefill_tps = prefill_tps;
  p.itl_ms = itl_ms;
  p.jitter_ms = jitter;
  return SimEngine(make_explicit_schedule(p));
}

TEST(SimEngine, ProducesExactlyTheRequestedTokensAndSaysSimulated) {
  SimEngine e = make(1e6, 0.05);
  EXPECT_TRUE(e.info().simulated);
  EXPECT_EQ(e.info().extra["schedule"]["kind"], "explicit");
  std::vector<std::int32_t> prompt(10, 1);
  Request r;
  r.prompt_ids = prompt;
  r.max_new_tokens = 17;
  TestSink sink;
  ASSERT_TRUE(e.run(r, sink).ok());
  EXPECT_TRUE(sink.submitted);
  EXPECT_TRUE(sink.done);
  EXPECT_FALSE(sink.error);
  EXPECT_EQ(sink.tokens, 17U);
}

TEST(SimEngine, FollowsTheScheduleInRealTime) {
  SimEngine e = make(1000, 5.0);  // prefill of 20 tokens = 20 ms, then 4 x 5 ms
  std::vector<std::int32_t> prompt(20, 1);
  Request r;
  r.prompt_ids = prompt;
  r.max_new_tokens = 5;
  TestSink sink;
  const auto t0 = platform::monotonic_now_ns();
  ASSERT_TRUE(e.run(r, sink).ok());
  const double elapsed_ms = static_cast<double>(platform::monotonic_now_ns() - t0) / 1e6;
  EXPECT_GE(elapsed_ms, 40.0);  // never early: sleeps until absolute due times
}

TEST(SimEngine, StopsWhenTheHarnessSaysSo) {
  SimEngine e = make(1e6, 1.0);
  std::vector<std::int32_t> prompt(4, 1);
  Request r;
  r.prompt_ids = prompt;
  r.max_new_tokens = 1000;
  TestSink sink;
  sink.stop_after = 3;
  auto result = e.run(r, sink);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, ErrorKind::kTimeout);
  EXPECT_TRUE(sink.error);
  EXPECT_FALSE(sink.done);
  EXPECT_EQ(sink.tokens, 3U);
}

TEST(SimEngine, TokenizerIsDeterministicWordLevel) {
  SimEngine e = make(1, 1);
  auto a = e.tokenize("Hello, world!  hello");
  auto b = e.tokenize("Hello, world!  hello");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, *b);
  ASSERT_EQ(a->size(), 5U);     // Hello , world ! hello
  EXPECT_NE((*a)[0], (*a)[4]);  // case matters
  EXPECT_TRUE(e.tokenize("")->empty());
}

}  // namespace
}  // namespace tokscope::engines

namespace tokscope::engines {
namespace {

TEST(ExplicitSchedule, ItlGrowsWithContextAsDeclared) {
  ExplicitScheduleParams p;
  p.prefill_tps = 2000;
  p.itl_ms = 10;
  p.itl_growth_ms_per_1k_ctx = 4;
  const auto s = make_explicit_schedule(p);
  EXPECT_DOUBLE_EQ(s->prefill_ms(500, 1), 250.0);
  EXPECT_DOUBLE_EQ(s->itl_ms(0, 1), 10.0);
  EXPECT_DOUBLE_EQ(s->itl_ms(1500, 1), 16.0);
  EXPECT_EQ(s->describe()["itl_growth_ms_per_1k_ctx"], 4.0);
}

// Records chunk arrival times on the monotonic clock.
class TimingSink final : public EventSink {
 public:
  void on_submit() noexcept override {}
  void on_tokens(std::uint32_t) noexcept override {
    if (n < times.size()) times[n++] = platform::monotonic_now_ns();
  }
  void on_done() noexcept override {}
  void on_error(ErrorKind, std::string_view) noexcept override {}
  bool should_stop() const noexcept override { return false; }
  std::vector<std::int64_t> times = std::vector<std::int64_t>(64);
  std::size_t n = 0;
};

TEST(SimEngine, JitterSpreadsIntervalsReproduciblyPerSeed) {
  ExplicitScheduleParams p;
  p.prefill_tps = 1e6;
  p.itl_ms = 3.0;
  p.jitter_ms = 1.0;
  SimEngine e(make_explicit_schedule(p));
  std::vector<std::int32_t> prompt(4, 1);
  Request r;
  r.prompt_ids = prompt;
  r.max_new_tokens = 40;
  r.seed = 99;
  TimingSink sink;
  ASSERT_TRUE(e.run(r, sink).ok());
  ASSERT_EQ(sink.n, 40U);
  double sum = 0, sum_sq = 0;
  for (std::size_t i = 1; i < sink.n; ++i) {
    const double ms = static_cast<double>(sink.times[i] - sink.times[i - 1]) / 1e6;
    sum += ms;
    sum_sq += ms * ms;
  }
  const double n = static_cast<double>(sink.n - 1);
  const double mean = sum / n;
  const double sd = std::sqrt(sum_sq / n - mean * mean);
  EXPECT_NEAR(mean, 3.0, 0.6);  // jitter is zero-mean (clamped at 0, rarely reached at 3 sd)
  EXPECT_GT(sd, 0.4);           // configured sd 1 ms; without jitter it would be ~0
}

}  // namespace
}  // namespace tokscope::engines
