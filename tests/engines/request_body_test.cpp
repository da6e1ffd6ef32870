#include "engines/openai/request_body.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <vector>

namespace tokscope::engines::openai {
namespace {

using nlohmann::json;

const std::vector<std::int32_t> kIds = {2, 651, 6037, 576};

json body_of(const GenerationBody& b) {
  auto s = build_generation_body(b);
  EXPECT_TRUE(s.ok()) << s.error().message;
  return s.ok() ? json::parse(*s) : json();
}

GenerationBody base(StreamApi api) {
  GenerationBody b;
  b.api = api;
  b.model = "gemma-3-270m";
  b.max_new_tokens = 128;
  b.seed = 42;
  return b;
}

TEST(RequestBody, ChatHasMessagesArrayMaxTokensStreamAndUsage) {
  auto b = base(StreamApi::kChat);
  b.prompt_text = "Hello there";
  const json j = body_of(b);
  EXPECT_EQ(j["model"], "gemma-3-270m");
  ASSERT_TRUE(j["messages"].is_array());
  EXPECT_EQ(j["messages"][0], (json{{"role", "user"}, {"content", "Hello there"}}));
  EXPECT_EQ(j["max_tokens"], 128);
  EXPECT_EQ(j["stream"], true);
  EXPECT_EQ(j["stream_options"]["include_usage"], true);
  EXPECT_EQ(j["temperature"], 0);
  EXPECT_EQ(j["seed"], 42);
  EXPECT_EQ(j["ignore_eos"], true);
  EXPECT_EQ(j["min_tokens"], 128);
  EXPECT_FALSE(j.contains("n_predict"));
  EXPECT_FALSE(j.contains("cache_prompt"));
}

TEST(RequestBody, WithoutIgnoreEosNoVendorFieldsAreSent) {
  auto b = base(StreamApi::kChat);
  b.prompt_text = "x";
  b.ignore_eos = false;
  b.model = "";
  const json j = body_of(b);
  EXPECT_FALSE(j.contains("ignore_eos"));
  EXPECT_FALSE(j.contains("min_tokens"));
  EXPECT_FALSE(j.contains("model"));
}

TEST(RequestBody, CompletionsTakesTokenIdsAsPrompt) {
  auto b = base(StreamApi::kCompletions);
  b.prompt_ids = kIds;
  b.prompt_text = "ignored when ids are given";
  const json j = body_of(b);
  EXPECT_EQ(j["prompt"], json(kIds));
  EXPECT_EQ(j["max_tokens"], 128);
  EXPECT_EQ(j["stream_options"]["include_usage"], true);
  EXPECT_FALSE(j.contains("messages"));
}

TEST(RequestBody, LlamaCppNativeUsesNPredictAndDisablesThePromptCache) {
  auto b = base(StreamApi::kLlamaCppNative);
  b.prompt_ids = kIds;
  const json j = body_of(b);
  EXPECT_EQ(j["prompt"], json(kIds));
  EXPECT_EQ(j["n_predict"], 128);
  EXPECT_EQ(j["cache_prompt"], false);
  EXPECT_EQ(j["return_tokens"], true);
  EXPECT_EQ(j["ignore_eos"], true);
  EXPECT_EQ(j["stream"], true);
  EXPECT_EQ(j["temperature"], 0);
  EXPECT_FALSE(j.contains("max_tokens"));
  EXPECT_FALSE(j.contains("stream_options"));
  EXPECT_EQ(std::string(endpoint_path(StreamApi::kLlamaCppNative)), "/completion");
}

TEST(RequestBody, LlamaCppNativeAcceptsTextToo) {
  auto b = base(StreamApi::kLlamaCppNative);
  b.prompt_text = "Once upon";
  EXPECT_EQ(body_of(b)["prompt"], "Once upon");
}

TEST(RequestBody, AxLlmSendsMessagesAsOneObject) {
  auto b = base(StreamApi::kAxLlm);
  b.prompt_text = "你好";
  const json j = body_of(b);
  ASSERT_TRUE(j["messages"].is_object());
  EXPECT_EQ(j["messages"]["role"], "user");
  EXPECT_EQ(j["messages"]["content"], "你好");
  EXPECT_EQ(j["top-k"], 1);
  EXPECT_EQ(j["stream"], true);
  EXPECT_FALSE(j.contains("stream_options"));
  EXPECT_FALSE(j.contains("ignore_eos"));
  EXPECT_EQ(std::string(endpoint_path(StreamApi::kAxLlm)), "/v1/chat/completions");
}

TEST(RequestBody, SeedIsReducedIntoEveryServersRange) {
  auto b = base(StreamApi::kLlamaCppNative);
  b.prompt_ids = kIds;
  b.seed = 0xFFFFFFFFULL;  // llama.cpp's "random seed" value must never be sent
  EXPECT_EQ(body_of(b)["seed"], 0x7FFFFFFF);
  b.seed = (std::uint64_t{1} << 40) + 5;
  EXPECT_EQ(body_of(b)["seed"], 5);
}

TEST(RequestBody, RejectsIdsForChatEmptyPromptsAndZeroTokens) {
  auto chat = base(StreamApi::kChat);
  chat.prompt_ids = kIds;
  auto r = build_generation_body(chat);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kUsage);
  EXPECT_NE(r.error().message.find("token ids"), std::string::npos);

  auto empty = base(StreamApi::kCompletions);
  EXPECT_FALSE(build_generation_body(empty).ok());

  auto zero = base(StreamApi::kLlamaCppNative);
  zero.prompt_ids = kIds;
  zero.max_new_tokens = 0;
  EXPECT_FALSE(build_generation_body(zero).ok());
}

TEST(RequestBody, InvalidUtf8TextIsAnErrorNotAnException) {
  auto b = base(StreamApi::kChat);
  b.prompt_text = "bad \xff byte";
  auto r = build_generation_body(b);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("UTF-8"), std::string::npos);
  EXPECT_FALSE(build_tokenize_body("\xc3").ok());
}

TEST(Tokenize, BodyAsksForNoSpecialTokens) {
  auto s = build_tokenize_body("Hello world");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(json::parse(*s), (json{{"content", "Hello world"}, {"add_special", false}}));
}

TEST(Tokenize, ResponseGivesIdsPlainOrWithPieces) {
  auto plain = parse_tokenize_response(R"({"tokens":[9259,1902]})");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(*plain, (std::vector<std::int32_t>{9259, 1902}));
  auto pieces = parse_tokenize_response(
      R"({"tokens":[{"id":9259,"piece":"Hello"},{"id":1902,"piece":" world"}]})");
  ASSERT_TRUE(pieces.ok());
  EXPECT_EQ(*pieces, (std::vector<std::int32_t>{9259, 1902}));
  auto empty = parse_tokenize_response(R"({"tokens":[]})");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(Tokenize, BadResponsesAreEngineErrors) {
  for (const char* body :
       {"not json", R"({"toks":[1]})", R"({"tokens":"1 2"})", R"({"tokens":[1.5]})",
        R"({"tokens":[-1]})", R"({"tokens":[2147483648]})", R"({"tokens":[{"piece":"x"}]})",
        "[1,2]"}) {
    auto r = parse_tokenize_response(body);
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_EQ(r.error().kind, ErrorKind::kEngine);
    EXPECT_NE(r.error().message.find("/tokenize"), std::string::npos);
  }
}

}  // namespace
}  // namespace tokscope::engines::openai
