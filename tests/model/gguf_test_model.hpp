// Builds llama-style GGUF files for the GGUF tests: the tensors and metadata llama.cpp writes
// for a dense decoder (token_embd, output_norm, output unless tied; per layer attn_norm, attn_q/k/v
// (+ biases, q/k norms), attn_output, ffn_norm, ffn_gate/up/down, and the extra norms of 4-norm
// architectures), so model_facts() can be compared with model::decode_bytes() for the same shape.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/gguf/ggml_types.hpp"
#include "model/gguf/writer.hpp"
#include "model/shapes.hpp"

namespace tokscope::model::gguf::testing {

inline constexpr std::uint32_t kF32 = 0;
inline constexpr std::uint32_t kF16 = 1;
inline constexpr std::uint32_t kQ4_0 = 2;
inline constexpr std::uint32_t kQ8_0 = 8;
inline constexpr std::uint32_t kQ4_K = 12;
inline constexpr std::uint32_t kQ6_K = 14;

struct TestModel {
  ModelShape shape{};
  std::uint32_t matmul_type = kF16;
  std::uint32_t head_type = kF16;  // output.weight, or token_embd.weight when tied
  std::uint32_t embd_type = kF16;  // token_embd.weight when untied
  // Type of one per-layer matmul ("attn_q", "attn_v", "ffn_down", ...); default matmul_type.
  std::function<std::uint32_t(std::uint32_t layer, const std::string& kind)> layer_type{};
  std::optional<std::uint32_t> file_type{};  // general.file_type
  bool tokens = true;                        // write tokenizer.ggml.tokens (n_vocab strings)
  TensorFiller fill{};                       // tensor bytes; zeros when empty
};

// A small llama-like shape (not in the catalog).
inline ModelShape tiny_shape() {
  ModelShape s;
  s.name = "tiny";
  s.arch = "llama";
  s.n_layer = 2;
  s.n_embd = 64;
  s.n_head = 4;
  s.n_head_kv = 2;
  s.head_dim = 16;
  s.n_ff = 128;
  s.n_vocab = 96;
  return s;
}

// Adds metadata and tensors of `m` to `w`; a writer error is a test failure.
inline void build(const TestModel& m, GgufWriter& w) {
  const ModelShape& s = m.shape;
  const std::string a = s.arch;
  w.set_string("general.architecture", a);
  w.set_string("general.name", s.name);
  if (m.file_type) w.set_u32("general.file_type", *m.file_type);
  w.set_u32(a + ".block_count", s.n_layer);
  w.set_u32(a + ".context_length", 4096);
  w.set_u32(a + ".embedding_length", s.n_embd);
  w.set_u32(a + ".feed_forward_length", s.n_ff);
  w.set_u32(a + ".attention.head_count", s.n_head);
  w.set_u32(a + ".attention.head_count_kv", s.n_head_kv);
  if (s.head_dim * s.n_head != s.n_embd) {
    w.set_u32(a + ".attention.key_length", s.head_dim);
    w.set_u32(a + ".attention.value_length", s.head_dim);
  }
  w.set_f32(a + ".rope.freq_base", 10000.0F);
  w.set_f32(a + ".attention.layer_norm_rms_epsilon", 1e-6F);
  w.set_string("tokenizer.ggml.model", "gpt2");
  if (m.tokens) {
    std::vector<std::string> tokens;
    tokens.reserve(s.n_vocab);
    for (std::uint32_t i = 0; i < s.n_vocab; ++i) tokens.push_back("t" + std::to_string(i));
    w.set("tokenizer.ggml.tokens", MetaValue::string_array(tokens));
  }

  auto add = [&](const std::string& name, std::vector<std::uint64_t> dims, std::uint32_t type) {
    const auto ok = w.add_tensor(name, std::move(dims), type, m.fill);
    ASSERT_TRUE(ok.ok()) << ok.error().message;
  };
  const std::uint64_t embd = s.n_embd;
  const std::uint64_t q = std::uint64_t{s.n_head} * s.head_dim;
  const std::uint64_t kv = std::uint64_t{s.n_head_kv} * s.head_dim;
  add("token_embd.weight", {embd, s.n_vocab}, s.tied_embeddings ? m.head_type : m.embd_type);
  add("output_norm.weight", {embd}, kF32);
  if (!s.tied_embeddings) add("output.weight", {embd, s.n_vocab}, m.head_type);
  for (std::uint32_t l = 0; l < s.n_layer; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    auto type = [&](const std::string& kind) {
      return m.layer_type ? m.layer_type(l, kind) : m.matmul_type;
    };
    add(p + "attn_norm.weight", {embd}, kF32);
    add(p + "attn_q.weight", {embd, q}, type("attn_q"));
    add(p + "attn_k.weight", {embd, kv}, type("attn_k"));
    add(p + "attn_v.weight", {embd, kv}, type("attn_v"));
    add(p + "attn_output.weight", {q, embd}, type("attn_output"));
    if (s.qkv_bias) {
      add(p + "attn_q.bias", {q}, kF32);
      add(p + "attn_k.bias", {kv}, kF32);
      add(p + "attn_v.bias", {kv}, kF32);
    }
    if (s.qk_norm) {
      add(p + "attn_q_norm.weight", {s.head_dim}, kF32);
      add(p + "attn_k_norm.weight", {s.head_dim}, kF32);
    }
    add(p + "ffn_norm.weight", {embd}, kF32);
    if (s.norms_per_layer == 4) {
      add(p + "post_attention_norm.weight", {embd}, kF32);
      add(p + "post_ffw_norm.weight", {embd}, kF32);
    }
    add(p + "ffn_gate.weight", {embd, s.n_ff}, type("ffn_gate"));
    add(p + "ffn_up.weight", {embd, s.n_ff}, type("ffn_up"));
    add(p + "ffn_down.weight", {std::uint64_t{s.n_ff}, embd}, type("ffn_down"));
  }
}

}  // namespace tokscope::model::gguf::testing
