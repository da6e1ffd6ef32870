// `tokscope synth-model`: writes a GGUF file with the real architecture metadata and tensor
// shapes of a catalog model and seeded random weights, so the speed of a model shape can be
// benchmarked without downloading its weights. Every such file carries
// tokscope.synthetic_weights = true and every result from it says so.
//
// Weights: seeded (splitmix64 per tensor), zero-mean, standard deviation about 0.02 (a typical
// initialisation scale), stored in the requested type; norms are 1, biases 0: no NaN or Inf.
// Vocabulary: copied (every tokenizer.* key) from --vocab-from FILE, whose size then sets n_vocab;
// otherwise a synthetic SentencePiece-style vocabulary of the shape's size (<unk>, <s>, </s>, the
// 256 byte tokens, then "▁t<i>" pieces), which llama.cpp's SPM tokenizer can load.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/expected.hpp"
#include "model/shapes.hpp"

namespace tokscope::model {

struct SynthOptions {
  const ModelShape* shape = nullptr;
  std::string quant = "q4_0";  // q4_0 | q8_0 | f16 (matmul weights, embeddings, output head)
  std::optional<std::filesystem::path> vocab_from;
  std::uint64_t seed = 42;
  std::uint32_t context_length = 4096;
};

// Writes the file; returns a summary (path, bytes, shape, quant, n_vocab, vocab source).
Expected<nlohmann::json> write_synthetic_model(const SynthOptions& options,
                                               const std::filesystem::path& out);

// The ggml tensor names and dims (ggml order) a catalog shape has in llama.cpp's layout, for
// tests and for `inspect` to compare against. {name, dims, is_matmul}.
struct SynthTensorSpec {
  std::string name;
  std::vector<std::uint64_t> dims;
  bool matmul = false;  // quantized with --quant; else F32 (norms, biases)
};
Expected<std::vector<SynthTensorSpec>> synth_tensor_specs(const ModelShape& shape,
                                                          std::uint64_t n_vocab);

}  // namespace tokscope::model
