// Tests for core/request_metrics.hpp against the per-request table of spec/metrics.md.
// Timelines are written in milliseconds (ms(x) = x * 1e6 ns) so the expected values can be
// read off directly.
#include "core/request_metrics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

namespace tokscope::core {
namespace {

constexpr double kTol = 1e-9;

constexpr std::int64_t ms(double milliseconds) {
  return static_cast<std::int64_t>(milliseconds * 1e6);
}

// A timeline with no tokenization time: request, tokenized and submit all at `submit_ms`.
TimelineView timeline_at(double submit_ms, std::uint32_t prompt_tokens,
                         const std::vector<Chunk>& chunks) {
  TimelineView view;
  view.t_request_ns = view.t_tokenized_ns = view.t_submit_ns = ms(submit_ms);
  view.t_done_ns = chunks.empty() ? ms(submit_ms) : chunks.back().t_ns;
  view.prompt_tokens = prompt_tokens;
  view.chunks = chunks;
  return view;
}

double sum(const std::vector<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0);
}

void expect_itls_near(const std::vector<double>& actual, const std::vector<double>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], kTol) << "itl_ms[" << i << "]";
  }
}

TEST(RequestMetrics, SingleTokenChunks) {
  const std::vector<Chunk> chunks{{ms(11), 1}, {ms(13), 1}, {ms(16), 1}, {ms(20), 1}};
  const RequestMetrics m = compute_request_metrics(timeline_at(1, 100, chunks));
  EXPECT_NEAR(m.tokenize_ms, 0.0, kTol);
  EXPECT_NEAR(m.ttft_ms, 10.0, kTol);         // 11 - 1
  EXPECT_NEAR(m.ttft_e2e_ms, 10.0, kTol);     // no tokenization: same as ttft
  EXPECT_NEAR(m.prefill_tps, 10000.0, 1e-6);  // 100 tokens / 0.010 s
  expect_itls_near(m.itl_ms, {2, 3, 4});
  EXPECT_NEAR(m.tpot_ms, 3.0, kTol);  // (20 - 11) / 3
  EXPECT_NEAR(m.e2e_ms, 19.0, kTol);  // 20 - 1
  EXPECT_NEAR(m.blended_tps, 4.0 / 0.019, 1e-6);
  EXPECT_EQ(m.output_tokens, 4u);
  EXPECT_EQ(m.multi_token_chunks, 0u);
  EXPECT_FALSE(m.first_chunk_multi_token);
}

TEST(RequestMetrics, MultiTokenMiddleChunkIsSplitEvenly) {
  // 10 -> first token; 16 carries 3 tokens: 6 ms over 3 = 2 each; 20 carries 1: 4 ms.
  const std::vector<Chunk> chunks{{ms(10), 1}, {ms(16), 3}, {ms(20), 1}};
  const RequestMetrics m = compute_request_metrics(timeline_at(0, 8, chunks));
  expect_itls_near(m.itl_ms, {2, 2, 2, 4});
  EXPECT_NEAR(sum(m.itl_ms), 10.0, kTol);  // decode time t_last - t_first = 20 - 10
  EXPECT_EQ(m.output_tokens, 5u);
  EXPECT_EQ(m.multi_token_chunks, 1u);
  EXPECT_FALSE(m.first_chunk_multi_token);
  EXPECT_NEAR(m.tpot_ms, 2.5, kTol);  // 10 / (5 - 1)
  EXPECT_NEAR(m.ttft_ms, 10.0, kTol);
  EXPECT_NEAR(m.e2e_ms, 20.0, kTol);
  EXPECT_NEAR(m.blended_tps, 250.0, 1e-9);  // 5 / 0.020
}

TEST(RequestMetrics, UnevenSplitKeepsTheSumInvariant) {
  // 7 ms over 3 tokens does not divide exactly in binary; the sum still equals decode time.
  const std::vector<Chunk> chunks{{ms(1), 1}, {ms(8), 3}, {ms(9.5), 2}};
  const RequestMetrics m = compute_request_metrics(timeline_at(0, 8, chunks));
  expect_itls_near(m.itl_ms, {7.0 / 3, 7.0 / 3, 7.0 / 3, 0.75, 0.75});
  EXPECT_NEAR(sum(m.itl_ms), 8.5, kTol);
  EXPECT_EQ(m.multi_token_chunks, 2u);
}

