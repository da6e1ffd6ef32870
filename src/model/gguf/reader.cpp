#include "model/gguf/reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <system_error>
#include <utility>

#include "model/gguf/ggml_types.hpp"

namespace tokscope::model::gguf {
namespace {

// Smallest encodings, used to reject counts that the remaining bytes cannot hold.
// A metadata pair: key length, a 1-byte key, value type, a 1-byte value.
constexpr std::uint64_t kMinKvBytes = 8 + 1 + 4 + 1;
// A tensor info: name length, a 1-byte name, n_dims, one dimension, type, offset.
constexpr std::uint64_t kMinTensorInfoBytes = 8 + 1 + 4 + 8 + 4 + 8;
// Rough cost of one unordered_map node, charged with each key and tensor name.
constexpr std::uint64_t kMapNodeBytes = 64;
constexpr std::uint64_t kFirstRead = std::uint64_t{1} << 20;
constexpr std::uint64_t kMaxInt64 =
    static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
constexpr std::array<char, 4> kMagic{'G', 'G', 'U', 'F'};

std::uint64_t min_encoded_size(ValueType type) {
  switch (type) {
    case ValueType::kUint8:
    case ValueType::kInt8:
    case ValueType::kBool:
      return 1;
    case ValueType::kUint16:
    case ValueType::kInt16:
      return 2;
    case ValueType::kUint32:
    case ValueType::kInt32:
    case ValueType::kFloat32:
      return 4;
    case ValueType::kUint64:
    case ValueType::kInt64:
    case ValueType::kFloat64:
    case ValueType::kString:  // the length field alone
      return 8;
    case ValueType::kArray:  // element type + length
      return 12;
  }
  return 1;
}

bool is_value_type(std::uint32_t raw) {
  return raw <= static_cast<std::uint32_t>(ValueType::kFloat64);
}

// Bytes from the file shown in a message: printable ASCII kept, anything else as \xNN, cut at 80.
std::string quote_bytes(std::string_view text) {
  constexpr std::size_t kMaxShown = 80;
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < kMaxShown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  if (text.size() > kMaxShown) out += "...";
  out += '\'';
  return out;
}

class Parser {
 public:
  Parser(std::span<const std::byte> data, std::uint64_t file_size, std::string_view origin)
      : data_(data), file_size_(file_size), origin_(origin) {}

  Expected<GgufFile> parse();
  [[nodiscard]] bool needs_more() const { return needs_more_; }

 private:
  Error fail(std::uint64_t offset, std::string_view what) const;
  Expected<std::span<const std::byte>> take(std::uint64_t n, std::string_view field);
  template <class T>
  Expected<T> read(std::string_view field);
  Expected<std::string> read_string(std::string_view field, std::uint64_t max_length,
                                    std::string_view limit_reason);
  Expected<MetaValue> read_value(ValueType type, std::uint32_t depth);
  Expected<MetaValue> read_array(std::uint32_t depth);
  Expected<void> check_count(std::uint64_t count, std::uint64_t min_each, std::uint64_t at,
                             std::string_view field);
  Expected<void> charge(std::uint64_t count, std::uint64_t unit, std::uint64_t at,
                        std::string_view what);

  Expected<void> read_metadata(GgufFile& file, std::uint64_t count);
  Expected<void> apply_alignment(GgufFile& file);
  Expected<void> read_tensor_infos(GgufFile& file, std::uint64_t count);
  Expected<void> check_data_section(GgufFile& file);

