// libFuzzer target: parse_gguf on arbitrary bytes, then everything built on a parsed file.
//
// Properties checked beyond "no crash, no sanitizer report, no leak, no huge allocation":
//  * every parse error names the input and a byte offset;
//  * a parsed file's tensors lie inside the input and are aligned;
//  * inspect_json() dumps without throwing (all strings valid UTF-8);
//  * GgufWriter accepts every file the reader accepts, and writing, re-reading and writing again
//    gives the same header bytes (reader and writer agree on the format).
// Build and run: scripts/fuzz [seconds].
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "model/gguf/model_facts.hpp"
#include "model/gguf/reader.hpp"
#include "model/gguf/writer.hpp"

namespace {

using namespace tokscope::model::gguf;

[[noreturn]] void fail() {
  std::abort();
}

// The header the writer produces for `file` (tensor data as zeros, never materialized).
std::vector<std::byte> rewrite_header(const GgufFile& file, std::uint64_t* size) {
  GgufWriter w;
  for (const auto& entry : file.metadata) w.set(entry.key, entry.value);
  for (const auto& t : file.tensors) {
    if (!w.add_tensor(t.name, t.dims, t.type_id, TensorFiller{}).ok()) fail();
  }
  auto header = w.header_bytes();
  auto total = w.file_size();
  if (!header.ok() || !total.ok()) fail();
  *size = *total;
  return std::move(*header);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  const auto file = parse_gguf(bytes, "fuzz.gguf");
  if (!file.ok()) {
    if (file.error().message.rfind("fuzz.gguf: offset 0x", 0) != 0) fail();
    return 0;
  }
  if (file->header_end > file->data_offset || file->data_offset % file->alignment != 0) fail();
  for (const auto& t : file->tensors) {
    if (t.offset % file->alignment != 0) fail();
    if (file->data_offset + t.offset + t.bytes > size) fail();
  }

  const ModelFacts facts = model_facts(*file);
  (void)decode_bytes(facts);
  (void)model_info_json(*file, facts).dump();
  (void)inspect_json(*file, true).dump();

  std::uint64_t written_size = 0;
  const std::vector<std::byte> header = rewrite_header(*file, &written_size);
  const auto again = parse_gguf_prefix(header, written_size, "rewritten.gguf", nullptr);
  if (!again.ok()) fail();
  if (again->metadata.size() != file->metadata.size() ||
      again->tensors.size() != file->tensors.size()) {
    fail();
  }
  std::uint64_t size_again = 0;
  if (rewrite_header(*again, &size_again) != header || size_again != written_size) fail();
  return 0;
}