TEST(RequestMetrics, MultiTokenFirstChunkGetsZerosAndFlag) {
  const std::vector<Chunk> chunks{{ms(10), 3}, {ms(14), 1}};
  const RequestMetrics m = compute_request_metrics(timeline_at(0, 50, chunks));
  EXPECT_NEAR(m.ttft_ms, 10.0, kTol);  // at the first chunk, not later
  expect_itls_near(m.itl_ms, {0, 0, 4});
  EXPECT_NEAR(sum(m.itl_ms), 4.0, kTol);
  EXPECT_TRUE(m.first_chunk_multi_token);
  EXPECT_EQ(m.multi_token_chunks, 1u);
  EXPECT_EQ(m.output_tokens, 4u);
  EXPECT_NEAR(m.tpot_ms, 4.0 / 3, kTol);
}

TEST(RequestMetrics, OneTokenHasNoTpotAndNoItl) {
  const std::vector<Chunk> chunks{{ms(10), 1}};
  const RequestMetrics m = compute_request_metrics(timeline_at(0, 20, chunks));
  EXPECT_EQ(m.output_tokens, 1u);
  EXPECT_TRUE(std::isnan(m.tpot_ms));
  EXPECT_TRUE(m.itl_ms.empty());
  EXPECT_NEAR(m.ttft_ms, 10.0, kTol);
  EXPECT_NEAR(m.e2e_ms, 10.0, kTol);
  EXPECT_NEAR(m.prefill_tps, 2000.0, 1e-9);  // 20 / 0.010
  EXPECT_NEAR(m.blended_tps, 100.0, 1e-9);   // 1 / 0.010
}

TEST(RequestMetrics, NoChunkLeavesTokenMetricsUndefined) {
  TimelineView view = timeline_at(0, 20, {});
  view.t_tokenized_ns = view.t_submit_ns = ms(2);
  const RequestMetrics m = compute_request_metrics(view);
  EXPECT_NEAR(m.tokenize_ms, 2.0, kTol);  // tokenization still happened
  EXPECT_TRUE(std::isnan(m.ttft_ms));
  EXPECT_TRUE(std::isnan(m.ttft_e2e_ms));
  EXPECT_TRUE(std::isnan(m.prefill_tps));
  EXPECT_TRUE(std::isnan(m.tpot_ms));
  EXPECT_TRUE(std::isnan(m.e2e_ms));
  EXPECT_TRUE(std::isnan(m.blended_tps));
  EXPECT_EQ(m.output_tokens, 0u);
  EXPECT_EQ(m.multi_token_chunks, 0u);
  EXPECT_FALSE(m.first_chunk_multi_token);
  EXPECT_TRUE(m.itl_ms.empty());
}

TEST(RequestMetrics, TokenizationIsExcludedFromTtftButNotFromTtftE2e) {
  const std::vector<Chunk> chunks{{ms(16), 1}, {ms(18), 1}};
  TimelineView view = timeline_at(0, 40, chunks);
  view.t_request_ns = ms(0);
  view.t_tokenized_ns = ms(5);
  view.t_submit_ns = ms(6);
  const RequestMetrics m = compute_request_metrics(view);
  EXPECT_NEAR(m.tokenize_ms, 5.0, kTol);
  EXPECT_NEAR(m.ttft_ms, 10.0, kTol);        // 16 - submit 6
  EXPECT_NEAR(m.ttft_e2e_ms, 16.0, kTol);    // 16 - request 0
  EXPECT_NEAR(m.prefill_tps, 4000.0, 1e-9);  // 40 / 0.010: from ttft, not ttft_e2e
  EXPECT_NEAR(m.e2e_ms, 12.0, kTol);         // 18 - submit 6
}

