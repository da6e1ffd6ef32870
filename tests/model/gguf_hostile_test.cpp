// Truncated, corrupt and hostile GGUF input: always an error naming the file, the offset and the
// field; never a crash, a hang or an allocation sized by the file.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "common/test_dir.hpp"
#include "gguf_test_model.hpp"
#include "model/gguf/model_facts.hpp"
#include "model/gguf/reader.hpp"
#include "model/gguf/writer.hpp"

namespace tokscope::model::gguf {
namespace {

// Raw little-endian GGUF bytes, for inputs the writer refuses to produce.
class Bytes {
 public:
  Bytes& raw(std::string_view s) {
    for (const char c : s) out.push_back(static_cast<std::byte>(c));
    return *this;
  }
  template <class T>
  Bytes& put(T v) {
    std::byte b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out.insert(out.end(), b, b + sizeof(T));
    return *this;
  }
  Bytes& str(std::string_view s) { return put<std::uint64_t>(s.size()).raw(s); }
  Bytes& header(std::uint64_t tensors, std::uint64_t kvs, std::uint32_t version = 3) {
    return raw("GGUF").put(version).put(tensors).put(kvs);
  }
  std::vector<std::byte> out;
};

template <class T>
void patch(std::vector<std::byte>& bytes, std::uint64_t offset, T value) {
  std::memcpy(bytes.data() + offset, &value, sizeof(T));
}

std::string parse_error(const std::vector<std::byte>& bytes) {
  const auto r = parse_gguf(bytes, "test.gguf");
  EXPECT_FALSE(r.ok()) << "parsed a hostile input";
  if (r.ok()) return "";
  EXPECT_EQ(r.error().kind, ErrorKind::kInput);
  EXPECT_EQ(r.error().message.rfind("test.gguf: offset 0x", 0), 0U) << r.error().message;
  return r.error().message;
}

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE((haystack).find(needle), std::string::npos) << (haystack)

// A small valid file with every kind of record: metadata of several types, three tensors.
std::vector<std::byte> small_valid_file() {
  GgufWriter w;
  w.set_string("general.architecture", "llama");
  w.set_u32("llama.block_count", 1);
  w.set_u32("llama.embedding_length", 32);
  w.set_u32("llama.attention.head_count", 2);
  w.set_f32("llama.rope.freq_base", 1e4F);
  w.set_bool("b", true);
  const std::vector<std::string> tokens{"a", "bb", "ccc"};
  w.set("tokenizer.ggml.tokens", MetaValue::string_array(tokens));
  w.set("nested", MetaValue::array(ValueType::kArray,
                                   {MetaValue::array(ValueType::kInt16, {MetaValue::i16(-3)})}));
  EXPECT_TRUE(w.add_tensor("token_embd.weight", {32, 3}, 8, TensorFiller{}).ok());
  EXPECT_TRUE(w.add_tensor("blk.0.attn_q.weight", {32, 32}, 2, TensorFiller{}).ok());
  EXPECT_TRUE(w.add_tensor("output_norm.weight", {32}, 0, TensorFiller{}).ok());
  return *w.to_bytes();
}

// One tensor "a" of dims {4, 4} F32; returns the bytes and the offset of its info record.
std::vector<std::byte> one_tensor_file(std::uint64_t* info_offset) {
  GgufWriter w;
  EXPECT_TRUE(w.add_tensor("a", {4, 4}, 0, TensorFiller{}).ok());
  auto bytes = *w.to_bytes();
  *info_offset = parse_gguf(bytes, "x")->tensors[0].info_offset;
  return bytes;
}
// Layout of the info of tensor "a" with 2 dims, relative to its info offset.
constexpr std::uint64_t kNDims = 8 + 1;
constexpr std::uint64_t kDim0 = kNDims + 4;
constexpr std::uint64_t kType = kDim0 + 16;
constexpr std::uint64_t kOffset = kType + 4;

TEST(GgufHostile, TruncatedAtEveryByteIsAnError) {
  const auto bytes = small_valid_file();
  ASSERT_TRUE(parse_gguf(bytes, "test.gguf").ok());
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    const std::vector<std::byte> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    const auto r = parse_gguf(cut, "test.gguf");
    ASSERT_FALSE(r.ok()) << "prefix of " << n << " bytes parsed";
    ASSERT_EQ(r.error().message.rfind("test.gguf: offset 0x", 0), 0U) << r.error().message;
  }
}

TEST(GgufHostile, TruncatedTinyModelHeaderAndSampledData) {
  testing::TestModel m{.shape = testing::tiny_shape()};
  GgufWriter w;
  testing::build(m, w);
  const auto bytes = *w.to_bytes();
  const auto file = parse_gguf(bytes, "t");
  ASSERT_TRUE(file.ok());
  for (std::size_t n = 0; n < bytes.size(); n += n < file->data_offset ? 1 : 997) {
    const std::vector<std::byte> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    const auto r = parse_gguf(cut, "test.gguf");
    ASSERT_FALSE(r.ok()) << n;
  }
}

TEST(GgufHostile, PrefixOfALargerFileAsksForMore) {
  const auto bytes = small_valid_file();
  const auto full = parse_gguf(bytes, "x");
  bool more = false;
  const std::span<const std::byte> all(bytes);
  // Cut inside the header: more bytes are needed, and the error says where.
  const auto cut = parse_gguf_prefix(all.first(40), bytes.size(), "x", &more);
  EXPECT_FALSE(cut.ok());
  EXPECT_TRUE(more);
  EXPECT_CONTAINS(cut.error().message, "beyond the first 40 bytes read");
  // Cut in the data section: the header is complete, the file size bounds the tensors.
  const auto data_cut = parse_gguf_prefix(all.first(static_cast<std::size_t>(full->data_offset)),
                                          bytes.size(), "x", &more);
  ASSERT_TRUE(data_cut.ok()) << data_cut.error().message;
  EXPECT_FALSE(more);
  EXPECT_EQ(data_cut->tensors.size(), 3U);
  // The same header claiming a smaller file: the tensors no longer fit.
  const auto small = parse_gguf_prefix(all.first(static_cast<std::size_t>(full->data_offset)),
                                       full->data_offset + 10, "x", &more);
  ASSERT_FALSE(small.ok());
  EXPECT_FALSE(more);
  EXPECT_CONTAINS(small.error().message, "does not fit");
}

TEST(GgufHostile, WrongMagicAndVersions) {
  auto bytes = small_valid_file();
  bytes[0] = std::byte{'X'};
  EXPECT_CONTAINS(parse_error(bytes), "not a GGUF file: magic 'XGUF'");
  EXPECT_CONTAINS(parse_error(Bytes{}.raw("GG").out), "shorter than the 4-byte magic");
  EXPECT_CONTAINS(parse_error(Bytes{}
                                  .raw("\x7f"
                                       "ELF")
                                  .out),
                  "not a GGUF file");

  const std::string v1 = parse_error(Bytes{}.header(0, 0, 1).out);
  EXPECT_CONTAINS(v1, "offset 0x4: header: GGUF version 1 is obsolete");
  EXPECT_CONTAINS(parse_error(Bytes{}.header(0, 0, 4).out), "unsupported GGUF version 4");
  EXPECT_CONTAINS(parse_error(Bytes{}.header(0, 0, 0x03000000).out), "big-endian GGUF");
}

TEST(GgufHostile, HugeCounts) {
  const auto kv = parse_error(Bytes{}.header(0, std::uint64_t{1} << 62).out);
  EXPECT_CONTAINS(kv, "offset 0x10: header: metadata_kv_count 4611686018427387904 cannot fit");
  const auto tensors = parse_error(Bytes{}.header(~std::uint64_t{0}, 0).out);
  EXPECT_CONTAINS(tensors, "offset 0x8: header: tensor_count");
  // Each fits alone, not together.
  Bytes both;
  both.header(1, 3);
  both.out.resize(both.out.size() + 3 * 14 + 33 - 1);
  EXPECT_CONTAINS(parse_error(both.out), "cannot both fit");
}

TEST(GgufHostile, HugeStringAndArrayLengths) {
  Bytes key_bytes;
  key_bytes.header(0, 1).put<std::uint64_t>(1ULL << 40).raw("padding");
  const auto key = parse_error(key_bytes.out);
  EXPECT_CONTAINS(key, "offset 0x18: metadata pair 0: key length 1099511627776 exceeds 65535");

  Bytes value;
  value.header(0, 1).str("k").put<std::uint32_t>(8).put<std::uint64_t>(1ULL << 40).raw("abc");
  const auto str = parse_error(value.out);
  EXPECT_CONTAINS(str, "metadata pair 0 ('k'): string length 1099511627776 exceeds the 3 bytes");

  Bytes array;
  array.header(0, 1).str("arr").put<std::uint32_t>(9).put<std::uint32_t>(4).put<std::uint64_t>(
      1ULL << 61);
  array.out.resize(array.out.size() + 64);
  EXPECT_CONTAINS(parse_error(array.out), "metadata pair 0 ('arr'): array length");

  Bytes strings;  // 10 strings each claiming 2^50 bytes: the first one fails
  strings.header(0, 1).str("s").put<std::uint32_t>(9).put<std::uint32_t>(8).put<std::uint64_t>(10);
  for (int i = 0; i < 10; ++i) strings.put<std::uint64_t>(1ULL << 50);
  EXPECT_CONTAINS(parse_error(strings.out), "metadata pair 0 ('s'), element 0: string length");
}

TEST(GgufHostile, MemoryForMetadataIsCapped) {
  // 8 M one-byte elements are 8 MB in the file but over 300 MB as parsed values: refused before
  // anything is allocated.
  const std::uint64_t n = 8'000'000;
  Bytes b;
  b.header(0, 1).str("many").put<std::uint32_t>(9).put<std::uint32_t>(0).put<std::uint64_t>(n);
  b.out.resize(b.out.size() + n);
  EXPECT_CONTAINS(parse_error(b.out), "the most this reader allocates");
}

TEST(GgufHostile, BadValues) {
  Bytes type;
  type.header(0, 1).str("k").put<std::uint32_t>(13).put<std::uint32_t>(0);
  EXPECT_CONTAINS(parse_error(type.out), "value type 13 is not a GGUF value type");
  Bytes element;
  element.header(0, 1).str("k").put<std::uint32_t>(9).put<std::uint32_t>(77).put<std::uint64_t>(0);
  EXPECT_CONTAINS(parse_error(element.out), "array element type 77");
  Bytes boolean;
  boolean.header(0, 1).str("k").put<std::uint32_t>(7).put<std::uint8_t>(2);
  EXPECT_CONTAINS(parse_error(boolean.out), "bool value 2 is neither 0 nor 1");
  Bytes empty_key;
  empty_key.header(0, 1).str("").put<std::uint32_t>(0).put<std::uint8_t>(0).raw("pad");
  EXPECT_CONTAINS(parse_error(empty_key.out), "key is empty");
  Bytes dup;
  dup.header(0, 2).str("k").put<std::uint32_t>(0).put<std::uint8_t>(1);
  dup.str("k").put<std::uint32_t>(0).put<std::uint8_t>(2);
  EXPECT_CONTAINS(parse_error(dup.out),
                  "offset 0x26: metadata pair 1 ('k'): duplicate key "
                  "(first at offset 0x18)");
  Bytes deep;  // arrays nested 9 deep
  deep.header(0, 1).str("deep").put<std::uint32_t>(9);
  for (int i = 0; i < 9; ++i) deep.put<std::uint32_t>(9).put<std::uint64_t>(1);
  deep.out.resize(deep.out.size() + 64);
  EXPECT_CONTAINS(parse_error(deep.out), "nested more than 8 deep");
  Bytes odd_key;  // non-printable bytes in a key are escaped in the message
  odd_key.header(0, 1).str("a\x01'b").put<std::uint32_t>(99);
  EXPECT_CONTAINS(parse_error(odd_key.out), "('a\\x01\\x27b')");
}

TEST(GgufHostile, BadAlignment) {
  for (const std::uint32_t a : {0U, 48U, 1U << 30}) {
    GgufWriter w;
    w.set_u32("x", 1);
    w.set_u32("general.alignment", 32);
    auto bytes = *w.to_bytes();
    // general.alignment's u32 value is the last 4 bytes of the metadata, before the padding.
    const auto file = parse_gguf(bytes, "x");
    const std::uint64_t value_at = file->metadata[1].offset + 8 + 17 + 4;
    patch(bytes, value_at, a);
    const std::string e = parse_error(bytes);
    EXPECT_CONTAINS(e, "metadata pair ('general.alignment')");
    EXPECT_CONTAINS(e, a == 1U << 30 ? "exceeds" : "is not a power of two");
  }
  Bytes typed;
  typed.header(0, 1).str("general.alignment").put<std::uint32_t>(10).put<std::uint64_t>(64);
  EXPECT_CONTAINS(parse_error(typed.out), "general.alignment has type u64; GGUF requires u32");
}

TEST(GgufHostile, TensorInfoErrorsNameTheTensorAndField) {
  std::uint64_t at = 0;
  const auto good = one_tensor_file(&at);
  ASSERT_TRUE(parse_gguf(good, "x").ok());
  {
    auto b = good;
    patch<std::uint32_t>(b, at + kNDims, 9);
    EXPECT_CONTAINS(parse_error(b), fmt::format("offset {:#x}: tensor info 0 ('a'): dimension "
                                                "count 9 exceeds 4",
                                                at + kNDims));
  }
  {
    auto b = good;
    patch<std::uint32_t>(b, at + kNDims, 0);
    EXPECT_CONTAINS(parse_error(b), "dimension count 0");
  }
  {
    auto b = good;
    patch<std::uint64_t>(b, at + kDim0 + 8, 0);
    EXPECT_CONTAINS(parse_error(b), "dimension 1 is 0");
  }
  {
    auto b = good;
    patch<std::uint64_t>(b, at + kDim0, 1ULL << 32);
    patch<std::uint64_t>(b, at + kDim0 + 8, 1ULL << 32);
    EXPECT_CONTAINS(parse_error(b), "element count overflows int64");
  }
  {
    auto b = good;
    patch<std::uint64_t>(b, at + kDim0, ~std::uint64_t{0});
    EXPECT_CONTAINS(parse_error(b), "exceeds int64");
  }
  {
    auto b = good;
    patch<std::uint32_t>(b, at + kType, 200);
    EXPECT_CONTAINS(parse_error(b), fmt::format("offset {:#x}: tensor info 0 ('a'): unknown ggml "
                                                "type 200",
                                                at + kType));
  }
  {
    auto b = good;
    patch<std::uint32_t>(b, at + kType, 33);
    EXPECT_CONTAINS(parse_error(b), "ggml type 33 (Q4_0_8_8) was removed");
  }
  {
    auto b = good;
    patch<std::uint32_t>(b, at + kType, 2);  // Q4_0 needs rows of 32: 4 is not
    EXPECT_CONTAINS(parse_error(b), "not a multiple of the Q4_0 block size");
  }
  {
    auto b = good;
    patch<std::uint64_t>(b, at + kOffset, 8);
    EXPECT_CONTAINS(parse_error(b), "data offset 0x8 is not a multiple of the alignment 32");
  }
  {
    auto b = good;  // aligned, but far beyond the end
    patch<std::uint64_t>(b, at + kOffset, 1ULL << 40);
    EXPECT_CONTAINS(parse_error(b), fmt::format("offset {:#x}: tensor info 0 ('a'): data at data "
                                                "section offset 0x10000000000, 64 bytes, does not "
                                                "fit",
                                                at));
  }
  {
    auto b = good;  // offset + size wraps around 2^64
    patch<std::uint64_t>(b, at + kOffset, ~std::uint64_t{31});
    EXPECT_CONTAINS(parse_error(b), "does not fit");
  }
  {
    auto b = good;  // the data section itself cut short
    b.resize(b.size() - 1);
    EXPECT_CONTAINS(parse_error(b), "does not fit");
  }
  {
    auto b = good;
    patch<std::uint64_t>(b, at, 65);
    EXPECT_CONTAINS(parse_error(b), "name length 65 exceeds 64");
  }
  {
    auto b = good;
    patch<std::uint64_t>(b, at, 0);
    EXPECT_CONTAINS(parse_error(b), "tensor name is empty");
  }
}

TEST(GgufHostile, DuplicateTensorNames) {
  GgufWriter w;
  ASSERT_TRUE(w.add_tensor("a", {8}, 0, TensorFiller{}).ok());
  ASSERT_TRUE(w.add_tensor("b", {8}, 0, TensorFiller{}).ok());
  auto bytes = *w.to_bytes();
  const auto file = parse_gguf(bytes, "x");
  bytes[file->tensors[1].info_offset + 8] = std::byte{'a'};
  EXPECT_CONTAINS(parse_error(bytes),
                  fmt::format("offset {:#x}: tensor info 1 ('a'): duplicate tensor name (first "
                              "at offset {:#x})",
                              file->tensors[1].info_offset, file->tensors[0].info_offset));
}

TEST(GgufHostile, DataSectionPastTheEnd) {
  GgufWriter w;
  ASSERT_TRUE(w.add_tensor("a", {8}, 0, TensorFiller{}).ok());
  auto bytes = *w.to_bytes();
  const auto file = parse_gguf(bytes, "x");
  ASSERT_GT(file->data_offset, file->header_end + 1);
  bytes.resize(static_cast<std::size_t>(file->header_end + 1));
  EXPECT_CONTAINS(parse_error(bytes), "data section: the data section would start at");
}

TEST(GgufHostile, ReadGgufFileErrors) {
  const auto dir = tokscope::testing::fresh_test_dir();
  const auto missing = read_gguf(dir / "missing.gguf");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::kInput);
  EXPECT_CONTAINS(missing.error().message, "missing.gguf: no such file");
  EXPECT_CONTAINS(read_gguf(dir).error().message, "not a regular file");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tokscope::model::gguf
