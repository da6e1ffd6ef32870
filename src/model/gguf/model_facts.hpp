// What a GGUF file says about the model inside it: architecture and shape, quantization in the
// normalized form of spec/metrics.md ("Quantization and model identity"), and the W and K of the
// decode ceiling ("Physical ceilings"), computed from the tensors actually stored.
//
// Definitions (the same as model::decode_bytes for catalog shapes, so the two agree exactly on an
// f16 file whose norms are f32):
//  * W, bytes one decode step streams: every tensor at its stored size, except that an embedding
//    table (token_embd, position_embd, ...: a lookup) contributes ONE row, the output head
//    (output.weight, or token_embd.weight again when the head is tied) its whole size, and MoE
//    expert stacks (blk.N.*_exps.*) expert_used_count / expert_count of their size.
//  * K, KV-cache bytes per token of context: sum over layers of n_head_kv * (key_length +
//    value_length) * 2 bytes (an f16 cache, llama.cpp's default). For equal key and value lengths
//    that is 2 * n_layer * n_head_kv * head_dim * 2.
//  * Matmul tensors (for the quantization summary): tensors under blk.N with 2 or more
//    dimensions, experts included; embedding tables, the output head, 1-D norms and biases are
//    reported separately. weight_bits_effective = 8 * their bytes / their elements (scales
//    included); the nominal weight bits and group size are those of the type holding most of
//    their elements (the dominant type).
// Nothing is guessed: a fact the file does not give is nullopt / "unknown", with a note saying
// why when the reason is not obvious. model_facts never fails; a malformed value (a string where a
// count belongs) becomes unknown plus a note.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/decode_bytes.hpp"
#include "model/gguf/reader.hpp"

namespace tokscope::model::gguf {

// Metadata key `tokscope synth-model` sets to true in files whose weights are random.
inline constexpr std::string_view kSyntheticWeightsKey = "tokscope.synthetic_weights";

// What a tensor is for: decides how it counts in W and in the quantization summary.
enum class TensorRole {
  kEmbedding,   // *_embd.weight, token_types.weight: a lookup, one row read per token
  kOutputHead,  // output.weight: read whole every step
  kMatmul,      // blk.N.* with >= 2 dims (projections): read whole every step
  kExpert,      // blk.N.*_exps.*: MoE expert stacks, expert_used_count of expert_count read
  kVector,      // 1-D tensors: norms, biases, rope factors; read whole
  kOther,       // >= 2 dims outside blk.N, not the above: counted as read whole (noted)
};
std::string_view to_string(TensorRole role);
TensorRole tensor_role(const TensorInfo& tensor);

// llama.cpp's name for a general.file_type value (enum llama_ftype): 15 -> "Q4_K_M".
std::optional<std::string_view> file_type_name(std::uint64_t llama_ftype);

struct TypeShare {
  std::string type;  // ggml type name
  std::uint64_t tensors = 0;
  std::uint64_t elements = 0;
  std::uint64_t bytes = 0;
};

struct QuantSummary {
  std::string file_type = "unknown";            // from general.file_type: "Q4_K_M"
  std::optional<std::uint64_t> file_type_id;    // its raw value
  std::string dominant_type = "unknown";        // type of most matmul elements: "Q4_K"
  std::optional<double> weight_bits;            // nominal bits of the dominant type: 4
  std::optional<double> weight_bits_effective;  // 8 * matmul bytes / matmul elements
  std::string group_size = "unknown";           // of the dominant type: "g32", "none"
  std::optional<std::uint32_t> block_elements;  // of the dominant type: 256 for K-quants
  std::string output_head_type = "unknown";     // type of the head (token_embd's when tied)
  std::optional<double> output_head_bits;       // its bits per element, scales included
  std::string embedding_type = "unknown";       // type of token_embd.weight
  std::string preset = "unknown";               // the model::quant_presets() name of file_type
  std::vector<TypeShare> matmul_mix;            // matmul tensors per type, most elements first
  std::string label;  // "W4/A-unknown g32 (Q4_K_M)"; activation bits are never in a GGUF
};

// W split by what the bytes are; total() is W.
struct WeightBytes {
  double matmul = 0.0;          // blk.N projections
  double experts = 0.0;         // the active share of MoE expert stacks
  double output_head = 0.0;     // whole head (the tied table when tied)
  double embedding_rows = 0.0;  // one row of each lookup table
  double vectors = 0.0;         // 1-D tensors
  double other = 0.0;           // anything else, counted whole
  [[nodiscard]] double total() const {
    return matmul + experts + output_head + embedding_rows + vectors + other;
  }
};

struct ModelFacts {
  std::string arch = "unknown";  // general.architecture
  std::string name = "unknown";  // general.name
  std::optional<std::uint64_t> n_layer;
  std::optional<std::uint64_t> n_embd;
  std::optional<std::uint64_t> n_head;             // when the same in every layer
  std::optional<std::uint64_t> n_head_kv;          // when the same in every layer
  std::vector<std::uint64_t> n_head_kv_per_layer;  // when the file gives one value per layer
  std::optional<std::uint64_t> head_dim_k;         // attention.key_length, else n_embd / n_head
  std::optional<std::uint64_t> head_dim_v;         // attention.value_length, else n_embd / n_head
  std::optional<std::uint64_t> n_ff;               // when the same in every layer
  std::optional<std::uint64_t> n_vocab;
  std::string vocab_source = "unknown";  // "token_embd.weight", "tokenizer.ggml.tokens", ...
  std::optional<std::uint64_t> context_length;
  std::optional<bool> tied_output;  // true: no output.weight, the head reuses token_embd.weight
  std::optional<std::uint64_t> expert_count;
  std::optional<std::uint64_t> expert_used_count;
  std::optional<std::uint64_t> sliding_window;
  std::optional<std::uint64_t> rope_dimension_count;
  std::optional<double> rope_freq_base;
  std::optional<std::string> rope_scaling_type;
  std::optional<double> rope_scaling_factor;

