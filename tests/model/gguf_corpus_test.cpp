// The fuzzer's seed corpus (tests/fuzz/corpus): generated here, checked here.
//
//   TOKSCOPE_WRITE_FUZZ_CORPUS=tests/fuzz/corpus build/tests/tokscope_model_tests
//       --gtest_filter='GgufFuzzCorpus.*'
// (one command line) rewrites the seeds; without the variable the test checks that every committed
// seed is a valid GGUF file, so the fuzzer starts from inputs that reach deep into the parser.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "gguf_test_model.hpp"
#include "model/gguf/model_facts.hpp"
#include "model/gguf/reader.hpp"
#include "model/gguf/writer.hpp"

namespace tokscope::model::gguf {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kMaxCorpusBytes = 64 * 1024;

fs::path corpus_dir() {
  return fs::path(TOKSCOPE_TEST_DATA_DIR).parent_path() / "fuzz" / "corpus";
}

TensorFiller pattern() {
  return [](std::uint64_t offset, std::span<std::byte> out) {
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i] = static_cast<std::byte>((offset + i) * 37 % 256);
    }
  };
}

std::vector<std::byte> bytes(const GgufWriter& w) {
  auto b = w.to_bytes();
  EXPECT_TRUE(b.ok()) << b.error().message;
  return b.ok() ? *b : std::vector<std::byte>{};
}

std::map<std::string, std::vector<std::byte>> seeds() {
  std::map<std::string, std::vector<std::byte>> out;
  {  // llama, untied, Q4_0 matmuls
    testing::TestModel m{.shape = testing::tiny_shape()};
    m.shape.n_layer = 1;
    m.shape.n_embd = 32;
    m.shape.n_head = 2;
    m.shape.n_head_kv = 1;
    m.shape.n_ff = 64;
    m.shape.n_vocab = 16;
    m.matmul_type = testing::kQ4_0;
    m.head_type = testing::kQ8_0;
    m.embd_type = testing::kQ4_0;
    m.file_type = 2;
    m.fill = pattern();
    GgufWriter w;
    testing::build(m, w);
    out["llama_q4_0.gguf"] = bytes(w);
  }
  {  // qwen2, tied, biases, f16
    ModelShape s = testing::tiny_shape();
    s.arch = "qwen2";
    s.name = "tiny-qwen";
    s.n_layer = 1;
    s.n_embd = 32;
    s.n_head = 2;
    s.n_head_kv = 1;
    s.n_ff = 32;
    s.n_vocab = 8;
    s.tied_embeddings = true;
    s.qkv_bias = true;
    testing::TestModel m{.shape = s};
    m.file_type = 1;
    GgufWriter w;
    testing::build(m, w);
    out["qwen2_tied_f16.gguf"] = bytes(w);
  }
  {  // every value type, nested arrays, alignment 64, exotic tensor types, version 2
    GgufWriter w;
    w.set_alignment(64);
    w.set("u8", MetaValue::u8(7));
    w.set("i8", MetaValue::i8(-7));
    w.set("u16", MetaValue::u16(700));
    w.set("i16", MetaValue::i16(-700));
    w.set("i32", MetaValue::i32(-70000));
    w.set("u64", MetaValue::u64(7ULL << 40));
    w.set("i64", MetaValue::i64(-(7LL << 40)));
    w.set("f64", MetaValue::f64(0.125));
    w.set_bool("bool", true);
    w.set("nested",
          MetaValue::array(ValueType::kArray,
                           {MetaValue::array(ValueType::kString, {MetaValue::string("x")}),
                            MetaValue::array(ValueType::kFloat32, {})}));
    const std::vector<std::int32_t> kv{1, 2};
    w.set_string("general.architecture", "gemma3");
    w.set_u32("gemma3.block_count", 2);
    w.set("gemma3.attention.head_count_kv", MetaValue::i32_array(kv));
    w.set_u32("gemma3.attention.head_count", 4);
    w.set_u32("gemma3.attention.key_length", 16);
    w.set_u32("gemma3.attention.value_length", 16);
    w.set_u32("gemma3.attention.sliding_window", 64);
    for (const auto& [name, type] :
         std::vector<std::pair<std::string, std::uint32_t>>{{"blk.0.q4_k.weight", 12},
                                                            {"blk.0.q6_k.weight", 14},
                                                            {"blk.0.iq2_xxs.weight", 16},
                                                            {"blk.0.tq1_0.weight", 34},
                                                            {"blk.1.mxfp4.weight", 39},
                                                            {"blk.1.nvfp4.weight", 40},
                                                            {"blk.1.bf16.weight", 30},
                                                            {"blk.1.q1_0.weight", 41}}) {
      EXPECT_TRUE(w.add_tensor(name, {256, 1}, type, pattern()).ok()) << name;
    }
    EXPECT_TRUE(w.add_tensor("ids", {4}, 26, pattern()).ok());
    auto b = bytes(w);
    b[4] = std::byte{2};
    out["v2_types_align64.gguf"] = b;
  }
  {  // MoE with 3-D expert stacks
    GgufWriter w;
    w.set_string("general.architecture", "qwen3moe");
    w.set_u32("qwen3moe.block_count", 1);
    w.set_u32("qwen3moe.embedding_length", 32);
    w.set_u32("qwen3moe.attention.head_count", 2);
    w.set_u32("qwen3moe.expert_count", 4);
    w.set_u32("qwen3moe.expert_used_count", 2);
    EXPECT_TRUE(w.add_tensor("token_embd.weight", {32, 4}, 0, pattern()).ok());
    EXPECT_TRUE(w.add_tensor("blk.0.ffn_up_exps.weight", {32, 8, 4}, 1, pattern()).ok());
    EXPECT_TRUE(w.add_tensor("blk.0.ffn_gate_inp.weight", {32, 4}, 0, pattern()).ok());
    out["moe.gguf"] = bytes(w);
  }
  {  // nothing but the header
    out["empty.gguf"] = bytes(GgufWriter{});
  }
  return out;
}

TEST(GgufFuzzCorpus, SeedsAreSmallAndValid) {
  const auto generated = seeds();
  std::uint64_t total = 0;
  for (const auto& [name, data] : generated) {
    total += data.size();
    const auto file = parse_gguf(data, name);
    ASSERT_TRUE(file.ok()) << name << ": " << file.error().message;
    EXPECT_NO_THROW((void)inspect_json(*file, true).dump()) << name;
  }
  EXPECT_LT(total, kMaxCorpusBytes);

  if (const char* out = std::getenv("TOKSCOPE_WRITE_FUZZ_CORPUS")) {
    fs::create_directories(out);
    for (const auto& [name, data] : generated) {
      std::ofstream(fs::path(out) / name, std::ios::binary)
          .write(reinterpret_cast<const char*>(data.data()),
                 static_cast<std::streamsize>(data.size()));
    }
  }
}

TEST(GgufFuzzCorpus, CommittedSeedsParse) {
  const fs::path dir = corpus_dir();
  if (!fs::is_directory(dir)) GTEST_SKIP() << dir << " does not exist";
  std::uint64_t total = 0;
  int count = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::vector<char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::byte> data(raw.size());
    std::memcpy(data.data(), raw.data(), raw.size());
    total += data.size();
    ++count;
    const auto file = parse_gguf(data, entry.path().filename().string());
    EXPECT_TRUE(file.ok()) << entry.path() << ": " << file.error().message;
  }
  EXPECT_GT(count, 0);
  EXPECT_LT(total, kMaxCorpusBytes);
}

}  // namespace
}  // namespace tokscope::model::gguf
