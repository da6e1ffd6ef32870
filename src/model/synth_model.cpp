#include "model/synth_model.hpp"

#include <fmt/format.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstring>

#include "model/gguf/reader.hpp"
#include "model/gguf/writer.hpp"

namespace tokscope::model {
namespace {

using gguf::GgufWriter;
using gguf::MetaValue;

// ggml type ids and llama.cpp file types (enum llama_ftype) of the three supported formats.
constexpr std::uint32_t kTypeF32 = 0;
constexpr std::uint32_t kTypeF16 = 1;
constexpr std::uint32_t kTypeQ4_0 = 2;
constexpr std::uint32_t kTypeQ8_0 = 8;

struct Format {
  const char* name;
  std::uint32_t type_id;
  std::uint32_t llama_ftype;
};
constexpr std::array<Format, 3> kFormats{
    {{"q4_0", kTypeQ4_0, 2}, {"q8_0", kTypeQ8_0, 7}, {"f16", kTypeF16, 1}}};

constexpr double kWeightSd = 0.02;  // target standard deviation of the random weights

std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// IEEE binary16 bits of a float in the normal range (round to nearest even).
std::uint16_t half_bits(float value) {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t sign = (bits >> 16) & 0x8000U;
  const int exponent = static_cast<int>((bits >> 23) & 0xffU) - 127 + 15;
  std::uint32_t mantissa = bits & 0x7fffffU;
  if (exponent <= 0) return static_cast<std::uint16_t>(sign);             // tiny: flush to zero
  if (exponent >= 31) return static_cast<std::uint16_t>(sign | 0x7bffU);  // clamp to max finite
  std::uint32_t half = sign | (static_cast<std::uint32_t>(exponent) << 10) | (mantissa >> 13);
  const std::uint32_t rest = mantissa & 0x1fffU;
  if (rest > 0x1000U || (rest == 0x1000U && (half & 1U) != 0)) ++half;
  return static_cast<std::uint16_t>(half);
}

// A filler whose byte at tensor offset p is a pure function of (salt, p), so chunk boundaries
// that split a quantization block change nothing.
gguf::TensorFiller random_filler(std::uint32_t type_id, std::uint64_t salt) {
  if (type_id == kTypeQ4_0) {
    // Block of 32: f16 scale d, 16 bytes of nibbles q in [0, 15]; value = (q - 8) * d.
    // sd of (q - 8) over uniform q is sqrt(255 / 12) ~ 4.61.
    const std::uint16_t d = half_bits(static_cast<float>(kWeightSd / std::sqrt(255.0 / 12.0)));
    return [d, salt](std::uint64_t offset, std::span<std::byte> out) {
      for (std::size_t i = 0; i < out.size(); ++i) {
        const std::uint64_t p = offset + i;
        const std::uint64_t in_block = p % 18;
        out[i] = in_block < 2 ? static_cast<std::byte>((d >> (8 * in_block)) & 0xffU)
                              : static_cast<std::byte>(mix(salt ^ p) & 0xffU);
      }
    };
  }
  if (type_id == kTypeQ8_0) {
    // Block of 32: f16 scale d, 32 int8 q in [-127, 127]; sd of q ~ 73.6.
    const std::uint16_t d = half_bits(static_cast<float>(kWeightSd / 73.6));
    return [d, salt](std::uint64_t offset, std::span<std::byte> out) {
      for (std::size_t i = 0; i < out.size(); ++i) {
        const std::uint64_t p = offset + i;
        const std::uint64_t in_block = p % 34;
        const auto q = static_cast<std::int8_t>(static_cast<int>(mix(salt ^ p) % 255U) - 127);
        out[i] = in_block < 2 ? static_cast<std::byte>((d >> (8 * in_block)) & 0xffU)
                              : static_cast<std::byte>(static_cast<std::uint8_t>(q));
      }
    };
  }
  // F16: uniform in [-a, a] with a = sd * sqrt(3).
  const double a = kWeightSd * std::sqrt(3.0);
  return [a, salt](std::uint64_t offset, std::span<std::byte> out) {
    for (std::size_t i = 0; i < out.size(); ++i) {
      const std::uint64_t p = offset + i;
      const std::uint64_t r = mix(salt ^ (p / 2));
      const double u = static_cast<double>(r >> 11) * 0x1.0p-53;  // [0, 1)
      const std::uint16_t h = half_bits(static_cast<float>((2.0 * u - 1.0) * a));
      out[i] = static_cast<std::byte>((h >> (8 * (p % 2))) & 0xffU);
    }
  };
}

gguf::TensorFiller ones_f32() {
  return [](std::uint64_t offset, std::span<std::byte> out) {
    constexpr float kOne = 1.0F;
    std::array<std::byte, 4> one{};
    std::memcpy(one.data(), &kOne, 4);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = one[(offset + i) % 4];
  };
}

struct ArchParams {
  double rms_eps = 1e-6;
  double rope_base = 1e6;
};

ArchParams arch_params(const ModelShape& s) {
  if (s.arch == "llama") return {1e-5, s.n_vocab == 128256 ? 500000.0 : 10000.0};
  if (s.arch == "phi3") return {1e-5, 10000.0};
  return {1e-6, 1e6};  // qwen2, qwen3, gemma3
}

void set_synthetic_vocab(GgufWriter& w, std::uint64_t n_vocab, const std::string& arch) {
  std::vector<std::string> tokens;
  std::vector<float> scores;
  std::vector<std::int32_t> types;
  tokens.reserve(n_vocab);
  const auto add = [&](std::string t, float score, std::int32_t type) {
    tokens.push_back(std::move(t));
    scores.push_back(score);
    types.push_back(type);
  };
  // llama.cpp token types: 1 normal, 2 unknown, 3 control, 6 byte.
  add("<unk>", 0.0F, 2);
  add("<s>", 0.0F, 3);
  add("</s>", 0.0F, 3);
  // llama.cpp's vocabulary loader looks this token up by text for models named Phi-3 (and
  // fails without it); the real Phi-3 vocabulary has it too.
  if (arch == "phi3") add("<|endoftext|>", 0.0F, 3);
  for (int b = 0; b < 256 && tokens.size() < n_vocab; ++b)
    add(fmt::format("<0x{:02X}>", b), 0.0F, 6);
  for (std::uint64_t i = 0; tokens.size() < n_vocab; ++i) {
    add(fmt::format("\xe2\x96\x81t{}", i), -static_cast<float>(i), 1);
  }
  w.set_string("tokenizer.ggml.model", "llama");
  w.set("tokenizer.ggml.tokens", MetaValue::string_array(tokens));
  w.set("tokenizer.ggml.scores", MetaValue::f32_array(scores));
  w.set("tokenizer.ggml.token_type", MetaValue::i32_array(types));
  w.set_u32("tokenizer.ggml.unknown_token_id", 0);
  w.set_u32("tokenizer.ggml.bos_token_id", 1);
  w.set_u32("tokenizer.ggml.eos_token_id", 2);
}

// Copies every tokenizer.* key; returns the vocabulary size.
Expected<std::uint64_t> copy_vocab(GgufWriter& w, const std::filesystem::path& path) {
  auto file = gguf::read_gguf(path);
  if (!file) {
    return make_error(ErrorKind::kInput,
                      fmt::format("--vocab-from {}: {}", path.string(), file.error().message));
  }
  const MetaValue* tokens = file->find("tokenizer.ggml.tokens");
  if (tokens == nullptr || tokens->as_array() == nullptr || tokens->as_array()->empty()) {
    return make_error(ErrorKind::kInput,
                      fmt::format("--vocab-from {}: no tokenizer.ggml.tokens array; give a GGUF "
                                  "that carries a tokenizer (a model or a vocab-only file)",
                                  path.string()));
  }
  for (const auto& entry : file->metadata) {
    if (entry.key.rfind("tokenizer.", 0) == 0) w.set(entry.key, entry.value);
  }
  return static_cast<std::uint64_t>(tokens->as_array()->size());
}

}  // namespace

Expected<std::vector<SynthTensorSpec>> synth_tensor_specs(const ModelShape& s,
                                                          std::uint64_t n_vocab) {
  const std::string& arch = s.arch;
  if (arch != "llama" && arch != "qwen2" && arch != "qwen3" && arch != "gemma3" && arch != "phi3") {
    return make_error(
        ErrorKind::kUsage,
        fmt::format("synth-model: architecture {} of {} is not supported", arch, s.name));
  }
  const std::uint64_t e = s.n_embd;
  const std::uint64_t q = static_cast<std::uint64_t>(s.n_head) * s.head_dim;
  const std::uint64_t kv = static_cast<std::uint64_t>(s.n_head_kv) * s.head_dim;
  const std::uint64_t ff = s.n_ff;
  std::vector<SynthTensorSpec> t;
  t.push_back({"token_embd.weight", {e, n_vocab}, true});
  t.push_back({"output_norm.weight", {e}, false});
  if (!s.tied_embeddings) t.push_back({"output.weight", {e, n_vocab}, true});
  for (std::uint32_t i = 0; i < s.n_layer; ++i) {
    const auto name = [i](const char* leaf) { return fmt::format("blk.{}.{}", i, leaf); };
    t.push_back({name("attn_norm.weight"), {e}, false});
    if (arch == "phi3") {
      t.push_back({name("attn_qkv.weight"), {e, q + 2 * kv}, true});
    } else {
      t.push_back({name("attn_q.weight"), {e, q}, true});
      t.push_back({name("attn_k.weight"), {e, kv}, true});
      t.push_back({name("attn_v.weight"), {e, kv}, true});
    }
    if (s.qkv_bias) {
      t.push_back({name("attn_q.bias"), {q}, false});
      t.push_back({name("attn_k.bias"), {kv}, false});
      t.push_back({name("attn_v.bias"), {kv}, false});
    }
    if (s.qk_norm) {
      t.push_back({name("attn_q_norm.weight"), {s.head_dim}, false});
      t.push_back({name("attn_k_norm.weight"), {s.head_dim}, false});
    }
    t.push_back({name("attn_output.weight"), {q, e}, true});
    if (arch == "gemma3") t.push_back({name("post_attention_norm.weight"), {e}, false});
    t.push_back({name("ffn_norm.weight"), {e}, false});
    if (arch == "phi3") {
      t.push_back({name("ffn_up.weight"), {e, 2 * ff}, true});
    } else {
      t.push_back({name("ffn_gate.weight"), {e, ff}, true});
      t.push_back({name("ffn_up.weight"), {e, ff}, true});
    }
    t.push_back({name("ffn_down.weight"), {ff, e}, true});
    if (arch == "gemma3") t.push_back({name("post_ffw_norm.weight"), {e}, false});
  }
  return t;
}

Expected<nlohmann::json> write_synthetic_model(const SynthOptions& o,
                                               const std::filesystem::path& out) {
  if (o.shape == nullptr) return make_error(ErrorKind::kUsage, "synth-model: --shape is required");
  const ModelShape& s = *o.shape;
  const Format* format = nullptr;
  for (const auto& f : kFormats) {
    if (o.quant == f.name) format = &f;
  }
  if (format == nullptr) {
    return make_error(ErrorKind::kUsage,
                      fmt::format("--quant {}: synth-model writes q4_0, q8_0 or f16", o.quant));
  }

  GgufWriter w;
  const std::string& a = s.arch;
  w.set_string("general.architecture", a);
  w.set_string("general.name", fmt::format("tokscope synthetic {} {}", s.name, format->name));
  w.set_u32("general.file_type", format->llama_ftype);
  w.set_u32("general.quantization_version", 2);
  w.set_alignment(32);
  w.set_bool("tokscope.synthetic_weights", true);
  w.set_string("tokscope.shape", s.name);
  w.set_u64("tokscope.seed", o.seed);

  std::uint64_t n_vocab = s.n_vocab;
  std::string vocab_source = "synthetic (SentencePiece-style, the shape's vocabulary size)";
  if (o.vocab_from) {
    auto copied = copy_vocab(w, *o.vocab_from);
    if (!copied) return copied.error();
    n_vocab = *copied;
    vocab_source = fmt::format("copied from {} ({} tokens{})", o.vocab_from->string(), n_vocab,
                               n_vocab == s.n_vocab ? "" : "; differs from the shape's vocabulary");
  } else {
    set_synthetic_vocab(w, n_vocab, s.arch);
  }

  const ArchParams p = arch_params(s);
  w.set_u32(a + ".context_length", o.context_length);
  w.set_u32(a + ".embedding_length", s.n_embd);
  w.set_u32(a + ".block_count", s.n_layer);
  w.set_u32(a + ".feed_forward_length", s.n_ff);
  w.set_u32(a + ".attention.head_count", s.n_head);
  w.set_u32(a + ".attention.head_count_kv", s.n_head_kv);
  w.set_u32(a + ".attention.key_length", s.head_dim);
  w.set_u32(a + ".attention.value_length", s.head_dim);
  w.set_f32(a + ".attention.layer_norm_rms_epsilon", static_cast<float>(p.rms_eps));
  w.set_f32(a + ".rope.freq_base", static_cast<float>(p.rope_base));
  w.set_u32(a + ".rope.dimension_count", s.head_dim);
  w.set_u32(a + ".vocab_size", static_cast<std::uint32_t>(n_vocab));
  if (a == "gemma3") w.set_u32(a + ".attention.sliding_window", 512);

  auto specs = synth_tensor_specs(s, n_vocab);
  if (!specs) return specs.error();
  std::uint64_t salt = mix(o.seed);
  for (const auto& spec : *specs) {
    salt = mix(salt);
    Expected<void> added{};
    if (spec.matmul) {
      added =
          w.add_tensor(spec.name, spec.dims, format->type_id, random_filler(format->type_id, salt));
    } else {
      const bool is_bias = spec.name.size() > 5 && spec.name.ends_with(".bias");
      added =
          w.add_tensor(spec.name, spec.dims, kTypeF32, is_bias ? gguf::TensorFiller() : ones_f32());
    }
    if (!added) {
      return make_error(added.error().kind, fmt::format("synth-model {} {}: {}", s.name,
                                                        format->name, added.error().message));
    }
  }
  auto size = w.file_size();
  if (!size) return size.error();
  if (auto written = w.write(out); !written) return written.error();
  return nlohmann::json{{"path", out.string()},
                        {"size_bytes", *size},
                        {"shape", s.name},
                        {"arch", s.arch},
                        {"quant", format->name},
                        {"n_vocab", n_vocab},
                        {"vocabulary", vocab_source},
                        {"tensors", specs->size()},
                        {"seed", o.seed},
                        {"synthetic_weights", true}};
}

}  // namespace tokscope::model
