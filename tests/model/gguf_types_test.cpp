// Byte sizes of every ggml type, from the format's block sizes.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "model/gguf/ggml_types.hpp"

namespace tokscope::model::gguf {
namespace {

std::uint64_t bytes_of(std::uint32_t type, std::vector<std::uint64_t> dims) {
  const auto b = tensor_bytes(type, dims);
  EXPECT_TRUE(b.ok()) << b.error().message;
  return b.ok() ? *b : 0;
}

TEST(GgmlTypes, OneBlockOfEveryType) {
  // {id: {elements per block, bytes per block}}, derived independently from ggml-common.h.
  const std::map<std::uint32_t, std::pair<std::uint64_t, std::uint64_t>> expected{
      {0, {1, 4}},      {1, {1, 2}},      {2, {32, 18}},    {3, {32, 20}},    {6, {32, 22}},
      {7, {32, 24}},    {8, {32, 34}},    {9, {32, 36}},    {10, {256, 84}},  {11, {256, 110}},
      {12, {256, 144}}, {13, {256, 176}}, {14, {256, 210}}, {15, {256, 292}}, {16, {256, 66}},
      {17, {256, 74}},  {18, {256, 98}},  {19, {256, 50}},  {20, {32, 18}},   {21, {256, 110}},
      {22, {256, 82}},  {23, {256, 136}}, {24, {1, 1}},     {25, {1, 2}},     {26, {1, 4}},
      {27, {1, 8}},     {28, {1, 8}},     {29, {256, 56}},  {30, {1, 2}},     {34, {256, 54}},
      {35, {256, 66}},  {39, {32, 17}},   {40, {64, 36}},   {41, {128, 18}},  {42, {64, 18}},
  };
  ASSERT_EQ(ggml_types().size(), expected.size());
  for (const auto& [id, block] : expected) {
    const GgmlTypeInfo* t = find_ggml_type(id);
    ASSERT_NE(t, nullptr) << id;
    EXPECT_EQ(t->block_elements, block.first) << t->name;
    EXPECT_EQ(t->block_bytes, block.second) << t->name;
    EXPECT_EQ(bytes_of(id, {block.first}), block.second) << t->name;
    // Three rows of four blocks.
    EXPECT_EQ(bytes_of(id, {block.first * 4, 3}), block.second * 12) << t->name;
  }
}

TEST(GgmlTypes, NamedExamples) {
  EXPECT_EQ(bytes_of(2, {32}), 18U);     // Q4_0
  EXPECT_EQ(bytes_of(12, {256}), 144U);  // Q4_K
  EXPECT_EQ(bytes_of(14, {256}), 210U);  // Q6_K
  EXPECT_EQ(bytes_of(8, {32}), 34U);     // Q8_0
  // A 4-D F16 tensor: 2 * 3 * 5 * 7 elements of 2 bytes.
  EXPECT_EQ(bytes_of(1, {2, 3, 5, 7}), 420U);
  // Qwen2.5-1.5B's embedding table in Q8_0: 151936 rows of 1536 / 32 blocks of 34 bytes.
  EXPECT_EQ(bytes_of(8, {1536, 151936}), 151936ULL * 48 * 34);
}

TEST(GgmlTypes, BitsAndGroupLabels) {
  EXPECT_DOUBLE_EQ(bits_per_element(*find_ggml_type(2)), 4.5);
  EXPECT_DOUBLE_EQ(bits_per_element(*find_ggml_type(14)), 6.5625);
  EXPECT_DOUBLE_EQ(bits_per_element(*find_ggml_type(34)), 1.6875);  // TQ1_0
  EXPECT_EQ(group_size_label(*find_ggml_type(1)), "none");
  EXPECT_EQ(group_size_label(*find_ggml_type(8)), "g32");
  EXPECT_EQ(group_size_label(*find_ggml_type(14)), "g16");
  EXPECT_EQ(group_size_label(*find_ggml_type(12)), "g32");
  EXPECT_EQ(group_size_label(*find_ggml_type(16)), "super-block 256");
  EXPECT_EQ(find_ggml_type(12)->name, "Q4_K");
}

TEST(GgmlTypes, UnknownAndRetiredIdsAreErrors) {
  const std::vector<std::uint64_t> dims{32};
  const auto unknown = tensor_bytes(43, dims);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().kind, ErrorKind::kInput);
  EXPECT_NE(unknown.error().message.find("unknown ggml type 43"), std::string::npos);
  const auto retired = tensor_bytes(31, dims);
  ASSERT_FALSE(retired.ok());
  EXPECT_NE(retired.error().message.find("Q4_0_4_4"), std::string::npos);
  EXPECT_NE(retired.error().message.find("removed"), std::string::npos);
  EXPECT_EQ(find_ggml_type(4), nullptr);
  EXPECT_EQ(retired_ggml_type_name(37), "IQ4_NL_4_8");
  EXPECT_FALSE(retired_ggml_type_name(12));
}

TEST(GgmlTypes, ShapeErrors) {
  const auto not_multiple = tensor_bytes(12, std::vector<std::uint64_t>{100});
  ASSERT_FALSE(not_multiple.ok());
  EXPECT_NE(not_multiple.error().message.find("not a multiple of the Q4_K block size (256)"),
            std::string::npos);
  EXPECT_FALSE(tensor_bytes(0, std::vector<std::uint64_t>{}).ok());
  const auto zero = tensor_bytes(0, std::vector<std::uint64_t>{4, 0});
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.error().message.find("dimension 1 is 0"), std::string::npos);
}

TEST(GgmlTypes, OverflowIsAnErrorNotAWrap) {
  const std::uint64_t big = std::uint64_t{1} << 32;
  const auto elements = tensor_bytes(0, std::vector<std::uint64_t>{big, big});
  ASSERT_FALSE(elements.ok());
  EXPECT_NE(elements.error().message.find("element count overflows"), std::string::npos);
  // 2^62 F32 elements fit int64 as a count but not as bytes.
  const auto bytes = tensor_bytes(0, std::vector<std::uint64_t>{std::uint64_t{1} << 62});
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.error().message.find("byte count overflows"), std::string::npos);
  // 2^61 F16 elements take 2^62 bytes: still within int64.
  EXPECT_EQ(bytes_of(1, {std::uint64_t{1} << 61}), std::uint64_t{1} << 62);
}

}  // namespace
}  // namespace tokscope::model::gguf
