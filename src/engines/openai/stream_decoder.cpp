#include "engines/openai/stream_decoder.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace tokscope::engines::openai {

namespace {

using nlohmann::json;

constexpr std::size_t kFramePrefixBytes = 120;
constexpr std::size_t kServerMessageBytes = 300;

const json* member(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::optional<double> number(const json& object, const char* key) {
  const json* v = member(object, key);
  if (v == nullptr || !v->is_number()) return std::nullopt;
  const double d = v->get<double>();
  if (!std::isfinite(d)) return std::nullopt;
  return d;
}

std::optional<std::int64_t> integer(const json& object, const char* key) {
  const json* v = member(object, key);
  if (v == nullptr) return std::nullopt;
  if (v->is_number_unsigned()) {
    const auto u = v->get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return std::nullopt;
    return static_cast<std::int64_t>(u);
  }
  if (v->is_number_integer()) return v->get<std::int64_t>();
  if (v->is_number_float()) {
    const double d = v->get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) {
      return static_cast<std::int64_t>(d);
    }
  }
  return std::nullopt;
}

std::optional<std::uint64_t> count(const json& object, const char* key) {
  const auto n = integer(object, key);
  if (!n || *n < 0) return std::nullopt;
  return static_cast<std::uint64_t>(*n);
}

bool flag(const json& object, const char* key) {
  const json* v = member(object, key);
  return v != nullptr && v->is_boolean() && v->get<bool>();
}

bool non_empty_string(const json* v) {
  return v != nullptr && v->is_string() && !v->get_ref<const std::string&>().empty();
}

std::size_t array_size(const json* v) {
  return v != nullptr && v->is_array() ? v->size() : 0;
}

std::uint32_t clamp_u32(std::uint64_t n) {
  return n > std::numeric_limits<std::uint32_t>::max() ? std::numeric_limits<std::uint32_t>::max()
                                                       : static_cast<std::uint32_t>(n);
}

Error frame_error(const std::string& what, std::string_view data) {
  return make_error(ErrorKind::kEngine,
                    what + "; frame starts: '" + quote_prefix(data, kFramePrefixBytes) + "'");
}

// OpenAI {"error":{"message","type","code"}}, llama.cpp {"error":{"code","message","type"}},
// or {"error":"text"}. Null or absent: no error.
std::optional<Error> server_error(const json& doc, std::string_view data) {
  const json* e = member(doc, "error");
  if (e == nullptr || e->is_null()) return std::nullopt;
  std::string what = "server error in stream: ";
  if (e->is_string()) {
    what += quote_prefix(e->get_ref<const std::string&>(), kServerMessageBytes);
  } else if (const json* message = member(*e, "message"); non_empty_string(message)) {
    what += quote_prefix(message->get_ref<const std::string&>(), kServerMessageBytes);
    const json* type = member(*e, "type");
    const json* code = member(*e, "code");
    if (non_empty_string(type)) {
      what += " (type " + quote_prefix(type->get_ref<const std::string&>(), 60);
      if (code != nullptr && !code->is_null()) what += ", code " + quote_prefix(code->dump(), 60);
      what += ")";
    } else if (code != nullptr && !code->is_null()) {
      what += " (code " + quote_prefix(code->dump(), 60) + ")";
    }
  } else {
    what += "(no message)";
  }
  return frame_error(what, data);
}

ServerTimings parse_timings(const json& t) {
  ServerTimings s;
  s.cache_n = integer(t, "cache_n");
  s.prompt_n = integer(t, "prompt_n");
  s.prompt_ms = number(t, "prompt_ms");
  s.prompt_per_token_ms = number(t, "prompt_per_token_ms");
  s.prompt_per_second = number(t, "prompt_per_second");
  s.predicted_n = integer(t, "predicted_n");
  s.predicted_ms = number(t, "predicted_ms");
  s.predicted_per_token_ms = number(t, "predicted_per_token_ms");
  s.predicted_per_second = number(t, "predicted_per_second");
  s.draft_n = integer(t, "draft_n");
  s.draft_n_accepted = integer(t, "draft_n_accepted");
  return s;
}

std::optional<TokenUsage> openai_usage(const json& doc) {
  const json* u = member(doc, "usage");
  if (u == nullptr || !u->is_object()) return std::nullopt;
  const auto completion = count(*u, "completion_tokens");
  if (!completion) return std::nullopt;
  return TokenUsage{count(*u, "prompt_tokens").value_or(0), *completion};
}

// One OpenAI choice: logprobs entries when present, else 1 for non-empty text.
std::uint64_t choice_tokens(StreamApi api, const json& choice) {
  const json* logprobs = member(choice, "logprobs");
  if (api == StreamApi::kCompletions) {
    if (const std::size_t k = array_size(logprobs ? member(*logprobs, "tokens") : nullptr)) {
      return k;
    }
    return non_empty_string(member(choice, "text")) ? 1 : 0;
  }
  if (const std::size_t k = array_size(logprobs ? member(*logprobs, "content") : nullptr)) {
    return k;
  }
  const json* delta = member(choice, "delta");
  if (delta == nullptr) delta = member(choice, "message");  // a non-stream-shaped chunk
  if (delta == nullptr) return 0;
  return non_empty_string(member(*delta, "content")) ||
                 non_empty_string(member(*delta, "reasoning_content"))
             ? 1
             : 0;
}

void decode_openai(StreamApi api, const json& doc, StreamChunk& chunk) {
  std::uint64_t tokens = 0;
  if (const json* choices = member(doc, "choices"); choices != nullptr && choices->is_array()) {
    for (const json& choice : *choices) {
      tokens += choice_tokens(api, choice);
      const json* finish = member(choice, "finish_reason");
      if (non_empty_string(finish)) {
        chunk.finish_reason = finish->get<std::string>();
        chunk.stop = true;
      }
    }
  }
  chunk.tokens = clamp_u32(tokens);
  if (api != StreamApi::kAxLlm) chunk.usage = openai_usage(doc);  // ax-llm's counts bytes
}

void decode_native(const json& doc, StreamChunk& chunk) {
  if (const std::size_t k = array_size(member(doc, "tokens"))) {
    chunk.tokens = clamp_u32(k);
  } else {
    chunk.tokens = non_empty_string(member(doc, "content")) ? 1 : 0;
  }
  chunk.stop = flag(doc, "stop");
  chunk.truncated = flag(doc, "truncated");
  chunk.stopped_eos = flag(doc, "stopped_eos");  // older servers: one flag each
  chunk.stopped_limit = flag(doc, "stopped_limit");
  chunk.stopped_word = flag(doc, "stopped_word");
  if (const json* type = member(doc, "stop_type"); type != nullptr && type->is_string()) {
    const auto& s = type->get_ref<const std::string&>();
    chunk.stopped_eos = chunk.stopped_eos || s == "eos";
    chunk.stopped_limit = chunk.stopped_limit || s == "limit";
    chunk.stopped_word = chunk.stopped_word || s == "word";
  }
  if (chunk.stop) {
    // The final chunk's own counts: tokens_evaluated = the prompt's tokens, tokens_predicted =
    // the tokens generated. Earlier chunks may carry running values: not a final count.
    if (const auto predicted = count(doc, "tokens_predicted")) {
      chunk.usage = TokenUsage{count(doc, "tokens_evaluated").value_or(0), *predicted};
    }
  }
}

}  // namespace

