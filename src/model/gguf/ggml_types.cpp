#include "model/gguf/ggml_types.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>

namespace tokscope::model::gguf {
namespace {

using F = TypeFamily;

// Ternary weights carry log2(3) bits of information per weight.
constexpr double kTernaryBits = 1.58;

// Block sizes, from the block structs of ggml-common.h (QK_K = 256, f16 scale = 2 bytes):
//   Q4_0  f16 d + 16 B nibbles                          = 18 B / 32
//   Q4_1  f16 d, m + 16 B                               = 20 B / 32
//   Q5_0  f16 d + 4 B high bits + 16 B                  = 22 B / 32
//   Q5_1  f16 d, m + 4 B + 16 B                         = 24 B / 32
//   Q8_0  f16 d + 32 B                                  = 34 B / 32
//   Q8_1  f16 d, s + 32 B                               = 36 B / 32
//   Q2_K  16 B scales + 64 B quants + f16 d, dmin       = 84 B / 256   (16 blocks of 16)
//   Q3_K  32 B hmask + 64 B + 12 B scales + f16 d       = 110 B / 256  (16 blocks of 16)
//   Q4_K  f16 d, dmin + 12 B scales + 128 B             = 144 B / 256  (8 blocks of 32)
//   Q5_K  f16 d, dmin + 12 B + 32 B high bits + 128 B   = 176 B / 256  (8 blocks of 32)
//   Q6_K  128 B low + 64 B high + 16 B scales + f16 d   = 210 B / 256  (16 blocks of 16)
//   Q8_K  f32 d + 256 B + 16 x i16 sums                 = 292 B / 256  (dot products only)
//   IQ2_XXS f16 + 32 x u16                              = 66 B / 256
//   IQ2_XS  f16 + 32 x u16 + 8 B scales                 = 74 B / 256
//   IQ3_XXS f16 + 96 B                                  = 98 B / 256
//   IQ1_S   f16 + 32 B + 8 x u16                        = 50 B / 256
//   IQ4_NL  f16 + 16 B                                  = 18 B / 32
//   IQ3_S   f16 + 64 + 8 + 32 + 4 B                     = 110 B / 256
//   IQ2_S   f16 + 64 + 8 + 8 B                          = 82 B / 256
//   IQ4_XS  f16 + u16 + 4 B + 128 B                     = 136 B / 256
//   IQ1_M   32 + 16 + 8 B (scale packed in the scales)  = 56 B / 256
//   TQ1_0   48 B (5 trits/byte) + 4 B + f16             = 54 B / 256
//   TQ2_0   64 B + f16                                  = 66 B / 256
//   MXFP4   e8m0 exponent + 16 B                        = 17 B / 32
//   NVFP4   4 x ue4m3 scales (one per 16) + 32 B        = 36 B / 64
//   Q1_0    f16 + 16 B                                  = 18 B / 128
//   Q2_0    f16 + 16 B                                  = 18 B / 64
constexpr std::array<GgmlTypeInfo, 35> kTypes{{
    {0, "F32", 1, 4, 32, 0, F::kFloat},
    {1, "F16", 1, 2, 16, 0, F::kFloat},
    {2, "Q4_0", 32, 18, 4, 32, F::kLegacy},
    {3, "Q4_1", 32, 20, 4, 32, F::kLegacy},
    {6, "Q5_0", 32, 22, 5, 32, F::kLegacy},
    {7, "Q5_1", 32, 24, 5, 32, F::kLegacy},
    {8, "Q8_0", 32, 34, 8, 32, F::kLegacy},
    {9, "Q8_1", 32, 36, 8, 32, F::kLegacy},
    {10, "Q2_K", 256, 84, 2, 16, F::kKQuant},
    {11, "Q3_K", 256, 110, 3, 16, F::kKQuant},
    {12, "Q4_K", 256, 144, 4, 32, F::kKQuant},
    {13, "Q5_K", 256, 176, 5, 32, F::kKQuant},
    {14, "Q6_K", 256, 210, 6, 16, F::kKQuant},
    {15, "Q8_K", 256, 292, 8, 256, F::kKQuant},
    {16, "IQ2_XXS", 256, 66, 2, 0, F::kIQuant},
    {17, "IQ2_XS", 256, 74, 2, 0, F::kIQuant},
    {18, "IQ3_XXS", 256, 98, 3, 0, F::kIQuant},
    {19, "IQ1_S", 256, 50, 1, 0, F::kIQuant},
    {20, "IQ4_NL", 32, 18, 4, 32, F::kIQuant},
    {21, "IQ3_S", 256, 110, 3, 0, F::kIQuant},
    {22, "IQ2_S", 256, 82, 2, 0, F::kIQuant},
    {23, "IQ4_XS", 256, 136, 4, 0, F::kIQuant},
    {24, "I8", 1, 1, 8, 0, F::kInteger},
    {25, "I16", 1, 2, 16, 0, F::kInteger},
    {26, "I32", 1, 4, 32, 0, F::kInteger},
    {27, "I64", 1, 8, 64, 0, F::kInteger},
    {28, "F64", 1, 8, 64, 0, F::kFloat},
    {29, "IQ1_M", 256, 56, 1, 0, F::kIQuant},
    {30, "BF16", 1, 2, 16, 0, F::kFloat},
    {34, "TQ1_0", 256, 54, kTernaryBits, 256, F::kTernary},
    {35, "TQ2_0", 256, 66, kTernaryBits, 256, F::kTernary},
    {39, "MXFP4", 32, 17, 4, 32, F::kFp4},
    {40, "NVFP4", 64, 36, 4, 16, F::kFp4},
    {41, "Q1_0", 128, 18, 1, 128, F::kLowBit},
    {42, "Q2_0", 64, 18, 2, 64, F::kLowBit},
}};

// A short initializer would leave value-initialized rows at the end: ids must strictly increase.
constexpr bool ids_increase() {
  for (std::size_t i = 1; i < kTypes.size(); ++i) {
    if (kTypes[i].id <= kTypes[i - 1].id || kTypes[i].block_bytes == 0) return false;
  }
  return true;
}
static_assert(ids_increase(), "kTypes: ids must strictly increase and every row be filled");

struct RetiredType {
  std::uint32_t id;
  std::string_view name;
};
constexpr std::array<RetiredType, 8> kRetired{{
    {4, "Q4_2"},
    {5, "Q4_3"},
    {31, "Q4_0_4_4"},
    {32, "Q4_0_4_8"},
    {33, "Q4_0_8_8"},
    {36, "IQ4_NL_4_4"},
    {37, "IQ4_NL_4_8"},
    {38, "IQ4_NL_8_8"},
}};

constexpr std::uint64_t kMaxInt64 =
    static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

Error input_error(std::string message) {
  return make_error(ErrorKind::kInput, std::move(message));
}

}  // namespace

std::span<const GgmlTypeInfo> ggml_types() {
  return kTypes;
}

const GgmlTypeInfo* find_ggml_type(std::uint32_t id) {
  const auto types = ggml_types();
  const auto it =
      std::find_if(types.begin(), types.end(), [id](const GgmlTypeInfo& t) { return t.id == id; });
  return it == types.end() ? nullptr : &*it;
}

std::optional<std::string_view> retired_ggml_type_name(std::uint32_t id) {
  for (const auto& r : kRetired) {
    if (r.id == id) return r.name;
  }
  return std::nullopt;
}

double bits_per_element(const GgmlTypeInfo& type) {
  return static_cast<double>(type.block_bytes) * 8.0 / static_cast<double>(type.block_elements);
}

std::string group_size_label(const GgmlTypeInfo& type) {
  if (type.family == TypeFamily::kFloat || type.family == TypeFamily::kInteger) return "none";
  if (type.scale_group > 0) return fmt::format("g{}", type.scale_group);
  return fmt::format("super-block {}", type.block_elements);
}

Expected<std::uint64_t> tensor_bytes(std::uint32_t type_id, std::span<const std::uint64_t> dims) {
  const GgmlTypeInfo* type = find_ggml_type(type_id);
  if (type == nullptr) {
    if (const auto retired = retired_ggml_type_name(type_id)) {
      return input_error(fmt::format(
          "ggml type {} ({}) was removed from GGUF by ggml; convert the model again with a "
          "current llama.cpp",
          type_id, *retired));
    }
    return input_error(fmt::format("unknown ggml type {} (this reader knows ids 0..{})", type_id,
                                   ggml_types().back().id));
  }
  if (dims.empty()) return input_error("tensor has no dimensions");
  std::uint64_t elements = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 0) return input_error(fmt::format("dimension {} is 0", i));
    if (dims[i] > kMaxInt64 / elements) {
      return input_error(
          fmt::format("element count overflows int64 at dimension {} ({})", i, dims[i]));
    }
    elements *= dims[i];
  }
  if (dims[0] % type->block_elements != 0) {
    return input_error(fmt::format("dimension 0 ({}) is not a multiple of the {} block size ({})",
                                   dims[0], type->name, type->block_elements));
  }
  // bytes = elements / block_elements * block_bytes; block_bytes <= 292, so dividing first keeps
  // the product exact and the overflow check simple.
  const std::uint64_t blocks = elements / type->block_elements;
  if (blocks > kMaxInt64 / type->block_bytes) {
    return input_error(fmt::format("byte count overflows int64 ({} blocks of {} bytes)", blocks,
                                   type->block_bytes));
  }
  return blocks * type->block_bytes;
}

}  // namespace tokscope::model::gguf
