// Stream-chunk decoding for the `openai` engine: what one SSE event's data says happened.
//
// Token counting rule (docs/metrics.md: a chunk carrying no token is not a token):
//  * chat, axllm: per choice, 1 token when `delta.content` or `delta.reasoning_content` is a
//    non-empty string, unless the choice carries `logprobs.content` with k >= 1 entries (one
//    per token): then k. Role-only, empty-content, finish-only and usage-only chunks count 0.
//  * completions: per choice, 1 token for a non-empty `text`, or k for `logprobs.tokens` with k
//    entries.
//  * llamacpp (native /completion): a non-empty `tokens` array counts its size; else a
//    non-empty `content` counts 1; else 0 (the final stop=true summary chunk carries none).
//  Whitespace is a token: " " counts. The per-chunk count drives the timeline (on_tokens); the
//  final count of a request comes from the server when it says (StreamTally::completion_tokens:
//  `usage.completion_tokens`, or the native final chunk's `tokens_predicted`), and the tally
//  keeps both so a disagreement can be reported.
//
// ax-llm's `usage` counts string bytes, not tokens (edge-facts §2): it is ignored for axllm.
//
// Allocation: decode_stream_chunk parses the event's JSON with nlohmann (a DOM: a few small
// allocations per chunk, microseconds for a typical 200-byte chunk). It runs after the chunk
// arrived and before on_tokens() is called, so the cost is the same for every chunk and is never
// inside the sink. Pure: no state, thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/expected.hpp"

namespace tokscope::engines::openai {

// Which HTTP API a stream comes from (and which body request_body builds).
enum class StreamApi {
  kChat,            // OpenAI POST /v1/chat/completions (llama.cpp, vLLM, OpenAI, ...)
  kCompletions,     // OpenAI POST /v1/completions
  kLlamaCppNative,  // llama.cpp server POST /completion
  kAxLlm,           // ax-llm main_api: OpenAI-like chat with its own quirks
};

// "chat", "completions", "llamacpp", "axllm".
[[nodiscard]] const char* to_string(StreamApi api) noexcept;
Expected<StreamApi> parse_stream_api(std::string_view name);

struct TokenUsage {
  std::uint64_t prompt_tokens = 0;
  std::uint64_t completion_tokens = 0;
};

// llama.cpp server's `timings` object (edge-facts §4.2), for the `server_*` metrics. Absent or
// null fields (older builds, prompt_n = 0 giving NaN serialised as null) stay empty.
struct ServerTimings {
  std::optional<std::int64_t> cache_n;   // prompt tokens reused from the KV cache
  std::optional<std::int64_t> prompt_n;  // prompt tokens processed (cache hits excluded)
  std::optional<double> prompt_ms;
  std::optional<double> prompt_per_token_ms;
  std::optional<double> prompt_per_second;
  std::optional<std::int64_t> predicted_n;  // tokens generated, the first one included
  std::optional<double> predicted_ms;       // end of prompt processing to slot release
  std::optional<double> predicted_per_token_ms;
  std::optional<double> predicted_per_second;
  std::optional<std::int64_t> draft_n;  // speculative decoding only
  std::optional<std::int64_t> draft_n_accepted;
};

// What one event said. Fields not present in the chunk stay at their defaults.
struct StreamChunk {
  std::uint32_t tokens = 0;         // tokens that became visible with this chunk (rule above)
  std::string finish_reason;        // OpenAI finish_reason ("stop", "length", ...); "" = none
  bool stop = false;                // this chunk ends generation (finish_reason or native stop)
  bool stopped_eos = false;         // native: end-of-sequence token (stop_type "eos")
  bool stopped_limit = false;       // native: n_predict reached (stop_type "limit")
  bool stopped_word = false;        // native: a stop word (stop_type "word")
  bool truncated = false;           // native: the context was truncated
  std::optional<TokenUsage> usage;  // OpenAI `usage`, or native tokens_evaluated/predicted
  std::optional<ServerTimings> timings;
};

// Decodes one event's data (not "[DONE]": the caller checks SseEvent::is_done first). Errors
// (ErrorKind::kEngine): malformed JSON, a non-object, or an `error` in the frame (OpenAI
// {"error":{"message","type","code"}}, llama.cpp {"error":{"code","message","type"}} or a plain
// string); the message quotes the server's message and a short prefix of the frame.
Expected<StreamChunk> decode_stream_chunk(StreamApi api, std::string_view data);

// The Error of an event of type "error" (llama.cpp's `error: {"code","message","type"}` line,
// see SseParser): the server's message when the data is such an object (bare or wrapped in
// "error"), else the quoted data. Always ErrorKind::kEngine.
Error decode_error_event(std::string_view data);

// Folds the chunks of one request. completion_tokens(): the server's count when it gave one,
// else the counted chunk tokens.
struct StreamTally {
  std::uint64_t counted_tokens = 0;  // sum of StreamChunk::tokens
  std::uint64_t chunks_with_tokens = 0;
  std::uint64_t multi_token_chunks = 0;
  bool stopped = false;
  std::optional<TokenUsage> usage;  // the last one the server sent
  std::optional<ServerTimings> timings;

  void add(const StreamChunk& chunk);
  [[nodiscard]] std::uint64_t completion_tokens() const noexcept {
    return usage ? usage->completion_tokens : counted_tokens;
  }
  [[nodiscard]] bool server_count_disagrees() const noexcept {
    return usage.has_value() && usage->completion_tokens != counted_tokens;
  }
};

// A printable, ASCII-only, length-capped copy of `text` for error messages (non-ASCII and
// control bytes become '?', a cut is marked "..."), safe to put into JSON.
std::string quote_prefix(std::string_view text, std::size_t max_bytes);

}  // namespace tokscope::engines::openai
