#include "report/result_builder.hpp"

#include <gtest/gtest.h>

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
  const json r = build_result(header(), {}, {false, true});
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
