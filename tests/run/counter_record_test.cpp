// Counters over the prefill and decode windows of each request: the Recorder's snapshots, the
// record's "counters" field, and the Runner counting its worker threads (real software events:
// they count on every Linux, also in a VM without a virtual PMU).
#include "run/counter_record.hpp"

#include <gtest/gtest.h>

#include <ctime>
#include <mutex>

#include "engines/sim_engine.hpp"
#include "run/record_check.hpp"
#include "run/runner.hpp"

namespace tokscope::run {
namespace {

using nlohmann::json;

platform::perf::CounterSet open_software(std::vector<std::string> events) {
  platform::perf::CounterRequest request;
  request.events = std::move(events);
  auto set = platform::perf::CounterSet::open(request);
  EXPECT_TRUE(set.ok()) << set.error().message;
  for (const auto& e : set->events()) {
    EXPECT_EQ(e.unavailable, "") << "perf_event_open refused software event " << e.name;
  }
  return std::move(*set);
}

// Spins until this thread has used `ns` of CPU time.
void spin_cpu_ns(std::int64_t ns) {
  const auto cpu_ns = [] {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
  };
  const std::int64_t until = cpu_ns() + ns;
  volatile std::uint64_t sink = 0;
  while (cpu_ns() < until) sink = sink + 1;
}

TEST(CounterRecord, NullWithoutCounters) {
  platform::MonotonicClock clock;
  std::atomic<bool> interrupted{false};
  Recorder rec(clock, interrupted, 8);
  rec.reset(8, 0);
  rec.on_submit();
  rec.on_tokens(1);
  rec.on_done();
  EXPECT_TRUE(counter_record(rec).is_null());
  EXPECT_EQ(rec.counters_at_submit(), nullptr);
}

TEST(CounterRecord, PrefillAndDecodeWindowsCountTheirOwnWork) {
  const auto set = open_software({"task-clock", "context-switches"});
  platform::MonotonicClock clock;
  std::atomic<bool> interrupted{false};
  Recorder rec(clock, interrupted, 8);
  rec.set_counters(&set);
  rec.reset(8, 0);
  rec.on_submit();
  spin_cpu_ns(5'000'000);  // prefill: 5 ms of CPU
  rec.on_tokens(1);
  spin_cpu_ns(20'000'000);  // decode: 20 ms of CPU
  rec.on_tokens(1);
  rec.on_done();
  const json c = counter_record(rec);
  ASSERT_TRUE(c.is_object()) << c.dump();
  EXPECT_EQ(c["scope"], "process");
  const double prefill_ns = c["prefill"]["task-clock"]["value"].get<double>();
  const double decode_ns = c["decode"]["task-clock"]["value"].get<double>();
  // task-clock and CLOCK_THREAD_CPUTIME_ID account slightly differently: 10% slack.
  EXPECT_GE(prefill_ns, 4.5e6);
  EXPECT_LT(prefill_ns, 15e6);
  EXPECT_GE(decode_ns, 18e6);
  EXPECT_TRUE(c["decode"]["context-switches"]["value"].is_number());
}

TEST(CounterRecord, WindowsNotReachedAreNull) {
  const auto set = open_software({"task-clock"});
  platform::MonotonicClock clock;
  std::atomic<bool> interrupted{false};
  Recorder rec(clock, interrupted, 8);
  rec.set_counters(&set);
  rec.reset(8, 0);
  rec.on_submit();
  rec.on_error(ErrorKind::kEngine, "failed before the first token");
  const json c = counter_record(rec);
  EXPECT_TRUE(c["prefill"].is_null());
  EXPECT_TRUE(c["decode"].is_null());
  rec.reset(8, 0);  // the next request starts with no snapshots
  EXPECT_EQ(rec.counters_at_done(), nullptr);
}

TEST(CounterRecord, RunnerCountsItsWorkerThreadsPerRequest) {
  // Opened on this thread before Runner::run creates the workers: they are counted (inherit).
  const auto set = open_software({"task-clock", "context-switches", "page-faults"});
  engines::ExplicitScheduleParams p;
  p.prefill_tps = 2000;  // 8 tokens: 4 ms prefill
  p.itl_ms = 1;
  engines::SimEngine engine(engines::make_explicit_schedule(p));
  platform::MonotonicClock clock;
  std::atomic<bool> interrupted{false};
  RunnerOptions o;
  o.warmup = 1;
  o.repetitions = 3;
  o.counters = &set;
  Runner runner(engine, clock, interrupted, o);
  std::mutex m;
  std::vector<json> records;
  auto out = runner.run(
      workload::expand_strata({8}, {8}, {1}), {},
      [&](const json& r) -> Expected<void> {
        std::lock_guard lock(m);
        records.push_back(r);
        return {};
      },
      nullptr);
  ASSERT_TRUE(out.ok()) << out.error().message;
  ASSERT_EQ(records.size(), 4U);
  for (const auto& r : records) {
    EXPECT_EQ(check_request_record(r), "") << r.dump();
    ASSERT_TRUE(r.contains("counters")) << r.dump();
    const json& c = r["counters"];
    for (const char* phase : {"prefill", "decode"}) {
      ASSERT_TRUE(c[phase].is_object()) << phase << " " << c.dump();
      // The worker thread ran the request: its CPU time is in the window.
      EXPECT_GT(c[phase]["task-clock"]["value"].get<double>(), 0) << phase;
      EXPECT_TRUE(c[phase]["context-switches"]["value"].is_number()) << phase;
      EXPECT_TRUE(c[phase]["page-faults"]["value"].is_number()) << phase;
    }
    // The sim engine sleeps until 200 us before each token: the worker switched out.
    EXPECT_GE(c["decode"]["context-switches"]["value"].get<double>(), 1) << c.dump();
  }
}

TEST(CounterRecord, RecordCheckRejectsMalformedCounters) {
  const json base = {{"type", "request"}, {"stratum", 0},        {"index", 0},
                     {"warmup", false},   {"ok", true},          {"prompt_tokens", 8},
                     {"t_request_ns", 1}, {"t_tokenized_ns", 1}, {"t_submit_ns", 2},
                     {"t_done_ns", 9},    {"chunk_t_ns", {3, 4}}};
  json r = base;
  r["counters"] = {{"scope", "process"},
                   {"prefill",
                    {{"cycles", {{"value", nullptr}, {"unavailable", "unavailable: x"}}},
                     {"task-clock", {{"value", 12.0}}}}},
                   {"decode", nullptr}};
  EXPECT_EQ(check_request_record(r), "");
  r["counters"]["prefill"]["cycles"].erase("unavailable");
  EXPECT_EQ(check_request_record(r),
            "counters.prefill.cycles.unavailable: expected the reason when value is null");
  r = base;
  r["counters"] = {
      {"scope", "process"}, {"prefill", {{"task-clock", {{"value", "12"}}}}}, {"decode", nullptr}};
  EXPECT_EQ(check_request_record(r),
            "counters.prefill.task-clock.value: expected a number or null");
  r = base;
  r["counters"] = {{"scope", "process"}, {"prefill", nullptr}};
  EXPECT_EQ(check_request_record(r), "counters.decode: missing");
  r = base;
  r["counters"] = json::array();
  EXPECT_EQ(check_request_record(r), "counters: expected an object");
}

}  // namespace
}  // namespace tokscope::run
