#include "engines/openai/stream_decoder.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tokscope::engines::openai {
namespace {

StreamChunk ok(StreamApi api, std::string_view data) {
  auto r = decode_stream_chunk(api, data);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? *r : StreamChunk{};
}

Error err(StreamApi api, std::string_view data) {
  auto r = decode_stream_chunk(api, data);
  EXPECT_FALSE(r.ok());
  return r.ok() ? Error{} : r.error();
}

// ---- llama.cpp server, OAI-compatible /v1/chat/completions (b6xxx, include_usage on) ----

constexpr std::string_view kLlamaRole =
    R"({"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],)"
    R"("created":1760000000,"id":"chatcmpl-Xy","model":"gemma-3-270m","system_fingerprint":)"
    R"("b6500-abc","object":"chat.completion.chunk"})";
constexpr std::string_view kLlamaContent =
    R"({"choices":[{"finish_reason":null,"index":0,"delta":{"content":" Paris"}}],)"
    R"("created":1760000000,"id":"chatcmpl-Xy","model":"gemma-3-270m","object":"chat.completion.chunk"})";
constexpr std::string_view kLlamaFinish =
    R"({"choices":[{"finish_reason":"length","index":0,"delta":{}}],"created":1760000000,)"
    R"("id":"chatcmpl-Xy","model":"gemma-3-270m","object":"chat.completion.chunk"})";
constexpr std::string_view kLlamaUsage =
    R"({"choices":[],"created":1760000000,"id":"chatcmpl-Xy","model":"gemma-3-270m",)"
    R"("object":"chat.completion.chunk","usage":{"completion_tokens":16,"prompt_tokens":12,)"
    R"("total_tokens":28},"timings":{"cache_n":0,"prompt_n":12,"prompt_ms":30.5,)"
    R"("prompt_per_token_ms":2.541,"prompt_per_second":393.44,"predicted_n":16,)"
    R"("predicted_ms":120.25,"predicted_per_token_ms":7.515,"predicted_per_second":133.05}})";

TEST(StreamDecoder, LlamaCppChatRoleOnlyFirstChunkIsNotAToken) {
  const auto c = ok(StreamApi::kChat, kLlamaRole);
  EXPECT_EQ(c.tokens, 0U);
  EXPECT_FALSE(c.stop);
  EXPECT_FALSE(c.usage.has_value());
}

TEST(StreamDecoder, LlamaCppChatContentChunkIsOneToken) {
  EXPECT_EQ(ok(StreamApi::kChat, kLlamaContent).tokens, 1U);
}

TEST(StreamDecoder, LlamaCppChatFinishChunkStopsWithoutAToken) {
  const auto c = ok(StreamApi::kChat, kLlamaFinish);
  EXPECT_EQ(c.tokens, 0U);
  EXPECT_TRUE(c.stop);
  EXPECT_EQ(c.finish_reason, "length");
}

TEST(StreamDecoder, LlamaCppUsageOnlyLastChunkCarriesUsageAndTimings) {
  const auto c = ok(StreamApi::kChat, kLlamaUsage);
  EXPECT_EQ(c.tokens, 0U);
  ASSERT_TRUE(c.usage.has_value());
  EXPECT_EQ(c.usage->prompt_tokens, 12U);
  EXPECT_EQ(c.usage->completion_tokens, 16U);
  ASSERT_TRUE(c.timings.has_value());
  EXPECT_EQ(c.timings->cache_n, 0);
  EXPECT_EQ(c.timings->prompt_n, 12);
  EXPECT_DOUBLE_EQ(c.timings->prompt_ms.value_or(-1), 30.5);
  EXPECT_DOUBLE_EQ(c.timings->prompt_per_second.value_or(-1), 393.44);
  EXPECT_EQ(c.timings->predicted_n, 16);
  EXPECT_DOUBLE_EQ(c.timings->predicted_ms.value_or(-1), 120.25);
  EXPECT_DOUBLE_EQ(c.timings->predicted_per_token_ms.value_or(-1), 7.515);
  EXPECT_DOUBLE_EQ(c.timings->predicted_per_second.value_or(-1), 133.05);
  EXPECT_FALSE(c.timings->draft_n.has_value());
}

