#include "engines/openai/request_body.hpp"

#include <limits>
#include <nlohmann/json.hpp>

namespace tokscope::engines::openai {

namespace {

using nlohmann::json;

constexpr std::uint64_t kSeedModulus = std::uint64_t{1} << 31;

// nlohmann refuses to serialise invalid UTF-8 (type_error 316): report it as bad input.
Expected<std::string> dump(const json& doc, const char* what) {
  try {
    return doc.dump();
  } catch (const json::type_error&) {
    return make_error(ErrorKind::kUsage,
                      std::string(what) + " is not valid UTF-8: give the prompt as UTF-8 text");
  }
}

json user_message(std::string_view text) {
  return json{{"role", "user"}, {"content", std::string(text)}};
}

json prompt_value(const GenerationBody& b) {
  if (!b.prompt_ids.empty())
    return json(std::vector<std::int32_t>(b.prompt_ids.begin(), b.prompt_ids.end()));
  return json(std::string(b.prompt_text));
}

}  // namespace

const char* endpoint_path(StreamApi api) noexcept {
  switch (api) {
    case StreamApi::kChat:
    case StreamApi::kAxLlm:
      return "/v1/chat/completions";
    case StreamApi::kCompletions:
      return "/v1/completions";
    case StreamApi::kLlamaCppNative:
      return "/completion";
  }
  return "/";
}

Expected<std::string> build_generation_body(const GenerationBody& b) {
  const bool text_api = b.api == StreamApi::kChat || b.api == StreamApi::kAxLlm;
  if (text_api && !b.prompt_ids.empty()) {
    return make_error(ErrorKind::kUsage,
                      std::string("the ") + to_string(b.api) +
                          " API takes text, not token ids: use --api completions or llamacpp "
                          "for token-id prompts, or give a text prompt");
  }
  if (b.prompt_ids.empty() && b.prompt_text.empty()) {
    return make_error(ErrorKind::kUsage, "empty prompt: give token ids or text");
  }
  if (b.max_new_tokens == 0) {
    return make_error(ErrorKind::kUsage, "max_new_tokens is 0: ask for at least one token");
  }

  json doc = json::object();
  if (!b.model.empty()) doc["model"] = std::string(b.model);
  doc["stream"] = true;
  doc["temperature"] = 0;
  doc["seed"] = b.seed % kSeedModulus;
  switch (b.api) {
    case StreamApi::kChat:
      doc["messages"] = json::array({user_message(b.prompt_text)});
      break;
    case StreamApi::kAxLlm:
      doc["messages"] = user_message(b.prompt_text);  // one object, not an array (edge-facts §2)
      doc["top-k"] = 1;
      break;
    case StreamApi::kCompletions:
    case StreamApi::kLlamaCppNative:
      doc["prompt"] = prompt_value(b);
      break;
  }
  if (b.api == StreamApi::kLlamaCppNative) {
    doc["n_predict"] = b.max_new_tokens;
    doc["cache_prompt"] = false;
    doc["return_tokens"] = true;
    if (b.ignore_eos) doc["ignore_eos"] = true;
  } else {
    doc["max_tokens"] = b.max_new_tokens;
  }
  if (b.api == StreamApi::kChat || b.api == StreamApi::kCompletions) {
    doc["stream_options"] = json{{"include_usage", true}};
    if (b.ignore_eos) {
      doc["ignore_eos"] = true;
      doc["min_tokens"] = b.max_new_tokens;
    }
  }
  return dump(doc, "the prompt text");
}

Expected<std::string> build_tokenize_body(std::string_view text) {
  return dump(json{{"content", std::string(text)}, {"add_special", false}}, "the text to tokenize");
}

Expected<std::vector<std::int32_t>> parse_tokenize_response(std::string_view body) {
  const auto bad = [&](const std::string& what) {
    return make_error(ErrorKind::kEngine, "/tokenize response " + what + "; body starts: '" +
                                              quote_prefix(body, 120) + "'");
  };
  const json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return bad("is not JSON");
  const auto it = doc.is_object() ? doc.find("tokens") : doc.end();
  if (!doc.is_object() || it == doc.end() || !it->is_array()) return bad("has no \"tokens\" array");
  std::vector<std::int32_t> ids;
  ids.reserve(it->size());
  for (const json& t : *it) {
    const json* v = &t;
    if (t.is_object()) {  // with_pieces: {"id": 123, "piece": "..."}
      const auto id = t.find("id");
      if (id == t.end()) return bad("has a token without \"id\"");
      v = &*id;
    }
    if (!v->is_number_integer()) return bad("has a token id that is not an integer");
    constexpr auto kMaxId = static_cast<std::int64_t>(std::numeric_limits<std::int32_t>::max());
    std::int64_t id = kMaxId + 1;
    if (!v->is_number_unsigned()) {
      id = v->get<std::int64_t>();
    } else if (v->get<std::uint64_t>() <= static_cast<std::uint64_t>(kMaxId)) {
      id = static_cast<std::int64_t>(v->get<std::uint64_t>());
    }
    if (id < 0 || id > kMaxId) return bad("has a token id outside 0..2^31-1");
    ids.push_back(static_cast<std::int32_t>(id));
  }
  return ids;
}

}  // namespace tokscope::engines::openai