  std::uint64_t params = 0;                          // elements of every tensor (a tied table once)
  std::optional<WeightBytes> weight_bytes;           // W, split; nullopt for a file without tensors
  std::optional<double> kv_bytes_per_context_token;  // K
  double kv_bytes_per_element = 2.0;                 // f16 cache assumed
  QuantSummary quant;
  std::vector<std::string> catalog_matches;  // model::shape_catalog() names with this exact shape
  bool synthetic_weights = false;            // kSyntheticWeightsKey is true
  std::vector<std::string> notes;            // what is approximate or unknown, and why
};

ModelFacts model_facts(const GgufFile& file);

// W, K, F = 2 * params and params in the form the roofline takes (model::make_ceiling); nullopt
// unless both W and K are known.
std::optional<DecodeBytes> decode_bytes(const ModelFacts& facts);

// The result document's "model" object (docs/result-schema.md) for this file: path, name, arch,
// params, quant{weight_bits, act_bits, group_size, file_type, ...}, weight_bytes_per_token,
// kv_bytes_per_context_token, synthetic_weights, plus size_bytes and header_hash. Strings from
// the file are made valid UTF-8 (invalid bytes become U+FFFD) so dump() cannot throw.
nlohmann::json model_info_json(const GgufFile& file, const ModelFacts& facts);

// Everything `tokscope inspect FILE` shows: file layout, the "model" object, architecture facts,
// catalog match, quantization summary with the per-type mix, W (split) and K, notes, every
// metadata pair (long arrays and strings abbreviated) and, when per_tensor, one row per tensor
// (name, type, dims, elements, bytes, bits per element, file offset, role, bytes counted in W).
// All strings are valid UTF-8.
nlohmann::json inspect_json(const GgufFile& file, bool per_tensor);

}  // namespace tokscope::model::gguf
