// Quantization presets: block arithmetic and lookups.
#include "model/quant.hpp"

#include <gtest/gtest.h>

namespace tokscope::model {
namespace {

TEST(Quant, BitsIncludeScales) {
  EXPECT_DOUBLE_EQ(find_quant("q8_0")->weight_bits_effective, 8.5);  // 34 bytes / 32
  EXPECT_DOUBLE_EQ(find_quant("q4_0")->weight_bits_effective, 4.5);  // 18 bytes / 32
  EXPECT_DOUBLE_EQ(find_quant("w4a16_g128")->weight_bits_effective, 4.125);
  EXPECT_DOUBLE_EQ(find_quant("w8a8_g128")->weight_bits_effective, 8.125);
  EXPECT_DOUBLE_EQ(find_quant("f16")->weight_bits_effective, 16.0);
}

TEST(Quant, Q4KMPromotesAttnVAndFfnDownOnHalfTheLayers) {
  const QuantPreset& q = *find_quant("q4_k_m");
  EXPECT_DOUBLE_EQ(q.weight_bits_effective, 4.5);                  // Q4_K
  EXPECT_DOUBLE_EQ(q.output_head_bits, 6.5625);                    // Q6_K
  EXPECT_DOUBLE_EQ(q.attn_v_ffn_down_bits, (4.5 + 6.5625) / 2.0);  // half Q6_K, half Q4_K
}

TEST(Quant, NormalizedFields) {
  EXPECT_EQ(find_quant("w8a8")->act_bits, 8);
  EXPECT_EQ(find_quant("w8a8")->group_size, "per-channel");
  EXPECT_EQ(find_quant("w8a16")->act_bits, 16);
  EXPECT_EQ(find_quant("q4_0")->act_bits, 0);  // backend-dependent: unknown, not guessed
  for (const auto& preset : quant_presets()) {
    EXPECT_DOUBLE_EQ(preset.kv_bytes_per_element, 2.0) << preset.name;  // f16 KV by default
    EXPECT_FALSE(preset.description.empty()) << preset.name;
  }
}

TEST(Quant, LookupIsCaseInsensitiveWithW4A16Alias) {
  EXPECT_EQ(find_quant("Q4_K_M"), find_quant("q4_k_m"));
  EXPECT_EQ(find_quant("W8A8"), find_quant("w8a8"));
  ASSERT_NE(find_quant("w4a16"), nullptr);
  EXPECT_EQ(find_quant("w4a16")->name, "w4a16_g128");
  EXPECT_EQ(find_quant("q3_k_s"), nullptr);
}

}  // namespace
}  // namespace tokscope::model