TEST(StreamDecoder, NullTimingsFieldsStayUnknown) {
  const auto c =
      ok(StreamApi::kChat,
         R"({"choices":[],"timings":{"prompt_n":0,"prompt_ms":0.0,"prompt_per_second":null}})");
  ASSERT_TRUE(c.timings.has_value());
  EXPECT_EQ(c.timings->prompt_n, 0);
  EXPECT_FALSE(c.timings->prompt_per_second.has_value());
  EXPECT_FALSE(c.timings->cache_n.has_value());  // older builds lack it
}

TEST(StreamDecoder, ReasoningContentIsAToken) {
  EXPECT_EQ(ok(StreamApi::kChat, R"({"choices":[{"index":0,"delta":{"reasoning_content":"Hmm"}}]})")
                .tokens,
            1U);
}

TEST(StreamDecoder, WhitespaceContentIsATokenEmptyAndNullAreNot) {
  EXPECT_EQ(ok(StreamApi::kChat, R"({"choices":[{"delta":{"content":" "}}]})").tokens, 1U);
  EXPECT_EQ(ok(StreamApi::kChat, R"({"choices":[{"delta":{"content":""}}]})").tokens, 0U);
  EXPECT_EQ(ok(StreamApi::kChat, R"({"choices":[{"delta":{"content":null}}]})").tokens, 0U);
  EXPECT_EQ(ok(StreamApi::kChat, R"({"choices":[{"delta":{}}]})").tokens, 0U);
}

// ---- OpenAI proper ----

TEST(StreamDecoder, OpenAiChunksRoleContentAndUsage) {
  const auto role =
      ok(StreamApi::kChat,
         R"({"id":"chatcmpl-A1","object":"chat.completion.chunk","created":1,)"
         R"("model":"gpt-4o-mini","system_fingerprint":"fp_1","choices":[{"index":0,)"
         R"("delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,)"
         R"("finish_reason":null}],"usage":null})");
  EXPECT_EQ(role.tokens, 0U);
  EXPECT_FALSE(role.usage.has_value());

  const auto usage =
      ok(StreamApi::kChat, R"({"id":"chatcmpl-A1","object":"chat.completion.chunk","created":1,)"
                           R"("model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":9,)"
                           R"("completion_tokens":12,"total_tokens":21,)"
                           R"("completion_tokens_details":{"reasoning_tokens":0}}})");
  EXPECT_EQ(usage.tokens, 0U);
  ASSERT_TRUE(usage.usage.has_value());
  EXPECT_EQ(usage.usage->completion_tokens, 12U);
  EXPECT_EQ(usage.usage->prompt_tokens, 9U);
}

TEST(StreamDecoder, LogprobsEntriesCountEachToken) {
  const auto c = ok(StreamApi::kChat,
                    R"({"choices":[{"index":0,"delta":{"content":"ab"},"logprobs":{"content":[)"
                    R"({"token":"a","logprob":-0.1},{"token":"b","logprob":-0.2}]}}]})");
  EXPECT_EQ(c.tokens, 2U);
}

TEST(StreamDecoder, CompletionsTextAndLogprobs) {
  EXPECT_EQ(ok(StreamApi::kCompletions,
               R"({"id":"cmpl-1","object":"text_completion","choices":[{"text":" the","index":0,)"
               R"("logprobs":null,"finish_reason":null}],"model":"m"})")
                .tokens,
            1U);
  EXPECT_EQ(ok(StreamApi::kCompletions,
               R"({"choices":[{"text":" the cat","logprobs":{"tokens":[" the"," cat"]}}]})")
                .tokens,
            2U);
  const auto last = ok(StreamApi::kCompletions,
                       R"({"choices":[{"text":"","index":0,"finish_reason":"length"}]})");
  EXPECT_EQ(last.tokens, 0U);
  EXPECT_EQ(last.finish_reason, "length");
  // A completions chunk is read by its "text": a chat-shaped delta is not counted here.
  EXPECT_EQ(ok(StreamApi::kCompletions, kLlamaContent).tokens, 0U);
}

// ---- llama.cpp native /completion ----

TEST(StreamDecoder, NativeChunkIsOneTokenOrItsTokensArraySize) {
  EXPECT_EQ(ok(StreamApi::kLlamaCppNative,
               R"({"index":0,"content":" world","tokens":[1917],"stop":false,"id_slot":-1,)"
               R"("tokens_predicted":2,"tokens_evaluated":5})")
                .tokens,
            1U);
  EXPECT_EQ(ok(StreamApi::kLlamaCppNative,
               R"({"index":0,"content":"\u00e9t\u00e9","tokens":[3, 4, 5],"stop":false})")
                .tokens,
            3U);
  // Older servers: no tokens array.
  EXPECT_EQ(ok(StreamApi::kLlamaCppNative,
               R"({"content":"x","stop":false,"id_slot":0,"multimodal":false})")
                .tokens,
            1U);
}

