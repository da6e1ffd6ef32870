#include "model/shapes.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

namespace tokscope::model {
namespace {

// Literal form of a catalog row, so the table itself can be constexpr.
struct ShapeRow {
  std::string_view name;
  std::string_view arch;
  std::uint32_t n_layer, n_embd, n_head, n_head_kv, head_dim, n_ff, n_vocab;
  bool tied_embeddings, qkv_bias;
  std::uint32_t norms_per_layer;
  bool qk_norm;
  std::string_view source;
};

// "checked" means the value was compared with a public copy of the config.json (or of the
// transformers config class) read while writing this table; "transcribed, not re-checked" means
// no copy was found. Total parameter counts that match a published figure exactly are noted: they
// cross-check every field at once.
constexpr std::array<ShapeRow, 16> kShapeRows{{
    {"Qwen2-0.5B", "qwen2", 24, 896, 14, 2, 64, 4864, 151936, true, true, 2, false,
     "config.json of Qwen/Qwen2-0.5B (checked against a public copy)"},
    {"Qwen2-1.5B", "qwen2", 28, 1536, 12, 2, 128, 8960, 151936, true, true, 2, false,
     "config.json of Qwen/Qwen2-1.5B (transcribed, not re-checked; same layout as Qwen2.5-1.5B)"},
    {"Qwen2-7B", "qwen2", 28, 3584, 28, 4, 128, 18944, 152064, false, true, 2, false,
     "config.json of Qwen/Qwen2-7B (checked against a public copy of Qwen2-7B-Instruct's)"},
    {"Qwen2.5-0.5B", "qwen2", 24, 896, 14, 2, 64, 4864, 151936, true, true, 2, false,
     "config.json of Qwen/Qwen2.5-0.5B (checked against a public copy)"},
    {"Qwen2.5-1.5B", "qwen2", 28, 1536, 12, 2, 128, 8960, 151936, true, true, 2, false,
     "config.json of Qwen/Qwen2.5-1.5B (checked against a public copy of the -Instruct config; "
     "1.54B total / 1.31B non-embedding as on the model card)"},
    {"Qwen2.5-3B", "qwen2", 36, 2048, 16, 2, 128, 11008, 151936, true, true, 2, false,
     "config.json of Qwen/Qwen2.5-3B (checked against a public copy)"},
    {"Qwen2.5-7B", "qwen2", 28, 3584, 28, 4, 128, 18944, 152064, false, true, 2, false,
     "config.json of Qwen/Qwen2.5-7B (checked against a public copy)"},
    {"DeepSeek-R1-Distill-Qwen-1.5B", "qwen2", 28, 1536, 12, 2, 128, 8960, 151936, false, true, 2,
     false,
     "config.json of deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B (layers/hidden/heads/intermediate "
     "checked against third-party transcriptions; tie_word_embeddings=false and vocab_size "
     "transcribed, not re-checked; the untied head gives the published 1.78B total)"},
    {"Qwen3-0.6B", "qwen3", 28, 1024, 16, 8, 128, 3072, 151936, true, false, 2, true,
     "config.json of Qwen/Qwen3-0.6B (checked against a public copy)"},
    {"Qwen3-1.7B", "qwen3", 28, 2048, 16, 8, 128, 6144, 151936, true, false, 2, true,
     "config.json of Qwen/Qwen3-1.7B (hidden/heads/head_dim/intermediate checked against a "
     "third-party table; layers, vocab and tying transcribed, not re-checked)"},
    {"Llama-3.2-1B", "llama", 16, 2048, 32, 8, 64, 8192, 128256, true, false, 2, false,
     "config.json of meta-llama/Llama-3.2-1B (checked against a public copy of the -Instruct "
     "config)"},
    {"Llama-3.2-3B", "llama", 28, 3072, 24, 8, 128, 8192, 128256, true, false, 2, false,
     "config.json of meta-llama/Llama-3.2-3B (checked against a public copy)"},
    {"TinyLlama-1.1B", "llama", 22, 2048, 32, 4, 64, 5632, 32000, false, false, 2, false,
     "config.json of TinyLlama/TinyLlama-1.1B-Chat-v1.0 (checked against a public copy)"},
    {"Gemma-3-270M", "gemma3", 18, 640, 4, 1, 256, 2048, 262144, true, false, 4, true,
     "config.json of google/gemma-3-270m (checked against two third-party transcriptions, not the "
     "file itself)"},
    {"Gemma-3-1B", "gemma3", 26, 1152, 4, 1, 256, 6912, 262144, true, false, 4, true,
     "config.json of google/gemma-3-1b-it (checked against a public copy; the 999,885,952 total "
     "published for the Keras preset matches this shape exactly)"},
    {"Phi-3-mini-4k", "phi3", 32, 3072, 32, 32, 96, 8192, 32064, false, false, 2, false,
     "config.json of microsoft/Phi-3-mini-4k-instruct (checked against the transformers Phi3Config "
     "defaults; the 3,821,079,552 total published for the Keras preset matches exactly)"},
}};

ModelShape to_shape(const ShapeRow& row) {
  return ModelShape{.name = std::string(row.name),
                    .arch = std::string(row.arch),
                    .n_layer = row.n_layer,
                    .n_embd = row.n_embd,
                    .n_head = row.n_head,
                    .n_head_kv = row.n_head_kv,
                    .head_dim = row.head_dim,
                    .n_ff = row.n_ff,
                    .n_vocab = row.n_vocab,
                    .tied_embeddings = row.tied_embeddings,
                    .qkv_bias = row.qkv_bias,
                    .norms_per_layer = row.norms_per_layer,
                    .qk_norm = row.qk_norm,
                    .source = std::string(row.source)};
}

std::string to_lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool strip_suffix(std::string& text, std::string_view suffix) {
  if (text.size() > suffix.size() && text.ends_with(suffix)) {
    text.resize(text.size() - suffix.size());
    return true;
  }
  return false;
}

// Drops a trailing "-v<digits and dots>" (TinyLlama-1.1B-Chat-v1.0).
void strip_version(std::string& text) {
  const auto dash = text.rfind("-v");
  if (dash == std::string::npos || dash + 2 == text.size()) return;
  const bool all_version_chars =
      std::all_of(text.begin() + static_cast<std::ptrdiff_t>(dash + 2), text.end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; });
  if (all_version_chars) text.resize(dash);
}

// Lower-cased base-model name: organisation prefix and fine-tune suffixes removed.
std::string normalize_name(std::string_view name) {
  std::string key = to_lower(name);
  if (const auto slash = key.rfind('/'); slash != std::string::npos) key.erase(0, slash + 1);
  strip_version(key);
  for (const std::string_view suffix : {"-instruct", "-chat", "-it"}) {
    if (strip_suffix(key, suffix)) break;
  }
  return key;
}

std::uint64_t u64(std::uint32_t v) {
  return static_cast<std::uint64_t>(v);
}

}  // namespace

