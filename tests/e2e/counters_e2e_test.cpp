// `tokscope bench --counters`: perf_event_open counters over each request's prefill and decode,
// in the journal, the result and `tokscope report` of the journal. Hardware events may be
// unsupported where this runs (a VM without a virtual PMU): each event must then carry its
// reason, never a silent 0; software events count everywhere.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "process.hpp"

namespace tokscope::testing {
namespace {

using nlohmann::json;

const std::vector<std::string> kBench = {"bench", "--engine",     "sim",       "--sim-prefill-tps",
                                         "20000", "--sim-itl-ms", "1",         "-p",
                                         "8",     "-n",           "8",         "-r",
                                         "3",     "--warmup",     "1",         "-q",
                                         "-o",    "json",         "--journal", "run.journal.jsonl"};

std::vector<std::string> with(std::vector<std::string> base, std::vector<std::string> extra) {
  base.insert(base.end(), extra.begin(), extra.end());
  return base;
}

// A window event is a number, or null with an "unavailable: …" reason.
void expect_counted_or_explained(const json& event, const std::string& where) {
  ASSERT_TRUE(event.is_object()) << where;
  if (event["value"].is_number()) return;
  ASSERT_TRUE(event["value"].is_null()) << where << ": " << event.dump();
  ASSERT_TRUE(event.contains("unavailable")) << where << ": " << event.dump();
  EXPECT_EQ(event["unavailable"].get<std::string>().rfind("unavailable: ", 0), 0U) << where;
}

TEST(Counters, DefaultEventsOnEveryRequestAndInTheStratum) {
  const auto dir = fresh_dir();
  const Finished f = run_tokscope(kBench, dir);
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const json r = json::parse(f.out);

  // The environment says what each event is here: a source, or why it cannot be counted.
  const json& env = r["environment"]["counters"];
  ASSERT_TRUE(env.is_object()) << r["environment"].dump();
  EXPECT_EQ(env["scope"], "process");
  const std::vector<std::string> defaults = {"instructions", "cycles",           "cache-misses",
                                             "task-clock",   "context-switches", "page-faults"};
  ASSERT_EQ(env["events"].size(), defaults.size());
  for (std::size_t i = 0; i < defaults.size(); ++i) {
    const json& e = env["events"][i];
    EXPECT_EQ(e["name"], defaults[i]);
    EXPECT_TRUE(e.contains("source"));
    if (e["software"].get<bool>()) {
      EXPECT_FALSE(e.contains("unavailable")) << e.dump();
    }
  }
  EXPECT_EQ(r["environment"]["telemetry_available"]["perf_counters"], true);

  ASSERT_EQ(r["requests"].size(), 4U);
  for (const auto& q : r["requests"]) {
    const json& c = q["counters"];
    ASSERT_TRUE(c.is_object()) << q.dump();
    EXPECT_EQ(c["scope"], "process");
    for (const char* phase : {"prefill", "decode"}) {
      for (const auto& name : defaults) {
        expect_counted_or_explained(c[phase][name], std::string(phase) + "." + name);
      }
    }
    EXPECT_GT(c["decode"]["task-clock"]["value"].get<double>(), 0) << c.dump();
    EXPECT_GT(c["prefill"]["task-clock"]["value"].get<double>(), 0) << c.dump();
  }
  const json& s = r["strata"][0]["counters"];
  ASSERT_TRUE(s.is_object()) << r["strata"][0].dump();
  EXPECT_EQ(s["decode"]["task-clock"]["count"], 3);  // the warm-up is left out
  EXPECT_GT(s["decode"]["task-clock"]["p50"].get<double>(), 0);
  for (const auto& name : defaults) {
    const json& st = s["decode"][name];
    EXPECT_TRUE(st["p50"].is_number() || st.contains("unavailable")) << name << st.dump();
  }
  EXPECT_TRUE(s["derived"]["decode"].contains("ipc"));

  // `tokscope report` of the journal recomputes the same stratum counters.
  const Finished rep = run_tokscope({"report", "run.journal.jsonl", "-o", "json"}, dir);
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  const json rebuilt = json::parse(rep.out);
  EXPECT_EQ(rebuilt["strata"][0]["counters"], s);
  EXPECT_EQ(rebuilt["environment"]["counters"], env);
}

TEST(Counters, UnknownEventExits2NamingTheFlag) {
  const auto dir = fresh_dir();
  const Finished f = run_tokscope(with(kBench, {"--counters", "bogus_event"}), dir);
  EXPECT_EQ(f.exit_code, 2) << f.err;
  EXPECT_NE(f.err.find("--counters"), std::string::npos) << f.err;
  EXPECT_NE(f.err.find("bogus_event"), std::string::npos) << f.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "run.journal.jsonl"));  // failed before the run
}

TEST(Counters, NoneTurnsThemOff) {
  const auto dir = fresh_dir();
  const Finished f = run_tokscope(with(kBench, {"--counters", "none"}), dir);
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const json r = json::parse(f.out);
  for (const auto& q : r["requests"]) EXPECT_FALSE(q.contains("counters")) << q.dump();
  EXPECT_TRUE(r["strata"][0]["counters"].is_null());
  EXPECT_TRUE(r["environment"]["counters"].is_null());
  EXPECT_EQ(r["plan"]["counters"], json::array());
}

TEST(Counters, SoftwareEventsChosenByName) {
  const auto dir = fresh_dir();
  const Finished f = run_tokscope(with(kBench, {"--counters", "task-clock,context-switches"}), dir);
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const json r = json::parse(f.out);
  const json& c = r["requests"][1]["counters"];
  EXPECT_EQ(c["decode"].size(), 2U) << c.dump();
  EXPECT_GT(c["decode"]["task-clock"]["value"].get<double>(), 0);
  // The sim engine sleeps before each of the 7 decode tokens: its worker switched out.
  EXPECT_GE(c["decode"]["context-switches"]["value"].get<double>(), 1) << c.dump();
}

}  // namespace
}  // namespace tokscope::testing
