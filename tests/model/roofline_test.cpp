// Roofline ceilings, including the seed's own arithmetic (spec/metrics.md, "Why this exists").
#include "model/roofline.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace tokscope::model {
namespace {

TEST(Roofline, SeedArithmetic) {
  // 17 GB/s over 1.1 GB of weights: the seed's 15.4 tokens/s.
  EXPECT_NEAR(decode_ceiling_tps(17e9, 1.1e9, 0.0, 0), 15.45, 0.005);
  // The RK3588's LPDDR4x peak, 33.8 GB/s: at most ~31 tokens/s, so "42 tokens/s" is no decode.
  EXPECT_NEAR(decode_ceiling_tps(33.8e9, 1.1e9, 0.0, 0), 30.7, 0.05);
}

TEST(Roofline, KvCacheLowersTheDecodeCeilingWithContext) {
  const double short_ctx = decode_ceiling_tps(33.8e9, 1.1e9, 28672.0, 128);
  const double long_ctx = decode_ceiling_tps(33.8e9, 1.1e9, 28672.0, 4096);
  EXPECT_DOUBLE_EQ(long_ctx, 33.8e9 / (1.1e9 + 28672.0 * 4096));
  EXPECT_LT(long_ctx, short_ctx);
}

TEST(Roofline, PrefillIsComputeBoundForLongPromptsAndMemoryBoundForShortOnes) {
  const double peak = 6e12, ops = 3.0e9, bw = 33.8e9, w = 1.5e9;
  EXPECT_DOUBLE_EQ(prefill_ceiling_tps(peak, ops, bw, w, 1024), peak / ops);  // 2000 tok/s
  EXPECT_DOUBLE_EQ(prefill_ceiling_tps(peak, ops, bw, w, 8), bw * 8 / w);     // ~180 tok/s
}

TEST(Roofline, InvalidInputsGiveNaN) {
  EXPECT_TRUE(std::isnan(decode_ceiling_tps(0.0, 1e9, 0.0, 0)));
  EXPECT_TRUE(std::isnan(decode_ceiling_tps(1e9, 0.0, 0.0, 0)));
  EXPECT_TRUE(std::isnan(decode_ceiling_tps(1e9, 1e9, -1.0, 1)));
  EXPECT_TRUE(std::isnan(prefill_ceiling_tps(6e12, 3e9, 33.8e9, 1e9, 0)));
  EXPECT_TRUE(std::isnan(prefill_ceiling_tps(NAN, 3e9, 33.8e9, 1e9, 128)));
}

TEST(Roofline, MakeCeilingUsesGigabytesAndKeepsTheSource) {
  DecodeBytes b;
  b.weight_bytes_per_token = 1.1e9;
  b.kv_bytes_per_context_token = 0.0;
  b.flops_per_token = 2.2e9;
  const Ceiling c = make_ceiling(33.8, 6e12, b, 128, 160, "declared");
  EXPECT_NEAR(c.decode_tps, 30.7, 0.05);
  EXPECT_DOUBLE_EQ(c.prefill_tps, std::min(6e12 / 2.2e9, 33.8e9 * 128 / 1.1e9));
  EXPECT_DOUBLE_EQ(c.bandwidth_gbps, 33.8);
  EXPECT_EQ(c.context_tokens, 160u);
  EXPECT_EQ(c.source, "declared");
}

}  // namespace
}  // namespace tokscope::model