const char* to_string(StreamApi api) noexcept {
  switch (api) {
    case StreamApi::kChat:
      return "chat";
    case StreamApi::kCompletions:
      return "completions";
    case StreamApi::kLlamaCppNative:
      return "llamacpp";
    case StreamApi::kAxLlm:
      return "axllm";
  }
  return "?";
}

Expected<StreamApi> parse_stream_api(std::string_view name) {
  for (const StreamApi api :
       {StreamApi::kChat, StreamApi::kCompletions, StreamApi::kLlamaCppNative, StreamApi::kAxLlm}) {
    if (name == to_string(api)) return api;
  }
  return make_error(ErrorKind::kUsage, "unknown API '" + quote_prefix(name, 40) +
                                           "': use chat, completions, llamacpp or axllm");
}

Expected<StreamChunk> decode_stream_chunk(StreamApi api, std::string_view data) {
  json doc;
  try {
    doc = json::parse(data);
  } catch (const json::parse_error& e) {
    return frame_error("malformed JSON in stream chunk (byte " + std::to_string(e.byte) + ")",
                       data);
  }
  if (!doc.is_object()) return frame_error("stream chunk is not a JSON object", data);
  if (auto error = server_error(doc, data)) return *error;

  StreamChunk chunk;
  if (api == StreamApi::kLlamaCppNative) {
    decode_native(doc, chunk);
  } else {
    decode_openai(api, doc, chunk);
  }
  if (const json* t = member(doc, "timings"); t != nullptr && t->is_object()) {
    chunk.timings = parse_timings(*t);
  }
  return chunk;
}

Error decode_error_event(std::string_view data) {
  const json doc = json::parse(data, nullptr, /*allow_exceptions=*/false);
  if (doc.is_object()) {
    if (auto wrapped = server_error(doc, data)) return *wrapped;
    if (auto bare = server_error(json{{"error", doc}}, data)) return *bare;
  }
  return frame_error("server error event in stream", data);
}

void StreamTally::add(const StreamChunk& chunk) {
  counted_tokens += chunk.tokens;
  if (chunk.tokens > 0) ++chunks_with_tokens;
  if (chunk.tokens > 1) ++multi_token_chunks;
  stopped = stopped || chunk.stop;
  if (chunk.usage) usage = chunk.usage;
  if (chunk.timings) timings = chunk.timings;
}

std::string quote_prefix(std::string_view text, std::size_t max_bytes) {
  const bool cut = text.size() > max_bytes;
  std::string out;
  out.reserve(std::min(text.size(), max_bytes) + (cut ? 3 : 0));
  for (const char c : text.substr(0, max_bytes)) {
    const auto u = static_cast<unsigned char>(c);
    out.push_back(u >= 0x20 && u < 0x7F ? c : '?');
  }
  if (cut) out += "...";
  return out;
}

}  // namespace tokscope::engines::openai
