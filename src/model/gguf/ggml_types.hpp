// The ggml tensor types a GGUF file can store, and how many bytes a tensor of each type occupies.
//
// Every type stores its elements in blocks: `block_elements` consecutive values of a row are
// packed into `block_bytes` bytes (scales included). A row of ne0 elements therefore takes
// ne0 / block_elements * block_bytes bytes, and ne0 must be a multiple of block_elements.
//
// Ids and block layouts follow ggml's `enum ggml_type` (ggml/include/ggml.h) and the block structs
// of ggml/src/ggml-common.h in ggml-org/llama.cpp, read while writing this table; the byte counts
// were derived from the struct fields, not copied. Ids that ggml retired (Q4_2, Q4_3, the
// Q4_0_4_4-style repacked layouts) are known by name so a file using them gets a precise error.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/expected.hpp"

namespace tokscope::model::gguf {

// What kind of encoding a type is: decides how the quantization summary names it.
enum class TypeFamily {
  kFloat,    // F32, F16, BF16, F64: one value per element, no scales
  kInteger,  // I8..I64: raw integers (never weights of a matmul in practice)
  kLegacy,   // Q4_0..Q8_1: one block of 32 with its own scale (and min)
  kKQuant,   // Q2_K..Q8_K: super-blocks of 256 holding sub-blocks with quantized scales
  kIQuant,   // IQ*: codebook ("importance") quants, mostly super-blocks of 256
  kTernary,  // TQ1_0, TQ2_0: ternary weights {-1, 0, +1} with one scale per 256
  kFp4,      // MXFP4, NVFP4: 4-bit floats with a shared exponent / scale
  kLowBit,   // Q1_0, Q2_0: 1- and 2-bit weights with one f16 scale per block
};

struct GgmlTypeInfo {
  std::uint32_t id = 0;
  std::string_view name;             // ggml's own spelling, upper case: "Q4_K", "BF16"
  std::uint32_t block_elements = 1;  // values per block (QK of the type)
  std::uint32_t block_bytes = 0;     // bytes per block, scales included
  double nominal_bits = 0.0;         // bits of one stored weight code: 4 for Q4_K, 1.58 ternary
  std::uint32_t scale_group = 0;     // values sharing one scale; 0 = none (floats) or not
                                     // documented in the block struct (most IQ types)
  TypeFamily family = TypeFamily::kFloat;
};

// Every type a current GGUF file may contain, ordered by id.
std::span<const GgmlTypeInfo> ggml_types();

// The type with this id, or nullptr when the id is unknown or was retired by ggml.
const GgmlTypeInfo* find_ggml_type(std::uint32_t id);

// Name of an id ggml used once and removed from GGUF files ("Q4_0_4_4"), or nullopt.
std::optional<std::string_view> retired_ggml_type_name(std::uint32_t id);

// Bits per element including the scales: block_bytes * 8 / block_elements (4.5 for Q4_0).
double bits_per_element(const GgmlTypeInfo& type);

// Group-size label in the normalized quantization form: "none" for floats and integers,
// "g32" when one scale covers 32 values, "super-block 256" when the sub-block scales are not
// documented in the block struct.
std::string group_size_label(const GgmlTypeInfo& type);

// Bytes of a tensor of `type_id` with dimensions `dims` (ggml order: dims[0] is the row length).
// Errors (ErrorKind::kInput, message without file context, the caller adds it): unknown or
// retired type id, no dimensions, a zero dimension, dims[0] not a multiple of the block size,
// element count or byte count above 2^63 - 1 (ggml sizes are int64).
Expected<std::uint64_t> tensor_bytes(std::uint32_t type_id, std::span<const std::uint64_t> dims);

}  // namespace tokscope::model::gguf