std::span<const ModelShape> shape_catalog() {
  // Built once from the constexpr table; immutable afterwards.
  static const std::vector<ModelShape> catalog = [] {
    std::vector<ModelShape> shapes;
    shapes.reserve(kShapeRows.size());
    for (const auto& row : kShapeRows) shapes.push_back(to_shape(row));
    return shapes;
  }();
  return catalog;
}

const ModelShape* find_shape(std::string_view name) {
  const std::string wanted = to_lower(name);
  const std::string wanted_base = normalize_name(name);
  for (const auto& shape : shape_catalog()) {
    const std::string have = to_lower(shape.name);
    if (have == wanted || have == wanted_base) return &shape;
  }
  return nullptr;
}

std::uint64_t matmul_parameter_count(const ModelShape& s) {
  const std::uint64_t q_width = u64(s.n_head) * u64(s.head_dim);
  const std::uint64_t kv_width = u64(s.n_head_kv) * u64(s.head_dim);
  const std::uint64_t attention = u64(s.n_embd) * (2 * q_width + 2 * kv_width);  // q, o; k, v
  const std::uint64_t mlp = 3 * u64(s.n_embd) * u64(s.n_ff);                     // gate, up, down
  return u64(s.n_layer) * (attention + mlp);
}

std::uint64_t output_head_parameter_count(const ModelShape& s) {
  return u64(s.n_vocab) * u64(s.n_embd);
}

std::uint64_t vector_parameter_count(const ModelShape& s) {
  const std::uint64_t norms = u64(s.norms_per_layer) * u64(s.n_embd);
  const std::uint64_t qk_norms = s.qk_norm ? 2 * u64(s.head_dim) : 0;
  const std::uint64_t biases =
      s.qkv_bias ? (u64(s.n_head) + 2 * u64(s.n_head_kv)) * u64(s.head_dim) : 0;
  return u64(s.n_layer) * (norms + qk_norms + biases) + u64(s.n_embd);  // + final norm
}

std::uint64_t parameter_count(const ModelShape& s) {
  const std::uint64_t embedding = output_head_parameter_count(s);  // same n_vocab x n_embd
  const std::uint64_t head = s.tied_embeddings ? 0 : output_head_parameter_count(s);
  return embedding + head + matmul_parameter_count(s) + vector_parameter_count(s);
}

}  // namespace tokscope::model
