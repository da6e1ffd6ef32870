// GgufWriter -> parse_gguf / read_gguf: every metadata type, tensor layout, alignment, streaming.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "common/test_dir.hpp"
#include "model/gguf/ggml_types.hpp"
#include "model/gguf/reader.hpp"
#include "model/gguf/writer.hpp"

namespace tokscope::model::gguf {
namespace {

std::vector<std::byte> bytes_of(const GgufWriter& w) {
  auto bytes = w.to_bytes();
  EXPECT_TRUE(bytes.ok()) << bytes.error().message;
  return bytes.ok() ? *bytes : std::vector<std::byte>{};
}

GgufFile parse_ok(const std::vector<std::byte>& bytes) {
  auto file = parse_gguf(bytes, "test.gguf");
  EXPECT_TRUE(file.ok()) << file.error().message;
  return file.ok() ? std::move(*file) : GgufFile{};
}

// Every value type, extremes and arrays (including nested and empty ones).
std::vector<std::pair<std::string, MetaValue>> all_kinds_of_metadata() {
  const std::vector<std::string> words{"", "a", "\xce\xbb-utf8", std::string(300, 'x')};
  const std::vector<std::int32_t> ints{-2147483647 - 1, -1, 0, 7, 2147483647};
  const std::vector<float> floats{-1.5F, 0.0F, 3.25F, std::numeric_limits<float>::infinity()};
  const std::vector<std::uint32_t> uints{0, 1, 4294967295U};
  std::vector<MetaValue> rows;
  rows.push_back(MetaValue::array(ValueType::kUint8, {MetaValue::u8(1), MetaValue::u8(2)}));
  rows.push_back(MetaValue::array(ValueType::kUint8, {}));
  return {
      {"t.u8", MetaValue::u8(255)},
      {"t.i8", MetaValue::i8(-128)},
      {"t.u16", MetaValue::u16(65535)},
      {"t.i16", MetaValue::i16(-32768)},
      {"t.u32", MetaValue::u32(4294967295U)},
      {"t.i32", MetaValue::i32(-2147483647 - 1)},
      {"t.u64", MetaValue::u64(std::numeric_limits<std::uint64_t>::max())},
      {"t.i64", MetaValue::i64(std::numeric_limits<std::int64_t>::min())},
      {"t.f32", MetaValue::f32(0.1F)},
      {"t.f64", MetaValue::f64(-1e300)},
      {"t.bool_true", MetaValue::boolean(true)},
      {"t.bool_false", MetaValue::boolean(false)},
      {"t.string", MetaValue::string("hello")},
      {"t.empty_string", MetaValue::string("")},
      {"t.strings", MetaValue::string_array(words)},
      {"t.i32s", MetaValue::i32_array(ints)},
      {"t.f32s", MetaValue::f32_array(floats)},
      {"t.u32s", MetaValue::u32_array(uints)},
      {"t.bools",
       MetaValue::array(ValueType::kBool, {MetaValue::boolean(true), MetaValue::boolean(false)})},
      {"t.empty", MetaValue::array(ValueType::kInt64, {})},
      {"t.nested", MetaValue::array(ValueType::kArray, rows)},
  };
}

TEST(GgufRoundTrip, EveryMetadataTypeComesBackWithItsType) {
  GgufWriter w;
  const auto kinds = all_kinds_of_metadata();
  for (const auto& [key, value] : kinds) w.set(key, value);
  const GgufFile file = parse_ok(bytes_of(w));
  EXPECT_EQ(file.version, 3U);
  EXPECT_EQ(file.alignment, 32U);
  ASSERT_EQ(file.metadata.size(), kinds.size());
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    EXPECT_EQ(file.metadata[i].key, kinds[i].first);
    EXPECT_EQ(file.metadata[i].value, kinds[i].second) << kinds[i].first;
    EXPECT_EQ(file.metadata[i].value.type, kinds[i].second.type) << kinds[i].first;
  }
  EXPECT_EQ(*file.find("t.u64")->as_uint(), std::numeric_limits<std::uint64_t>::max());
  EXPECT_FALSE(file.find("t.i8")->as_uint());
  EXPECT_EQ(*file.find("t.i8")->as_number(), -128.0);
  EXPECT_EQ(*file.find("t.string")->as_string(), "hello");
  EXPECT_EQ(file.find("t.strings")->as_array()->size(), 4U);
  EXPECT_EQ(file.find("t.nested")->element_type, ValueType::kArray);
  EXPECT_EQ(file.find("missing"), nullptr);
  EXPECT_TRUE(file.tensors.empty());
}

TEST(GgufRoundTrip, SettingAKeyAgainReplacesItInPlace) {
  GgufWriter w;
  w.set_u32("a", 1);
  w.set_string("b", "x");
  w.set_u64("a", 2);
  const GgufFile file = parse_ok(bytes_of(w));
  ASSERT_EQ(file.metadata.size(), 2U);
  EXPECT_EQ(file.metadata[0].key, "a");
  EXPECT_EQ(file.metadata[0].value, MetaValue::u64(2));
}

TEST(GgufRoundTrip, TensorsKeepNameDimsTypeAndData) {
  GgufWriter w;
  std::vector<std::byte> q8(34 * 2);  // Q8_0, 64 elements = 2 blocks
  for (std::size_t i = 0; i < q8.size(); ++i) q8[i] = static_cast<std::byte>(i);
  ASSERT_TRUE(w.add_tensor("a", {64}, 8, q8).ok());
  ASSERT_TRUE(w.add_tensor("b", {3, 5}, 0, [](std::uint64_t offset, std::span<std::byte> out) {
                 for (std::size_t i = 0; i < out.size(); ++i) {
                   out[i] = static_cast<std::byte>((offset + i) * 7 % 251);
                 }
               }).ok());
  ASSERT_TRUE(w.add_tensor("c", {256, 2, 1, 3}, 12, TensorFiller{}).ok());  // zeros
  const auto bytes = bytes_of(w);
  const GgufFile file = parse_ok(bytes);
  ASSERT_EQ(file.tensors.size(), 3U);
  EXPECT_EQ(file.file_size, bytes.size());
  EXPECT_EQ(file.data_offset % 32, 0U);
  EXPECT_GE(file.data_offset, file.header_end);

  const TensorInfo& a = file.tensors[0];
  EXPECT_EQ(a.name, "a");
  EXPECT_EQ(a.dims, (std::vector<std::uint64_t>{64}));
  EXPECT_EQ(a.type_id, 8U);
  EXPECT_EQ(a.bytes, 68U);
  EXPECT_EQ(a.offset, 0U);
  EXPECT_EQ(std::memcmp(bytes.data() + file.data_offset + a.offset, q8.data(), q8.size()), 0);

  const TensorInfo& b = *file.find_tensor("b");
  EXPECT_EQ(b.dims, (std::vector<std::uint64_t>{3, 5}));
  EXPECT_EQ(b.bytes, 60U);
  EXPECT_EQ(b.elements, 15U);
  EXPECT_EQ(b.offset, 96U);  // 68 bytes padded to 96
  for (std::uint64_t i = 0; i < b.bytes; ++i) {
    EXPECT_EQ(bytes[file.data_offset + b.offset + i], static_cast<std::byte>(i * 7 % 251));
  }
  const TensorInfo& c = *file.find_tensor("c");
  EXPECT_EQ(c.bytes, 6U * 144U);
  EXPECT_EQ(c.offset, 160U);
  EXPECT_EQ(file.find_tensor("d"), nullptr);
  // The file ends with the last tensor padded to the alignment.
  EXPECT_EQ(bytes.size(), file.data_offset + 160 + 6 * 144);
  EXPECT_EQ(*w.file_size(), bytes.size());
  const auto header = w.header_bytes();
  ASSERT_TRUE(header.ok());
  EXPECT_EQ(header->size(), file.data_offset);
}

TEST(GgufRoundTrip, AlignmentFromMetadataIsHonoured) {
  GgufWriter w;
  w.set_alignment(64);
  ASSERT_TRUE(w.add_tensor("x", {3}, 0, std::vector<std::byte>(12)).ok());
  ASSERT_TRUE(w.add_tensor("y", {5}, 0, std::vector<std::byte>(20)).ok());
  const GgufFile file = parse_ok(bytes_of(w));
  EXPECT_EQ(file.alignment, 64U);
  EXPECT_EQ(file.data_offset % 64, 0U);
  EXPECT_EQ(file.tensors[1].offset, 64U);
}

TEST(GgufRoundTrip, VersionTwoIsRead) {
  GgufWriter w;
  w.set_u32("k", 1);
  auto bytes = bytes_of(w);
  bytes[4] = std::byte{2};
  const GgufFile file = parse_ok(bytes);
  EXPECT_EQ(file.version, 2U);
  EXPECT_EQ(file.metadata.size(), 1U);
}

TEST(GgufRoundTrip, FileOnDiskWithAHeaderLargerThanTheFirstRead) {
  // A 3 MiB string forces read_gguf to grow its read past the first MiB.
  const auto dir = tokscope::testing::fresh_test_dir();
  GgufWriter w;
  w.set_string("general.architecture", "llama");
  w.set_string("big", std::string(3 << 20, 'z'));
  ASSERT_TRUE(w.add_tensor("t", {8}, 0, std::vector<std::byte>(32, std::byte{1})).ok());
  const auto path = dir / "big.gguf";
  ASSERT_TRUE(w.write(path).ok());
  EXPECT_EQ(std::filesystem::file_size(path), *w.file_size());
  const auto file = read_gguf(path);
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(file->find("big")->as_string()->size(), std::size_t{3} << 20);
  EXPECT_EQ(file->tensors.size(), 1U);
  EXPECT_EQ(file->file_size, *w.file_size());
  EXPECT_EQ(file->origin, path.string());
  // The same bytes parsed in memory give the same header hash.
  EXPECT_EQ(parse_ok(bytes_of(w)).header_hash, file->header_hash);
  std::filesystem::remove_all(dir);
}

TEST(GgufRoundTrip, StreamedTensorLargerThanOneChunk) {
  const auto dir = tokscope::testing::fresh_test_dir();
  GgufWriter w;
  std::vector<std::uint64_t> chunk_offsets;
  const std::uint64_t n = (kWriterChunkBytes * 5 / 2) / 2;  // 2.5 chunks of F16
  ASSERT_TRUE(w.add_tensor("big", {n}, 1, [&](std::uint64_t offset, std::span<std::byte> out) {
                 chunk_offsets.push_back(offset);
                 for (std::size_t i = 0; i < out.size(); ++i) {
                   out[i] = static_cast<std::byte>((offset + i) % 256);
                 }
               }).ok());
  const auto path = dir / "streamed.gguf";
  ASSERT_TRUE(w.write(path).ok());
  EXPECT_EQ(chunk_offsets,
            (std::vector<std::uint64_t>{0, kWriterChunkBytes, 2 * kWriterChunkBytes}));
  const auto file = read_gguf(path);
  ASSERT_TRUE(file.ok()) << file.error().message;
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(file->data_offset + kWriterChunkBytes + 3));
  char c = 0;
  in.get(c);
  EXPECT_EQ(static_cast<unsigned char>(c), (kWriterChunkBytes + 3) % 256);
  std::filesystem::remove_all(dir);
}

