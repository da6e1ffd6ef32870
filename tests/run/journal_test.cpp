#include "run/journal.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "common/test_dir.hpp"

namespace tokscope::run {
namespace {

nlohmann::json header() {
  return {{"type", "header"},
          {"schema", kJournalSchema},
          {"x", 1},
          {"settings", nlohmann::json::object()},
          {"strata",
           nlohmann::json::array(
               {{{"id", 0}, {"prompt_tokens", 8}, {"output_tokens", 2}, {"concurrency", 1}}})}};
}

nlohmann::json request(int index) {
  return {{"type", "request"}, {"stratum", 0},       {"index", index},      {"warmup", false},
          {"ok", true},        {"prompt_tokens", 8}, {"t_request_ns", 1},   {"t_tokenized_ns", 1},
          {"t_submit_ns", 2},  {"t_done_ns", 9},     {"chunk_t_ns", {5, 8}}};
}

TEST(Journal, WritesAndReadsBack) {
  const auto dir = testing::fresh_test_dir();
  const auto path = dir / "sub" / "run.journal.jsonl";
  {
    auto w = JournalWriter::create(path);
    ASSERT_TRUE(w.ok()) << w.error().message;
    ASSERT_TRUE(w->append(header()).ok());
    ASSERT_TRUE(w->append(request(0)).ok());
    ASSERT_TRUE(w->append(request(1)).ok());
    ASSERT_TRUE(w->append({{"type", "end"}, {"interrupted", false}}).ok());
  }
  auto r = read_journal(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->header["x"], 1);
  ASSERT_EQ(r->requests.size(), 2U);
  EXPECT_EQ(r->requests[1]["index"], 1);
  EXPECT_TRUE(r->ended);
  EXPECT_FALSE(r->interrupted);
  EXPECT_FALSE(r->torn_tail);
}

TEST(Journal, RefusesToOverwriteAndPointsToResume) {
  const auto path = testing::fresh_test_dir() / "j.jsonl";
  ASSERT_TRUE(JournalWriter::create(path).ok());
  auto again = JournalWriter::create(path);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().kind, ErrorKind::kUsage);
  EXPECT_NE(again.error().message.find("--resume"), std::string::npos);
}

TEST(Journal, TornLastLineIsIgnored) {
  const auto path = testing::fresh_test_dir() / "j.jsonl";
  {
    auto w = JournalWriter::create(path);
    ASSERT_TRUE(w->append(header()).ok());
    ASSERT_TRUE(w->append(request(0)).ok());
  }
  std::ofstream(path, std::ios::app) << R"({"type":"request","ind)";  // killed mid-write
  auto r = read_journal(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->requests.size(), 1U);
  EXPECT_TRUE(r->torn_tail);
  EXPECT_FALSE(r->ended);
}

TEST(Journal, CorruptMiddleLineNamesFileAndLine) {
  const auto path = testing::fresh_test_dir() / "j.jsonl";
  std::ofstream(path) << header().dump() << "\n"
                      << "garbage\n"
                      << R"({"type":"end"})"
                      << "\n";
  auto r = read_journal(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kInput);
  EXPECT_NE(r.error().message.find("line 2"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find(path.string()), std::string::npos);
}

TEST(Journal, ValidJsonWithAWrongFieldNamesLineAndField) {
  const auto path = testing::fresh_test_dir() / "j.jsonl";
  nlohmann::json bad = request(1);
  bad["chunk_t_ns"] = "soon";
  nlohmann::json bad_tokens = request(2);
  bad_tokens["chunk_tokens"] = {1};  // shorter than chunk_t_ns
  std::ofstream(path) << header().dump() << "\n" << request(0).dump() << "\n" << bad.dump() << "\n";
  auto r = read_journal(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("line 3"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("chunk_t_ns"), std::string::npos) << r.error().message;
  std::ofstream(path) << header().dump() << "\n" << bad_tokens.dump() << "\n";
  auto r2 = read_journal(path);
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.error().message.find("chunk_tokens"), std::string::npos) << r2.error().message;
  nlohmann::json bad_header = header();
  bad_header["strata"][0].erase("prompt_tokens");
  std::ofstream(path) << bad_header.dump() << "\n";
  auto r3 = read_journal(path);
  ASSERT_FALSE(r3.ok());
  EXPECT_NE(r3.error().message.find("strata[0].prompt_tokens"), std::string::npos)
      << r3.error().message;
}

TEST(Journal, NotAJournalIsRejected) {
  const auto path = testing::fresh_test_dir() / "j.jsonl";
  std::ofstream(path) << R"({"type":"request"})"
                      << "\n";
  auto r = read_journal(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("not a tokscope journal"), std::string::npos);
}

TEST(Journal, MissingFileIsAnInputError) {
  auto r = read_journal("/nonexistent/tokscope/j.jsonl");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kInput);
}

}  // namespace
}  // namespace tokscope::run
