// Model files that are not GGUF: RKLLM (.rkllm, Rockchip NPU) and AXERA (.axmodel, AX650N NPU).
//
// Neither header is publicly documented. The RKLLM runtime checks a magic of its own ("invalid
// rknn llm model magic" in airockchip/rknn-llm issue #129) and a target platform and toolkit
// version ("The model version is too old", "target_platform does not match"), but their encoding
// is not published; .axmodel files are produced by AXERA's Pulsar2 toolchain with no published
// layout, and ax-llm ships a model as a directory of per-layer .axmodel files plus embeddings and
// a tokenizer. So these files are identified by extension only, their size is reported, and the
// first bytes are shown as hex (an observation, not an interpretation). Nothing about the model's
// shape or quantization is read from them: W must come from --model-shape and --quant, and any
// ceiling built from it is an estimate.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/expected.hpp"

namespace tokscope::model {

enum class ModelFileFormat {
  kGguf,     // starts with the GGUF magic, whatever its extension
  kRkllm,    // .rkllm
  kAxmodel,  // .axmodel, or a directory holding .axmodel files (an ax-llm model)
  kUnknown,
};

std::string_view to_string(ModelFileFormat format);

// Decides the format from the first 4 bytes (GGUF magic) and otherwise from the extension.
// Errors (kInput): the path does not exist or cannot be read.
Expected<ModelFileFormat> detect_model_format(const std::filesystem::path& path);

// {format, path, size_bytes, file_count (directories), identified_by, leading_bytes_hex,
//  ceiling_estimated: true, note}. size_bytes of a directory is the sum of its .axmodel/.rkllm
// files (not recursive). Errors (kInput): missing path, unreadable file, or a file that is GGUF
// or of no known format (the message says which).
Expected<nlohmann::json> describe_non_gguf(const std::filesystem::path& path);

}  // namespace tokscope::model
