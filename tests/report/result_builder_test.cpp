#include "report/result_builder.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace tokscope::report {
namespace {

using nlohmann::json;

json header(json ceiling_inputs = nullptr) {
  return {{"type", "header"},
          {"settings", {{"seed", 7}, {"bootstrap_resamples", 200}}},
          {"strata",
           json::array(
               {{{"id", 0}, {"prompt_tokens", 100}, {"output_tokens", 4}, {"concurrency", 1}}})},
          {"engine", {{"name", "sim"}, {"simulated", true}}},
          {"ceiling_inputs", ceiling_inputs}};
}

// A request on a known timeline: submit at t0, first token after ttft_ms, then tokens every
// itl_ms (all in ms, converted to ns).
json request(int index, bool warmup, double ttft_ms, double itl_ms, int tokens = 4,
             bool ok = true) {
  const std::int64_t t0 = 1'000'000'000LL * (index + 1);
  json chunks = json::array();
  for (int i = 0; i < tokens; ++i) {
    chunks.push_back(t0 + static_cast<std::int64_t>((ttft_ms + i * itl_ms) * 1e6));
  }
  return {{"type", "request"},
          {"stratum", 0},
          {"index", index},
          {"warmup", warmup},
          {"ok", ok},
          {"error", ok ? json(nullptr) : json("x")},
          {"short", false},
          {"prompt_tokens", 100},
          {"output_tokens", tokens},
          {"t_request_ns", t0},
          {"t_tokenized_ns", t0},
          {"t_submit_ns", t0},
          {"t_done_ns", chunks.back()},
          {"chunks", tokens},
          {"chunk_t_ns", chunks}};
}

TEST(ResultBuilder, WarmupsWithAbsurdLatencyTouchNoAggregate) {
  std::vector<json> reqs;
  for (int i = 0; i < 3; ++i) reqs.push_back(request(i, true, 1e6, 1e5));  // absurd warm-ups
  for (int i = 3; i < 13; ++i) reqs.push_back(request(i, false, 10.0, 2.0));
  const json r = build_result(header(), reqs, {});
  const json& s = r["strata"][0];
  EXPECT_EQ(s["measured"], 10);
  EXPECT_EQ(s["warmup"], 3);
  // Latencies: a warm-up would raise the max; rates: it would drag the min towards 0.
  for (const char* metric : {"ttft_ms", "itl_ms", "tpot_ms", "e2e_ms", "ttft_e2e_ms"}) {
    EXPECT_LT(s[metric]["max"].get<double>(), 1e3) << metric;
  }
  for (const char* metric : {"prefill_tps", "blended_tps"}) {
    EXPECT_GT(s[metric]["min"].get<double>(), 1.0) << metric;
  }
  EXPECT_NEAR(s["ttft_ms"]["p50"].get<double>(), 10.0, 1e-9);
  EXPECT_NEAR(s["itl_ms"]["p50"].get<double>(), 2.0, 1e-9);
  EXPECT_EQ(s["itl_ms"]["count"], 30);  // 10 requests x 3 intervals
  EXPECT_NEAR(s["decode_tps_p50"].get<double>(), 500.0, 1e-6);
  EXPECT_NEAR(s["prefill_tps_p50"].get<double>(), 10000.0, 1e-6);
  // The warm-ups are still in the raw data, flagged.
  ASSERT_EQ(r["requests"].size(), 13U);
  EXPECT_TRUE(r["requests"][0]["warmup"].get<bool>());
  EXPECT_NEAR(r["requests"][0]["ttft_ms"].get<double>(), 1e6, 1e-3);
}

TEST(ResultBuilder, FailedRequestsAreCountedFlaggedAndExcluded) {
  std::vector<json> reqs{request(0, false, 10.0, 2.0), request(1, false, 500.0, 50.0, 4, false)};
  const json r = build_result(header(), reqs, {});
  const json& s = r["strata"][0];
  EXPECT_EQ(s["failed"], 1);
  EXPECT_EQ(s["measured"], 1);
  EXPECT_NEAR(s["ttft_ms"]["max"].get<double>(), 10.0, 1e-9);
  const auto& flags = s["flags"];
  EXPECT_NE(std::find(flags.begin(), flags.end(), "failed_requests"), flags.end());
  EXPECT_TRUE(has_blocking_flags(r));
}

TEST(ResultBuilder, DecodeAboveTheCeilingIsFlagged) {
  // 1.1 GB of weights at 33.8 GB/s: ceiling ~30.7 tok/s; a 42 tok/s "decode" is flagged.
  const json inputs = {{"bandwidth_gbps", 33.8},
                       {"weight_bytes_per_token", 1.1e9},
                       {"kv_bytes_per_context_token", 0.0},
                       {"source", "test"}};
  std::vector<json> reqs;
  for (int i = 0; i < 5; ++i) reqs.push_back(request(i, false, 50.0, 1000.0 / 42.0));
  const json r = build_result(header(inputs), reqs, {});
  const json& s = r["strata"][0];
  EXPECT_NEAR(s["ceiling"]["decode_tps"].get<double>(), 33.8 / 1.1, 1e-6);
  EXPECT_NEAR(s["efficiency"]["decode"].get<double>(), 42.0 / (33.8 / 1.1), 1e-6);
  const auto& flags = s["flags"];
  EXPECT_NE(std::find(flags.begin(), flags.end(), "exceeds_physical_ceiling"), flags.end());
  EXPECT_TRUE(has_blocking_flags(r));
}

TEST(ResultBuilder, BelowTheCeilingIsNotFlagged) {
  const json inputs = {
      {"bandwidth_gbps", 33.8}, {"weight_bytes_per_token", 1.1e9}, {"source", "test"}};
  std::vector<json> reqs;
  for (int i = 0; i < 5; ++i) reqs.push_back(request(i, false, 50.0, 1000.0 / 16.0));
  const json r = build_result(header(inputs), reqs, {});
  const auto& flags = r["strata"][0]["flags"];
  EXPECT_EQ(std::find(flags.begin(), flags.end(), "exceeds_physical_ceiling"), flags.end());
  EXPECT_FALSE(has_blocking_flags(r));
}

TEST(ResultBuilder, ExplainsBlendedVersusDecode) {
  std::vector<json> reqs;
  for (int i = 0; i < 5; ++i) reqs.push_back(request(i, false, 400.0, 10.0));
  const json r = build_result(header(), reqs, {});
  bool explained = false;
  for (const auto& n : r["notes"]) {
    explained = explained || n.get<std::string>().find("not a decode metric") != std::string::npos;
  }
  EXPECT_TRUE(explained);
  // blended = 4 tokens / 430 ms, far below 100 tok/s decode.
  EXPECT_NEAR(r["strata"][0]["blended_tps"]["p50"].get<double>(), 4 / 0.43, 1e-6);
}

TEST(ResultBuilder, OutliersAreFlaggedNotDropped) {
  std::vector<json> reqs;
  for (int i = 0; i < 9; ++i) reqs.push_back(request(i, false, 10.0 + 0.01 * i, 2.0));
  reqs.push_back(request(9, false, 100.0, 2.0));
  const json r = build_result(header(), reqs, {});
  const json& s = r["strata"][0];
  EXPECT_EQ(s["ttft_ms"]["count"], 10);  // kept
  EXPECT_NEAR(s["ttft_ms"]["max"].get<double>(), 100.0, 1e-9);
  ASSERT_EQ(s["outliers"]["ttft_ms"].size(), 1U);
  EXPECT_EQ(s["outliers"]["ttft_ms"][0], 9);
  EXPECT_EQ(r["requests"][9]["outlier"][0], "ttft_ms");
}

TEST(ResultBuilder, EmptyStratumHasNullStatisticsAndIsFlagged) {
  BuildOptions bo;
  bo.complete = false;
  bo.interrupted = true;
  const json r = build_result(header(), {}, bo);
  const json& s = r["strata"][0];
  EXPECT_EQ(s["ttft_ms"]["count"], 0);
  EXPECT_TRUE(s["ttft_ms"]["p50"].is_null());
  EXPECT_TRUE(s["decode_tps_p50"].is_null());
  EXPECT_TRUE(r["interrupted"].get<bool>());
  const auto& flags = s["flags"];
  EXPECT_NE(std::find(flags.begin(), flags.end(), "no_measured_requests"), flags.end());
}

TEST(ResultBuilder, SameInputSameResult) {
  std::vector<json> reqs;
  for (int i = 0; i < 8; ++i) reqs.push_back(request(i, false, 10.0 + i, 2.0 + 0.1 * i));
  EXPECT_EQ(build_result(header(), reqs, {}), build_result(header(), reqs, {}));
}

}  // namespace
}  // namespace tokscope::report

