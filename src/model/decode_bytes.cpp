#include "model/decode_bytes.hpp"

namespace tokscope::model {
namespace {

constexpr double kBitsPerByte = 8.0;
constexpr double kVectorBytesPerParam = 4.0;  // norms and biases are kept in f32

double as_double(std::uint64_t v) {
  return static_cast<double>(v);
}

}  // namespace

DecodeBytes decode_bytes(const ModelShape& shape, const QuantPreset& quant) {
  const double n_layer = static_cast<double>(shape.n_layer);
  const double n_embd = static_cast<double>(shape.n_embd);
  const double kv_width =
      static_cast<double>(shape.n_head_kv) * static_cast<double>(shape.head_dim);
  const double n_ff = static_cast<double>(shape.n_ff);

  // attn_v (n_embd -> kv_width) and ffn_down (n_ff -> n_embd) may be stored at other bits.
  const double promoted_params = n_layer * (n_embd * kv_width + n_embd * n_ff);
  const double other_matmul_params = as_double(matmul_parameter_count(shape)) - promoted_params;
  const double matmul_bytes = (other_matmul_params * quant.weight_bits_effective +
                               promoted_params * quant.attn_v_ffn_down_bits) /
                              kBitsPerByte;

  const double head_bytes =
      as_double(output_head_parameter_count(shape)) * quant.output_head_bits / kBitsPerByte;
  // A tied table is one tensor, stored like the head; an untied one like the other weights.
  const double embedding_row_bytes =
      n_embd * (shape.tied_embeddings ? quant.output_head_bits : quant.weight_bits_effective) /
      kBitsPerByte;
  const double vector_bytes = as_double(vector_parameter_count(shape)) * kVectorBytesPerParam;

  DecodeBytes out;
  out.params = parameter_count(shape);
  out.weight_bytes_per_token = matmul_bytes + head_bytes + embedding_row_bytes + vector_bytes;
  out.kv_bytes_per_context_token = 2.0 * n_layer * kv_width * quant.kv_bytes_per_element;
  out.flops_per_token = 2.0 * as_double(out.params);
  return out;
}

}  // namespace tokscope::model