TEST(GgufWriter, RejectsInvalidTensors) {
  GgufWriter w;
  ASSERT_TRUE(w.add_tensor("t", {32}, 2, std::vector<std::byte>(18)).ok());
  const auto dup = w.add_tensor("t", {32}, 2, std::vector<std::byte>(18));
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.error().message.find("duplicate"), std::string::npos);
  EXPECT_FALSE(w.add_tensor("", {32}, 0, TensorFiller{}).ok());
  EXPECT_FALSE(w.add_tensor(std::string(65, 'n'), {32}, 0, TensorFiller{}).ok());
  EXPECT_FALSE(w.add_tensor("five", {1, 1, 1, 1, 1}, 0, TensorFiller{}).ok());
  EXPECT_FALSE(w.add_tensor("zero", {0}, 0, TensorFiller{}).ok());
  EXPECT_FALSE(w.add_tensor("odd", {33}, 2, TensorFiller{}).ok());  // not a multiple of 32
  EXPECT_FALSE(w.add_tensor("type", {32}, 99, TensorFiller{}).ok());
  const auto size = w.add_tensor("size", {32}, 2, std::vector<std::byte>(17));
  ASSERT_FALSE(size.ok());
  EXPECT_NE(size.error().message.find("17 bytes of data given"), std::string::npos);
  EXPECT_FALSE(w.add_tensor("none", {32}, 2, std::vector<std::byte>{}).ok());
}

