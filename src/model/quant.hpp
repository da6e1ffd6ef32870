// Quantization presets: how many bits one stored weight costs, in the normalized form the result
// file reports (weight bits / activation bits / group size) plus the engine's own type name.
//
// Bits are "effective": they include the per-block scales, because decode streams the scales too.
// A preset is a property of the file format, not of the device; which device runs which preset is
// decided by the device profile (device_profile.hpp).
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace tokscope::model {

struct QuantPreset {
  std::string name;                    // engine's own type name, lower case: "q4_k_m", "w8a8"
  double weight_bits_effective = 0.0;  // bits per weight of most matmuls, scales included
  int weight_bits = 0;                 // nominal weight bits: 4, 8, 16
  int act_bits = 0;                    // activation bits in the matmuls; 0 = unknown
  std::string group_size;              // "per-channel", "g32", "g128" or "none"
  double output_head_bits = 0.0;       // bits per weight of the output head (and a tied table)
  // Bits per weight of attn_v and ffn_down. Equal to weight_bits_effective except for mixes that
  // promote those tensors (q4_k_m); see the preset's description.
  double attn_v_ffn_down_bits = 0.0;
  double kv_bytes_per_element = 2.0;  // KV-cache element size; f16 by default
  std::string description;            // what the numbers mean and what is approximate
};

// All presets, in a stable order.
std::span<const QuantPreset> quant_presets();

// Case-insensitive lookup; also accepts "w4a16" as an alias of "w4a16_g128" (RKLLM's and
// ax-llm's common 4-bit choice). Returns nullptr when unknown.
const QuantPreset* find_quant(std::string_view name);

}  // namespace tokscope::model
