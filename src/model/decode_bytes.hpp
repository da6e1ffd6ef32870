// What one token costs a model stored in a given quantization: the W, K and F of the physical
// ceilings in spec/metrics.md ("Physical ceilings (roofline)").
#pragma once

#include <cstdint>

#include "model/quant.hpp"
#include "model/shapes.hpp"

namespace tokscope::model {

struct DecodeBytes {
  // W: bytes streamed from memory by one decode step. Every per-layer matmul at its stored
  // quantized size, ONE row of the input embedding (a lookup, not a matmul), the WHOLE output head
  // (tied or not) at output_head_bits, and the norm/bias vectors (stored f32 by every engine we
  // know of; they are under 0.1% of W).
  double weight_bytes_per_token = 0.0;
  // K per context token: K and V, every layer, every KV head: 2 * n_layer * n_head_kv * head_dim
  // * kv_bytes_per_element. Decode at context c reads K * c bytes of cache.
  double kv_bytes_per_context_token = 0.0;
  // F: operations per prompt token, 2 * params (one multiply and one add per weight), as the spec
  // defines it for the prefill ceiling.
  double flops_per_token = 0.0;
  std::uint64_t params = 0;  // parameter_count(shape)
};

DecodeBytes decode_bytes(const ModelShape& shape, const QuantPreset& quant);

}  // namespace tokscope::model