  std::span<const std::byte> data_;  // the bytes at hand: the file or its first bytes
  std::uint64_t file_size_;          // >= data_.size()
  std::string_view origin_;
  std::uint64_t pos_ = 0;
  std::string context_ = "header";           // record being read, for messages
  std::vector<std::uint64_t> element_path_;  // array indices inside the current value
  std::uint64_t memory_used_ = 0;            // charged against kMaxMetadataMemory
  bool needs_more_ = false;
};

Error Parser::fail(std::uint64_t offset, std::string_view what) const {
  std::string where = context_;
  for (const std::uint64_t index : element_path_) where += fmt::format(", element {}", index);
  return make_error(ErrorKind::kInput,
                    fmt::format("{}: offset {:#x}: {}: {}", origin_, offset, where, what));
}

Expected<std::span<const std::byte>> Parser::take(std::uint64_t n, std::string_view field) {
  const std::uint64_t left = file_size_ - pos_;
  if (n > left) {
    return fail(pos_, fmt::format("{}: needs {} bytes but the file ends {} bytes later "
                                  "(truncated or corrupt)",
                                  field, n, left));
  }
  if (pos_ + n > kMaxHeaderBytes) {
    return fail(pos_, fmt::format("{}: metadata and tensor infos run past {} MiB, the most this "
                                  "reader accepts",
                                  field, kMaxHeaderBytes >> 20));
  }
  if (pos_ + n > data_.size()) {
    needs_more_ = true;
    return fail(pos_, fmt::format("{}: beyond the first {} bytes read", field, data_.size()));
  }
  const auto out = data_.subspan(static_cast<std::size_t>(pos_), static_cast<std::size_t>(n));
  pos_ += n;
  return out;
}

template <class T>
Expected<T> Parser::read(std::string_view field) {
  const auto bytes = take(sizeof(T), field);
  if (!bytes) return bytes.error();
  T value;
  std::memcpy(&value, bytes->data(), sizeof(T));
  return value;
}

Expected<void> Parser::check_count(std::uint64_t count, std::uint64_t min_each, std::uint64_t at,
                                   std::string_view field) {
  const std::uint64_t left = file_size_ - pos_;
  if (count > left / min_each) {
    return fail(at, fmt::format("{} {} cannot fit: each needs at least {} bytes and {} bytes "
                                "remain in the file",
                                field, count, min_each, left));
  }
  return {};
}

Expected<void> Parser::charge(std::uint64_t count, std::uint64_t unit, std::uint64_t at,
                              std::string_view what) {
  const std::uint64_t left = kMaxMetadataMemory - memory_used_;
  if (unit != 0 && count > left / unit) {
    return fail(at, fmt::format("{} ({} x {} bytes in memory) would take metadata and tensor "
                                "infos past {} MiB, the most this reader allocates",
                                what, count, unit, kMaxMetadataMemory >> 20));
  }
  memory_used_ += count * unit;
  return {};
}

Expected<std::string> Parser::read_string(std::string_view field, std::uint64_t max_length,
                                          std::string_view limit_reason) {
  const std::uint64_t at = pos_;
  const auto length = read<std::uint64_t>(field);
  if (!length) return length.error();
  if (*length > max_length) {
    return fail(
        at, fmt::format("{} length {} exceeds {} ({})", field, *length, max_length, limit_reason));
  }
  if (*length > file_size_ - pos_) {
    return fail(at, fmt::format("{} length {} exceeds the {} bytes left in the file", field,
                                *length, file_size_ - pos_));
  }
  if (auto charged = charge(*length, 1, at, field); !charged) return charged.error();
  const auto bytes = take(*length, field);
  if (!bytes) return bytes.error();
  return std::string(reinterpret_cast<const char*>(bytes->data()), bytes->size());
}

Expected<MetaValue> Parser::read_value(ValueType type, std::uint32_t depth) {
  switch (type) {
    case ValueType::kUint8: {
      const auto v = read<std::uint8_t>("u8 value");
      if (!v) return v.error();
      return MetaValue::u8(*v);
    }
    case ValueType::kInt8: {
      const auto v = read<std::int8_t>("i8 value");
      if (!v) return v.error();
      return MetaValue::i8(*v);
    }
    case ValueType::kUint16: {
      const auto v = read<std::uint16_t>("u16 value");
      if (!v) return v.error();
      return MetaValue::u16(*v);
    }
    case ValueType::kInt16: {
      const auto v = read<std::int16_t>("i16 value");
      if (!v) return v.error();
      return MetaValue::i16(*v);
    }
    case ValueType::kUint32: {
      const auto v = read<std::uint32_t>("u32 value");
      if (!v) return v.error();
      return MetaValue::u32(*v);
    }
    case ValueType::kInt32: {
      const auto v = read<std::int32_t>("i32 value");
      if (!v) return v.error();
      return MetaValue::i32(*v);
    }
    case ValueType::kUint64: {
      const auto v = read<std::uint64_t>("u64 value");
      if (!v) return v.error();
      return MetaValue::u64(*v);
    }
    case ValueType::kInt64: {
      const auto v = read<std::int64_t>("i64 value");
      if (!v) return v.error();
      return MetaValue::i64(*v);
    }
    case ValueType::kFloat32: {
      const auto v = read<float>("f32 value");
      if (!v) return v.error();
      return MetaValue::f32(*v);
    }
    case ValueType::kFloat64: {
      const auto v = read<double>("f64 value");
      if (!v) return v.error();
      return MetaValue::f64(*v);
    }
    case ValueType::kBool: {
      const std::uint64_t at = pos_;
      const auto v = read<std::uint8_t>("bool value");
      if (!v) return v.error();
      if (*v > 1) return fail(at, fmt::format("bool value {} is neither 0 nor 1", *v));
      return MetaValue::boolean(*v == 1);
    }
    case ValueType::kString: {
      auto v = read_string("string", std::numeric_limits<std::uint64_t>::max(), "");
      if (!v) return v.error();
      return MetaValue::string(std::move(*v));
    }
    case ValueType::kArray:
      return read_array(depth);
  }
  return fail(pos_, "unreachable value type");
}

Expected<MetaValue> Parser::read_array(std::uint32_t depth) {
  const std::uint64_t type_at = pos_;
  const auto raw_type = read<std::uint32_t>("array element type");
  if (!raw_type) return raw_type.error();
  if (!is_value_type(*raw_type)) {
    return fail(type_at,
                fmt::format("array element type {} is not a GGUF value type (0..12)", *raw_type));
  }
  const auto element = static_cast<ValueType>(*raw_type);
  if (element == ValueType::kArray && depth + 1 >= kMaxArrayDepth) {
    return fail(type_at, fmt::format("arrays nested more than {} deep", kMaxArrayDepth));
  }
  const std::uint64_t count_at = pos_;
  const auto count = read<std::uint64_t>("array length");
  if (!count) return count.error();
  const std::uint64_t min_each = min_encoded_size(element);
  if (auto ok = check_count(*count, min_each, count_at, "array length"); !ok) return ok.error();
  if (auto ok = charge(*count, sizeof(MetaValue), count_at, "array elements"); !ok) {
    return ok.error();
  }
  std::vector<MetaValue> items;
  // Never reserve more than the bytes at hand could encode.
  const std::uint64_t at_hand = pos_ <= data_.size() ? data_.size() - pos_ : 0;
  items.reserve(static_cast<std::size_t>(std::min(*count, at_hand / min_each)));
  element_path_.push_back(0);
  for (std::uint64_t i = 0; i < *count; ++i) {
    element_path_.back() = i;
    auto value = read_value(element, depth + 1);
    if (!value) return value.error();
    items.push_back(std::move(*value));
  }
  element_path_.pop_back();
  return MetaValue::array(element, std::move(items));
}

Expected<void> Parser::read_metadata(GgufFile& file, std::uint64_t count) {
  if (auto ok = charge(count, sizeof(MetadataEntry) + kMapNodeBytes, pos_, "metadata pairs"); !ok) {
    return ok.error();
  }
  file.metadata.reserve(static_cast<std::size_t>(
      std::min(count, (data_.size() - std::min<std::uint64_t>(pos_, data_.size())) / kMinKvBytes)));
  std::unordered_map<std::string, std::uint64_t> first_offset;
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t at = pos_;
    context_ = fmt::format("metadata pair {}", i);
    auto key = read_string("key", kMaxKeyLength, "the GGUF limit for keys");
    if (!key) return key.error();
    if (key->empty()) return fail(at, "key is empty");
    context_ = fmt::format("metadata pair {} ({})", i, quote_bytes(*key));
    if (const auto it = first_offset.find(*key); it != first_offset.end()) {
      return fail(at, fmt::format("duplicate key (first at offset {:#x})", it->second));
    }
    const std::uint64_t type_at = pos_;
    const auto raw_type = read<std::uint32_t>("value type");
    if (!raw_type) return raw_type.error();
    if (!is_value_type(*raw_type)) {
      return fail(type_at,
                  fmt::format("value type {} is not a GGUF value type (0..12)", *raw_type));
    }
    auto value = read_value(static_cast<ValueType>(*raw_type), 0);
    if (!value) return value.error();
    first_offset.emplace(*key, at);
    file.metadata.push_back(MetadataEntry{std::move(*key), std::move(*value), at});
  }
  return {};
}

Expected<void> Parser::apply_alignment(GgufFile& file) {
  for (const auto& entry : file.metadata) {
    if (entry.key != "general.alignment") continue;
    context_ = "metadata pair ('general.alignment')";
    if (entry.value.type != ValueType::kUint32) {
      return fail(entry.offset, fmt::format("general.alignment has type {}; GGUF requires u32",
                                            to_string(entry.value.type)));
    }
    const std::uint64_t a = *entry.value.as_uint();
    if (a == 0 || !std::has_single_bit(a)) {
      return fail(entry.offset, fmt::format("general.alignment {} is not a power of two", a));
    }
    if (a > kMaxAlignment) {
      return fail(entry.offset, fmt::format("general.alignment {} exceeds {}, the most this "
                                            "reader accepts",
                                            a, kMaxAlignment));
    }
    file.alignment = a;
  }
  return {};
}

Expected<void> Parser::read_tensor_infos(GgufFile& file, std::uint64_t count) {
  if (auto ok = charge(count, sizeof(TensorInfo) + kMapNodeBytes, pos_, "tensor infos"); !ok) {
    return ok.error();
  }
  file.tensors.reserve(static_cast<std::size_t>(std::min(
      count, (data_.size() - std::min<std::uint64_t>(pos_, data_.size())) / kMinTensorInfoBytes)));
  for (std::uint64_t i = 0; i < count; ++i) {
    TensorInfo info;
    info.info_offset = pos_;
    context_ = fmt::format("tensor info {}", i);
    auto name = read_string("name", kMaxTensorNameLength, "the GGUF limit for tensor names");
    if (!name) return name.error();
    if (name->empty()) return fail(info.info_offset, "tensor name is empty");
    info.name = std::move(*name);
    context_ = fmt::format("tensor info {} ({})", i, quote_bytes(info.name));
    if (const auto it = file.tensor_index.find(info.name); it != file.tensor_index.end()) {
      return fail(info.info_offset, fmt::format("duplicate tensor name (first at offset {:#x})",
                                                file.tensors[it->second].info_offset));
    }

    const std::uint64_t dims_at = pos_;
    const auto n_dims = read<std::uint32_t>("dimension count");
    if (!n_dims) return n_dims.error();
    if (*n_dims == 0) return fail(dims_at, "dimension count 0: a tensor needs at least one");
    if (*n_dims > kMaxDims) {
      return fail(dims_at, fmt::format("dimension count {} exceeds {}", *n_dims, kMaxDims));
    }
    for (std::uint32_t d = 0; d < *n_dims; ++d) {
      const std::uint64_t at = pos_;
      const auto dim = read<std::uint64_t>("dimension");
      if (!dim) return dim.error();
      if (*dim == 0) return fail(at, fmt::format("dimension {} is 0", d));
      if (*dim > kMaxInt64) {
        return fail(at, fmt::format("dimension {} ({}) exceeds int64", d, *dim));
      }
      info.dims.push_back(*dim);
    }

    const std::uint64_t type_at = pos_;
    const auto type = read<std::uint32_t>("type");
    if (!type) return type.error();
    info.type_id = *type;
    if (find_ggml_type(info.type_id) == nullptr) {
      return fail(type_at, tensor_bytes(info.type_id, info.dims).error().message);
    }
    const auto bytes = tensor_bytes(info.type_id, info.dims);
    if (!bytes) return fail(dims_at, bytes.error().message);
    info.bytes = *bytes;
    info.elements = 1;
    for (const std::uint64_t d : info.dims) info.elements *= d;  // checked by tensor_bytes

    const std::uint64_t offset_at = pos_;
    const auto offset = read<std::uint64_t>("data offset");
    if (!offset) return offset.error();
    if (*offset % file.alignment != 0) {
      return fail(offset_at, fmt::format("data offset {:#x} is not a multiple of the alignment {}",
                                         *offset, file.alignment));
    }
    info.offset = *offset;

    if (auto ok = charge(info.name.size() * 2 + info.dims.size() * 8, 1, info.info_offset,
                         "tensor name and dimensions");
        !ok) {
      return ok.error();
    }
    file.tensor_index.emplace(info.name, file.tensors.size());
    file.tensors.push_back(std::move(info));
  }
  return {};
}

Expected<void> Parser::check_data_section(GgufFile& file) {
  file.header_end = pos_;
  // header_end <= kMaxHeaderBytes and alignment <= kMaxAlignment: no overflow.
  file.data_offset = (pos_ + file.alignment - 1) / file.alignment * file.alignment;
  if (file.tensors.empty()) return {};  // nothing to locate; trailing padding may be absent
  if (file.data_offset > file_size_) {
    context_ = "data section";
    return fail(file.header_end,
                fmt::format("the data section would start at {:#x}, past the end of the file "
                            "({} bytes)",
                            file.data_offset, file_size_));
  }
  const std::uint64_t data_size = file_size_ - file.data_offset;
  for (std::size_t i = 0; i < file.tensors.size(); ++i) {
    const TensorInfo& t = file.tensors[i];
    if (t.offset > data_size || t.bytes > data_size - t.offset) {
      context_ = fmt::format("tensor info {} ({})", i, quote_bytes(t.name));
      return fail(t.info_offset,
                  fmt::format("data at data section offset {:#x}, {} bytes, does not fit in the "
                              "{} bytes of data after file offset {:#x} (file size {})",
                              t.offset, t.bytes, data_size, file.data_offset, file_size_));
    }
  }
  return {};
}

Expected<GgufFile> Parser::parse() {
  GgufFile file;
  file.origin = std::string(origin_);
  file.file_size = file_size_;

  if (file_size_ < kMagic.size()) {
    return fail(
        0, fmt::format("not a GGUF file: {} bytes, shorter than the 4-byte magic", file_size_));
  }
  const auto magic = take(kMagic.size(), "magic");
  if (!magic) return magic.error();
  if (std::memcmp(magic->data(), kMagic.data(), kMagic.size()) != 0) {
    std::string text(reinterpret_cast<const char*>(magic->data()), magic->size());
    return fail(0, fmt::format("not a GGUF file: magic {}, expected 'GGUF'", quote_bytes(text)));
  }
  const auto version = read<std::uint32_t>("version");
  if (!version) return version.error();
  if (*version == 1) {
    return fail(4,
                "GGUF version 1 is obsolete (32-bit counts, llama.cpp before September 2023) "
                "and not supported; convert the model again with a current llama.cpp");
  }
  if (*version != 2 && *version != 3) {
    const std::uint32_t swapped = ((*version & 0xffU) << 24) | ((*version & 0xff00U) << 8) |
                                  ((*version >> 8) & 0xff00U) | (*version >> 24);
    if (swapped >= 1 && swapped <= 3) {
      return fail(
          4, fmt::format("big-endian GGUF (version {} byte-swapped) is not supported", swapped));
    }
    return fail(4,
                fmt::format("unsupported GGUF version {} (this reader knows 2 and 3)", *version));
  }
  file.version = *version;

  const std::uint64_t tensor_count_at = pos_;
  const auto tensor_count = read<std::uint64_t>("tensor_count");
  if (!tensor_count) return tensor_count.error();
  const std::uint64_t kv_count_at = pos_;
  const auto kv_count = read<std::uint64_t>("metadata_kv_count");
  if (!kv_count) return kv_count.error();
  if (auto ok = check_count(*kv_count, kMinKvBytes, kv_count_at, "metadata_kv_count"); !ok) {
    return ok.error();
  }
  if (auto ok = check_count(*tensor_count, kMinTensorInfoBytes, tensor_count_at, "tensor_count");
      !ok) {
    return ok.error();
  }
  if (*tensor_count * kMinTensorInfoBytes > (file_size_ - pos_) - *kv_count * kMinKvBytes) {
    return fail(tensor_count_at,
                fmt::format("tensor_count {} and metadata_kv_count {} cannot both fit in the {} "
                            "bytes that remain",
                            *tensor_count, *kv_count, file_size_ - pos_));
  }

  if (auto ok = read_metadata(file, *kv_count); !ok) return ok.error();
  if (auto ok = apply_alignment(file); !ok) return ok.error();
  if (auto ok = read_tensor_infos(file, *tensor_count); !ok) return ok.error();
  if (auto ok = check_data_section(file); !ok) return ok.error();
  file.header_hash = fnv1a64(data_.first(static_cast<std::size_t>(file.header_end)));
  return file;
}

}  // namespace

