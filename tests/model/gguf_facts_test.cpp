// Architecture facts, quantization summary, W and K from GGUF files, checked against
// model::decode_bytes for the same shape and quantization.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gguf_test_model.hpp"
#include "model/decode_bytes.hpp"
#include "model/gguf/model_facts.hpp"
#include "model/gguf/reader.hpp"
#include "model/gguf/writer.hpp"
#include "model/quant.hpp"
#include "model/shapes.hpp"

namespace tokscope::model::gguf {
namespace {

using testing::build;
using testing::TestModel;

// Parses the file `m` describes. Small files are built whole in memory; model-sized ones as a
// header plus the file size, which is all the reader looks at.
GgufFile parse_model(const TestModel& m) {
  GgufWriter w;
  build(m, w);
  const auto size = w.file_size();
  EXPECT_TRUE(size.ok()) << size.error().message;
  if (!size.ok()) return {};
  Expected<GgufFile> file = make_error(ErrorKind::kInternal, "not parsed");
  if (*size < (std::uint64_t{8} << 20)) {
    const auto bytes = w.to_bytes();
    file = parse_gguf(*bytes, m.shape.name + ".gguf");
  } else {
    const auto header = w.header_bytes();
    file = parse_gguf_prefix(*header, *size, m.shape.name + ".gguf", nullptr);
  }
  EXPECT_TRUE(file.ok()) << file.error().message;
  return file.ok() ? std::move(*file) : GgufFile{};
}

TEST(GgufFacts, TinyLlamaF16) {
  TestModel m{.shape = testing::tiny_shape()};
  m.file_type = 1;
  const GgufFile file = parse_model(m);
  const ModelFacts f = model_facts(file);
  EXPECT_EQ(f.arch, "llama");
  EXPECT_EQ(f.name, "tiny");
  EXPECT_EQ(f.n_layer, 2U);
  EXPECT_EQ(f.n_embd, 64U);
  EXPECT_EQ(f.n_head, 4U);
  EXPECT_EQ(f.n_head_kv, 2U);
  EXPECT_EQ(f.head_dim_k, 16U);  // n_embd / n_head: no key_length written
  EXPECT_EQ(f.head_dim_v, 16U);
  EXPECT_EQ(f.n_ff, 128U);
  EXPECT_EQ(f.n_vocab, 96U);
  EXPECT_EQ(f.vocab_source, "token_embd.weight");
  EXPECT_EQ(f.context_length, 4096U);
  EXPECT_EQ(f.tied_output, false);
  EXPECT_DOUBLE_EQ(*f.rope_freq_base, 10000.0);
  EXPECT_TRUE(f.catalog_matches.empty());
  EXPECT_EQ(f.params, parameter_count(m.shape));

  EXPECT_EQ(f.quant.file_type, "F16");
  EXPECT_EQ(f.quant.preset, "f16");
  EXPECT_EQ(f.quant.dominant_type, "F16");
  EXPECT_EQ(f.quant.weight_bits, 16.0);
  EXPECT_EQ(f.quant.weight_bits_effective, 16.0);
  EXPECT_EQ(f.quant.group_size, "none");
  EXPECT_EQ(f.quant.output_head_type, "F16");
  EXPECT_EQ(f.quant.label, "W16/A-unknown none (F16)");

  // W and K exactly as model::decode_bytes defines them for this shape in f16.
  const DecodeBytes expected = model::decode_bytes(m.shape, *find_quant("f16"));
  const auto got = decode_bytes(f);
  ASSERT_TRUE(got);
  EXPECT_DOUBLE_EQ(got->weight_bytes_per_token, expected.weight_bytes_per_token);
  EXPECT_DOUBLE_EQ(got->kv_bytes_per_context_token, expected.kv_bytes_per_context_token);
  EXPECT_DOUBLE_EQ(got->kv_bytes_per_context_token, 2.0 * 2 * 2 * 16 * 2);
  EXPECT_EQ(got->params, expected.params);
  EXPECT_DOUBLE_EQ(got->flops_per_token, expected.flops_per_token);
  // One row of the untied input table: 64 f16 values.
  EXPECT_DOUBLE_EQ(f.weight_bytes->embedding_rows, 128.0);
  EXPECT_DOUBLE_EQ(f.weight_bytes->output_head, 96.0 * 64 * 2);
}

TEST(GgufFacts, TiedQwenStyleWithBiasesAndQkNorms) {
  ModelShape s = testing::tiny_shape();
  s.arch = "qwen3";
  s.head_dim = 32;  // != n_embd / n_head: key_length/value_length are written
  s.tied_embeddings = true;
  s.qkv_bias = true;
  s.qk_norm = true;
  TestModel m{.shape = s};
  const ModelFacts f = model_facts(parse_model(m));
  EXPECT_EQ(f.tied_output, true);
  EXPECT_EQ(f.head_dim_k, 32U);
  const DecodeBytes expected = model::decode_bytes(s, *find_quant("f16"));
  const auto got = decode_bytes(f);
  ASSERT_TRUE(got);
  EXPECT_DOUBLE_EQ(got->weight_bytes_per_token, expected.weight_bytes_per_token);
  EXPECT_DOUBLE_EQ(got->kv_bytes_per_context_token, expected.kv_bytes_per_context_token);
  EXPECT_EQ(got->params, parameter_count(s));
  // Tied: the whole table as the head, plus one row as the input lookup.
  EXPECT_DOUBLE_EQ(f.weight_bytes->output_head, 96.0 * 64 * 2);
  EXPECT_DOUBLE_EQ(f.weight_bytes->embedding_rows, 64.0 * 2);
  EXPECT_EQ(f.quant.output_head_type, "F16");
}

TEST(GgufFacts, Q8_0FileMatchesTheQ8_0Preset) {
  TestModel m{.shape = testing::tiny_shape()};
  m.matmul_type = m.head_type = m.embd_type = testing::kQ8_0;
  m.file_type = 7;
  const ModelFacts f = model_facts(parse_model(m));
  EXPECT_EQ(f.quant.file_type, "Q8_0");
  EXPECT_EQ(f.quant.preset, "q8_0");
  EXPECT_EQ(f.quant.weight_bits, 8.0);
  EXPECT_DOUBLE_EQ(*f.quant.weight_bits_effective, 8.5);
  EXPECT_EQ(f.quant.group_size, "g32");
  const DecodeBytes expected = model::decode_bytes(m.shape, *find_quant("q8_0"));
  EXPECT_DOUBLE_EQ(decode_bytes(f)->weight_bytes_per_token, expected.weight_bytes_per_token);
}

TEST(GgufFacts, CatalogShapesMatchTheCatalogAndItsDecodeBytes) {
  // Model-sized files (header + size only): Qwen2.5-0.5B tied, DeepSeek-R1-Distill untied.
  for (const char* name : {"Qwen2.5-0.5B", "DeepSeek-R1-Distill-Qwen-1.5B", "Qwen3-0.6B"}) {
    const ModelShape& s = *find_shape(name);
    TestModel m{.shape = s, .tokens = false};
    const ModelFacts f = model_facts(parse_model(m));
    EXPECT_NE(std::find(f.catalog_matches.begin(), f.catalog_matches.end(), s.name),
              f.catalog_matches.end())
        << name;
    const DecodeBytes expected = model::decode_bytes(s, *find_quant("f16"));
    const auto got = decode_bytes(f);
    ASSERT_TRUE(got) << name;
    EXPECT_DOUBLE_EQ(got->weight_bytes_per_token, expected.weight_bytes_per_token) << name;
    EXPECT_DOUBLE_EQ(got->kv_bytes_per_context_token, expected.kv_bytes_per_context_token) << name;
    EXPECT_EQ(got->params, parameter_count(s)) << name;
  }
  // Qwen2-0.5B and Qwen2.5-0.5B have the same shape: both names are reported.
  TestModel m{.shape = *find_shape("Qwen2.5-0.5B"), .tokens = false};
  const ModelFacts f = model_facts(parse_model(m));
  EXPECT_EQ(f.catalog_matches, (std::vector<std::string>{"Qwen2-0.5B", "Qwen2.5-0.5B"}));
}

TEST(GgufFacts, Q4_0WithQ6_KHeadMatchesTheQ4_0Preset) {
  // llama-quantize's Q4_0 keeps the (tied) head in Q6_K; the preset models exactly that.
  TestModel m{.shape = *find_shape("Llama-3.2-1B"), .tokens = false};
  m.matmul_type = testing::kQ4_0;
  m.head_type = testing::kQ6_K;
  m.file_type = 2;
  const ModelFacts f = model_facts(parse_model(m));
  EXPECT_EQ(f.quant.output_head_type, "Q6_K");
  EXPECT_DOUBLE_EQ(*f.quant.output_head_bits, 6.5625);
  EXPECT_EQ(f.quant.embedding_type, "Q6_K");
  const DecodeBytes expected = model::decode_bytes(m.shape, *find_quant("q4_0"));
  EXPECT_DOUBLE_EQ(decode_bytes(f)->weight_bytes_per_token, expected.weight_bytes_per_token);
}

TEST(GgufFacts, Q4_K_MMixWithHalfTheLayersPromoted) {
  // The q4_k_m preset averages attn_v/ffn_down over layers, half of them in Q6_K: a file that
  // promotes exactly half the layers has the same W.
  TestModel m{.shape = *find_shape("Llama-3.2-1B"), .tokens = false};
  m.head_type = testing::kQ6_K;
  m.file_type = 15;
  m.layer_type = [](std::uint32_t layer, const std::string& kind) {
    const bool promoted = (kind == "attn_v" || kind == "ffn_down") && layer % 2 == 0;
    return promoted ? testing::kQ6_K : testing::kQ4_K;
  };
  const ModelFacts f = model_facts(parse_model(m));
  EXPECT_EQ(f.quant.file_type, "Q4_K_M");
  EXPECT_EQ(f.quant.preset, "q4_k_m");
  EXPECT_EQ(f.quant.dominant_type, "Q4_K");
  EXPECT_EQ(f.quant.weight_bits, 4.0);
  EXPECT_EQ(f.quant.group_size, "g32");
  EXPECT_EQ(f.quant.block_elements, 256U);
  ASSERT_EQ(f.quant.matmul_mix.size(), 2U);
  EXPECT_EQ(f.quant.matmul_mix[0].type, "Q4_K");
  EXPECT_EQ(f.quant.matmul_mix[1].type, "Q6_K");
  EXPECT_EQ(f.quant.matmul_mix[1].tensors, 16U);  // attn_v and ffn_down of 8 layers
  EXPECT_GT(*f.quant.weight_bits_effective, 4.5);
  EXPECT_LT(*f.quant.weight_bits_effective, 5.0);
  EXPECT_EQ(f.quant.label, "W4/A-unknown g32 (Q4_K_M)");
  const DecodeBytes expected = model::decode_bytes(m.shape, *find_quant("q4_k_m"));
  EXPECT_DOUBLE_EQ(decode_bytes(f)->weight_bytes_per_token, expected.weight_bytes_per_token);
}

TEST(GgufFacts, MoEExpertsCountTheRoutedShare) {
  GgufWriter w;
  w.set_string("general.architecture", "qwen3moe");
  w.set_u32("qwen3moe.block_count", 1);
  w.set_u32("qwen3moe.embedding_length", 64);
  w.set_u32("qwen3moe.attention.head_count", 4);
  w.set_u32("qwen3moe.attention.head_count_kv", 4);
  w.set_u32("qwen3moe.expert_count", 8);
  w.set_u32("qwen3moe.expert_used_count", 2);
  ASSERT_TRUE(w.add_tensor("token_embd.weight", {64, 10}, 0, TensorFiller{}).ok());
  ASSERT_TRUE(w.add_tensor("blk.0.ffn_up_exps.weight", {64, 32, 8}, 0, TensorFiller{}).ok());
  ASSERT_TRUE(w.add_tensor("blk.0.ffn_gate_inp.weight", {64, 8}, 0, TensorFiller{}).ok());
  const auto file = parse_gguf(*w.to_bytes(), "moe.gguf");
  ASSERT_TRUE(file.ok()) << file.error().message;
  const ModelFacts f = model_facts(*file);
  EXPECT_DOUBLE_EQ(f.weight_bytes->experts, 64.0 * 32 * 8 * 4 * 2 / 8);
  EXPECT_DOUBLE_EQ(f.weight_bytes->matmul, 64.0 * 8 * 4);        // the router
  EXPECT_DOUBLE_EQ(f.weight_bytes->output_head, 64.0 * 10 * 4);  // tied
  EXPECT_EQ(f.quant.matmul_mix.front().tensors, 2U);
  EXPECT_DOUBLE_EQ(*f.kv_bytes_per_context_token, 1.0 * 4 * (16 + 16) * 2);
}

TEST(GgufFacts, PerLayerKvHeadsAndSlidingWindow) {
  GgufWriter w;
  w.set_string("general.architecture", "gemma3");
  w.set_u32("gemma3.block_count", 3);
  w.set_u32("gemma3.embedding_length", 64);
  w.set_u32("gemma3.attention.head_count", 4);
  const std::vector<std::int32_t> kv{1, 2, 0};
  w.set("gemma3.attention.head_count_kv", MetaValue::i32_array(kv));
  w.set_u32("gemma3.attention.key_length", 32);
  w.set_u32("gemma3.attention.value_length", 16);
  w.set_u32("gemma3.attention.sliding_window", 512);
  const auto file = parse_gguf(*w.to_bytes(), "g.gguf");
  ASSERT_TRUE(file.ok());
  const ModelFacts f = model_facts(*file);
  EXPECT_FALSE(f.n_head_kv);
  EXPECT_EQ(f.n_head_kv_per_layer, (std::vector<std::uint64_t>{1, 2, 0}));
  EXPECT_DOUBLE_EQ(*f.kv_bytes_per_context_token, 3.0 * (32 + 16) * 2);
  EXPECT_EQ(f.sliding_window, 512U);
  EXPECT_FALSE(f.weight_bytes);  // no tensors
  EXPECT_FALSE(decode_bytes(f));
  bool noted = false;
  for (const auto& n : f.notes) noted = noted || n.find("sliding-window") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(GgufFacts, UnknownsStayUnknownWithAReason) {
  GgufWriter w;
  w.set_u32("general.file_type", 999);
  w.set_string("x.block_count", "not a number");
  const auto file = parse_gguf(*w.to_bytes(), "bare.gguf");
  ASSERT_TRUE(file.ok());
  const ModelFacts f = model_facts(*file);
  EXPECT_EQ(f.arch, "unknown");
  EXPECT_FALSE(f.n_layer);
  EXPECT_FALSE(f.kv_bytes_per_context_token);
  EXPECT_FALSE(f.weight_bytes);
  EXPECT_EQ(f.quant.file_type, "unknown");
  EXPECT_EQ(f.quant.file_type_id, 999U);
  EXPECT_FALSE(f.notes.empty());

  // A malformed count in a known architecture is unknown plus a note, never a guess.
  GgufWriter w2;
  w2.set_string("general.architecture", "llama");
  w2.set_string("llama.block_count", "twelve");
  const auto file2 = parse_gguf(*w2.to_bytes(), "bad.gguf");
  const ModelFacts f2 = model_facts(*file2);
  EXPECT_FALSE(f2.n_layer);
  bool noted = false;
  for (const auto& n : f2.notes) noted = noted || n.find("llama.block_count") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(GgufFacts, MlaModelsHaveNoKvFormula) {
  GgufWriter w;
  w.set_string("general.architecture", "deepseek2");
  w.set_u32("deepseek2.block_count", 2);
  w.set_u32("deepseek2.attention.head_count", 4);
  w.set_u32("deepseek2.embedding_length", 64);
  w.set_u32("deepseek2.attention.kv_lora_rank", 16);
  const auto file = parse_gguf(*w.to_bytes(), "mla.gguf");
  EXPECT_FALSE(model_facts(*file).kv_bytes_per_context_token);
}

TEST(GgufFacts, TensorRoles) {
  auto role = [](std::string name, std::vector<std::uint64_t> dims) {
    TensorInfo t;
    t.name = std::move(name);
    t.dims = std::move(dims);
    return tensor_role(t);
  };
  EXPECT_EQ(role("token_embd.weight", {64, 10}), TensorRole::kEmbedding);
  EXPECT_EQ(role("per_layer_token_embd.weight", {64, 10}), TensorRole::kEmbedding);
  EXPECT_EQ(role("output.weight", {64, 10}), TensorRole::kOutputHead);
  EXPECT_EQ(role("blk.3.attn_q.weight", {64, 64}), TensorRole::kMatmul);
  EXPECT_EQ(role("blk.3.ffn_down_exps.weight", {64, 64, 8}), TensorRole::kExpert);
  EXPECT_EQ(role("blk.3.attn_norm.weight", {64}), TensorRole::kVector);
  EXPECT_EQ(role("rope_freqs.weight", {32}), TensorRole::kVector);
  EXPECT_EQ(role("mm.proj.weight", {64, 64}), TensorRole::kOther);
  EXPECT_EQ(file_type_name(15), "Q4_K_M");
  EXPECT_EQ(file_type_name(41), "Q2_0");
  EXPECT_FALSE(file_type_name(5));
}

TEST(GgufInspect, JsonCarriesEverythingAndDumps) {
  TestModel m{.shape = testing::tiny_shape()};
  m.file_type = 1;
  GgufWriter w;
  build(m, w);
  w.set_bool(std::string(kSyntheticWeightsKey), true);
  w.set_string("general.description", "bad utf8 \xff\xfe here");
  const auto file = parse_gguf(*w.to_bytes(), "tiny.gguf");
  ASSERT_TRUE(file.ok());
  const auto j = inspect_json(*file, true);
  EXPECT_NO_THROW((void)j.dump());
  EXPECT_EQ(j["format"], "gguf");
  EXPECT_EQ(j["file"]["gguf_version"], 3);
  EXPECT_EQ(j["architecture"]["n_layer"], 2);
  EXPECT_EQ(j["quantization"]["file_type"], "F16");
  EXPECT_EQ(j["quantization"]["act_bits"], "unknown");
  EXPECT_EQ(j["model"]["synthetic_weights"], true);
  EXPECT_EQ(j["model"]["quant"]["weight_bits"], 16);
  EXPECT_EQ(j["model"]["arch"], "llama");
  EXPECT_EQ(j["tensors"].size(), file->tensors.size());
  EXPECT_EQ(j["tensors"][0]["name"], "token_embd.weight");
  EXPECT_EQ(j["tensors"][0]["role"], "embedding");
  EXPECT_DOUBLE_EQ(j["tensors"][0]["bytes_in_w"].get<double>(), 128.0);
  // Long arrays are summarized, invalid UTF-8 replaced.
  bool saw_tokens = false;
  for (const auto& item : j["metadata"]) {
    if (item["key"] == "tokenizer.ggml.tokens") {
      saw_tokens = true;
      EXPECT_EQ(item["type"], "array[string]");
      EXPECT_EQ(item["value"]["length"], 96);
      EXPECT_EQ(item["value"]["first"].size(), 8U);
    }
    if (item["key"] == "general.description") {
      EXPECT_EQ(item["value"], "bad utf8 \xef\xbf\xbd\xef\xbf\xbd here");
    }
  }
  EXPECT_TRUE(saw_tokens);
  EXPECT_FALSE(inspect_json(*file, false).contains("tensors"));
  // The W in the json is the W of decode_bytes.
  EXPECT_DOUBLE_EQ(j["decode"]["weight_bytes_per_token"].get<double>(),
                   model::decode_bytes(m.shape, *find_quant("f16")).weight_bytes_per_token);
}

}  // namespace
}  // namespace tokscope::model::gguf
