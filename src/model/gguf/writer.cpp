#include "model/gguf/writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <system_error>
#include <type_traits>

#include "model/gguf/ggml_types.hpp"

namespace tokscope::model::gguf {
namespace {

constexpr std::uint32_t kVersion = 3;
constexpr std::uint64_t kMaxInMemoryFile = std::uint64_t{1} << 30;

Error input_error(std::string message) {
  return make_error(ErrorKind::kInput, std::move(message));
}

std::uint64_t align_up(std::uint64_t n, std::uint64_t alignment) {
  return (n + alignment - 1) / alignment * alignment;
}

// Appends little-endian encodings to a byte buffer.
class Encoder {
 public:
  explicit Encoder(std::vector<std::byte>& out) : out_(out) {}

  template <class T>
  void put(T value) {
    static_assert(std::is_arithmetic_v<T>);
    std::array<std::byte, sizeof(T)> bytes{};
    std::memcpy(bytes.data(), &value, sizeof(T));
    out_.insert(out_.end(), bytes.begin(), bytes.end());
  }
  void put_string(const std::string& s) {
    put<std::uint64_t>(s.size());
    const auto* p = reinterpret_cast<const std::byte*>(s.data());
    out_.insert(out_.end(), p, p + s.size());
  }

 private:
  std::vector<std::byte>& out_;
};

// The value's variant must hold the integer kind of its type, within the range of T.
template <class T>
Expected<void> check_range(const MetaValue& v, std::string_view key) {
  bool fits = false;
  if constexpr (std::is_unsigned_v<T>) {
    const auto* u = std::get_if<std::uint64_t>(&v.data);
    fits = u != nullptr;
    if constexpr (sizeof(T) < sizeof(std::uint64_t)) {
      fits = fits && *u <= std::numeric_limits<T>::max();
    }
  } else {
    const auto* i = std::get_if<std::int64_t>(&v.data);
    fits = i != nullptr;
    if constexpr (sizeof(T) < sizeof(std::int64_t)) {
      fits = fits && *i >= std::numeric_limits<T>::min() && *i <= std::numeric_limits<T>::max();
    }
  }
  if (!fits) {
    return input_error(
        fmt::format("metadata {}: value does not fit type {}", key, to_string(v.type)));
  }
  return {};
}

// Checks that the value's variant matches its declared type, then encodes it (without the type
// tag, which the caller writes for a pair and the array header writes for elements).
Expected<void> encode_value(const MetaValue& v, std::string_view key, std::uint32_t depth,
                            Encoder& enc) {
  switch (v.type) {
    case ValueType::kUint8:
      if (auto ok = check_range<std::uint8_t>(v, key); !ok) return ok;
      enc.put(static_cast<std::uint8_t>(std::get<std::uint64_t>(v.data)));
      return {};
    case ValueType::kInt8:
      if (auto ok = check_range<std::int8_t>(v, key); !ok) return ok;
      enc.put(static_cast<std::int8_t>(std::get<std::int64_t>(v.data)));
      return {};
    case ValueType::kUint16:
      if (auto ok = check_range<std::uint16_t>(v, key); !ok) return ok;
      enc.put(static_cast<std::uint16_t>(std::get<std::uint64_t>(v.data)));
      return {};
    case ValueType::kInt16:
      if (auto ok = check_range<std::int16_t>(v, key); !ok) return ok;
      enc.put(static_cast<std::int16_t>(std::get<std::int64_t>(v.data)));
      return {};
    case ValueType::kUint32:
      if (auto ok = check_range<std::uint32_t>(v, key); !ok) return ok;
      enc.put(static_cast<std::uint32_t>(std::get<std::uint64_t>(v.data)));
      return {};
    case ValueType::kInt32:
      if (auto ok = check_range<std::int32_t>(v, key); !ok) return ok;
      enc.put(static_cast<std::int32_t>(std::get<std::int64_t>(v.data)));
      return {};
    case ValueType::kUint64:
      if (auto ok = check_range<std::uint64_t>(v, key); !ok) return ok;
      enc.put(std::get<std::uint64_t>(v.data));
      return {};
    case ValueType::kInt64:
      if (auto ok = check_range<std::int64_t>(v, key); !ok) return ok;
      enc.put(std::get<std::int64_t>(v.data));
      return {};
    case ValueType::kFloat32:
    case ValueType::kFloat64: {
      const auto* d = std::get_if<double>(&v.data);
      if (d == nullptr) {
        return input_error(
            fmt::format("metadata {}: {} value holds no number", key, to_string(v.type)));
      }
      if (v.type == ValueType::kFloat32) {
        enc.put(static_cast<float>(*d));
      } else {
        enc.put(*d);
      }
      return {};
    }
    case ValueType::kBool: {
      const auto* b = std::get_if<bool>(&v.data);
      if (b == nullptr)
        return input_error(fmt::format("metadata {}: bool value holds no bool", key));
      enc.put(static_cast<std::uint8_t>(*b ? 1 : 0));
      return {};
    }
    case ValueType::kString: {
      const auto* s = v.as_string();
      if (s == nullptr) {
        return input_error(fmt::format("metadata {}: string value holds no string", key));
      }
      enc.put_string(*s);
      return {};
    }
    case ValueType::kArray: {
      const auto* items = v.as_array();
      if (items == nullptr) {
        return input_error(fmt::format("metadata {}: array value holds no array", key));
      }
      if (v.element_type == ValueType::kArray && depth + 1 >= kMaxArrayDepth) {
        return input_error(
            fmt::format("metadata {}: arrays nested more than {} deep", key, kMaxArrayDepth));
      }
      enc.put(static_cast<std::uint32_t>(v.element_type));
      enc.put<std::uint64_t>(items->size());
      for (std::size_t i = 0; i < items->size(); ++i) {
        const MetaValue& item = (*items)[i];
        if (item.type != v.element_type) {
          return input_error(fmt::format("metadata {}: element {} has type {}, the array holds {}",
                                         key, i, to_string(item.type), to_string(v.element_type)));
        }
        if (auto ok = encode_value(item, key, depth + 1, enc); !ok) return ok;
      }
      return {};
    }
  }
  return input_error(
      fmt::format("metadata {}: invalid value type {}", key, static_cast<std::uint32_t>(v.type)));
}

}  // namespace

void GgufWriter::set(std::string key, MetaValue value) {
  for (auto& [k, v] : metadata_) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  metadata_.emplace_back(std::move(key), std::move(value));
}

Expected<void> GgufWriter::add(Tensor tensor) {
  if (tensor.name.empty() || tensor.name.size() > kMaxTensorNameLength) {
    return input_error(
        fmt::format("tensor '{}': name must be 1..{} bytes", tensor.name, kMaxTensorNameLength));
  }
  for (const auto& t : tensors_) {
    if (t.name == tensor.name) {
      return input_error(fmt::format("tensor '{}': duplicate name", tensor.name));
    }
  }
  if (tensor.dims.empty() || tensor.dims.size() > kMaxDims) {
    return input_error(fmt::format("tensor '{}': {} dimensions, GGUF allows 1..{}", tensor.name,
                                   tensor.dims.size(), kMaxDims));
  }
  const auto bytes = tensor_bytes(tensor.type_id, tensor.dims);
  if (!bytes)
    return input_error(fmt::format("tensor '{}': {}", tensor.name, bytes.error().message));
  tensor.bytes = *bytes;
  if (tensor.from_data && tensor.data.size() != tensor.bytes) {
    return input_error(
        fmt::format("tensor '{}': {} bytes of data given, its type and dimensions "
                    "need {}",
                    tensor.name, tensor.data.size(), tensor.bytes));
  }
  tensors_.push_back(std::move(tensor));
  return {};
}

Expected<void> GgufWriter::add_tensor(std::string name, std::vector<std::uint64_t> dims,
                                      std::uint32_t type_id, std::vector<std::byte> data) {
  return add(Tensor{std::move(name), std::move(dims), type_id, 0, std::move(data), {}, true});
}

Expected<void> GgufWriter::add_tensor(std::string name, std::vector<std::uint64_t> dims,
                                      std::uint32_t type_id, TensorFiller fill) {
  // An empty filler means zeros: keep it empty and let emit() write zero chunks.
  return add(Tensor{std::move(name), std::move(dims), type_id, 0, {}, std::move(fill), false});
}

Expected<std::uint64_t> GgufWriter::alignment() const {
  for (const auto& [key, value] : metadata_) {
    if (key != "general.alignment") continue;
    const auto a = value.as_uint();
    if (value.type != ValueType::kUint32 || !a || *a == 0 || (*a & (*a - 1)) != 0 ||
        *a > kMaxAlignment) {
      return input_error(
          fmt::format("general.alignment must be a u32 power of two up to {}", kMaxAlignment));
    }
    return *a;
  }
  return kDefaultAlignment;
}

Expected<std::vector<std::byte>> GgufWriter::header_bytes() const {
  const auto align = alignment();
  if (!align) return align.error();
  std::vector<std::byte> out;
  Encoder enc(out);
  out.insert(out.end(), {std::byte{'G'}, std::byte{'G'}, std::byte{'U'}, std::byte{'F'}});
  enc.put(kVersion);
  enc.put<std::uint64_t>(tensors_.size());
  enc.put<std::uint64_t>(metadata_.size());
  for (const auto& [key, value] : metadata_) {
    if (key.empty() || key.size() > kMaxKeyLength) {
      return input_error(fmt::format("metadata key must be 1..{} bytes", kMaxKeyLength));
    }
    enc.put_string(key);
    enc.put(static_cast<std::uint32_t>(value.type));
    if (auto ok = encode_value(value, key, 0, enc); !ok) return ok.error();
  }
  std::uint64_t offset = 0;
  for (const auto& t : tensors_) {
    enc.put_string(t.name);
    enc.put(static_cast<std::uint32_t>(t.dims.size()));
    for (const std::uint64_t d : t.dims) enc.put(d);
    enc.put(t.type_id);
    enc.put(offset);
    offset += align_up(t.bytes, *align);
  }
  out.resize(static_cast<std::size_t>(align_up(out.size(), *align)), std::byte{0});
  return out;
}

Expected<std::uint64_t> GgufWriter::file_size() const {
  const auto header = header_bytes();
  if (!header) return header.error();
  const std::uint64_t align = *alignment();
  std::uint64_t size = header->size();
  for (const auto& t : tensors_) {
    const std::uint64_t padded = align_up(t.bytes, align);
    if (padded > std::numeric_limits<std::uint64_t>::max() - size) {
      return input_error("file size overflows 64 bits");
    }
    size += padded;
  }
  return size;
}

Expected<void> GgufWriter::emit(const Sink& sink) const {
  const auto header = header_bytes();
  if (!header) return header.error();
  if (!sink(*header)) return make_error(ErrorKind::kIo, "write failed");
  const std::uint64_t align = *alignment();
  std::vector<std::byte> chunk;
  for (const auto& t : tensors_) {
    if (t.from_data) {
      if (!sink(t.data)) return make_error(ErrorKind::kIo, "write failed");
    } else {
      for (std::uint64_t done = 0; done < t.bytes;) {
        const auto n =
            static_cast<std::size_t>(std::min<std::uint64_t>(kWriterChunkBytes, t.bytes - done));
        chunk.assign(n, std::byte{0});
        if (t.fill) t.fill(done, chunk);
        if (!sink(chunk)) return make_error(ErrorKind::kIo, "write failed");
        done += n;
      }
    }
    const auto padding = static_cast<std::size_t>(align_up(t.bytes, align) - t.bytes);
    chunk.assign(padding, std::byte{0});
    if (padding > 0 && !sink(chunk)) return make_error(ErrorKind::kIo, "write failed");
  }
  return {};
}

Expected<void> GgufWriter::write(const std::filesystem::path& path) const {
  // Validate everything before touching the file system.
  if (auto header = header_bytes(); !header) return header.error();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    return make_error(ErrorKind::kIo,
                      fmt::format("{}: cannot create: {}", path.string(), std::strerror(errno)));
  }
  const auto result = emit([&out](std::span<const std::byte> bytes) {
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    return static_cast<bool>(out);
  });
  out.close();
  if (!result || !out) {
    const std::string reason = result ? std::strerror(errno) : result.error().message;
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
    return make_error(ErrorKind::kIo, fmt::format("{}: {}", path.string(), reason));
  }
  return {};
}

Expected<std::vector<std::byte>> GgufWriter::to_bytes() const {
  const auto size = file_size();
  if (!size) return size.error();
  if (*size > kMaxInMemoryFile) {
    return input_error(
        fmt::format("to_bytes: {} bytes exceed the 1 GiB in-memory limit; use "
                    "write()",
                    *size));
  }
  std::vector<std::byte> out;
  out.reserve(static_cast<std::size_t>(*size));
  const auto result = emit([&out](std::span<const std::byte> bytes) {
    out.insert(out.end(), bytes.begin(), bytes.end());
    return true;
  });
  if (!result) return result.error();
  return out;
}

}  // namespace tokscope::model::gguf
