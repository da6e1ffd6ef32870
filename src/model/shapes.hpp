// Model shapes: the handful of config.json numbers that decide how many bytes and operations one
// token costs. The catalog holds the real shapes that the published edge-device numbers were
// measured on, so the simulated engine and the roofline can name a real model instead of "1.5B".
//
// Only dense decoder-only transformers with grouped-query attention and a gated MLP
// (gate/up/down) are representable. Hybrid models (Qwen3.5's linear-attention layers, Qwen3-Next)
// are deliberately absent: forcing them into this struct would give wrong W and K.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace tokscope::model {

struct ModelShape {
  std::string name;              // catalog name, e.g. "Qwen2.5-1.5B"
  std::string arch;              // config.json model_type family: qwen2, qwen3, llama, gemma3, phi3
  std::uint32_t n_layer = 0;     // num_hidden_layers
  std::uint32_t n_embd = 0;      // hidden_size
  std::uint32_t n_head = 0;      // num_attention_heads
  std::uint32_t n_head_kv = 0;   // num_key_value_heads
  std::uint32_t head_dim = 0;    // head_dim (not always n_embd / n_head: Qwen3, Gemma 3)
  std::uint32_t n_ff = 0;        // intermediate_size
  std::uint32_t n_vocab = 0;     // vocab_size
  bool tied_embeddings = false;  // tie_word_embeddings: the output head reuses the input table
  bool qkv_bias = false;         // q/k/v projections carry a bias (Qwen2 family)
  std::uint32_t norms_per_layer = 2;  // RMSNorm vectors per block (Gemma 3 has 4)
  bool qk_norm = false;               // per-head RMSNorm on q and k (Qwen3, Gemma 3)
  std::string source;                 // where the numbers come from and how far they were checked
};

// The built-in catalog, in a stable order.
std::span<const ModelShape> shape_catalog();

// Case-insensitive lookup. Accepts a Hugging Face repo id ("Qwen/Qwen2.5-1.5B-Instruct"): the
// organisation prefix and a trailing -instruct / -chat / -it (optionally followed by a version
// such as -v1.0) are stripped, since fine-tuned variants share the base model's shape.
// Returns nullptr when the name is unknown.
const ModelShape* find_shape(std::string_view name);

// Every stored parameter: input embedding, output head when untied, per-layer q/k/v/o and
// gate/up/down projections, norm vectors, q/k norms, q/k/v biases, and the final norm.
std::uint64_t parameter_count(const ModelShape& shape);

// Parameters of the per-layer projections only (q, k, v, o, gate, up, down): the matrices every
// token multiplies through. Excludes embeddings, output head, norms and biases.
std::uint64_t matmul_parameter_count(const ModelShape& shape);

// Parameters of the output head matrix (n_vocab x n_embd), whether tied or not.
std::uint64_t output_head_parameter_count(const ModelShape& shape);

// Small vectors that are neither matmul weights nor embeddings: norms, q/k norms, biases.
std::uint64_t vector_parameter_count(const ModelShape& shape);

}  // namespace tokscope::model
