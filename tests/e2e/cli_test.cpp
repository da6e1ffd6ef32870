// The command-line contract (spec/cli.md): exit codes, messages that name the flag and the fix,
// output that pipes, and every output of a simulated run saying so.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "process.hpp"

namespace tokscope::testing {
namespace {

using nlohmann::json;

const std::vector<std::string> kQuick = {"bench",  "--engine",     "sim", "--sim-prefill-tps",
                                         "100000", "--sim-itl-ms", "0.5", "-p",
                                         "8,32",   "-n",           "8",   "-r",
                                         "5",      "--warmup",     "1",   "-q"};

std::vector<std::string> with(std::vector<std::string> base, std::vector<std::string> extra) {
  base.insert(base.end(), extra.begin(), extra.end());
  return base;
}

TEST(Cli, HelpTeachesTheMetricsAndExits0) {
  const auto dir = fresh_dir();
  const Finished f = run_tokscope({"bench", "--help"}, dir);
  EXPECT_EQ(f.exit_code, 0);
  EXPECT_NE(f.out.find("docs/metrics.md"), std::string::npos);
  EXPECT_NE(f.out.find("blended_tps"), std::string::npos);
  EXPECT_NE(f.out.find("--prompt-tokens"), std::string::npos);
  const Finished top = run_tokscope({"--help"}, dir);
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_NE(top.out.find("bench"), std::string::npos);
}

TEST(Cli, BadUsageExits2AndNamesTheFlag) {
  const auto dir = fresh_dir();
  struct Case {
    std::vector<std::string> args;
    std::string needle;
  };
  const std::vector<Case> cases = {
      {{"bench", "--no-such-flag"}, "--no-such-flag"},
      {{"bench", "--engine", "nope", "--sim-itl-ms", "1", "--sim-prefill-tps", "1"}, "--engine"},
      {{"bench", "--engine", "sim"}, "--sim-prefill-tps"},
      {with(kQuick, {"-o", "xml"}), "-o"},
      {{"bench", "--sim-prefill-tps", "100", "--sim-itl-ms", "1", "-p", "0"}, "--prompt-tokens"},
      {{"bench", "--device", "no-such-device", "--model-shape", "qwen2.5-1.5b", "--quant", "w8a8"},
       "--device"},
      {{"bench", "--device", "rk3588-npu", "--model-shape", "no-such-shape", "--quant", "w8a8"},
       "--model-shape"},
      {{"bench", "--device", "rk3588-npu", "--model-shape", "deepseek-r1-distill-qwen-1.5b",
        "--quant", "w4a16"},
       "w8a8"},
      {with(kQuick, {"--dataset", "/nonexistent/prompts.json"}), "--dataset"},
      {with(kQuick, {"-c", "100000"}), "--concurrency"},
      {with(kQuick, {"--resume", "x.jsonl"}), "--resume"},
      {{"report", "/nonexistent/file.json"}, "/nonexistent/file.json"},
  };
  for (const auto& c : cases) {
    const Finished f = run_tokscope(c.args, dir);
    std::string joined;
    for (const auto& a : c.args) joined += a + " ";
    EXPECT_EQ(f.exit_code, 2) << joined << "\n" << f.err;
    EXPECT_NE(f.err.find(c.needle), std::string::npos) << joined << "\nstderr: " << f.err;
  }
}

TEST(Cli, ReportRejectsAFileThatIsNeitherResultNorJournal) {
  const auto dir = fresh_dir();
  std::ofstream(dir / "garbage.json") << "{\"hello\": 1}";
  const Finished f = run_tokscope({"report", "garbage.json"}, dir);
  EXPECT_EQ(f.exit_code, 2);
  EXPECT_NE(f.err.find("garbage.json"), std::string::npos) << f.err;
}

TEST(Cli, JsonOutputPipesAndSaysSimulated) {
  const auto dir = fresh_dir();
  const Finished f = run_tokscope(with(kQuick, {"-o", "json"}), dir);
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const json r = json::parse(f.out);  // stdout is exactly one JSON document
  EXPECT_EQ(r["schema"], "tokscope.result/1");
  EXPECT_TRUE(r["simulated"].get<bool>());
  EXPECT_TRUE(r["engine"]["simulated"].get<bool>());
  ASSERT_EQ(r["strata"].size(), 2U);
  for (const char* key :
       {"ttft_ms", "itl_ms", "tpot_ms", "e2e_ms", "tokenize_ms", "prefill_tps", "blended_tps"}) {
    for (const char* stat :
         {"mean", "stddev", "min", "p50", "p90", "p99", "max", "ci95_p50", "ci95_p99"}) {
      EXPECT_TRUE(r["strata"][0][key].contains(stat)) << key << "." << stat;
    }
  }
  EXPECT_EQ(r["requests"].size(), 12U);  // (1 warm-up + 5) x 2 strata
}

TEST(Cli, EveryFormatSaysSimulated) {
  const auto dir = fresh_dir();
  for (const std::string fmt : {"md", "csv", "jsonl", "html"}) {
    const Finished f = run_tokscope(with(kQuick, {"-o", fmt}), dir);
    ASSERT_EQ(f.exit_code, 0) << fmt << ": " << f.err;
    const bool says = f.out.find("SIMULATED") != std::string::npos ||
                      f.out.find("\"simulated\":true") != std::string::npos ||
                      f.out.find("simulated") != std::string::npos;
    EXPECT_TRUE(says) << fmt;
  }
  const Finished csv = run_tokscope(with(kQuick, {"-o", "csv"}), dir);
  std::size_t lines = 0;
  for (const char c : csv.out) lines += c == '\n' ? 1 : 0;
  EXPECT_EQ(lines, 3U);  // header + one row per stratum
}

TEST(Cli, DatasetPromptsAreTokenizedToTheExactLength) {
  const auto dir = fresh_dir();
  std::ofstream(dir / "prompts.json") << R"(["the quick brown fox", {"prompt": "jumps, over!"}])";
  const Finished f = run_tokscope(with(kQuick, {"--dataset", "prompts.json", "-o", "json"}), dir);
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const json r = json::parse(f.out);
  for (const auto& req : r["requests"]) {
    const int stratum = req["stratum"].get<int>();
    EXPECT_EQ(req["prompt_tokens"], stratum == 0 ? 8 : 32);
    EXPECT_GE(req["t_tokenized_ns"].get<std::int64_t>(), req["t_request_ns"].get<std::int64_t>());
  }
  EXPECT_EQ(r["strata"][0]["tokenize_ms"]["count"], 5);
}

TEST(Cli, ExceedingTheCeilingIsFlaggedAndExits1) {
  // The seed's story: 42 tokens/s claimed for 1.1 GB of weights at 33.8 GB/s (ceiling ~31).
  const auto dir = fresh_dir();
  const Finished f = run_tokscope({"bench",
                                   "--engine",
                                   "sim",
                                   "--sim-prefill-tps",
                                   "5000",
                                   "--sim-itl-ms",
                                   "23.8",
                                   "-p",
                                   "8",
                                   "-n",
                                   "4",
                                   "-r",
                                   "3",
                                   "--warmup",
                                   "0",
                                   "-q",
                                   "--model-shape",
                                   "qwen2.5-1.5b",
                                   "--quant",
                                   "w4a16_g128",
                                   "--bandwidth-gbps",
                                   "0.5",
                                   "-o",
                                   "json"},
                                  dir);
  EXPECT_EQ(f.exit_code, 1) << f.err;
  const json r = json::parse(f.out);
  const auto& flags = r["strata"][0]["flags"];
  EXPECT_NE(std::find(flags.begin(), flags.end(), "exceeds_physical_ceiling"), flags.end());
  EXPECT_GT(r["strata"][0]["efficiency"]["decode"].get<double>(), 1.05);
}

}  // namespace
}  // namespace tokscope::testing
