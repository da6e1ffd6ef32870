#include "model/synth_model.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <fstream>

#include "model/gguf/reader.hpp"

namespace tokscope::model {
namespace {

// Tiny shapes of each supported architecture (the catalog's real shapes write 100s of MB).
ModelShape tiny(const std::string& arch) {
  ModelShape s;
  s.name = "tiny-" + arch;
  s.arch = arch;
  s.n_layer = 2;
  s.n_embd = 64;
  s.n_head = 4;
  s.n_head_kv = 2;
  s.head_dim = arch == "qwen3" || arch == "gemma3" ? 32 : 16;
  s.n_ff = 96;
  s.n_vocab = 300;
  s.tied_embeddings = arch != "llama";
  s.qkv_bias = arch == "qwen2";
  s.qk_norm = arch == "qwen3" || arch == "gemma3";
  s.norms_per_layer = arch == "gemma3" ? 4 : 2;
  s.source = "test";
  return s;
}

std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("tokscope-synth-" + std::to_string(::getpid()) + "-" + name);
}

TEST(SynthModel, EveryArchitectureRoundTripsThroughTheReader) {
  for (const std::string arch : {"llama", "qwen2", "qwen3", "gemma3", "phi3"}) {
    for (const std::string quant : {"q4_0", "q8_0", "f16"}) {
      const ModelShape s = tiny(arch);
      SynthOptions o;
      o.shape = &s;
      o.quant = quant;
      const auto path = temp_file(arch + "-" + quant + ".gguf");
      auto summary = write_synthetic_model(o, path);
      ASSERT_TRUE(summary.ok()) << arch << " " << quant << ": " << summary.error().message;
      auto file = gguf::read_gguf(path);
      ASSERT_TRUE(file.ok()) << arch << " " << quant << ": " << file.error().message;
      auto specs = synth_tensor_specs(s, s.n_vocab);
      ASSERT_TRUE(specs.ok());
      ASSERT_EQ(file->tensors.size(), specs->size()) << arch;
      for (const auto& spec : *specs) {
        const gguf::TensorInfo* t = file->find_tensor(spec.name);
        ASSERT_NE(t, nullptr) << spec.name;
        EXPECT_EQ(t->dims, spec.dims) << spec.name;
      }
      EXPECT_EQ(*file->find("general.architecture")->as_string(), arch);
      EXPECT_EQ(file->find("tokscope.synthetic_weights")->data,
                decltype(gguf::MetaValue::data){true});
      EXPECT_EQ(file->find(arch + ".block_count")->as_uint(), 2U);
      EXPECT_EQ(file->find("tokenizer.ggml.tokens")->as_array()->size(), 300U);
      EXPECT_EQ(file->find_tensor("output.weight") == nullptr, s.tied_embeddings) << arch;
      EXPECT_EQ(summary->at("synthetic_weights"), true);
      std::filesystem::remove(path);
    }
  }
}

// Reads the raw bytes of one tensor.
std::vector<unsigned char> tensor_bytes(const std::filesystem::path& path,
                                        const gguf::GgufFile& file, const std::string& name) {
  const gguf::TensorInfo* t = file.find_tensor(name);
  std::vector<unsigned char> bytes(t->bytes);
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(file.data_offset + t->offset));
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return bytes;
}

float half_to_float(std::uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  const float magnitude =
      exponent == 0 ? std::ldexp(static_cast<float>(mantissa), -24)
                    : std::ldexp(1.0F + static_cast<float>(mantissa) / 1024.0F, exponent - 15);
  return (h & 0x8000) != 0 ? -magnitude : magnitude;
}

TEST(SynthModel, WeightsHaveSaneScalesAndNormsAreOne) {
  const ModelShape s = tiny("llama");
  SynthOptions o;
  o.shape = &s;
  o.quant = "f16";
  const auto path = temp_file("scales.gguf");
  ASSERT_TRUE(write_synthetic_model(o, path).ok());
  auto file = gguf::read_gguf(path);
  ASSERT_TRUE(file.ok());
  const auto q = tensor_bytes(path, *file, "blk.0.attn_q.weight");
  double sum = 0, sum_sq = 0;
  const std::size_t n = q.size() / 2;
  for (std::size_t i = 0; i < n; ++i) {
    const float v = half_to_float(static_cast<std::uint16_t>(q[2 * i] | (q[2 * i + 1] << 8)));
    ASSERT_TRUE(std::isfinite(v));
    sum += v;
    sum_sq += static_cast<double>(v) * v;
  }
  const double mean = sum / static_cast<double>(n);
  const double sd = std::sqrt(sum_sq / static_cast<double>(n) - mean * mean);
  EXPECT_NEAR(mean, 0.0, 0.003);
  EXPECT_NEAR(sd, 0.02, 0.003);
  const auto norm = tensor_bytes(path, *file, "blk.1.ffn_norm.weight");
  float first = 0;
  std::memcpy(&first, norm.data(), 4);
  EXPECT_EQ(first, 1.0F);
  std::filesystem::remove(path);
}

