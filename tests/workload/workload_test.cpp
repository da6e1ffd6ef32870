#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "workload/prompts.hpp"
#include "workload/strata.hpp"

namespace tokscope::workload {
namespace {

std::filesystem::path write_temp(const std::string& name, const std::string& content) {
  auto path = std::filesystem::temp_directory_path() /
              ("tokscope-workload-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(path) << content;
  return path;
}

TEST(Strata, CartesianProductInOrder) {
  const auto s = expand_strata({128, 512}, {64}, {1, 4});
  ASSERT_EQ(s.size(), 4U);
  EXPECT_EQ(s[0].prompt_tokens, 128U);
  EXPECT_EQ(s[0].concurrency, 1U);
  EXPECT_EQ(s[1].prompt_tokens, 128U);
  EXPECT_EQ(s[1].concurrency, 4U);
  EXPECT_EQ(s[2].prompt_tokens, 512U);
  EXPECT_EQ(s[3].id, 3U);
  EXPECT_EQ(s[3].output_tokens, 64U);
}

TEST(SyntheticPrompts, ExactLengthDeterministicAndDistinct) {
  const auto a = synthetic_prompt_ids(7, 0, 3, 512);
  const auto b = synthetic_prompt_ids(7, 0, 3, 512);
  const auto c = synthetic_prompt_ids(7, 0, 4, 512);
  const auto d = synthetic_prompt_ids(8, 0, 3, 512);
  EXPECT_EQ(a.size(), 512U);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, d);
  for (const auto id : a) {
    EXPECT_GE(id, 100);
    EXPECT_LT(id, 32000);
  }
}

TEST(Dataset, JsonArrayOfStringsAndObjects) {
  const auto path = write_temp("a.json", R"(["hello world", {"prompt": "two"}, {"text": "x"}])");
  auto texts = load_text_dataset(path);
  ASSERT_TRUE(texts.ok()) << texts.error().message;
  ASSERT_EQ(texts->size(), 3U);
  EXPECT_EQ((*texts)[1], "two");
}

TEST(Dataset, JsonlWithBlankLines) {
  const auto path = write_temp("b.jsonl", "\"a\"\n\n{\"prompt\":\"b\"}\n");
  auto texts = load_text_dataset(path);
  ASSERT_TRUE(texts.ok());
  EXPECT_EQ(texts->size(), 2U);
}

TEST(Dataset, BadElementNamesFileAndPosition) {
  const auto path = write_temp("c.jsonl", "\"a\"\n{\"other\": 1}\n");
  auto texts = load_text_dataset(path);
  ASSERT_FALSE(texts.ok());
  EXPECT_NE(texts.error().message.find("line 2"), std::string::npos) << texts.error().message;
  EXPECT_NE(texts.error().message.find("--dataset"), std::string::npos);
  const auto bad_json = write_temp("d.json", "[\"a\", ");
  auto t2 = load_text_dataset(bad_json);
  ASSERT_FALSE(t2.ok());
  EXPECT_EQ(t2.error().kind, ErrorKind::kInput);
  auto missing = load_text_dataset("/nonexistent/x.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("cannot open"), std::string::npos);
  const auto empty = write_temp("e.json", "[]");
  EXPECT_FALSE(load_text_dataset(empty).ok());
}

TEST(FitToLength, TrimsAndPadsByCycling) {
  const std::vector<std::int32_t> ids{1, 2, 3};
  auto trimmed = fit_to_length(ids, 2);
  ASSERT_TRUE(trimmed.ok());
  EXPECT_EQ(*trimmed, (std::vector<std::int32_t>{1, 2}));
  auto padded = fit_to_length(ids, 7);
  ASSERT_TRUE(padded.ok());
  EXPECT_EQ(*padded, (std::vector<std::int32_t>{1, 2, 3, 1, 2, 3, 1}));
  EXPECT_FALSE(fit_to_length(std::vector<std::int32_t>{}, 4).ok());
}

}  // namespace
}  // namespace tokscope::workload
