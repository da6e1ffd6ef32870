// `tokscope soak` end to end through the real binary, with the sim engine and the telemetry
// sampler reading a copy of the RK3588 fixture tree: per-window speed and temperatures, the
// journal written window by window (and kept on Ctrl-C), throttling seen when a zone heats up
// during the run, and usage errors naming the flag.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/sysfs_fixture.hpp"
#include "process.hpp"

namespace tokscope::testing {
namespace {

using nlohmann::json;

std::vector<std::string> soak_args(const std::filesystem::path& root, const char* minutes) {
  return {"soak",        "--engine",     "sim",  "--sim-prefill-tps",
          "20000",       "--sim-itl-ms", "2",    "-p",
          "32",          "-n",           "64",   "--minutes",
          minutes,       "--window-s",   "1",    "--sysfs-root",
          root.string(), "--sample-ms",  "20",   "--journal",
          "soak.jsonl",  "-o",           "json", "-q"};
}

// The journal's lines of one type.
std::vector<json> journal_lines(const std::filesystem::path& path, const std::string& type) {
  std::vector<json> out;
  std::istringstream in(slurp(path));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    json j = json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.value("type", "") == type) out.push_back(std::move(j));
  }
  return out;
}

std::filesystem::path zone_temp(const std::filesystem::path& root, const std::string& type) {
  for (const auto& z : std::filesystem::directory_iterator(root / "sys/class/thermal")) {
    if (slurp(z.path() / "type").rfind(type, 0) == 0) return z.path() / "temp";
  }
  return {};
}

TEST(Soak, DecodesForTheDurationAndJournalsEveryWindow) {
  const auto dir = fresh_dir();
  const auto root = copy_sysfs_fixture("rk3588");
  const Finished f = run_tokscope(soak_args(root, "0.05"), dir);
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const json r = json::parse(f.out);
  EXPECT_EQ(r["schema"], "tokscope.soak/1");
  EXPECT_TRUE(r["simulated"].get<bool>());
  EXPECT_NEAR(r["elapsed_s"].get<double>(), 3.0, 0.05);
  const json& windows = r["windows"];
  ASSERT_GE(windows.size(), 2U) << r.dump(1);
  ASSERT_LE(windows.size(), 3U);
  for (const auto& w : windows) {
    if (!w["complete"].get<bool>()) continue;
    EXPECT_NEAR(w["decode_tps_p50"].get<double>(), 500.0, 50.0) << w;
    EXPECT_GT(w["decode_tokens"].get<int>(), 300) << w;
    // The fixture's hottest zones are the big cores at 46.153 °C.
    EXPECT_NEAR(w["junction_max_c"].get<double>(), 46.153, 1e-6) << w;
    EXPECT_TRUE(w["temperatures_c"]["thermal.soc-thermal.temp_c"]["mean"].is_number()) << w;
    EXPECT_TRUE(w["frequencies"]["cpufreq.policy4.cur_khz"]["mean"].is_number()) << w;
    EXPECT_GT(w["rows"].get<int>(), 10) << w;
    EXPECT_FALSE(w["throttled"].get<bool>());
  }
  EXPECT_EQ(r["first_throttle_s"], "none");
  EXPECT_EQ(r["bands"]["available"], true);
  EXPECT_EQ(r["bands"]["bands"][0]["label"], "<60");
  EXPECT_EQ(r["bands"]["bands"][0]["windows"].get<std::size_t>(), windows.size());

  // The journal holds a header, every window as the result shows it, and the end line.
  const auto journal = dir / "soak.jsonl";
  ASSERT_EQ(journal_lines(journal, "header").size(), 1U);
  const auto lines = journal_lines(journal, "window");
  ASSERT_EQ(lines.size(), windows.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i]["index"], windows[i]["index"]);
    EXPECT_EQ(lines[i]["decode_tps_p50"], windows[i]["decode_tps_p50"]);
  }
  const auto end = journal_lines(journal, "end");
  ASSERT_EQ(end.size(), 1U);
  EXPECT_FALSE(end[0]["interrupted"].get<bool>());
}

TEST(Soak, MarkdownHasBothTablesAndSaysSimulated) {
  const auto dir = fresh_dir();
  auto args = soak_args(sysfs_fixture("rk3588"), "0.05");
  args[args.size() - 2] = "md";
  const Finished f = run_tokscope(args, dir);
  ASSERT_EQ(f.exit_code, 0) << f.err;
  EXPECT_NE(f.out.find("## Per window — SIMULATED"), std::string::npos) << f.out;
  EXPECT_NE(f.out.find("## Junction temperature bands — SIMULATED"), std::string::npos) << f.out;
  EXPECT_NE(f.out.find("| <60 | 3 |"), std::string::npos) << f.out;
  EXPECT_NE(f.out.find("no throttling seen — SIMULATED"), std::string::npos) << f.out;
}

