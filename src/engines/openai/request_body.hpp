// Request bodies of the `openai` engine, one per StreamApi, and llama.cpp's /tokenize pair.
// Pure functions: no I/O, thread-safe.
//
// Every generation body asks for a stream, greedy sampling (temperature 0) and a fixed seed, so
// repeated requests of a stratum do the same work:
//  * chat:        {"model","messages":[{"role":"user","content":TEXT}],"max_tokens",
//                  "stream":true,"stream_options":{"include_usage":true},"temperature":0,"seed"}
//                  + "ignore_eos":true,"min_tokens":N when ignore_eos (llama.cpp and vLLM accept
//                  them; the real OpenAI API rejects unknown fields: clear ignore_eos there).
//  * completions: as chat with "prompt": [ids...] (or TEXT) instead of messages.
//  * llamacpp:    POST /completion {"prompt": [ids...] (or TEXT),"n_predict","stream":true,
//                  "cache_prompt":false,"return_tokens":true,"temperature":0,"seed"}
//                  + "ignore_eos":true. cache_prompt is off because the server's default (true)
//                  reuses the KV cache of an identical prompt prefix: a repeated prompt would then
//                  skip prefill and TTFT would measure a cache hit, not prefill. return_tokens
//                  makes each chunk carry its token ids, so a chunk of k tokens counts k.
//  * axllm:       ax-llm's chat: "messages" is ONE object {"role":"user","content":TEXT}, not an
//                  array; greedy via "top-k":1 (its hyphenated key); no stream_options (its usage
//                  counts bytes) and no ignore_eos (not supported).
// The seed is sent as seed mod 2^31, which every server's integer type holds (llama.cpp reads
// a uint32 where 0xFFFFFFFF means "random").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "engines/openai/stream_decoder.hpp"

namespace tokscope::engines::openai {

struct GenerationBody {
  StreamApi api = StreamApi::kChat;
  std::string_view model;                    // "" = not sent
  std::span<const std::int32_t> prompt_ids;  // completions/llamacpp; takes precedence over text
  std::string_view prompt_text;              // chat/axllm, or completions/llamacpp without ids
  std::uint32_t max_new_tokens = 0;
  bool ignore_eos = true;  // generate max_new_tokens even past end-of-sequence, where supported
  std::uint64_t seed = 0;
};

// The URL path the body is POSTed to: "/v1/chat/completions", "/v1/completions", "/completion".
[[nodiscard]] const char* endpoint_path(StreamApi api) noexcept;

// The JSON body. Errors (ErrorKind::kUsage): token ids for a chat API, no prompt at all,
// max_new_tokens of 0, text that is not valid UTF-8.
Expected<std::string> build_generation_body(const GenerationBody& body);

// llama.cpp POST /tokenize: {"content": TEXT, "add_special": false} (no BOS: the harness builds
// prompts of exact token length from the content alone). Errors: text not valid UTF-8.
Expected<std::string> build_tokenize_body(std::string_view text);
inline constexpr std::string_view kTokenizePath = "/tokenize";

// The /tokenize response {"tokens": [ids...]} (or [{"id": ID, "piece": ...}] with with_pieces)
// to token ids. Errors (ErrorKind::kEngine): not JSON, no tokens array, an id outside int32.
Expected<std::vector<std::int32_t>> parse_tokenize_response(std::string_view body);

}  // namespace tokscope::engines::openai
