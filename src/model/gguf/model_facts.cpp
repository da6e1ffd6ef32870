#include "model/gguf/model_facts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <map>
#include <utility>

#include "model/gguf/ggml_types.hpp"
#include "model/quant.hpp"
#include "model/shapes.hpp"

namespace tokscope::model::gguf {
namespace {

using nlohmann::json;

constexpr double kBitsPerByte = 8.0;
constexpr std::size_t kMaxArrayItemsShown = 16;  // longer arrays are summarized
constexpr std::size_t kArrayHeadShown = 8;
constexpr std::size_t kMaxStringShown = 512;

// enum llama_ftype of llama.cpp's include/llama.h (ids 5 and 6 were retired before GGUF; 4 and
// 33..35 were retired later and can still appear in old files).
constexpr std::array<std::pair<std::uint32_t, std::string_view>, 40> kFileTypes{{
    {0, "F32"},     {1, "F16"},        {2, "Q4_0"},      {3, "Q4_1"},      {4, "Q4_1_SOME_F16"},
    {7, "Q8_0"},    {8, "Q5_0"},       {9, "Q5_1"},      {10, "Q2_K"},     {11, "Q3_K_S"},
    {12, "Q3_K_M"}, {13, "Q3_K_L"},    {14, "Q4_K_S"},   {15, "Q4_K_M"},   {16, "Q5_K_S"},
    {17, "Q5_K_M"}, {18, "Q6_K"},      {19, "IQ2_XXS"},  {20, "IQ2_XS"},   {21, "Q2_K_S"},
    {22, "IQ3_XS"}, {23, "IQ3_XXS"},   {24, "IQ1_S"},    {25, "IQ4_NL"},   {26, "IQ3_S"},
    {27, "IQ3_M"},  {28, "IQ2_S"},     {29, "IQ2_M"},    {30, "IQ4_XS"},   {31, "IQ1_M"},
    {32, "BF16"},   {33, "Q4_0_4_4"},  {34, "Q4_0_4_8"}, {35, "Q4_0_8_8"}, {36, "TQ1_0"},
    {37, "TQ2_0"},  {38, "MXFP4_MOE"}, {39, "NVFP4"},    {40, "Q1_0"},     {41, "Q2_0"},
}};

// Replaces every byte sequence that is not well-formed UTF-8 (Unicode 15, table 3-7: no
// overlongs, no surrogates, nothing above U+10FFFF) with U+FFFD, so nlohmann::json::dump accepts
// the result.
std::string valid_utf8(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  std::size_t i = 0;
  while (i < in.size()) {
    const auto b0 = static_cast<unsigned char>(in[i]);
    std::size_t len = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xbf;
    if (b0 < 0x80) {
      len = 1;
    } else if (b0 >= 0xc2 && b0 <= 0xdf) {
      len = 2;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
      len = 3;
      if (b0 == 0xe0) lo = 0xa0;
      if (b0 == 0xed) hi = 0x9f;
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      len = 4;
      if (b0 == 0xf0) lo = 0x90;
      if (b0 == 0xf4) hi = 0x8f;
    }
    bool ok = len > 0 && i + len <= in.size();
    for (std::size_t k = 1; ok && k < len; ++k) {
      const auto b = static_cast<unsigned char>(in[i + k]);
      const unsigned char min = k == 1 ? lo : 0x80;
      const unsigned char max = k == 1 ? hi : 0xbf;
      ok = b >= min && b <= max;
    }
    if (ok) {
      out.append(in.substr(i, len));
      i += len;
    } else {
      out += "\xef\xbf\xbd";
      ++i;
    }
  }
  return out;
}

// Makes every string in a json tree valid UTF-8 (object keys are tokscope's own, ASCII).
void sanitize(json& j) {
  if (j.is_string()) {
    j = valid_utf8(j.get_ref<const std::string&>());
  } else if (j.is_array() || j.is_object()) {
    for (auto& item : j) sanitize(item);
  }
}

json number_or_null(const std::optional<std::uint64_t>& v) {
  return v ? json(*v) : json(nullptr);
}
json number_or_null(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}
// 4.0 -> 4 so the result reads "weight_bits": 4 as for the built-in presets.
json bits_json(const std::optional<double>& bits) {
  if (!bits) return nullptr;
  if (*bits == std::floor(*bits) && *bits >= 0.0 && *bits <= 64.0) {
    return json(static_cast<int>(*bits));
  }
  return json(*bits);
}

json metadata_value_json(const MetaValue& v) {
  switch (v.type) {
    case ValueType::kString: {
      const std::string& s = *v.as_string();
      if (s.size() <= kMaxStringShown) return s;
      return fmt::format("{}... ({} bytes)", s.substr(0, kMaxStringShown), s.size());
    }
    case ValueType::kBool:
      return std::get<bool>(v.data);
    case ValueType::kArray: {
      const auto& items = *v.as_array();
      json shown = json::array();
      const std::size_t n = items.size() <= kMaxArrayItemsShown ? items.size() : kArrayHeadShown;
      for (std::size_t i = 0; i < n; ++i) shown.push_back(metadata_value_json(items[i]));
      if (items.size() <= kMaxArrayItemsShown) return shown;
      return {{"length", items.size()},
              {"element_type", to_string(v.element_type)},
              {"first", std::move(shown)}};
    }
    case ValueType::kFloat32:
    case ValueType::kFloat64:
      return std::get<double>(v.data);
    default:
      if (const auto* u = std::get_if<std::uint64_t>(&v.data)) return *u;
      if (const auto* i = std::get_if<std::int64_t>(&v.data)) return *i;
      return nullptr;
  }
}

// A count that may be given once for the model or once per layer (an array), as GGUF allows for
// head_count, head_count_kv and feed_forward_length.
struct PerLayer {
  std::optional<std::uint64_t> uniform;  // set when scalar, or an array of equal values
  std::vector<std::uint64_t> values;     // set when an array
  bool present = false;
};

class FactReader {
 public:
  FactReader(const GgufFile& file, ModelFacts& facts) : file_(file), facts_(facts) {}