TEST(StreamDecoder, NativeRunningCountsAreNotAFinalCount) {
  const auto c =
      ok(StreamApi::kLlamaCppNative,
         R"({"content":"x","tokens":[7],"stop":false,"tokens_predicted":2,"tokens_evaluated":5})");
  EXPECT_FALSE(c.usage.has_value());
}

TEST(StreamDecoder, NativeFinalChunkCarriesStopTypeCountsAndTimings) {
  const auto c =
      ok(StreamApi::kLlamaCppNative,
         R"({"index":0,"content":"","tokens":[],"id_slot":0,"stop":true,"model":"gemma",)"
         R"("tokens_predicted":16,"tokens_evaluated":5,"generation_settings":{"n_predict":16},)"
         R"("prompt":"<bos>Hi","has_new_line":false,"truncated":false,"stop_type":"limit",)"
         R"("stopping_word":"","tokens_cached":20,"timings":{"cache_n":0,"prompt_n":5,)"
         R"("prompt_ms":12.5,"prompt_per_token_ms":2.5,"prompt_per_second":400.0,"predicted_n":16,)"
         R"("predicted_ms":100.0,"predicted_per_token_ms":6.25,"predicted_per_second":160.0}})");
  EXPECT_EQ(c.tokens, 0U);
  EXPECT_TRUE(c.stop);
  EXPECT_TRUE(c.stopped_limit);
  EXPECT_FALSE(c.stopped_eos);
  EXPECT_FALSE(c.truncated);
  ASSERT_TRUE(c.usage.has_value());
  EXPECT_EQ(c.usage->completion_tokens, 16U);
  EXPECT_EQ(c.usage->prompt_tokens, 5U);
  ASSERT_TRUE(c.timings.has_value());
  EXPECT_DOUBLE_EQ(c.timings->predicted_per_second.value_or(-1), 160.0);
}

TEST(StreamDecoder, NativeOlderFinalChunkFlags) {
  const auto c = ok(StreamApi::kLlamaCppNative,
                    R"({"content":"","stop":true,"stopped_eos":true,"stopped_limit":false,)"
                    R"("stopped_word":false,"truncated":true,"tokens_predicted":3})");
  EXPECT_TRUE(c.stopped_eos);
  EXPECT_TRUE(c.truncated);
  EXPECT_EQ(ok(StreamApi::kLlamaCppNative, R"({"stop":true,"stop_type":"eos"})").stopped_eos, true);
  EXPECT_EQ(ok(StreamApi::kLlamaCppNative, R"({"stop":true,"stop_type":"word"})").stopped_word,
            true);
}

// ---- ax-llm ----

TEST(StreamDecoder, AxLlmStreamAndItsByteCountUsageIsIgnored) {
  EXPECT_EQ(ok(StreamApi::kAxLlm,
               R"({"choices":[{"delta":{"role":"assistant"},"index":0}],"created":1,)"
               R"("id":"chatcmpl-1","model":"AXERA-TECH","object":"chat.completion.chunk"})")
                .tokens,
            0U);
  EXPECT_EQ(
      ok(StreamApi::kAxLlm,
         R"({"choices":[{"delta":{"content":"你好"},"index":0}],"object":"chat.completion.chunk"})")
          .tokens,
      1U);
  const auto last =
      ok(StreamApi::kAxLlm,
         R"({"choices":[{"delta":{},"finish_reason":"stop","index":0}],)"
         R"("usage":{"prompt_tokens":37,"completion_tokens":212,"total_tokens":249}})");
  EXPECT_TRUE(last.stop);
  EXPECT_FALSE(last.usage.has_value());
  // The same frame read as chat keeps the usage: the difference is the API, not the frame.
  EXPECT_TRUE(ok(StreamApi::kChat, R"({"choices":[],"usage":{"completion_tokens":3}})").usage);
}

// ---- errors ----