std::string_view to_string(ValueType type) {
  switch (type) {
    case ValueType::kUint8:
      return "u8";
    case ValueType::kInt8:
      return "i8";
    case ValueType::kUint16:
      return "u16";
    case ValueType::kInt16:
      return "i16";
    case ValueType::kUint32:
      return "u32";
    case ValueType::kInt32:
      return "i32";
    case ValueType::kFloat32:
      return "f32";
    case ValueType::kBool:
      return "bool";
    case ValueType::kString:
      return "string";
    case ValueType::kArray:
      return "array";
    case ValueType::kUint64:
      return "u64";
    case ValueType::kInt64:
      return "i64";
    case ValueType::kFloat64:
      return "f64";
  }
  return "invalid";
}

MetaValue MetaValue::u8(std::uint8_t v) {
  return MetaValue{ValueType::kUint8, ValueType::kUint8, std::uint64_t{v}};
}
MetaValue MetaValue::i8(std::int8_t v) {
  return MetaValue{ValueType::kInt8, ValueType::kUint8, std::int64_t{v}};
}
MetaValue MetaValue::u16(std::uint16_t v) {
  return MetaValue{ValueType::kUint16, ValueType::kUint8, std::uint64_t{v}};
}
MetaValue MetaValue::i16(std::int16_t v) {
  return MetaValue{ValueType::kInt16, ValueType::kUint8, std::int64_t{v}};
}
MetaValue MetaValue::u32(std::uint32_t v) {
  return MetaValue{ValueType::kUint32, ValueType::kUint8, std::uint64_t{v}};
}
MetaValue MetaValue::i32(std::int32_t v) {
  return MetaValue{ValueType::kInt32, ValueType::kUint8, std::int64_t{v}};
}
MetaValue MetaValue::u64(std::uint64_t v) {
  return MetaValue{ValueType::kUint64, ValueType::kUint8, v};
}
MetaValue MetaValue::i64(std::int64_t v) {
  return MetaValue{ValueType::kInt64, ValueType::kUint8, v};
}
MetaValue MetaValue::f32(float v) {
  return MetaValue{ValueType::kFloat32, ValueType::kUint8, static_cast<double>(v)};
}
MetaValue MetaValue::f64(double v) {
  return MetaValue{ValueType::kFloat64, ValueType::kUint8, v};
}
MetaValue MetaValue::boolean(bool v) {
  return MetaValue{ValueType::kBool, ValueType::kUint8, v};
}
MetaValue MetaValue::string(std::string v) {
  return MetaValue{ValueType::kString, ValueType::kUint8, std::move(v)};
}
MetaValue MetaValue::array(ValueType element, std::vector<MetaValue> items) {
  return MetaValue{ValueType::kArray, element, std::move(items)};
}
MetaValue MetaValue::string_array(std::span<const std::string> items) {
  std::vector<MetaValue> out;
  out.reserve(items.size());
  for (const auto& s : items) out.push_back(string(s));
  return array(ValueType::kString, std::move(out));
}
MetaValue MetaValue::i32_array(std::span<const std::int32_t> items) {
  std::vector<MetaValue> out;
  out.reserve(items.size());
  for (const auto v : items) out.push_back(i32(v));
  return array(ValueType::kInt32, std::move(out));
}
MetaValue MetaValue::u32_array(std::span<const std::uint32_t> items) {
  std::vector<MetaValue> out;
  out.reserve(items.size());
  for (const auto v : items) out.push_back(u32(v));
  return array(ValueType::kUint32, std::move(out));
}
MetaValue MetaValue::f32_array(std::span<const float> items) {
  std::vector<MetaValue> out;
  out.reserve(items.size());
  for (const auto v : items) out.push_back(f32(v));
  return array(ValueType::kFloat32, std::move(out));
}

