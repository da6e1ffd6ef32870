#include "platform/telemetry/sampler.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace tokscope::platform {
namespace {

// Every channel of a read gets the same value: the number of reads so far (plus an offset), so a
// torn row (half old, half new) is detectable. The value to return can also be forced.
class CountingSource final : public ChannelSource {
 public:
  explicit CountingSource(std::vector<ChannelInfo> channels) : channels_(std::move(channels)) {}
  [[nodiscard]] const std::vector<ChannelInfo>& channels() const override { return channels_; }
  void read(std::span<double> out) noexcept override {
    const double v = forced.load() >= 0 ? forced.load() : static_cast<double>(reads.fetch_add(1));
    for (double& x : out) x = v;
  }
  std::atomic<int> reads{0};
  std::atomic<double> forced{-1};

 private:
  std::vector<ChannelInfo> channels_;
};

std::vector<ChannelInfo> channels(std::initializer_list<const char*> names) {
  std::vector<ChannelInfo> c;
  for (const char* n : names) c.push_back({n, ChannelKind::kOther, std::nullopt, std::nullopt});
  return c;
}

TEST(Sampler, RowsCarryTheClockAndEveryChannelInOrder) {
  ManualClock clock;
  auto a = std::make_unique<CountingSource>(channels({"a.x", "a.y"}));
  auto b = std::make_unique<CountingSource>(channels({"b.z"}));
  b->forced = 7.5;
  std::vector<std::unique_ptr<ChannelSource>> sources;
  sources.push_back(std::move(a));
  sources.push_back(std::move(b));
  Sampler sampler(std::move(sources), clock, {});
  ASSERT_EQ(sampler.channels().size(), 3U);
  EXPECT_EQ(sampler.channels()[2].name, "b.z");
  EXPECT_FALSE(sampler.nearest_row(0).has_value());

  for (int i = 0; i < 3; ++i) {
    clock.set_ns(1000 * (i + 1));
    sampler.sample_now();
  }
  EXPECT_EQ(sampler.rows_written(), 3U);
  SampleRow row;
  ASSERT_TRUE(sampler.read_row(1, row));
  EXPECT_EQ(row.seq, 1U);
  EXPECT_EQ(row.t_ns, 2000);
  EXPECT_EQ(row.values, (std::vector<double>{1, 1, 7.5}));
  EXPECT_FALSE(sampler.read_row(3, row));  // not written yet
}

TEST(Sampler, NearestRowPicksTheClosestInTime) {
  ManualClock clock;
  std::vector<std::unique_ptr<ChannelSource>> sources;
  sources.push_back(std::make_unique<CountingSource>(channels({"c"})));
  Sampler sampler(std::move(sources), clock, {});
  for (std::int64_t t : {100, 200, 300, 400}) {
    clock.set_ns(t);
    sampler.sample_now();
  }
  EXPECT_EQ(sampler.nearest_row(0), 0U);
  EXPECT_EQ(sampler.nearest_row(149), 0U);
  EXPECT_EQ(sampler.nearest_row(151), 1U);
  EXPECT_EQ(sampler.nearest_row(300), 2U);
  EXPECT_EQ(sampler.nearest_row(10'000), 3U);
}

TEST(Sampler, TheRingForgetsOldRowsAndSaysSo) {
  ManualClock clock;
  std::vector<std::unique_ptr<ChannelSource>> sources;
  sources.push_back(std::make_unique<CountingSource>(channels({"c"})));
  Sampler sampler(std::move(sources), clock, {.period_ms = 100, .capacity_rows = 4});
  for (int i = 0; i < 10; ++i) {
    clock.set_ns(10 * (i + 1));
    sampler.sample_now();
  }
  SampleRow row;
  EXPECT_FALSE(sampler.read_row(0, row));
  EXPECT_FALSE(sampler.read_row(5, row));
  ASSERT_TRUE(sampler.read_row(9, row));
  EXPECT_EQ(row.values[0], 9);
  EXPECT_EQ(row.t_ns, 100);
  // nearest_row only answers with rows still in the ring (oldest kept: 10 - 3 = 7).
  EXPECT_EQ(sampler.nearest_row(0), 7U);
}

TEST(Sampler, PassiveTripAndFallenLockMarkRowsThrottled) {
  ManualClock clock;
  std::vector<ChannelInfo> zone = {{"thermal.soc.temp_c", ChannelKind::kTemperature, 85.0, {}}};
  auto temp = std::make_unique<CountingSource>(zone);
  auto freq = std::make_unique<CountingSource>(channels({"devfreq.dmc.cur_hz"}));
  CountingSource* t = temp.get();
  CountingSource* f = freq.get();
  std::vector<std::unique_ptr<ChannelSource>> sources;
  sources.push_back(std::move(temp));
  sources.push_back(std::move(freq));
  Sampler sampler(std::move(sources), clock, {});
  EXPECT_TRUE(sampler.mark_locked("devfreq.dmc.cur_hz", 2112e6));
  EXPECT_FALSE(sampler.mark_locked("devfreq.nope.cur_hz", 1));

  SampleRow row;
  t->forced = 60;
  f->forced = 2112e6;
  sampler.sample_now();
  ASSERT_TRUE(sampler.read_row(0, row));
  EXPECT_FALSE(row.throttled);
  t->forced = 86;  // over the passive trip
  sampler.sample_now();
  ASSERT_TRUE(sampler.read_row(1, row));
  EXPECT_TRUE(row.throttled);
  t->forced = 60;
  f->forced = 1560e6;  // the locked DDR frequency fell
  sampler.sample_now();
  ASSERT_TRUE(sampler.read_row(2, row));
  EXPECT_TRUE(row.throttled);
  f->forced = 2100e6;  // within the 2% tolerance
  sampler.sample_now();
  ASSERT_TRUE(sampler.read_row(3, row));
  EXPECT_FALSE(row.throttled);
}

TEST(RowThrottled, UnreadableValuesAreNotEvidence) {
  const std::vector<ChannelInfo> c = {{"t", ChannelKind::kTemperature, 85.0, {}}};
  const std::vector<std::optional<double>> locked = {std::nullopt};
  const std::vector<double> nan = {kNoReading};
  EXPECT_FALSE(row_throttled(nan, c, locked));
  const std::vector<double> hot = {85.0};
  EXPECT_TRUE(row_throttled(hot, c, locked));
}

// A reader racing the sampling thread never sees a torn row: every value of a row it accepts
// comes from the same read. Meaningful under TSan too (all shared state is atomic).
TEST(Sampler, ConcurrentReadersNeverSeeATornRow) {
  MonotonicClock clock;
  std::vector<std::unique_ptr<ChannelSource>> sources;
  sources.push_back(std::make_unique<CountingSource>(channels({"a", "b", "c", "d", "e"})));
  Sampler sampler(std::move(sources), clock, {.period_ms = 0.05, .capacity_rows = 8});
  sampler.start();
  SampleRow row;
  int accepted = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  while (std::chrono::steady_clock::now() < until) {
    const std::uint64_t n = sampler.rows_written();
    if (n == 0) continue;
    for (std::uint64_t seq = n > 8 ? n - 8 : 0; seq < n; ++seq) {
      if (!sampler.read_row(seq, row)) continue;
      ++accepted;
      for (double v : row.values) ASSERT_EQ(v, row.values[0]) << "torn row " << seq;
      ASSERT_EQ(row.values[0], static_cast<double>(seq));
    }
  }
  sampler.stop();
  EXPECT_GT(accepted, 10);
  EXPECT_GT(sampler.rows_written(), 10U);
}

TEST(Sampler, StartTakesARowAtOnceAndStopIsPromptAndIdempotent) {
  MonotonicClock clock;
  std::vector<std::unique_ptr<ChannelSource>> sources;
  sources.push_back(std::make_unique<CountingSource>(channels({"c"})));
  Sampler sampler(std::move(sources), clock, {.period_ms = 60'000, .capacity_rows = 16});
  const auto t0 = std::chrono::steady_clock::now();
  sampler.start();
  sampler.start();
  while (sampler.rows_written() == 0) std::this_thread::yield();
  sampler.stop();
  sampler.stop();
  // A one-minute period did not hold stop() up: it returned long before the next row was due.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
  EXPECT_EQ(sampler.rows_written(), 1U);
  const SamplerCost cost = sampler.cost();
  EXPECT_EQ(cost.rows, 1U);
  EXPECT_GT(cost.wall_ns, 0);
  EXPECT_GE(cost.thread_cpu_ns, 0);
}

}  // namespace
}  // namespace tokscope::platform
