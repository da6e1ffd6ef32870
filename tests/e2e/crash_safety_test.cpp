// Acceptance 4: kill -9 during a run loses at most the request in flight; `report JOURNAL`
// rebuilds everything completed before the kill; `--resume` finishes the run. Also Ctrl-C.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "process.hpp"

namespace tokscope::testing {
namespace {

using nlohmann::json;

const std::vector<std::string> kLongRun = {"bench",
                                           "--engine",
                                           "sim",
                                           "--sim-prefill-tps",
                                           "100000",
                                           "--sim-itl-ms",
                                           "5",
                                           "-p",
                                           "16",
                                           "-n",
                                           "10",
                                           "-r",
                                           "40",
                                           "--warmup",
                                           "1",
                                           "--journal",
                                           "run.journal.jsonl",
                                           "-q",
                                           "-o",
                                           "json",
                                           "--out",
                                           "result.json"};

TEST(CrashSafety, KillNineThenReportThenResume) {
  const auto dir = fresh_dir();
  const auto journal = dir / "run.journal.jsonl";
  {
    Process p(kLongRun, dir);
    // header + at least 5 requests on disk, then kill -9 mid-run.
    ASSERT_TRUE(wait_until([&] { return complete_lines(journal) >= 6; }, std::chrono::seconds(30)));
    p.signal(SIGKILL);
    const Finished f = p.wait();
    EXPECT_EQ(f.signal, SIGKILL);
  }
  const std::size_t lines_on_disk = complete_lines(journal);
  ASSERT_GE(lines_on_disk, 6U);
  ASSERT_LT(lines_on_disk, 42U) << "the run finished before the kill; the test proves nothing";

  // Every request completed before the kill is in the rebuilt result.
  const Finished rep = run_tokscope({"report", journal.string(), "-o", "json"}, dir);
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  const json partial = json::parse(rep.out);
  EXPECT_FALSE(partial["complete"].get<bool>());
  EXPECT_EQ(partial["requests"].size(), lines_on_disk - 1);  // minus the header
  EXPECT_TRUE(partial["simulated"].get<bool>());

  // Resume finishes the run: every index exactly once, none lost, none repeated.
  const Finished res = run_tokscope(
      {"bench", "--resume", journal.string(), "-q", "-o", "json", "--out", "resumed.json"}, dir);
  ASSERT_EQ(res.exit_code, 0) << res.err;
  const json full = json::parse(slurp(dir / "resumed.json"));
  EXPECT_TRUE(full["complete"].get<bool>());
  ASSERT_EQ(full["requests"].size(), 41U);
  std::set<int> indices;
  for (const auto& r : full["requests"]) indices.insert(r["index"].get<int>());
  EXPECT_EQ(indices.size(), 41U);
  EXPECT_EQ(*indices.begin(), 0);
  EXPECT_EQ(*indices.rbegin(), 40);
  EXPECT_EQ(full["strata"][0]["measured"], 40);
  EXPECT_EQ(full["strata"][0]["warmup"], 1);

  // The finished journal now renders the same complete result.
  const Finished again = run_tokscope({"report", journal.string(), "-o", "json"}, dir);
  ASSERT_EQ(again.exit_code, 0);
  const json rebuilt = json::parse(again.out);
  EXPECT_EQ(rebuilt["strata"][0]["itl_ms"]["p50"], full["strata"][0]["itl_ms"]["p50"]);
  EXPECT_EQ(rebuilt["requests"].size(), 41U);

  // Resuming a finished run is refused with the way forward.
  const Finished done = run_tokscope({"bench", "--resume", journal.string()}, dir);
  EXPECT_EQ(done.exit_code, 2);
  EXPECT_NE(done.err.find("tokscope report"), std::string::npos) << done.err;
}

TEST(CrashSafety, CtrlCStopsCleanlyWithEverythingSoFar) {
  const auto dir = fresh_dir();
  const auto journal = dir / "run.journal.jsonl";
  Process p(kLongRun, dir);
  ASSERT_TRUE(wait_until([&] { return complete_lines(journal) >= 4; }, std::chrono::seconds(30)));
  p.signal(SIGINT);
  const Finished f = p.wait();
  EXPECT_EQ(f.exit_code, 1) << f.err;
  EXPECT_NE(f.err.find("--resume"), std::string::npos) << f.err;
  const json result = json::parse(slurp(dir / "result.json"));
  EXPECT_TRUE(result["interrupted"].get<bool>());
  EXPECT_FALSE(result["complete"].get<bool>());
  // The journal ends with an end record saying so, and holds what the result holds.
  const std::string text = slurp(journal);
  EXPECT_NE(text.find(R"("interrupted":true)"), std::string::npos);
  EXPECT_EQ(result["requests"].size(), complete_lines(journal) - 2);  // header and end lines
  for (const auto& r : result["requests"]) EXPECT_TRUE(r["ok"].get<bool>());
}

}  // namespace
}  // namespace tokscope::testing