TEST(RequestMetrics, SubMillisecondPrecisionAndLargeClockValues) {
  // A monotonic clock days after boot: ~3e14 ns. Differences must survive intact.
  const std::int64_t base_ns = 300'000'000'000'000;
  const std::vector<Chunk> chunks{{base_ns + 1'500, 1}, {base_ns + 2'250, 1}};
  TimelineView view = timeline_at(0, 1, chunks);
  view.t_request_ns = view.t_tokenized_ns = view.t_submit_ns = base_ns;
  const RequestMetrics m = compute_request_metrics(view);
  EXPECT_DOUBLE_EQ(m.ttft_ms, 0.0015);
  ASSERT_EQ(m.itl_ms.size(), 1u);
  EXPECT_DOUBLE_EQ(m.itl_ms[0], 0.00075);
}

TEST(RequestMetrics, TokenAtSubmitInstantHasNoRate) {
  // ttft = 0 and e2e = 0: a rate over zero time is undefined, not infinite.
  const std::vector<Chunk> chunks{{ms(5), 1}};
  const RequestMetrics m = compute_request_metrics(timeline_at(5, 10, chunks));
  EXPECT_EQ(m.ttft_ms, 0.0);
  EXPECT_TRUE(std::isnan(m.prefill_tps));
  EXPECT_TRUE(std::isnan(m.blended_tps));
}

TEST(RequestMetrics, EmptyChunksNeverStopTheTtftClock) {
  // timeline.hpp says adapters do not record empty chunks; if one slips through it is ignored.
  const std::vector<Chunk> chunks{{ms(3), 0}, {ms(10), 1}, {ms(11), 0}, {ms(12), 1}};
  const RequestMetrics m = compute_request_metrics(timeline_at(0, 10, chunks));
  EXPECT_NEAR(m.ttft_ms, 10.0, kTol);
  expect_itls_near(m.itl_ms, {2});
  EXPECT_EQ(m.output_tokens, 2u);
  EXPECT_NEAR(m.e2e_ms, 12.0, kTol);
}

TEST(RequestMetrics, OutParameterReusesCapacityAndResetsFields) {
  RequestMetrics out;
  out.itl_ms.reserve(64);
  const double* buffer = out.itl_ms.data();

  const std::vector<Chunk> first{{ms(10), 3}, {ms(14), 1}};
  compute_request_metrics(timeline_at(0, 50, first), out);
  EXPECT_TRUE(out.first_chunk_multi_token);
  EXPECT_EQ(out.itl_ms.size(), 3u);

  const std::vector<Chunk> second{{ms(10), 1}, {ms(12), 1}};
  compute_request_metrics(timeline_at(0, 50, second), out);
  EXPECT_FALSE(out.first_chunk_multi_token);  // nothing left over from the previous request
  EXPECT_EQ(out.multi_token_chunks, 0u);
  EXPECT_EQ(out.output_tokens, 2u);
  expect_itls_near(out.itl_ms, {2});
  EXPECT_GE(out.itl_ms.capacity(), 64u);
  EXPECT_EQ(out.itl_ms.data(), buffer);  // same allocation: no shrink, no reallocation

  compute_request_metrics(timeline_at(0, 50, {}), out);
  EXPECT_TRUE(out.itl_ms.empty());
  EXPECT_TRUE(std::isnan(out.ttft_ms));
  EXPECT_EQ(out.itl_ms.data(), buffer);
}

TEST(RequestMetrics, BothOverloadsAgree) {
  const std::vector<Chunk> chunks{{ms(7), 2}, {ms(9), 1}, {ms(15), 3}};
  const TimelineView view = timeline_at(1, 30, chunks);
  const RequestMetrics by_value = compute_request_metrics(view);
  RequestMetrics by_out;
  by_out.itl_ms = {99, 99, 99, 99, 99, 99, 99, 99};  // stale contents must be cleared
  compute_request_metrics(view, by_out);
  EXPECT_EQ(by_value.itl_ms, by_out.itl_ms);
  EXPECT_EQ(by_value.output_tokens, by_out.output_tokens);
  EXPECT_EQ(by_value.tpot_ms, by_out.tpot_ms);
  expect_itls_near(by_value.itl_ms, {0, 2, 2, 2, 2});  // first chunk extra 0; 6 ms over 3
}

}  // namespace
}  // namespace tokscope::core