namespace tokscope::report {
namespace {

json throttled_run(bool discard) {
  json h = header();
  h["settings"]["discard_throttled"] = discard;
  h["environment"] = {{"telemetry",
                       {{"period_ms", 100},
                        {"channels", json::array({{{"name", "thermal.soc-thermal.temp_c"}}})}}}};
  return h;
}

std::vector<json> requests_with_one_throttled() {
  std::vector<json> rs;
  for (int i = 0; i < 6; ++i) {
    // The throttled request is also slow: if it counted, the ITL P50 would move.
    json r = request(i, false, 10, i == 5 ? 500 : 20);
    r["telemetry"] = {{"throttled", i == 5}};
    rs.push_back(std::move(r));
  }
  return rs;
}

TEST(ResultBuilder, ThrottledRequestsAreFlaggedAndKeptUnlessDiscarded) {
  const auto rs = requests_with_one_throttled();
  const json kept = build_result(throttled_run(false), rs, {});
  const json& s = kept["strata"][0];
  EXPECT_EQ(s["measured"], 6);
  EXPECT_EQ(s["throttled"], 1);
  EXPECT_EQ(s["discarded_throttled"], 0);
  EXPECT_NE(std::find(s["flags"].begin(), s["flags"].end(), "throttled"), s["flags"].end());
  EXPECT_EQ(s["itl_ms"]["max"], 500.0);

  const json discarded = build_result(throttled_run(true), rs, {});
  const json& d = discarded["strata"][0];
  EXPECT_EQ(d["measured"], 5);
  EXPECT_EQ(d["discarded_throttled"], 1);
  EXPECT_EQ(d["itl_ms"]["max"], 20.0);
  EXPECT_EQ(std::find(d["flags"].begin(), d["flags"].end(), "throttled"), d["flags"].end());
  // Raw data keeps the discarded request with its stamp.
  EXPECT_EQ(discarded["requests"].size(), 6U);
  EXPECT_TRUE(discarded["requests"][5]["telemetry"]["throttled"].get<bool>());
}

TEST(ResultBuilder, StratumTelemetrySeriesIsCutToTheStratumWindow) {
  const auto rs = requests_with_one_throttled();  // t_request from 1 s to 6 s
  const std::int64_t s_ns = 1'000'000'000;
  std::vector<json> lines = {
      {{"type", "telemetry"},
       {"t_ns", {s_ns / 2, s_ns, 3 * s_ns, 100 * s_ns}},  // first and last are outside
       {"throttled", {false, false, true, false}},
       {"values", {{30.0}, {40.0}, {nullptr}, {99.0}}}}};
  BuildOptions bo;
  bo.telemetry = &lines;
  const json result = build_result(throttled_run(false), rs, bo);
  const json& t = result["strata"][0]["telemetry"];
  ASSERT_TRUE(t.is_object()) << t;
  EXPECT_EQ(t["t_ms"], json::array({0.0, 2000.0}));
  EXPECT_EQ(t["channels"]["thermal.soc-thermal.temp_c"][0], 40.0);
  EXPECT_TRUE(t["channels"]["thermal.soc-thermal.temp_c"][1].is_null());
  EXPECT_EQ(t["throttled_rows"], 1);
  // Without telemetry lines there is no series.
  EXPECT_TRUE(build_result(throttled_run(false), rs, {})["strata"][0]["telemetry"].is_null());
}

}  // namespace
}  // namespace tokscope::report