  std::string key(std::string_view suffix) const { return facts_.arch + "." + std::string(suffix); }

  // A non-negative integer; anything else is unknown, with a note when the key is present.
  std::optional<std::uint64_t> count(const std::string& key) {
    const MetaValue* v = file_.find(key);
    if (v == nullptr) return std::nullopt;
    if (const auto u = v->as_uint()) return u;
    facts_.notes.push_back(fmt::format("{} has type {} (or is negative), not a count: unknown", key,
                                       to_string(v->type)));
    return std::nullopt;
  }

  std::optional<double> number(const std::string& key) {
    const MetaValue* v = file_.find(key);
    if (v == nullptr) return std::nullopt;
    if (const auto d = v->as_number()) return d;
    facts_.notes.push_back(
        fmt::format("{} has type {}, not a number: unknown", key, to_string(v->type)));
    return std::nullopt;
  }

  std::optional<std::string> text(const std::string& key) {
    const MetaValue* v = file_.find(key);
    if (v == nullptr) return std::nullopt;
    if (const auto* s = v->as_string()) return *s;
    facts_.notes.push_back(
        fmt::format("{} has type {}, not a string: unknown", key, to_string(v->type)));
    return std::nullopt;
  }

  PerLayer per_layer(const std::string& key) {
    PerLayer out;
    const MetaValue* v = file_.find(key);
    if (v == nullptr) return out;
    if (const auto u = v->as_uint()) {
      out.present = true;
      out.uniform = u;
      return out;
    }
    if (const auto* items = v->as_array()) {
      for (const auto& item : *items) {
        const auto u = item.as_uint();
        if (!u) {
          facts_.notes.push_back(fmt::format("{} holds a non-count element: unknown", key));
          return PerLayer{};
        }
        out.values.push_back(*u);
      }
      out.present = true;
      if (!out.values.empty() &&
          std::all_of(out.values.begin(), out.values.end(),
                      [&](std::uint64_t x) { return x == out.values.front(); })) {
        out.uniform = out.values.front();
      }
      return out;
    }
    facts_.notes.push_back(
        fmt::format("{} has type {}, not a count: unknown", key, to_string(v->type)));
    return out;
  }