std::optional<std::uint64_t> MetaValue::as_uint() const {
  if (const auto* u = std::get_if<std::uint64_t>(&data)) return *u;
  if (const auto* i = std::get_if<std::int64_t>(&data); i != nullptr && *i >= 0) {
    return static_cast<std::uint64_t>(*i);
  }
  return std::nullopt;
}

std::optional<double> MetaValue::as_number() const {
  if (const auto* u = std::get_if<std::uint64_t>(&data)) return static_cast<double>(*u);
  if (const auto* i = std::get_if<std::int64_t>(&data)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&data)) return *d;
  return std::nullopt;
}

const std::string* MetaValue::as_string() const {
  return std::get_if<std::string>(&data);
}

const std::vector<MetaValue>* MetaValue::as_array() const {
  return std::get_if<std::vector<MetaValue>>(&data);
}

const MetaValue* GgufFile::find(std::string_view key) const {
  for (const auto& entry : metadata) {
    if (entry.key == key) return &entry.value;
  }
  return nullptr;
}

const TensorInfo* GgufFile::find_tensor(std::string_view name) const {
  const auto it = tensor_index.find(std::string(name));
  return it == tensor_index.end() ? nullptr : &tensors[it->second];
}

std::uint64_t fnv1a64(std::span<const std::byte> bytes) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const std::byte b : bytes) {
    hash ^= static_cast<std::uint64_t>(b);
    hash *= 1099511628211ULL;
  }
  return hash;
}

