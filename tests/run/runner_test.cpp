#include "run/runner.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "engines/sim_engine.hpp"

namespace tokscope::run {
namespace {

using nlohmann::json;

struct Collected {
  std::mutex m;
  std::vector<json> records;
  RecordSink sink() {
    return [this](const json& r) -> Expected<void> {
      std::lock_guard lock(m);
      records.push_back(r);
      return {};
    };
  }
};

std::unique_ptr<engines::Engine> sim(double prefill_tps, double itl_ms) {
  engines::ExplicitScheduleParams p;
  p.prefill_tps = prefill_tps;
  p.itl_ms = itl_ms;
  return std::make_unique<engines::SimEngine>(engines::make_explicit_schedule(p));
}

TEST(Runner, RunsWarmupThenMeasuredAndRecordsEveryRequest) {
  auto engine = sim(100000, 0.2);
  platform::MonotonicClock clock;
  std::atomic<bool> interrupted{false};
  RunnerOptions o;
  o.warmup = 2;
  o.repetitions = 3;
  Runner runner(*engine, clock, interrupted, o);
  Collected c;
  const auto strata = workload::expand_strata({16, 32}, {5}, {1});
  auto out = runner.run(strata, {}, c.sink(), nullptr);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out->completed, 10U);
  EXPECT_EQ(out->failed, 0U);
  ASSERT_EQ(c.records.size(), 10U);
  int warmups = 0;
  for (const auto& r : c.records) {
    EXPECT_TRUE(r["ok"].get<bool>());
    EXPECT_EQ(r["output_tokens"], 5);
    EXPECT_EQ(r["chunk_t_ns"].size(), 5U);
    EXPECT_EQ(r["warmup"].get<bool>(), r["index"].get<int>() < 2);
    warmups += r["warmup"].get<bool>() ? 1 : 0;
    EXPECT_EQ(r["prompt_tokens"], r["stratum"].get<int>() == 0 ? 16 : 32);
    EXPECT_LE(r["t_request_ns"].get<std::int64_t>(), r["t_submit_ns"].get<std::int64_t>());
    EXPECT_LT(r["t_submit_ns"].get<std::int64_t>(), r["chunk_t_ns"][0].get<std::int64_t>());
  }
  EXPECT_EQ(warmups, 4);
}

TEST(Runner, ConcurrencyKeepsRequestsInFlightTogether) {
  // 8 requests of ~20 ms each with 4 in flight. Asserted by overlap, not by wall time (timing
  // claims belong in bench/).
  auto engine = sim(1e9, 4.0);
  platform::MonotonicClock clock;
  std::atomic<bool> interrupted{false};
  RunnerOptions o;
  o.warmup = 0;
  o.repetitions = 8;
  Runner runner(*engine, clock, interrupted, o);
  Collected c;
  auto out = runner.run(workload::expand_strata({8}, {5}, {4}), {}, c.sink(), nullptr);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(c.records.size(), 8U);
  // Every request overlapped another one in flight (closed loop with 4 workers).
  for (const auto& a : c.records) {
    bool overlap = false;
    for (const auto& b : c.records) {
      if (&a == &b) continue;
      overlap = overlap || (a["t_submit_ns"] < b["t_done_ns"] && b["t_submit_ns"] < a["t_done_ns"]);
    }
    EXPECT_TRUE(overlap) << a.dump();
  }
}

TEST(Runner, TimedOutRequestIsRecordedAsFailedAndTheRunGoesOn) {
  auto engine = sim(1000, 50.0);  // 5 tokens x 50 ms = 250 ms > 100 ms timeout
  platform::MonotonicClock clock;
  std::atomic<bool> interrupted{false};
  RunnerOptions o;
  o.warmup = 0;
  o.repetitions = 2;
  o.timeout_s = 0.1;
  Runner runner(*engine, clock, interrupted, o);
  Collected c;
  auto out = runner.run(workload::expand_strata({10}, {5}, {1}), {}, c.sink(), nullptr);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->failed, 2U);
  ASSERT_EQ(c.records.size(), 2U);
  EXPECT_FALSE(c.records[0]["ok"].get<bool>());
  EXPECT_NE(c.records[0]["error"].get<std::string>().find("timeout"), std::string::npos);
}

