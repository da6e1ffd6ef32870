// GGUF reader: header, typed metadata and tensor infos of a GGUF v2/v3 file (ggml docs/gguf.md).
// The weights themselves are never read; only their bounds are checked against the file size.
//
// Hostile input is expected (the fuzzer in tests/fuzz drives parse_gguf). Before anything is used:
//  * every count is checked against the bytes that remain (a metadata pair needs at least 14
//    bytes, a tensor info 33, an array element its minimum encoded size), so no count can ask for
//    more elements than the file could hold;
//  * every length (strings, keys, arrays) is checked against the remaining bytes and its own
//    limit; memory for metadata and tensor infos is charged against kMaxMetadataMemory before it
//    is allocated, and reservations never exceed what the bytes at hand could hold;
//  * nested arrays are limited to kMaxArrayDepth; general.alignment must be a uint32 power of two;
//    tensors have 1..4 dimensions, none zero, element and byte counts within int64, a known ggml
//    type whose block size divides the row, an aligned offset, data inside the file, and a unique
//    name.
// Every error is ErrorKind::kInput and reads "<origin>: offset 0x1a4: tensor info 3
// ('blk.0.attn_q.weight'): dimension count 9 exceeds 4": the file, the byte offset of the field,
// the record, the field and what is wrong with it. Names from the file are quoted with
// non-printable bytes escaped.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "core/expected.hpp"

namespace tokscope::model::gguf {

static_assert(std::endian::native == std::endian::little,
              "the GGUF reader decodes little-endian integers with memcpy");

// Limits of this reader (not of the format), each with its reason.
// Metadata and tensor infos of real models take a few MB (a 262k-token vocabulary about 15 MB).
inline constexpr std::uint64_t kMaxHeaderBytes = std::uint64_t{256} << 20;
// In-memory size of parsed metadata, tensor infos and names: bounds what a hostile file can make
// us allocate. Real models need tens of MB.
inline constexpr std::uint64_t kMaxMetadataMemory = std::uint64_t{256} << 20;
// Nested arrays are allowed by the spec but unused in practice; recursion is bounded.
inline constexpr std::uint32_t kMaxArrayDepth = 8;
inline constexpr std::uint64_t kMaxKeyLength = 65535;      // the spec's limit for keys
inline constexpr std::uint64_t kMaxTensorNameLength = 64;  // the spec's limit for tensor names
inline constexpr std::uint32_t kMaxDims = 4;               // GGML_MAX_DIMS
inline constexpr std::uint64_t kMaxAlignment = std::uint64_t{1} << 24;
inline constexpr std::uint64_t kDefaultAlignment = 32;  // when general.alignment is absent

enum class ValueType : std::uint32_t {
  kUint8 = 0,
  kInt8 = 1,
  kUint16 = 2,
  kInt16 = 3,
  kUint32 = 4,
  kInt32 = 5,
  kFloat32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kUint64 = 10,
  kInt64 = 11,
  kFloat64 = 12,
};

// "u8", "i32", "f32", "bool", "string", "array", ...
std::string_view to_string(ValueType type);

// One metadata value with its GGUF type, so a file can be written back bit for bit.
struct MetaValue {
  ValueType type = ValueType::kUint8;
  ValueType element_type = ValueType::kUint8;  // arrays only: the type of every element
  // Unsigned integer types hold uint64_t, signed ones int64_t, f32/f64 double (an f32 converts
  // exactly), bool bool, string std::string (bytes as stored, not validated as UTF-8), array a
  // vector whose elements all have type element_type.
  std::variant<std::uint64_t, std::int64_t, double, bool, std::string, std::vector<MetaValue>> data{
      std::uint64_t{0}};

  static MetaValue u8(std::uint8_t v);
  static MetaValue i8(std::int8_t v);
  static MetaValue u16(std::uint16_t v);
  static MetaValue i16(std::int16_t v);
  static MetaValue u32(std::uint32_t v);
  static MetaValue i32(std::int32_t v);
  static MetaValue u64(std::uint64_t v);
  static MetaValue i64(std::int64_t v);
  static MetaValue f32(float v);
  static MetaValue f64(double v);
  static MetaValue boolean(bool v);
  static MetaValue string(std::string v);
  // Elements must all have type `element`; GgufWriter checks it.
  static MetaValue array(ValueType element, std::vector<MetaValue> items);
  static MetaValue string_array(std::span<const std::string> items);
  static MetaValue i32_array(std::span<const std::int32_t> items);
  static MetaValue u32_array(std::span<const std::uint32_t> items);
  static MetaValue f32_array(std::span<const float> items);

  // Any integer type holding a value >= 0; nullopt otherwise (floats, strings, negatives).
  [[nodiscard]] std::optional<std::uint64_t> as_uint() const;
  // Any integer or float type.
  [[nodiscard]] std::optional<double> as_number() const;
  [[nodiscard]] const std::string* as_string() const;
  [[nodiscard]] const std::vector<MetaValue>* as_array() const;

  bool operator==(const MetaValue& other) const = default;
};

struct MetadataEntry {
  std::string key;
  MetaValue value;
  std::uint64_t offset = 0;  // file offset of the pair (its key length field)
};

struct TensorInfo {
  std::string name;
  std::vector<std::uint64_t> dims;  // ggml order: dims[0] is the row length; 1..4 entries, all > 0
  std::uint32_t type_id = 0;        // a type find_ggml_type() knows
  std::uint64_t offset = 0;         // from the start of the data section; a multiple of alignment
  std::uint64_t bytes = 0;          // tensor_bytes(type_id, dims)
  std::uint64_t elements = 0;       // product of dims
  std::uint64_t info_offset = 0;    // file offset of this tensor's info record
};

struct GgufFile {
  std::string origin;  // path or label used in messages
  std::uint32_t version = 0;
  std::uint64_t alignment = kDefaultAlignment;
  std::vector<MetadataEntry> metadata;  // in file order; keys unique
  std::vector<TensorInfo> tensors;      // in file order; names unique
  std::uint64_t header_end = 0;         // end of the tensor infos, before the alignment padding
  std::uint64_t data_offset = 0;        // start of the data section (header_end aligned)
  std::uint64_t file_size = 0;
  std::uint64_t header_hash = 0;  // FNV-1a 64 of bytes [0, header_end): identifies the header

  // nullptr when absent.
  [[nodiscard]] const MetaValue* find(std::string_view key) const;
  [[nodiscard]] const TensorInfo* find_tensor(std::string_view name) const;

  // name -> index into tensors; built by the parser.
  std::unordered_map<std::string, std::size_t> tensor_index;
};

// Parses a whole file held in memory (`data` is the file: its size is the file size). Pure: no
// I/O, no globals; safe on any input.
Expected<GgufFile> parse_gguf(std::span<const std::byte> data, std::string_view origin);

// Parses the header of a file of `file_size` bytes of which `prefix` holds the first bytes.
// Tensor data bounds are checked against file_size. When the header does not end within the
// prefix (but would within the file), the error says so and *needs_more is set.
Expected<GgufFile> parse_gguf_prefix(std::span<const std::byte> prefix, std::uint64_t file_size,
                                     std::string_view origin, bool* needs_more);

// Reads the header region of a GGUF file (metadata and tensor infos, not the weights): starts with
// the first MiB and grows the read until the header ends, up to kMaxHeaderBytes.
Expected<GgufFile> read_gguf(const std::filesystem::path& path);

// FNV-1a 64 of a byte range: the header hash of GgufFile.
std::uint64_t fnv1a64(std::span<const std::byte> bytes);

}  // namespace tokscope::model::gguf
