// W, K and F of spec/metrics.md for real shapes.
#include "model/decode_bytes.hpp"

#include <gtest/gtest.h>

namespace tokscope::model {
namespace {

TEST(DecodeBytes, TiedModelCountsTheWholeHeadAndOneEmbeddingRow) {
  const ModelShape& s = *find_shape("Qwen2.5-1.5B");
  const DecodeBytes b = decode_bytes(s, *find_quant("w8a8"));
  const double matmuls = static_cast<double>(matmul_parameter_count(s));  // 1 byte each
  const double head = 151936.0 * 1536.0;                                  // tied, still read
  const double row = 1536.0;
  const double vectors = static_cast<double>(vector_parameter_count(s)) * 4.0;
  EXPECT_DOUBLE_EQ(b.weight_bytes_per_token, matmuls + head + row + vectors);
  EXPECT_NEAR(b.weight_bytes_per_token / 1e9, 1.544, 0.001);
}

TEST(DecodeBytes, UntiedModelReadsOnlyOneRowOfTheInputTable) {
  // DeepSeek-R1-Distill-Qwen-1.5B has 233M more parameters than Qwen2.5-1.5B (its own head), but
  // decode reads the same bytes: the extra input table contributes one row.
  const QuantPreset& q = *find_quant("w8a8");
  const DecodeBytes tied = decode_bytes(*find_shape("Qwen2.5-1.5B"), q);
  const DecodeBytes untied = decode_bytes(*find_shape("DeepSeek-R1-Distill-Qwen-1.5B"), q);
  EXPECT_GT(untied.params, tied.params + 233'000'000u);
  EXPECT_DOUBLE_EQ(untied.weight_bytes_per_token, tied.weight_bytes_per_token);
}

TEST(DecodeBytes, KvBytesPerContextToken) {
  const QuantPreset& q = *find_quant("f16");
  // 2 (K,V) x 28 layers x 2 KV heads x 128 x 2 bytes
  EXPECT_DOUBLE_EQ(decode_bytes(*find_shape("Qwen2.5-1.5B"), q).kv_bytes_per_context_token,
                   2.0 * 28 * 2 * 128 * 2);
  // Qwen3-0.6B: 8 KV heads of 128 make its cache 4x Qwen2.5-1.5B's per token.
  EXPECT_DOUBLE_EQ(decode_bytes(*find_shape("Qwen3-0.6B"), q).kv_bytes_per_context_token,
                   2.0 * 28 * 8 * 128 * 2);
}

TEST(DecodeBytes, FlopsAreTwicePerParameter) {
  const ModelShape& s = *find_shape("TinyLlama-1.1B");
  const DecodeBytes b = decode_bytes(s, *find_quant("q4_0"));
  EXPECT_EQ(b.params, parameter_count(s));
  EXPECT_DOUBLE_EQ(b.flops_per_token, 2.0 * static_cast<double>(parameter_count(s)));
}

TEST(DecodeBytes, Q4KMSitsBetweenQ4_0AndQ8_0) {
  const ModelShape& s = *find_shape("Llama-3.2-1B");
  const double q4_0 = decode_bytes(s, *find_quant("q4_0")).weight_bytes_per_token;
  const double q4_k_m = decode_bytes(s, *find_quant("q4_k_m")).weight_bytes_per_token;
  const double q8_0 = decode_bytes(s, *find_quant("q8_0")).weight_bytes_per_token;
  EXPECT_GT(q4_k_m, q4_0);  // promoted attn_v/ffn_down
  EXPECT_LT(q4_k_m, q8_0);
  // Promoted tensors: attn_v 2048x512 and ffn_down 8192x2048 per layer, +1.03125 bits each.
  const double promoted = 16.0 * (2048.0 * 512.0 + 8192.0 * 2048.0);
  EXPECT_NEAR(q4_k_m - q4_0, promoted * (6.5625 - 4.5) / 2.0 / 8.0, 1.0);
}

}  // namespace
}  // namespace tokscope::model
