#include "run/journal.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "test_dir.hpp"

namespace tokscope::run {
namespace {

nlohmann::json header() {
  return {{"type", "header"}, {"schema", kJournalSchema}, {"x", 1}};
}

TEST(Journal, WritesAndReadsBack) {
  const auto dir = testing::fresh_test_dir();
  const auto path = dir / "sub" / "run.journal.jsonl";
  {
    auto w = JournalWriter::create(path);
    ASSERT_TRUE(w.ok()) << w.error().message;
    ASSERT_TRUE(w->append(header()).ok());
    ASSERT_TRUE(w->append({{"type", "request"}, {"index", 0}}).ok());
    ASSERT_TRUE(w->append({{"type", "request"}, {"index", 1}}).ok());
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
    ASSERT_TRUE(w->append({{"type", "request"}, {"index", 0}}).ok());
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