namespace tokscope::report {
namespace {

// A constant 2 W read through a RAPL counter every 5 ms: each request's prefill (10 ms) must
// cost 20 mJ and its decode (3 ITLs of 20 ms) 120 mJ, i.e. 40 mJ per decode token.
TEST(ResultBuilder, EnergyPerPhaseFromARaplCounter) {
  json h = header();
  h["environment"] = {{"telemetry",
                       {{"period_ms", 5},
                        {"channels", json::array({{{"name", "thermal.x.temp_c"}},
                                                  {{"name", "rapl.package-0.energy_uj"},
                                                   {"wrap_at", 262143328850.0}}})}}}};
  json t_ns = json::array();
  json values = json::array();
  json throttled = json::array();
  for (std::int64_t t = 0; t <= 8'000'000'000; t += 5'000'000) {
    t_ns.push_back(t);
    values.push_back({40.0, 2.0 * static_cast<double>(t) / 1e3});  // µJ = 2 W × t
    throttled.push_back(false);
  }
  const std::vector<json> lines = {
      {{"type", "telemetry"}, {"t_ns", t_ns}, {"values", values}, {"throttled", throttled}}};
  std::vector<json> rs;
  for (int i = 0; i < 5; ++i) rs.push_back(request(i, false, 10, 20));
  BuildOptions bo;
  bo.telemetry = &lines;
  const json result = build_result(h, rs, bo);
  const json& e = result["requests"][0]["energy"];
  EXPECT_EQ(e["source"], "rapl.package-0.energy_uj");
  EXPECT_NEAR(e["prefill_mj"].get<double>(), 20.0, 1e-6);
  EXPECT_NEAR(e["decode_mj"].get<double>(), 120.0, 1e-6);
  EXPECT_NEAR(e["prefill_mj_per_token"].get<double>(), 0.2, 1e-9);
  EXPECT_NEAR(e["decode_mj_per_token"].get<double>(), 40.0, 1e-6);
  const json& s = result["strata"][0];
  EXPECT_EQ(s["energy_source"], "rapl.package-0.energy_uj");
  EXPECT_NEAR(s["decode_mj_per_token"]["p50"].get<double>(), 40.0, 1e-6);
  EXPECT_EQ(s["decode_mj_per_token"]["count"], 5);
  // No energy channel: no energy figures, never zeros.
  h["environment"]["telemetry"]["channels"] = json::array({{{"name", "thermal.x.temp_c"}}});
  const json none = build_result(h, rs, bo);
  EXPECT_TRUE(none["strata"][0]["decode_mj_per_token"].is_null());
  EXPECT_FALSE(none["requests"][0].contains("energy"));
}

}  // namespace
}  // namespace tokscope::report