TEST(Runner, ResumeSkipsRequestsAlreadyDone) {
  auto engine = sim(1e6, 0.1);
  platform::MonotonicClock clock;
  std::atomic<bool> interrupted{false};
  RunnerOptions o;
  o.warmup = 1;
  o.repetitions = 3;
  Runner runner(*engine, clock, interrupted, o);
  Collected c;
  auto out =
      runner.run(workload::expand_strata({4}, {2}, {1}), {{0, 0}, {0, 2}}, c.sink(), nullptr);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(c.records.size(), 2U);
  EXPECT_EQ(c.records[0]["index"], 1);
  EXPECT_EQ(c.records[1]["index"], 3);
}

TEST(Runner, InterruptStopsWithoutRecordingTheAbandonedRequest) {
  auto engine = sim(1e6, 20.0);
  platform::MonotonicClock clock;
  std::atomic<bool> interrupted{false};
  RunnerOptions o;
  o.warmup = 0;
  o.repetitions = 100;
  Runner runner(*engine, clock, interrupted, o);
  Collected c;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    interrupted = true;
  });
  auto out = runner.run(workload::expand_strata({4}, {4}, {1}), {}, c.sink(), nullptr);
  stopper.join();
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->interrupted);
  EXPECT_LT(c.records.size(), 100U);
  EXPECT_GE(c.records.size(), 1U);
  for (const auto& r : c.records) EXPECT_TRUE(r["ok"].get<bool>());
}

TEST(Runner, MinDurationKeepsMeasuring) {
  auto engine = sim(1e6, 1.0);  // ~3 ms per request
  platform::MonotonicClock clock;
  std::atomic<bool> interrupted{false};
  RunnerOptions o;
  o.warmup = 0;
  o.repetitions = 2;
  o.min_duration_s = 0.1;
  Runner runner(*engine, clock, interrupted, o);
  Collected c;
  auto out = runner.run(workload::expand_strata({4}, {3}, {1}), {}, c.sink(), nullptr);
  ASSERT_TRUE(out.ok());
  EXPECT_GT(c.records.size(), 10U);  // far more than the 2 repetitions
}

TEST(Runner, JournalFailureStopsTheRun) {
  auto engine = sim(1e6, 0.1);
  platform::MonotonicClock clock;
  std::atomic<bool> interrupted{false};
  RunnerOptions o;
  o.warmup = 0;
  o.repetitions = 5;
  Runner runner(*engine, clock, interrupted, o);
  auto out = runner.run(
      workload::expand_strata({4}, {2}, {1}), {},
      [](const json&) -> Expected<void> { return make_error(ErrorKind::kIo, "disk full"); },
      nullptr);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().message, "disk full");
}

// An engine that fails mid-stream on odd requests: the failure is recorded, the run goes on.
class FlakyEngine final : public engines::Engine {
 public:
  engines::EngineInfo info() const override { return {"flaky", "1", true, json::object()}; }
  json model_info() const override { return json::object(); }
  Expected<void> load() override { return {}; }
  Expected<void> run(const engines::Request& req, engines::EventSink& sink) override {
    sink.on_submit();
    sink.on_tokens(1);
    if (req.seed % 2 == 1) {
      sink.on_error(ErrorKind::kEngine, "connection reset mid-stream");
      return make_error(ErrorKind::kEngine, "connection reset mid-stream");
    }
    sink.on_tokens(1);
    sink.on_done();
    return {};
  }
};

TEST(Runner, EngineFailureIsRecordedWithItsReason) {
  FlakyEngine engine;
  platform::MonotonicClock clock;
  std::atomic<bool> interrupted{false};
  RunnerOptions o;
  o.warmup = 0;
  o.repetitions = 20;
  Runner runner(engine, clock, interrupted, o);
  Collected c;
  auto out = runner.run(workload::expand_strata({4}, {2}, {1}), {}, c.sink(), nullptr);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(c.records.size(), 20U);
  EXPECT_GT(out->failed, 0U);
  EXPECT_LT(out->failed, 20U);
  for (const auto& r : c.records) {
    if (!r["ok"].get<bool>()) {
      EXPECT_EQ(r["error"], "engine: connection reset mid-stream");
    } else {
      EXPECT_EQ(r["output_tokens"], 2);
    }
  }
}

}  // namespace
}  // namespace tokscope::run
