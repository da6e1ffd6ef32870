// `tokscope bench` with the telemetry sampler reading a fixture tree modelled on an RK3588 board
// (--sysfs-root), end to end through the real binary: every request stamped, per-stratum time
// series, families reported available, and `report JOURNAL` rebuilding the same figures.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/sysfs_fixture.hpp"
#include "process.hpp"

namespace tokscope::testing {
namespace {

using nlohmann::json;

std::vector<std::string> bench_args(const std::filesystem::path& root, const char* sample_ms) {
  return {"bench",
          "--engine",
          "sim",
          "--sim-prefill-tps",
          "20000",
          "--sim-itl-ms",
          "2",
          "-p",
          "64",
          "-n",
          "16",
          "-r",
          "4",
          "--warmup",
          "1",
          "--sysfs-root",
          root.string(),
          "--sample-ms",
          sample_ms,
          "--journal",
          "run.journal.jsonl",
          "-o",
          "json"};
}

TEST(Telemetry, BenchStampsEveryRequestFromTheBoardTree) {
  const auto dir = fresh_dir();
  const auto root = sysfs_fixture("rk3588");
  const Finished f = run_tokscope(bench_args(root, "5"), dir);
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const json r = json::parse(f.out);
  const json& env = r["environment"];
  EXPECT_EQ(env["sampler_period_ms"], 5.0);
  for (const char* family : {"thermal", "cpufreq", "devfreq", "npu_load"}) {
    EXPECT_EQ(env["telemetry_available"][family], true) << family;
  }
  EXPECT_TRUE(env["sampler_cost"]["rows"].get<int>() >= 1);
  // Every request, warm-ups included, carries the stamps the spec asks for.
  ASSERT_EQ(r["requests"].size(), 5U);
  for (const auto& req : r["requests"]) {
    const json& t = req["telemetry"];
    ASSERT_TRUE(t.contains("submit")) << t;
    ASSERT_TRUE(t.contains("done")) << t;
    EXPECT_EQ(t["submit"]["thermal.soc-thermal.temp_c"].is_number(), true) << t;
    EXPECT_EQ(t["done"]["cpufreq.policy4.cur_khz"].is_number(), true) << t;
    EXPECT_EQ(t["done"]["devfreq.dmc.cur_hz"].is_number(), true) << t;
    EXPECT_FALSE(t["throttled"].get<bool>());
  }
  const json& series = r["strata"][0]["telemetry"];
  ASSERT_TRUE(series.is_object()) << series;
  EXPECT_GE(series["t_ms"].size(), 1U);
  EXPECT_EQ(series["channels"]["thermal.soc-thermal.temp_c"].size(), series["t_ms"].size());

  // The journal holds the rows: the rebuilt result has the same stamps and series.
  const Finished rebuilt = run_tokscope({"report", "run.journal.jsonl", "-o", "json"}, dir);
  ASSERT_EQ(rebuilt.exit_code, 0) << rebuilt.err;
  const json again = json::parse(rebuilt.out);
  EXPECT_EQ(again["strata"][0]["telemetry"], series);
  EXPECT_EQ(again["requests"][3]["telemetry"], r["requests"][3]["telemetry"]);
  EXPECT_EQ(again["environment"]["sampler_cost"], env["sampler_cost"]);
}

TEST(Telemetry, AZoneOverItsPassiveTripMarksRequestsThrottledAndDiscardExcludesThem) {
  const auto dir = fresh_dir();
  const auto root = copy_sysfs_fixture("rk3588");
  // soc-thermal's first passive trip is 75 °C: make it 80 °C.
  const auto zones = root / "sys" / "class" / "thermal";
  bool written = false;
  for (const auto& z : std::filesystem::directory_iterator(zones)) {
    if (slurp(z.path() / "type").rfind("soc-thermal", 0) == 0) {
      write_file(z.path() / "temp", "80000\n");
      written = true;
    }
  }
  ASSERT_TRUE(written);
  Finished f = run_tokscope(bench_args(root, "5"), dir);
  EXPECT_EQ(f.exit_code, 0) << f.err;
  json r = json::parse(f.out);
  EXPECT_EQ(r["strata"][0]["throttled"], 4);
  EXPECT_EQ(r["strata"][0]["measured"], 4);
  EXPECT_NE(f.out.find("\"throttled\""), std::string::npos);
  EXPECT_EQ(r["strata"][0]["flags"].dump().find("throttled") != std::string::npos, true);

  std::filesystem::remove(dir / "run.journal.jsonl");
  auto args = bench_args(root, "5");
  args.push_back("--discard-throttled");
  f = run_tokscope(args, dir);
  r = json::parse(f.out);
  EXPECT_EQ(r["strata"][0]["measured"], 0);
  EXPECT_EQ(r["strata"][0]["discarded_throttled"], 4);
  EXPECT_EQ(r["requests"].size(), 5U);  // raw data keeps them
}

TEST(Telemetry, SamplerOffOrEmptyTreeSaysWhy) {
  const auto dir = fresh_dir();
  const auto empty = dir / "empty-root";
  std::filesystem::create_directories(empty);
  Finished f = run_tokscope(bench_args(empty, "100"), dir);
  ASSERT_EQ(f.exit_code, 0) << f.err;
  json r = json::parse(f.out);
  const std::string thermal = r["environment"]["telemetry_available"]["thermal"];
  EXPECT_EQ(thermal.rfind("unavailable: ", 0), 0U) << thermal;
  EXPECT_FALSE(r["requests"][0].contains("telemetry"));

  std::filesystem::remove(dir / "run.journal.jsonl");
  f = run_tokscope(bench_args(sysfs_fixture("rk3588"), "0"), dir);
  ASSERT_EQ(f.exit_code, 0) << f.err;
  r = json::parse(f.out);
  EXPECT_NE(
      r["environment"]["telemetry_available"]["thermal"].get<std::string>().find("--sample-ms 0"),
      std::string::npos);
  EXPECT_TRUE(r["environment"]["sampler_period_ms"].is_null());
}

TEST(Telemetry, BadSamplePeriodIsAUsageError) {
  const auto dir = fresh_dir();
  const Finished f = run_tokscope(bench_args(sysfs_fixture("rk3588"), "0.5"), dir);
  EXPECT_EQ(f.exit_code, 2);
  EXPECT_NE(f.err.find("--sample-ms"), std::string::npos) << f.err;
}

}  // namespace
}  // namespace tokscope::testing