TEST(GgufWriter, RejectsInvalidMetadataAtWriteTime) {
  {
    GgufWriter w;
    w.set_alignment(48);
    EXPECT_FALSE(w.to_bytes().ok());
  }
  {
    GgufWriter w;
    w.set_u64("general.alignment", 64);  // GGUF requires u32
    EXPECT_FALSE(w.to_bytes().ok());
  }
  {
    GgufWriter w;
    w.set("mixed", MetaValue::array(ValueType::kUint8, {MetaValue::u8(1), MetaValue::u16(2)}));
    const auto r = w.to_bytes();
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("element 1 has type u16"), std::string::npos);
  }
  {
    GgufWriter w;
    w.set("range", MetaValue{ValueType::kUint8, ValueType::kUint8, std::uint64_t{300}});
    EXPECT_FALSE(w.to_bytes().ok());
  }
  {
    GgufWriter w;
    w.set("kind", MetaValue{ValueType::kString, ValueType::kUint8, std::uint64_t{1}});
    EXPECT_FALSE(w.to_bytes().ok());
  }
  {
    GgufWriter w;
    w.set("", MetaValue::u8(1));
    EXPECT_FALSE(w.to_bytes().ok());
  }
}

TEST(GgufWriter, WriteFailureNamesThePath) {
  GgufWriter w;
  w.set_u32("k", 1);
  const auto r = w.write("/nonexistent-dir-tokscope/x.gguf");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kIo);
  EXPECT_NE(r.error().message.find("/nonexistent-dir-tokscope/x.gguf"), std::string::npos);
}

}  // namespace
}  // namespace tokscope::model::gguf