TEST(Soak, SigintKeepsTheWindowsInTheJournal) {
  const auto dir = fresh_dir();
  const auto root = copy_sysfs_fixture("rk3588");
  Process p(soak_args(root, "1"), dir);
  const auto journal = dir / "soak.jsonl";
  // header + 2 windows
  ASSERT_TRUE(
      wait_until([&] { return complete_lines(journal) >= 3; }, std::chrono::milliseconds(20000)));
  p.signal(SIGINT);
  const Finished f = p.wait();
  EXPECT_EQ(f.exit_code, 1) << f.err;
  EXPECT_NE(f.err.find("interrupted"), std::string::npos) << f.err;
  const auto lines = journal_lines(journal, "window");
  ASSERT_GE(lines.size(), 2U);
  EXPECT_TRUE(lines[0]["complete"].get<bool>());
  EXPECT_NEAR(lines[0]["decode_tps_p50"].get<double>(), 500.0, 50.0);
  const auto end = journal_lines(journal, "end");
  ASSERT_EQ(end.size(), 1U);
  EXPECT_TRUE(end[0]["interrupted"].get<bool>());
  // The partial result on stdout has the same windows, the last one cut short.
  const json r = json::parse(f.out);
  EXPECT_TRUE(r["interrupted"].get<bool>());
  ASSERT_EQ(r["windows"].size(), lines.size());
  EXPECT_LT(r["elapsed_s"].get<double>(), 30.0);
}

TEST(Soak, AZoneHeatingOverItsTripDuringTheRunIsTheFirstThrottling) {
  const auto dir = fresh_dir();
  const auto root = copy_sysfs_fixture("rk3588");
  const auto soc = zone_temp(root, "soc-thermal");
  ASSERT_FALSE(soc.empty());
  Process p(soak_args(root, "0.05"), dir);
  const auto journal = dir / "soak.jsonl";
  // Once the first window is journaled, soc-thermal (passive trip 75 °C) reads 80 °C.
  ASSERT_TRUE(
      wait_until([&] { return complete_lines(journal) >= 2; }, std::chrono::milliseconds(20000)));
  write_file(soc, "80000\n");
  const Finished f = p.wait();
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const json r = json::parse(f.out);
  EXPECT_FALSE(r["windows"][0]["throttled"].get<bool>()) << r["windows"][0];
  ASSERT_TRUE(r["first_throttle"].is_object()) << r.dump(1);
  EXPECT_GE(r["first_throttle_s"].get<double>(), 1.0);
  EXPECT_LT(r["first_throttle_s"].get<double>(), 3.0);
  EXPECT_EQ(r["first_throttle"]["channel"], "thermal.soc-thermal.temp_c");
  EXPECT_NEAR(r["first_throttle"]["value_c"].get<double>(), 80.0, 1e-9);
  const json& last = r["windows"][r["windows"].size() - 1];
  EXPECT_TRUE(last["throttled"].get<bool>()) << last;
  EXPECT_NEAR(last["junction_max_c"].get<double>(), 80.0, 1e-9);
}

TEST(Soak, BadMinutesOrWindowIsAUsageErrorNamingTheFlag) {
  const auto dir = fresh_dir();
  const auto root = sysfs_fixture("rk3588");
  for (const char* minutes : {"0", "-1", "1441", "abc"}) {
    const Finished f = run_tokscope(soak_args(root, minutes), dir);
    EXPECT_EQ(f.exit_code, 2) << minutes;
    EXPECT_NE(f.err.find("--minutes"), std::string::npos) << minutes << ": " << f.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "soak.jsonl")) << minutes;
  }
  auto args = soak_args(root, "1");
  args[14] = "0";  // --window-s 0
  ASSERT_EQ(args[13], "--window-s");
  Finished f = run_tokscope(args, dir);
  EXPECT_EQ(f.exit_code, 2);
  EXPECT_NE(f.err.find("--window-s"), std::string::npos) << f.err;

  f = run_tokscope({"soak", "--engine", "sim", "--sim-prefill-tps", "100", "--sim-itl-ms", "2"},
                   dir);
  EXPECT_EQ(f.exit_code, 2);
  EXPECT_NE(f.err.find("--minutes"), std::string::npos) << f.err;
}

}  // namespace
}  // namespace tokscope::testing