TEST(StreamDecoder, MalformedJsonIsAnEngineErrorQuotingTheFrame) {
  const auto e = err(StreamApi::kChat, R"({"choices":[{"delta":{"content":"x"}})");
  EXPECT_EQ(e.kind, ErrorKind::kEngine);
  EXPECT_NE(e.message.find("malformed JSON"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find(R"({"choices":[{"delta")"), std::string::npos) << e.message;
}

TEST(StreamDecoder, QuotedPrefixIsShortAndAscii) {
  const std::string long_frame = "not json " + std::string(5000, 'z') + "\xff\n";
  const auto e = err(StreamApi::kChat, long_frame);
  EXPECT_LT(e.message.size(), 400U);
  EXPECT_NE(e.message.find("..."), std::string::npos);
  EXPECT_EQ(quote_prefix("a\xc3\xa9\n", 10), "a???");
  EXPECT_EQ(quote_prefix("abcdef", 3), "abc...");
}

TEST(StreamDecoder, NonObjectIsAnError) {
  EXPECT_EQ(err(StreamApi::kLlamaCppNative, "[1,2]").kind, ErrorKind::kEngine);
  EXPECT_EQ(err(StreamApi::kChat, "").kind, ErrorKind::kEngine);
}

TEST(StreamDecoder, OpenAiErrorFrame) {
  const auto e =
      err(StreamApi::kChat,
          R"({"error":{"message":"The server had an error while processing your request.",)"
          R"("type":"server_error","param":null,"code":null}})");
  EXPECT_EQ(e.kind, ErrorKind::kEngine);
  EXPECT_NE(e.message.find("The server had an error"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("server_error"), std::string::npos) << e.message;
}

TEST(StreamDecoder, LlamaCppErrorFrameInDataAndAsErrorEvent) {
  constexpr std::string_view kBody =
      R"({"code":400,"message":"the request exceeds the available context size, try increasing it",)"
      R"("type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096})";
  const auto wrapped = err(StreamApi::kLlamaCppNative, "{\"error\":" + std::string(kBody) + "}");
  EXPECT_NE(wrapped.message.find("exceeds the available context"), std::string::npos);
  EXPECT_NE(wrapped.message.find("code 400"), std::string::npos) << wrapped.message;

  const Error bare = decode_error_event(kBody);
  EXPECT_EQ(bare.kind, ErrorKind::kEngine);
  EXPECT_NE(bare.message.find("exceeds the available context"), std::string::npos);
  EXPECT_NE(decode_error_event("oops").message.find("oops"), std::string::npos);
}

TEST(StreamDecoder, StringErrorAndNullError) {
  EXPECT_NE(err(StreamApi::kChat, R"({"error":"llm is running"})").message.find("llm is running"),
            std::string::npos);
  EXPECT_EQ(ok(StreamApi::kChat, R"({"error":null,"choices":[{"delta":{"content":"a"}}]})").tokens,
            1U);
}

// ---- tally ----

TEST(StreamTally, FinalCountComesFromUsageWhenPresent) {
  StreamTally tally;
  for (auto frame : {kLlamaRole, kLlamaContent, kLlamaContent, kLlamaFinish}) {
    tally.add(ok(StreamApi::kChat, frame));
  }
  EXPECT_EQ(tally.completion_tokens(), 2U);  // no usage yet: counted
  EXPECT_TRUE(tally.stopped);
  tally.add(ok(StreamApi::kChat, kLlamaUsage));
  EXPECT_EQ(tally.counted_tokens, 2U);
  EXPECT_EQ(tally.completion_tokens(), 16U);
  EXPECT_TRUE(tally.server_count_disagrees());
  EXPECT_EQ(tally.chunks_with_tokens, 2U);
  EXPECT_TRUE(tally.timings.has_value());
}

TEST(StreamTally, CountsMultiTokenChunks) {
  StreamTally tally;
  tally.add(ok(StreamApi::kLlamaCppNative, R"({"content":"ab","tokens":[1,2],"stop":false})"));
  tally.add(ok(StreamApi::kLlamaCppNative, R"({"content":"c","tokens":[3],"stop":false})"));
  EXPECT_EQ(tally.counted_tokens, 3U);
  EXPECT_EQ(tally.multi_token_chunks, 1U);
  EXPECT_FALSE(tally.server_count_disagrees());
}

TEST(StreamApiNames, RoundTripAndRejectUnknown) {
  for (const auto api :
       {StreamApi::kChat, StreamApi::kCompletions, StreamApi::kLlamaCppNative, StreamApi::kAxLlm}) {
    auto parsed = parse_stream_api(to_string(api));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, api);
  }
  auto bad = parse_stream_api("ollama");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::kUsage);
}

}  // namespace
}  // namespace tokscope::engines::openai
