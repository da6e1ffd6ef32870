#include "run/recorder.hpp"

#include <gtest/gtest.h>

namespace tokscope::run {
namespace {

TEST(Recorder, StampsEveryEventWithTheHarnessClock) {
  platform::ManualClock clock;
  std::atomic<bool> interrupted{false};
  Recorder rec(clock, interrupted, 8);
  rec.reset(8, 0);
  clock.set_ns(100);
  rec.mark_request();
  rec.mark_ids_in_hand();
  clock.set_ns(150);
  rec.on_submit();
  clock.set_ns(1150);
  rec.on_tokens(1);
  clock.set_ns(2150);
  rec.on_tokens(3);
  clock.set_ns(2200);
  rec.on_done();

  const auto tl = rec.timeline(16);
  EXPECT_EQ(tl.t_request_ns, 100);
  EXPECT_EQ(tl.t_tokenized_ns, 100);
  EXPECT_EQ(tl.t_submit_ns, 150);
  EXPECT_EQ(tl.t_done_ns, 2200);
  EXPECT_EQ(tl.prompt_tokens, 16U);
  ASSERT_EQ(tl.chunks.size(), 2U);
  EXPECT_EQ(tl.chunks[0].t_ns, 1150);
  EXPECT_EQ(tl.chunks[0].tokens, 1U);
  EXPECT_EQ(tl.chunks[1].t_ns, 2150);
  EXPECT_EQ(tl.chunks[1].tokens, 3U);
  EXPECT_FALSE(rec.has_error());
}

TEST(Recorder, OverflowKeepsTheTokenCountAndIsCounted) {
  platform::ManualClock clock;
  std::atomic<bool> interrupted{false};
  Recorder rec(clock, interrupted, 2);
  rec.reset(2, 0);
  for (int i = 0; i < 5; ++i) rec.on_tokens(1);
  const auto tl = rec.timeline(1);
  ASSERT_EQ(tl.chunks.size(), 2U);
  EXPECT_EQ(tl.chunks[0].tokens + tl.chunks[1].tokens, 5U);
  EXPECT_EQ(rec.overflow_chunks(), 3U);
}

TEST(Recorder, ZeroTokenChunksAreNotTokens) {
  platform::ManualClock clock;
  std::atomic<bool> interrupted{false};
  Recorder rec(clock, interrupted, 4);
  rec.reset(4, 0);
  rec.on_tokens(0);
  EXPECT_EQ(rec.chunk_count(), 0U);
}

TEST(Recorder, ShouldStopOnDeadlineOrInterrupt) {
  platform::ManualClock clock;
  std::atomic<bool> interrupted{false};
  Recorder rec(clock, interrupted, 4);
  rec.reset(4, 1000);
  clock.set_ns(999);
  EXPECT_FALSE(rec.should_stop());
  clock.set_ns(1000);
  EXPECT_TRUE(rec.should_stop());
  rec.reset(4, 0);  // no deadline
  EXPECT_FALSE(rec.should_stop());
  interrupted = true;
  EXPECT_TRUE(rec.should_stop());
}

TEST(Recorder, FirstErrorIsKeptAndResetClearsIt) {
  platform::ManualClock clock;
  std::atomic<bool> interrupted{false};
  Recorder rec(clock, interrupted, 4);
  rec.reset(4, 0);
  clock.set_ns(42);
  rec.on_error(ErrorKind::kEngine, "connection reset");
  rec.on_error(ErrorKind::kTimeout, "later");
  EXPECT_TRUE(rec.has_error());
  EXPECT_EQ(rec.error_kind(), ErrorKind::kEngine);
  EXPECT_EQ(rec.error_message(), "connection reset");
  EXPECT_EQ(rec.t_done_ns(), 42);
  rec.reset(4, 0);
  EXPECT_FALSE(rec.has_error());
  EXPECT_EQ(rec.t_done_ns(), 0);
}

}  // namespace
}  // namespace tokscope::run
