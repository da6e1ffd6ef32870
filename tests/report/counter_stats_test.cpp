// Stratum counter statistics and derived figures from hand-made request records, through
// build_result (the path of bench and `tokscope report`).
#include "report/counter_stats.hpp"

#include <gtest/gtest.h>

#include "report/result_builder.hpp"

namespace tokscope::report {
namespace {

using nlohmann::json;

json header(std::uint32_t concurrency = 1, json settings = json::object()) {
  settings["seed"] = 7;
  settings["bootstrap_resamples"] = 50;
  return {{"type", "header"},
          {"settings", settings},
          {"strata", json::array({{{"id", 0},
                                   {"prompt_tokens", 100},
                                   {"output_tokens", 4},
                                   {"concurrency", concurrency}}})},
          {"engine", {{"name", "sim"}, {"simulated", true}}},
          // the peak for bandwidth_utilization: 0.064 GB/s
          {"ceiling_inputs", {{"bandwidth_gbps", 0.064}, {"source", "test"}}}};
}

json counted(double v) {
  return {{"value", v}, {"count", v}, {"scaled", false}};
}
json unavailable() {
  return {{"value", nullptr}, {"unavailable", "unavailable: not supported (test)"}};
}

// Submit at t0, first token at +10 ms, then 3 more tokens 2 ms apart, done at the last token:
// prefill 10 ms over 100 prompt tokens, decode 6 ms over 3 tokens. Counts scale with `k`.
json request(int index, bool warmup, double k, bool cycles_counted = true) {
  const std::int64_t t0 = 1'000'000'000LL * (index + 1);
  json chunks = json::array();
  for (int i = 0; i < 4; ++i) chunks.push_back(t0 + 10'000'000 + i * 2'000'000);
  json prefill = {{"instructions", counted(2e6 * k)},
                  {"cycles", cycles_counted ? counted(1e6 * k) : unavailable()},
                  {"l3d_cache_refill", counted(1000 * k)},
                  {"task-clock", counted(9e6)}};
  json decode = {{"instructions", counted(3e6 * k)},
                 {"cycles", cycles_counted ? counted(2e6 * k) : unavailable()},
                 {"l3d_cache_refill", counted(3000 * k)},
                 {"task-clock", counted(5e6)}};
  return {{"type", "request"},
          {"stratum", 0},
          {"index", index},
          {"warmup", warmup},
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
          {"chunk_t_ns", chunks},
          {"counters", {{"scope", "process"}, {"prefill", prefill}, {"decode", decode}}}};
}

double at(const json& j, const char* a, const char* b, const char* c) {
  return j.at(a).at(b).at(c).get<double>();
}

TEST(CounterStats, AggregatesEventsAndDerivedFiguresOfMeasuredRequests) {
  std::vector<json> reqs;
  reqs.push_back(request(0, true, 1000.0));  // an absurd warm-up: excluded
  for (int i = 1; i <= 5; ++i) reqs.push_back(request(i, false, 1.0));
  const json r = build_result(header(), reqs, {});
  const json& c = r["strata"][0]["counters"];
  ASSERT_TRUE(c.is_object()) << r["strata"][0].dump();
  EXPECT_EQ(c["scope"], "process");
  EXPECT_FALSE(c["overlapping"].get<bool>());
  EXPECT_EQ(c["prefill"]["instructions"]["count"], 5);
  EXPECT_DOUBLE_EQ(at(c, "prefill", "instructions", "max"), 2e6);
  EXPECT_DOUBLE_EQ(at(c, "decode", "cycles", "p50"), 2e6);
  EXPECT_DOUBLE_EQ(at(c, "decode", "task-clock", "mean"), 5e6);
  const json& d = c["derived"];
  EXPECT_EQ(d["line_fill_event"], "l3d_cache_refill");
  EXPECT_DOUBLE_EQ(d["peak_gbps"].get<double>(), 0.064);
  EXPECT_DOUBLE_EQ(at(d, "prefill", "ipc", "p50"), 2.0);
  EXPECT_DOUBLE_EQ(at(d, "decode", "ipc", "p50"), 1.5);
  EXPECT_DOUBLE_EQ(at(d, "prefill", "instructions_per_token", "p50"), 2e4);  // 2e6 / 100
  EXPECT_DOUBLE_EQ(at(d, "decode", "instructions_per_token", "p50"), 1e6);   // 3e6 / 3
  EXPECT_DOUBLE_EQ(at(d, "decode", "dram_bytes_per_token_estimate", "p50"), 64000.0);
  EXPECT_NEAR(at(d, "decode", "dram_gbps_estimate", "p50"), 0.032, 1e-12);  // 192 kB / 6 ms
  EXPECT_NEAR(at(d, "decode", "bandwidth_utilization", "p50"), 0.5, 1e-12);
  EXPECT_NEAR(at(d, "prefill", "dram_gbps_estimate", "p50"), 0.0064, 1e-12);  // 64 kB / 10 ms
}

TEST(CounterStats, UnavailableEventsStayNullWithTheReason) {
  std::vector<json> reqs;
  for (int i = 0; i < 3; ++i) reqs.push_back(request(i, false, 1.0, /*cycles_counted=*/false));
  const json r = build_result(header(), reqs, {});
  const json& c = r["strata"][0]["counters"];
  EXPECT_EQ(c["decode"]["cycles"]["count"], 0);
  EXPECT_TRUE(c["decode"]["cycles"]["p50"].is_null());
  EXPECT_EQ(c["decode"]["cycles"]["unavailable"], "unavailable: not supported (test)");
  EXPECT_FALSE(c["decode"]["instructions"].contains("unavailable"));
  EXPECT_EQ(c["derived"]["decode"]["ipc"]["count"], 0);  // needs cycles
  EXPECT_TRUE(c["derived"]["decode"]["ipc"]["p50"].is_null());
  EXPECT_DOUBLE_EQ(at(c["derived"], "decode", "instructions_per_token", "p50"), 1e6);
}

TEST(CounterStats, OverlappingWindowsKeepIpcOnly) {
  std::vector<json> reqs;
  for (int i = 0; i < 3; ++i) reqs.push_back(request(i, false, 1.0));
  const json r = build_result(header(2), reqs, {});
  const json& c = r["strata"][0]["counters"];
  EXPECT_TRUE(c["overlapping"].get<bool>());
  EXPECT_TRUE(c["note"].is_string());
  EXPECT_DOUBLE_EQ(at(c["derived"], "decode", "ipc", "p50"), 1.5);
  for (const char* k :
       {"instructions_per_token", "cycles_per_token", "dram_bytes_per_token_estimate",
        "dram_gbps_estimate", "bandwidth_utilization"}) {
    EXPECT_TRUE(c["derived"]["decode"][k].is_null()) << k;
  }
}

TEST(CounterStats, LineFillEventFromThePlanOrTheFirstCountedCandidate) {
  std::vector<json> reqs;
  for (int i = 0; i < 2; ++i) {
    json q = request(i, false, 1.0);
    q["counters"]["decode"].erase("l3d_cache_refill");
    q["counters"]["decode"]["cache-misses"] = counted(6000);
    reqs.push_back(std::move(q));
  }
  json c = build_result(header(), reqs, {})["strata"][0]["counters"];
  EXPECT_EQ(c["derived"]["line_fill_event"], "cache-misses");
  EXPECT_DOUBLE_EQ(at(c["derived"], "decode", "dram_bytes_per_token_estimate", "p50"),
                   6000.0 * 64 / 3);
  c = build_result(header(1, {{"counter_line_fill_event", "task-clock"}}), reqs,
                   {})["strata"][0]["counters"];
  EXPECT_EQ(c["derived"]["line_fill_event"], "task-clock");
  EXPECT_DOUBLE_EQ(at(c["derived"], "decode", "dram_bytes_per_token_estimate", "p50"),
                   5e6 * 64 / 3);
}

TEST(CounterStats, NullWithoutCountersInTheRecords) {
  std::vector<json> reqs;
  for (int i = 0; i < 2; ++i) {
    json q = request(i, false, 1.0);
    q.erase("counters");
    reqs.push_back(std::move(q));
  }
  EXPECT_TRUE(build_result(header(), reqs, {})["strata"][0]["counters"].is_null());
}

}  // namespace
}  // namespace tokscope::report
