// Idle baseline and external power logs in the result: the baseline is the time-weighted mean
// power over the run's idle window, subtracted from each phase only when asked; a power-log
// series replaces the telemetry channels as the energy source.
#include <gtest/gtest.h>

#include "report/energy_attribution.hpp"
#include "report/result_builder.hpp"

namespace tokscope::report {
namespace {

using nlohmann::json;

json header(bool subtract_idle) {
  return {
      {"type", "header"},
      {"settings", {{"seed", 7}, {"bootstrap_resamples", 100}, {"subtract_idle", subtract_idle}}},
      {"strata",
       json::array(
           {{{"id", 0}, {"prompt_tokens", 100}, {"output_tokens", 4}, {"concurrency", 1}}})},
      {"engine", {{"name", "sim"}, {"simulated", true}}},
      {"environment",
       {{"idle_baseline", {{"t0_ns", 100'000'000}, {"t1_ns", 600'000'000}}},
        {"telemetry", {{"channels", json::array()}}}}}};
}

// Submit at (index + 1) s; first token 10 ms later, then one every 20 ms.
json request(int index) {
  const std::int64_t t0 = 1'000'000'000LL * (index + 1);
  json chunks = json::array();
  for (int i = 0; i < 4; ++i) chunks.push_back(t0 + (10 + i * 20) * 1'000'000LL);
  return {{"type", "request"},
          {"stratum", 0},
          {"index", index},
          {"warmup", false},
          {"ok", true},
          {"error", nullptr},
          {"short", false},
          {"prompt_tokens", 100},
          {"output_tokens", 4},
          {"t_request_ns", t0},
          {"t_tokenized_ns", t0},
          {"t_submit_ns", t0},
          {"t_done_ns", chunks.back()},
          {"chunks", 4},
          {"chunk_t_ns", chunks}};
}

// A meter log on tokscope's timeline: idle_w before 0.9 s, run_w after, every 10 ms.
EnergySeries meter(double idle_w, double run_w) {
  EnergySeries s;
  s.channel = "power-log:meter.csv";
  for (std::int64_t t = 0; t <= 8'000'000'000; t += 10'000'000) {
    s.t_ns.push_back(t);
    s.values.push_back((t < 900'000'000 ? idle_w : run_w) * 1e6);  // µW
  }
  return s;
}

TEST(EnergyBaseline, PowerLogIsTheSourceAndTheIdleBaselineIsSubtractedWhenAsked) {
  const EnergySeries log = meter(1.0, 3.0);
  std::vector<json> rs;
  for (int i = 0; i < 3; ++i) rs.push_back(request(i));
  BuildOptions bo;
  bo.power_log = &log;
  bo.power_log_info = {{"file", "meter.csv"}};
  const json result = build_result(header(true), rs, bo);
  EXPECT_EQ(result["energy"]["source"], "power-log:meter.csv");
  EXPECT_EQ(result["energy"]["power_log"]["file"], "meter.csv");
  EXPECT_NEAR(result["energy"]["idle_baseline"]["power_mw"].get<double>(), 1000.0, 1e-6);
  EXPECT_EQ(result["energy"]["idle_baseline"]["status"], "complete");
  const json& e = result["requests"][0]["energy"];
  EXPECT_NEAR(e["prefill_mj"].get<double>(), 30.0, 1e-6);      // 3 W × 10 ms
  EXPECT_NEAR(e["prefill_net_mj"].get<double>(), 20.0, 1e-6);  // − 1 W × 10 ms
  EXPECT_NEAR(e["decode_mj"].get<double>(), 180.0, 1e-6);      // 3 W × 60 ms
  EXPECT_NEAR(e["decode_net_mj"].get<double>(), 120.0, 1e-6);
  EXPECT_NEAR(e["decode_net_mj_per_token"].get<double>(), 40.0, 1e-6);  // 3 decode steps
  EXPECT_TRUE(e["net_clamped"].empty());
  const json& s = result["strata"][0];
  EXPECT_EQ(s["energy_source"], "power-log:meter.csv");
  EXPECT_NEAR(s["decode_net_mj_per_token"]["p50"].get<double>(), 40.0, 1e-6);
  EXPECT_NEAR(s["prefill_net_mj_per_token"]["p50"].get<double>(), 0.2, 1e-9);
  EXPECT_NEAR(s["decode_mj_per_token"]["p50"].get<double>(), 60.0, 1e-6);
}

TEST(EnergyBaseline, BaselineIsReportedButNotSubtractedUnlessAsked) {
  const EnergySeries log = meter(1.0, 3.0);
  BuildOptions bo;
  bo.power_log = &log;
  const json result = build_result(header(false), {request(0)}, bo);
  EXPECT_NEAR(result["energy"]["idle_baseline"]["power_mw"].get<double>(), 1000.0, 1e-6);
  EXPECT_FALSE(result["requests"][0]["energy"].contains("decode_net_mj"));
  EXPECT_FALSE(result["strata"][0].contains("decode_net_mj_per_token"));
}

TEST(EnergyBaseline, ANetEnergyBelowZeroIsClampedAndNamed) {
  const EnergySeries log = meter(5.0, 3.0);  // idle "hotter" than the run
  BuildOptions bo;
  bo.power_log = &log;
  const json result = build_result(header(true), {request(0)}, bo);
  const json& e = result["requests"][0]["energy"];
  EXPECT_EQ(e["decode_net_mj"].get<double>(), 0.0);
  EXPECT_EQ(e["net_clamped"], json::array({"prefill", "decode"}));
}

TEST(EnergyBaseline, AnIdleWindowTheSeriesDoesNotCoverHasNoPower) {
  EnergySeries log = meter(1.0, 3.0);
  const json b = idle_baseline(log, 9'000'000'000, 9'500'000'000);  // after the last sample
  EXPECT_TRUE(b["power_mw"].is_null());
  EXPECT_NE(b["status"].get<std::string>().find("unavailable"), std::string::npos) << b.dump();
}

}  // namespace
}  // namespace tokscope::report