 private:
  const GgufFile& file_;
  ModelFacts& facts_;
};

void read_architecture(const GgufFile& file, ModelFacts& f) {
  FactReader r(file, f);
  if (const auto arch = r.text("general.architecture")) {
    f.arch = *arch;
  } else {
    f.notes.push_back("general.architecture is missing: shape facts are unknown");
  }
  if (const auto name = r.text("general.name")) f.name = *name;
  if (const MetaValue* synthetic = file.find(kSyntheticWeightsKey)) {
    const auto* b = std::get_if<bool>(&synthetic->data);
    f.synthetic_weights = synthetic->type == ValueType::kBool && b != nullptr && *b;
  }
  if (f.arch == "unknown") return;

  f.n_layer = r.count(r.key("block_count"));
  f.n_embd = r.count(r.key("embedding_length"));
  f.context_length = r.count(r.key("context_length"));
  const PerLayer heads = r.per_layer(r.key("attention.head_count"));
  f.n_head = heads.uniform;
  PerLayer kv_heads = r.per_layer(r.key("attention.head_count_kv"));
  if (!kv_heads.present) kv_heads = heads;  // the spec: absent means no grouped-query attention
  f.n_head_kv = kv_heads.uniform;
  f.n_head_kv_per_layer = kv_heads.values;
  const PerLayer ff = r.per_layer(r.key("feed_forward_length"));
  f.n_ff = ff.uniform;
  if (ff.present && !ff.uniform) f.notes.push_back("feed_forward_length differs between layers");

  f.head_dim_k = r.count(r.key("attention.key_length"));
  f.head_dim_v = r.count(r.key("attention.value_length"));
  if ((!f.head_dim_k || !f.head_dim_v) && f.n_embd && f.n_head && *f.n_head > 0) {
    // The spec's default for both: n_embd / n_head.
    if (!f.head_dim_k) f.head_dim_k = *f.n_embd / *f.n_head;
    if (!f.head_dim_v) f.head_dim_v = *f.n_embd / *f.n_head;
  }

  f.expert_count = r.count(r.key("expert_count"));
  f.expert_used_count = r.count(r.key("expert_used_count"));
  f.sliding_window = r.count(r.key("attention.sliding_window"));
  f.rope_dimension_count = r.count(r.key("rope.dimension_count"));
  f.rope_freq_base = r.number(r.key("rope.freq_base"));
  f.rope_scaling_type = r.text(r.key("rope.scaling.type"));
  f.rope_scaling_factor = r.number(r.key("rope.scaling.factor"));
}

void read_vocab_and_head(const GgufFile& file, ModelFacts& f) {
  const TensorInfo* embd = file.find_tensor("token_embd.weight");
  const TensorInfo* head = file.find_tensor("output.weight");
  std::optional<std::uint64_t> tokens;
  if (const MetaValue* v = file.find("tokenizer.ggml.tokens")) {
    if (const auto* items = v->as_array()) tokens = items->size();
  }
  if (embd != nullptr && embd->dims.size() >= 2) {
    f.n_vocab = embd->dims[1];
    f.vocab_source = "token_embd.weight";
  } else if (head != nullptr && head->dims.size() >= 2) {
    f.n_vocab = head->dims[1];
    f.vocab_source = "output.weight";
  } else if (tokens) {
    f.n_vocab = tokens;
    f.vocab_source = "tokenizer.ggml.tokens";
  }
  if (tokens && f.n_vocab && *tokens != *f.n_vocab) {
    f.notes.push_back(
        fmt::format("tokenizer.ggml.tokens has {} entries, the embedding {} rows; "
                    "n_vocab is the embedding's",
                    *tokens, *f.n_vocab));
  }
  if (head != nullptr) {
    f.tied_output = false;
  } else if (embd != nullptr) {
    f.tied_output = true;
  }
}

void compute_weight_bytes(const GgufFile& file, ModelFacts& f) {
  if (file.tensors.empty()) {
    f.notes.push_back("the file holds no tensors: W is unknown");
    return;
  }
  double expert_share = 1.0;
  bool has_experts = false;
  bool has_other = false;
  WeightBytes w;
  for (const auto& t : file.tensors) {
    f.params += t.elements;
    const auto bytes = static_cast<double>(t.bytes);
    switch (tensor_role(t)) {
      case TensorRole::kEmbedding: {
        const std::uint64_t row_dims[] = {t.dims[0]};
        const auto row = tensor_bytes(t.type_id, row_dims);  // valid: dims[0] was checked
        w.embedding_rows += row ? static_cast<double>(*row) : bytes;
        if (t.name == "token_embd.weight" && f.tied_output == true) w.output_head += bytes;
        break;
      }
      case TensorRole::kOutputHead:
        w.output_head += bytes;
        break;
      case TensorRole::kMatmul:
        w.matmul += bytes;
        break;
      case TensorRole::kExpert:
        has_experts = true;
        w.experts += bytes;
        break;
      case TensorRole::kVector:
        w.vectors += bytes;
        break;
      case TensorRole::kOther:
        has_other = true;
        w.other += bytes;
        break;
    }
  }
  if (has_experts) {
    if (f.expert_count && f.expert_used_count && *f.expert_count > 0 &&
        *f.expert_used_count <= *f.expert_count) {
      expert_share =
          static_cast<double>(*f.expert_used_count) / static_cast<double>(*f.expert_count);
      f.notes.push_back(
          fmt::format("MoE: W counts {} of {} experts, the ones one token is routed "
                      "through",
                      *f.expert_used_count, *f.expert_count));
    } else {
      f.notes.push_back(
          "MoE expert tensors without a usable expert_count/expert_used_count: W "
          "counts every expert (an upper bound)");
    }
    w.experts *= expert_share;
  }
  if (has_other) {
    f.notes.push_back(
        "tensors outside blk.N that are neither embeddings, head nor 1-D are "
        "counted in W as read every step");
  }
  if (!f.tied_output) {
    f.notes.push_back("neither output.weight nor token_embd.weight exists: W has no head term");
  }
  f.weight_bytes = w;
}

void compute_kv_bytes(const GgufFile& file, ModelFacts& f) {
  if (f.arch == "unknown") return;
  FactReader r(file, f);
  if (file.find(r.key("attention.kv_lora_rank")) != nullptr) {
    f.notes.push_back(
        "attention.kv_lora_rank is set (multi-head latent attention): the cache "
        "is not the K/V-per-head layout, K is unknown");
    return;
  }
  if (!f.n_layer) {
    f.notes.push_back(fmt::format("{} is missing: K is unknown", r.key("block_count")));
    return;
  }
  const bool has_ssm = std::any_of(file.metadata.begin(), file.metadata.end(),
                                   [&](const auto& e) { return e.key.starts_with(r.key("ssm.")); });
  if (!f.n_head_kv && f.n_head_kv_per_layer.empty()) {
    f.notes.push_back(has_ssm ? "state-space (recurrent) model: no per-token KV cache formula, K "
                                "is unknown"
                              : "attention.head_count(_kv) missing: K is unknown");
    return;
  }
  if (!f.head_dim_k || !f.head_dim_v) {
    f.notes.push_back(
        "key/value length unknown (no attention.key_length and no n_embd / "
        "n_head): K is unknown");
    return;
  }
  double heads_total = 0.0;
  if (!f.n_head_kv_per_layer.empty()) {
    if (f.n_head_kv_per_layer.size() != *f.n_layer) {
      f.notes.push_back(
          fmt::format("attention.head_count_kv has {} entries for {} layers: K is "
                      "unknown",
                      f.n_head_kv_per_layer.size(), *f.n_layer));
      return;
    }
    for (const std::uint64_t h : f.n_head_kv_per_layer) heads_total += static_cast<double>(h);
  } else {
    heads_total = static_cast<double>(*f.n_layer) * static_cast<double>(*f.n_head_kv);
  }
  f.kv_bytes_per_context_token =
      heads_total * (static_cast<double>(*f.head_dim_k) + static_cast<double>(*f.head_dim_v)) *
      f.kv_bytes_per_element;
  f.notes.push_back("K assumes an f16 KV cache (llama.cpp's default; -ctk/-ctv change it)");
  if (f.sliding_window) {
    f.notes.push_back(
        fmt::format("sliding-window attention (window {}): K treats every layer as "
                    "full attention, an upper bound beyond the window",
                    *f.sliding_window));
  }
}

void summarize_quant(const GgufFile& file, ModelFacts& f) {
  QuantSummary& q = f.quant;
  FactReader r(file, f);
  if (const auto id = r.count("general.file_type")) {
    q.file_type_id = id;
    if (const auto name = file_type_name(*id)) {
      q.file_type = std::string(*name);
    } else {
      f.notes.push_back(
          fmt::format("general.file_type {} is not a llama.cpp file type known to "
                      "this reader",
                      *id));
    }
  }
  if (q.file_type != "unknown") {
    std::string lower = q.file_type;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (const QuantPreset* preset = find_quant(lower)) q.preset = preset->name;
  }

  std::map<std::uint32_t, TypeShare> mix;
  std::uint64_t elements = 0;
  double bytes = 0.0;
  for (const auto& t : file.tensors) {
    const GgmlTypeInfo* type = find_ggml_type(t.type_id);
    if (type == nullptr) continue;  // the reader never lets one through
    if (t.name == "token_embd.weight") q.embedding_type = std::string(type->name);
    const TensorRole role = tensor_role(t);
    const bool is_head =
        role == TensorRole::kOutputHead || (t.name == "token_embd.weight" && f.tied_output == true);
    if (is_head) {
      q.output_head_type = std::string(type->name);
      q.output_head_bits = bits_per_element(*type);
    }
    if (role != TensorRole::kMatmul && role != TensorRole::kExpert) continue;
    TypeShare& share = mix[t.type_id];
    share.type = std::string(type->name);
    share.tensors += 1;
    share.elements += t.elements;
    share.bytes += t.bytes;
    elements += t.elements;
    bytes += static_cast<double>(t.bytes);
  }
  for (auto& [id, share] : mix) q.matmul_mix.push_back(std::move(share));
  std::stable_sort(q.matmul_mix.begin(), q.matmul_mix.end(),
                   [](const TypeShare& a, const TypeShare& b) { return a.elements > b.elements; });
  if (elements > 0) {
    q.weight_bits_effective = bytes * kBitsPerByte / static_cast<double>(elements);
    const TypeShare& top = q.matmul_mix.front();
    for (const auto& type : ggml_types()) {
      if (type.name != top.type) continue;
      q.dominant_type = std::string(type.name);
      q.weight_bits = type.nominal_bits;
      q.group_size = group_size_label(type);
      q.block_elements = type.block_elements;
    }
  }
  q.label = fmt::format("W{}/A-unknown {} ({})",
                        q.weight_bits ? fmt::format("{:g}", *q.weight_bits) : "-unknown",
                        q.group_size, q.file_type);
}

void match_catalog(ModelFacts& f) {
  if (!f.n_layer || !f.n_embd || !f.n_head || !f.n_head_kv || !f.head_dim_k || !f.head_dim_v ||
      !f.n_ff || !f.n_vocab || !f.tied_output || *f.head_dim_k != *f.head_dim_v) {
    return;
  }
  for (const auto& s : shape_catalog()) {
    if (s.arch == f.arch && s.n_layer == *f.n_layer && s.n_embd == *f.n_embd &&
        s.n_head == *f.n_head && s.n_head_kv == *f.n_head_kv && s.head_dim == *f.head_dim_k &&
        s.n_ff == *f.n_ff && s.n_vocab == *f.n_vocab && s.tied_embeddings == *f.tied_output) {
      f.catalog_matches.push_back(s.name);
    }
  }
}

json weight_bytes_json(const ModelFacts& f) {
  if (!f.weight_bytes) return nullptr;
  const WeightBytes& w = *f.weight_bytes;
  return {{"matmul", w.matmul},           {"experts_active", w.experts},
          {"output_head", w.output_head}, {"embedding_rows", w.embedding_rows},
          {"vectors", w.vectors},         {"other", w.other}};
}

json quant_json(const QuantSummary& q) {
  json mix = json::array();
  for (const auto& s : q.matmul_mix) {
    mix.push_back(
        {{"type", s.type}, {"tensors", s.tensors}, {"elements", s.elements}, {"bytes", s.bytes}});
  }
  return {{"label", q.label},
          {"file_type", q.file_type},
          {"file_type_id", number_or_null(q.file_type_id)},
          {"preset", q.preset},
          {"dominant_type", q.dominant_type},
          {"weight_bits", bits_json(q.weight_bits)},
          {"weight_bits_effective", number_or_null(q.weight_bits_effective)},
          {"act_bits", "unknown"},
          {"group_size", q.group_size},
          {"block_elements", q.block_elements ? json(*q.block_elements) : json(nullptr)},
          {"output_head_type", q.output_head_type},
          {"output_head_bits", number_or_null(q.output_head_bits)},
          {"embedding_type", q.embedding_type},
          {"matmul_mix", std::move(mix)}};
}

json tensor_rows(const GgufFile& file, const ModelFacts& f) {
  json rows = json::array();
  for (const auto& t : file.tensors) {
    const GgmlTypeInfo* type = find_ggml_type(t.type_id);
    const TensorRole role = tensor_role(t);
    double in_w = static_cast<double>(t.bytes);
    if (role == TensorRole::kEmbedding) {
      const std::uint64_t row_dims[] = {t.dims[0]};
      const auto row = tensor_bytes(t.type_id, row_dims);
      in_w = row ? static_cast<double>(*row) : in_w;
      if (t.name == "token_embd.weight" && f.tied_output == true) {
        in_w += static_cast<double>(t.bytes);
      }
    } else if (role == TensorRole::kExpert && f.expert_count && f.expert_used_count &&
               *f.expert_count > 0 && *f.expert_used_count <= *f.expert_count) {
      in_w *= static_cast<double>(*f.expert_used_count) / static_cast<double>(*f.expert_count);
    }
    rows.push_back({{"name", t.name},
                    {"type", type != nullptr ? std::string(type->name) : "unknown"},
                    {"dims", t.dims},
                    {"elements", t.elements},
                    {"bytes", t.bytes},
                    {"bits_per_element", type != nullptr ? json(bits_per_element(*type)) : json()},
                    {"file_offset", file.data_offset + t.offset},
                    {"role", to_string(role)},
                    {"bytes_in_w", in_w}});
  }
  return rows;
}

}  // namespace

std::string_view to_string(TensorRole role) {
  switch (role) {
    case TensorRole::kEmbedding:
      return "embedding";
    case TensorRole::kOutputHead:
      return "output_head";
    case TensorRole::kMatmul:
      return "matmul";
    case TensorRole::kExpert:
      return "expert";
    case TensorRole::kVector:
      return "vector";
    case TensorRole::kOther:
      return "other";
  }
  return "other";
}

TensorRole tensor_role(const TensorInfo& t) {
  const std::string_view name = t.name;
  if (name == "output.weight") return TensorRole::kOutputHead;
  if (name.ends_with("_embd.weight") || name == "token_types.weight") return TensorRole::kEmbedding;
  if (t.dims.size() <= 1) return TensorRole::kVector;
  if (name.starts_with("blk.")) {
    return name.find("_exps.") != std::string_view::npos ? TensorRole::kExpert
                                                         : TensorRole::kMatmul;
  }
  return TensorRole::kOther;
}

std::optional<std::string_view> file_type_name(std::uint64_t llama_ftype) {
  for (const auto& [id, name] : kFileTypes) {
    if (id == llama_ftype) return name;
  }
  return std::nullopt;
}

ModelFacts model_facts(const GgufFile& file) {
  ModelFacts f;
  read_architecture(file, f);
  read_vocab_and_head(file, f);
  compute_weight_bytes(file, f);
  compute_kv_bytes(file, f);
  summarize_quant(file, f);
  match_catalog(f);
  return f;
}

std::optional<DecodeBytes> decode_bytes(const ModelFacts& facts) {
  if (!facts.weight_bytes || !facts.kv_bytes_per_context_token) return std::nullopt;
  DecodeBytes out;
  out.weight_bytes_per_token = facts.weight_bytes->total();
  out.kv_bytes_per_context_token = *facts.kv_bytes_per_context_token;
  out.params = facts.params;
  out.flops_per_token = 2.0 * static_cast<double>(facts.params);
  return out;
}

json model_info_json(const GgufFile& file, const ModelFacts& f) {
  json out = {
      {"path", file.origin},
      {"format", "gguf"},
      {"name", f.name},
      {"arch", f.arch},
      {"params", f.params},
      {"quant",
       {{"weight_bits", bits_json(f.quant.weight_bits)},
        {"act_bits", "unknown"},
        {"group_size", f.quant.group_size},
        {"file_type", f.quant.file_type},
        {"weight_bits_effective", number_or_null(f.quant.weight_bits_effective)},
        {"output_head_type", f.quant.output_head_type}}},
      {"weight_bytes_per_token", f.weight_bytes ? json(f.weight_bytes->total()) : json(nullptr)},
      {"kv_bytes_per_context_token", number_or_null(f.kv_bytes_per_context_token)},
      {"synthetic_weights", f.synthetic_weights},
      {"size_bytes", file.file_size},
      {"header_hash", fmt::format("fnv1a64:{:016x}", file.header_hash)},
      {"ceiling_estimated", false}};
  sanitize(out);
  return out;
}

json inspect_json(const GgufFile& file, bool per_tensor) {
  const ModelFacts f = model_facts(file);
  json metadata = json::array();
  for (const auto& entry : file.metadata) {
    json item = {{"key", entry.key},
                 {"type", entry.value.type == ValueType::kArray
                              ? fmt::format("array[{}]", to_string(entry.value.element_type))
                              : std::string(to_string(entry.value.type))},
                 {"value", metadata_value_json(entry.value)}};
    metadata.push_back(std::move(item));
  }
  json arch = {{"arch", f.arch},
               {"name", f.name},
               {"n_layer", number_or_null(f.n_layer)},
               {"n_embd", number_or_null(f.n_embd)},
               {"n_head", number_or_null(f.n_head)},
               {"n_head_kv", number_or_null(f.n_head_kv)},
               {"n_head_kv_per_layer", f.n_head_kv_per_layer},
               {"head_dim_k", number_or_null(f.head_dim_k)},
               {"head_dim_v", number_or_null(f.head_dim_v)},
               {"n_ff", number_or_null(f.n_ff)},
               {"n_vocab", number_or_null(f.n_vocab)},
               {"vocab_source", f.vocab_source},
               {"context_length", number_or_null(f.context_length)},
               {"tied_output", f.tied_output ? json(*f.tied_output) : json("unknown")},
               {"expert_count", number_or_null(f.expert_count)},
               {"expert_used_count", number_or_null(f.expert_used_count)},
               {"sliding_window", number_or_null(f.sliding_window)},
               {"rope",
                {{"dimension_count", number_or_null(f.rope_dimension_count)},
                 {"freq_base", number_or_null(f.rope_freq_base)},
                 {"scaling_type", f.rope_scaling_type ? json(*f.rope_scaling_type) : json(nullptr)},
                 {"scaling_factor", number_or_null(f.rope_scaling_factor)}}}};
  const auto db = decode_bytes(f);
  json decode = {
      {"weight_bytes_per_token", f.weight_bytes ? json(f.weight_bytes->total()) : json(nullptr)},
      {"weight_bytes_split", weight_bytes_json(f)},
      {"kv_bytes_per_context_token", number_or_null(f.kv_bytes_per_context_token)},
      {"kv_bytes_per_element", f.kv_bytes_per_element},
      {"params", f.params},
      {"flops_per_token",
       db ? json(db->flops_per_token) : json(2.0 * static_cast<double>(f.params))},
      {"definition",
       "W: every tensor once at its stored size, one row of each embedding table, the whole "
       "output head (tied or not), the routed share of MoE experts; K: sum over layers of "
       "n_head_kv x (key_length + value_length) x kv_bytes_per_element"}};
  json out = {{"format", "gguf"},
              {"file",
               {{"path", file.origin},
                {"size_bytes", file.file_size},
                {"gguf_version", file.version},
                {"alignment", file.alignment},
                {"metadata_count", file.metadata.size()},
                {"tensor_count", file.tensors.size()},
                {"header_end", file.header_end},
                {"data_offset", file.data_offset},
                {"header_hash", fmt::format("fnv1a64:{:016x}", file.header_hash)}}},
              {"model", model_info_json(file, f)},
              {"architecture", std::move(arch)},
              {"catalog_match", f.catalog_matches},
              {"quantization", quant_json(f.quant)},
              {"decode", std::move(decode)},
              {"notes", f.notes},
              {"metadata", std::move(metadata)}};
  if (per_tensor) out["tensors"] = tensor_rows(file, f);
  sanitize(out);
  return out;
}

}  // namespace tokscope::model::gguf