TEST(SynthModel, SameSeedSameBytesOtherSeedOtherBytes) {
  const ModelShape s = tiny("qwen2");
  SynthOptions o;
  o.shape = &s;
  o.quant = "q4_0";
  const auto a = temp_file("seed-a.gguf");
  const auto b = temp_file("seed-b.gguf");
  const auto c = temp_file("seed-c.gguf");
  ASSERT_TRUE(write_synthetic_model(o, a).ok());
  ASSERT_TRUE(write_synthetic_model(o, b).ok());
  o.seed = 7;
  ASSERT_TRUE(write_synthetic_model(o, c).ok());
  auto fa = gguf::read_gguf(a);
  auto fc = gguf::read_gguf(c);
  ASSERT_TRUE(fa.ok() && fc.ok());
  EXPECT_EQ(tensor_bytes(a, *fa, "blk.0.ffn_up.weight"),
            tensor_bytes(b, *fa, "blk.0.ffn_up.weight"));
  EXPECT_NE(tensor_bytes(a, *fa, "blk.0.ffn_up.weight"),
            tensor_bytes(c, *fc, "blk.0.ffn_up.weight"));
  for (const auto& p : {a, b, c}) std::filesystem::remove(p);
}

TEST(SynthModel, VocabularyIsCopiedFromAnotherGguf) {
  const ModelShape donor_shape = tiny("llama");
  SynthOptions donor;
  donor.shape = &donor_shape;
  donor.quant = "q8_0";
  const auto donor_path = temp_file("donor.gguf");
  ASSERT_TRUE(write_synthetic_model(donor, donor_path).ok());

  ModelShape s = tiny("qwen3");
  s.n_vocab = 999;  // the donor's 300 tokens win; the summary says they differ
  SynthOptions o;
  o.shape = &s;
  o.quant = "q4_0";
  o.vocab_from = donor_path;
  const auto path = temp_file("copied.gguf");
  auto summary = write_synthetic_model(o, path);
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  EXPECT_EQ(summary->at("n_vocab"), 300);
  EXPECT_NE(summary->at("vocabulary").get<std::string>().find("differs"), std::string::npos);
  auto file = gguf::read_gguf(path);
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->find_tensor("token_embd.weight")->dims[1], 300U);

  o.vocab_from = "/nonexistent/vocab.gguf";
  auto missing = write_synthetic_model(o, path);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("--vocab-from"), std::string::npos);
  std::filesystem::remove(path);
  std::filesystem::remove(donor_path);
}

// llama.cpp's vocabulary loader looks "<|endoftext|>" up by text in any model named Phi-3 and
// fails to load without it (found by loading a synthetic Phi-3 in llama.cpp 0.3.16).
TEST(SynthModel, SyntheticPhi3VocabularyHasTheTokenLlamaCppLooksUp) {
  for (const std::string arch : {"phi3", "llama"}) {
    const ModelShape s = tiny(arch);
    SynthOptions o;
    o.shape = &s;
    o.quant = "q8_0";
    const auto path = temp_file(arch + "-vocab.gguf");
    ASSERT_TRUE(write_synthetic_model(o, path).ok());
    auto file = gguf::read_gguf(path);
    ASSERT_TRUE(file.ok());
    const auto* tokens = file->find("tokenizer.ggml.tokens")->as_array();
    ASSERT_NE(tokens, nullptr);
    ASSERT_EQ(tokens->size(), s.n_vocab) << arch;
    bool found = false;
    for (const auto& t : *tokens) found = found || *t.as_string() == "<|endoftext|>";
    EXPECT_EQ(found, arch == "phi3") << arch;
    std::filesystem::remove(path);
  }
}

TEST(SynthModel, UnsupportedQuantIsRefused) {
  const ModelShape s = tiny("llama");
  SynthOptions o;
  o.shape = &s;
  o.quant = "q4_k_m";
  auto r = write_synthetic_model(o, temp_file("nope.gguf"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("--quant"), std::string::npos);
}

}  // namespace
}  // namespace tokscope::model

namespace tokscope::model {
namespace {

TEST(SynthModel, EveryCatalogShapeHasQuantizableTensorsAndItsParameterCount) {
  for (const auto& shape : shape_catalog()) {
    auto specs = synth_tensor_specs(shape, shape.n_vocab);
    ASSERT_TRUE(specs.ok()) << shape.name << ": " << specs.error().message;
    std::uint64_t elements = 0;
    for (const auto& spec : *specs) {
      std::uint64_t n = 1;
      for (const auto d : spec.dims) n *= d;
      elements += n;
      if (spec.matmul) {
        EXPECT_EQ(spec.dims[0] % 32, 0U) << shape.name << " " << spec.name;  // q4_0/q8_0 blocks
      }
    }
    EXPECT_EQ(elements, parameter_count(shape)) << shape.name;
  }
}

}  // namespace
}  // namespace tokscope::model
