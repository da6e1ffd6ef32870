// GgufWriter: builds a GGUF v3 file (little-endian) that read_gguf() accepts: typed metadata,
// tensor infos, alignment padding, tensor data. Meant for tests and for `tokscope synth-model`,
// which writes model-sized files: tensor bytes can come from a callback that fills one chunk at a
// time, so a multi-GB file never needs a multi-GB buffer.
//
// Layout written (ggml docs/gguf.md): header, metadata in insertion order, tensor infos in
// insertion order, zero padding to the alignment, then each tensor's data followed by zero
// padding to the alignment. Tensor offsets are assigned in insertion order.
//
// Usage:
//   GgufWriter w;
//   w.set_string("general.architecture", "llama");
//   w.set_u32("llama.block_count", 2);
//   auto ok = w.add_tensor("output_norm.weight", {64}, kF32, fill_fn);  // checks name/dims/type
//   auto written = w.write(path);                                    // checks the metadata
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/expected.hpp"
#include "model/gguf/reader.hpp"

namespace tokscope::model::gguf {

// Fills `out` with the tensor's bytes starting at byte `tensor_offset` of the tensor. Called with
// consecutive chunks of at most kWriterChunkBytes, in order.
using TensorFiller = std::function<void(std::uint64_t tensor_offset, std::span<std::byte> out)>;

inline constexpr std::size_t kWriterChunkBytes = std::size_t{1} << 20;

class GgufWriter {
 public:
  // Sets a metadata pair; an existing key keeps its position and gets the new value. Keys and
  // values are validated by write()/to_bytes() (empty or over-long key, value whose variant does
  // not match its type, mixed array elements, general.alignment not a u32 power of two).
  void set(std::string key, MetaValue value);
  void set_string(std::string key, std::string value) {
    set(std::move(key), MetaValue::string(std::move(value)));
  }
  void set_u32(std::string key, std::uint32_t v) { set(std::move(key), MetaValue::u32(v)); }
  void set_i32(std::string key, std::int32_t v) { set(std::move(key), MetaValue::i32(v)); }
  void set_u64(std::string key, std::uint64_t v) { set(std::move(key), MetaValue::u64(v)); }
  void set_f32(std::string key, float v) { set(std::move(key), MetaValue::f32(v)); }
  void set_bool(std::string key, bool v) { set(std::move(key), MetaValue::boolean(v)); }
  // Writes general.alignment (u32). Without it readers assume 32.
  void set_alignment(std::uint32_t alignment) { set_u32("general.alignment", alignment); }

  // Adds a tensor (dims in ggml order: dims[0] is the row length). Errors (kInput): empty name or
  // longer than 64 bytes, duplicate name, 0 or more than 4 dims, a zero dim, unknown ggml type,
  // dims[0] not a multiple of the type's block size, overflow, or `data` not exactly
  // tensor_bytes() long.
  Expected<void> add_tensor(std::string name, std::vector<std::uint64_t> dims,
                            std::uint32_t type_id, std::vector<std::byte> data);
  // Same, with bytes produced on demand; an empty `fill` writes zeros.
  Expected<void> add_tensor(std::string name, std::vector<std::uint64_t> dims,
                            std::uint32_t type_id, TensorFiller fill);

  // Size in bytes of the file write() would produce.
  [[nodiscard]] Expected<std::uint64_t> file_size() const;

  // Writes the file (replacing any existing one). Errors: invalid metadata (kInput), I/O (kIo,
  // naming the path; a partial file is removed).
  [[nodiscard]] Expected<void> write(const std::filesystem::path& path) const;

  // The whole file in memory, for tests and the fuzzer. Refuses files above 1 GiB.
  [[nodiscard]] Expected<std::vector<std::byte>> to_bytes() const;

  // Only the header region: everything before the first tensor's data, padding included. With
  // file_size() it lets parse_gguf_prefix() check a model-sized file without writing it.
  [[nodiscard]] Expected<std::vector<std::byte>> header_bytes() const;

 private:
  struct Tensor {
    std::string name;
    std::vector<std::uint64_t> dims;
    std::uint32_t type_id = 0;
    std::uint64_t bytes = 0;
    std::vector<std::byte> data;  // the bytes, when from_data
    TensorFiller fill;            // otherwise: the filler, or zeros when empty
    bool from_data = false;
  };
  using Sink = std::function<bool(std::span<const std::byte>)>;

  Expected<void> add(Tensor tensor);
  Expected<std::uint64_t> alignment() const;
  Expected<void> emit(const Sink& sink) const;

  std::vector<std::pair<std::string, MetaValue>> metadata_;
  std::vector<Tensor> tensors_;
};

}  // namespace tokscope::model::gguf
