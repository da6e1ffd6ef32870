#include "model/quant.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

namespace tokscope::model {
namespace {

// Block layouts (bytes per block / weights per block), as defined by ggml:
//   Q8_0: 34 / 32 = 8.5 bits     Q4_0: 18 / 32 = 4.5 bits
//   Q4_K: 144 / 256 = 4.5 bits   Q6_K: 210 / 256 = 6.5625 bits
constexpr double kQ8_0Bits = 34.0 * 8.0 / 32.0;
constexpr double kQ4_0Bits = 18.0 * 8.0 / 32.0;
constexpr double kQ4_KBits = 144.0 * 8.0 / 256.0;
constexpr double kQ6_KBits = 210.0 * 8.0 / 256.0;
// llama-quantize's Q4_K_M promotes attn_v and ffn_down to Q6_K on the first and last eighth of the
// layers and on every third layer in between: half of the layers. Averaged per tensor:
constexpr double kQ4_K_MPromotedBits = 0.5 * kQ6_KBits + 0.5 * kQ4_KBits;
// Group-quantized int formats carry one f16 scale per group.
constexpr double kG128ScaleBits = 16.0 / 128.0;

struct QuantRow {
  std::string_view name;
  double weight_bits_effective;
  int weight_bits;
  int act_bits;
  std::string_view group_size;
  double output_head_bits;
  double attn_v_ffn_down_bits;
  double kv_bytes_per_element;
  std::string_view description;
};

constexpr std::array<QuantRow, 8> kQuantRows{{
    {"f16", 16.0, 16, 16, "none", 16.0, 16.0, 2.0, "IEEE half precision, no quantization."},
    {"q8_0", kQ8_0Bits, 8, 0, "g32", kQ8_0Bits, kQ8_0Bits, 2.0,
     "llama.cpp Q8_0: 32 int8 weights + one f16 scale (34 bytes / 32). The output head stays "
     "Q8_0. Activation bits are backend-dependent (the CPU backend quantizes them to 8 bits for "
     "the dot product), so they are reported as unknown."},
    {"q4_0", kQ4_0Bits, 4, 0, "g32", kQ6_KBits, kQ4_0Bits, 2.0,
     "llama.cpp Q4_0: 32 4-bit weights + one f16 scale (18 bytes / 32). llama-quantize stores "
     "the output head (or the tied embedding table) as Q6_K, 6.5625 bits; it falls back to Q8_0 "
     "when n_embd is not a multiple of 256 (e.g. 896), which is not modelled. Activation bits are "
     "backend-dependent: unknown."},
    {"q4_k_m", kQ4_KBits, 4, 0, "g32", kQ6_KBits, kQ4_K_MPromotedBits, 2.0,
     "llama.cpp Q4_K_M mix (documented approximation): Q4_K (4.5 bits; 32-weight sub-blocks in "
     "256-weight super-blocks) for most matmuls; attn_v and ffn_down are Q6_K (6.5625 bits) on "
     "about half of the layers, modelled as their average, 5.53 bits; output head Q6_K. The "
     "Q8_0/Q5_0 fallbacks for rows not divisible by 256 are not modelled."},
    {"w8a8", 8.0, 8, 8, "per-channel", 8.0, 8.0, 2.0,
     "RKLLM W8A8: int8 weights with per-channel scales (under 0.02 bits per weight at these "
     "widths, ignored), int8 activations. Output head assumed int8 too; KV cache assumed f16 "
     "(neither verified)."},
    {"w8a8_g128", 8.0 + kG128ScaleBits, 8, 8, "g128", 8.0 + kG128ScaleBits, 8.0 + kG128ScaleBits,
     2.0,
     "RKLLM W8A8 with one f16 scale per 128 weights (8.125 bits), int8 activations. Output head "
     "assumed quantized alike (not verified)."},
    {"w4a16_g128", 4.0 + kG128ScaleBits, 4, 16, "g128", 4.0 + kG128ScaleBits, 4.0 + kG128ScaleBits,
     2.0,
     "4-bit weights with one f16 scale per 128 weights (4.125 bits), 16-bit activations (RKLLM "
     "on RK3576/RV1126B, ax-llm). Alias: w4a16. Output head assumed quantized alike (not "
     "verified)."},
    {"w8a16", 8.0, 8, 16, "per-channel", 8.0, 8.0, 2.0,
     "ax-llm default (Pulsar2): int8 weights, 16-bit activations. Per-channel scales and an int8 "
     "output head are assumptions (not verified); KV cache assumed 16-bit."},
}};

QuantPreset to_preset(const QuantRow& row) {
  return QuantPreset{.name = std::string(row.name),
                     .weight_bits_effective = row.weight_bits_effective,
                     .weight_bits = row.weight_bits,
                     .act_bits = row.act_bits,
                     .group_size = std::string(row.group_size),
                     .output_head_bits = row.output_head_bits,
                     .attn_v_ffn_down_bits = row.attn_v_ffn_down_bits,
                     .kv_bytes_per_element = row.kv_bytes_per_element,
                     .description = std::string(row.description)};
}

std::string to_lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

std::span<const QuantPreset> quant_presets() {
  static const std::vector<QuantPreset> presets = [] {
    std::vector<QuantPreset> out;
    out.reserve(kQuantRows.size());
    for (const auto& row : kQuantRows) out.push_back(to_preset(row));
    return out;
  }();
  return presets;
}

const QuantPreset* find_quant(std::string_view name) {
  std::string wanted = to_lower(name);
  if (wanted == "w4a16") wanted = "w4a16_g128";
  for (const auto& preset : quant_presets()) {
    if (preset.name == wanted) return &preset;
  }
  return nullptr;
}

}  // namespace tokscope::model