Expected<GgufFile> parse_gguf(std::span<const std::byte> data, std::string_view origin) {
  return Parser(data, data.size(), origin).parse();
}

Expected<GgufFile> parse_gguf_prefix(std::span<const std::byte> prefix, std::uint64_t file_size,
                                     std::string_view origin, bool* needs_more) {
  if (prefix.size() > file_size) prefix = prefix.first(static_cast<std::size_t>(file_size));
  Parser parser(prefix, file_size, origin);
  auto result = parser.parse();
  if (needs_more != nullptr) *needs_more = !result.ok() && parser.needs_more();
  return result;
}

Expected<GgufFile> read_gguf(const std::filesystem::path& path) {
  const std::string origin = path.string();
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    return make_error(ErrorKind::kInput, fmt::format("{}: no such file", origin));
  }
  if (!std::filesystem::is_regular_file(status)) {
    return make_error(ErrorKind::kInput, fmt::format("{}: not a regular file", origin));
  }
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) {
    return make_error(ErrorKind::kInput, fmt::format("{}: cannot stat: {}", origin, ec.message()));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return make_error(ErrorKind::kInput,
                      fmt::format("{}: cannot open: {}", origin, std::strerror(errno)));
  }
  const std::uint64_t cap = std::min(size, kMaxHeaderBytes);
  std::uint64_t want = std::min(size, kFirstRead);
  std::vector<std::byte> buffer;
  for (;;) {
    const std::size_t have = buffer.size();
    buffer.resize(static_cast<std::size_t>(want));
    const auto missing = static_cast<std::streamsize>(want - have);
    in.read(reinterpret_cast<char*>(buffer.data() + have), missing);
    if (in.gcount() != missing) {
      return make_error(ErrorKind::kInput,
                        fmt::format("{}: read failed at offset {:#x} (file shrank while reading?)",
                                    origin, have + static_cast<std::uint64_t>(in.gcount())));
    }
    bool needs_more = false;
    auto parsed = parse_gguf_prefix(buffer, size, origin, &needs_more);
    if (parsed.ok() || !needs_more || want >= cap) return parsed;
    want = std::min(cap, want * 4);
  }
}

}  // namespace tokscope::model::gguf
