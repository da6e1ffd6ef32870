// Harness overhead (acceptance 5 of the measurement-core issue):
//  - the cost of recording one token event on the hot path (target <= 50 ns, no allocation:
//    the allocation part is asserted by tests/run/recorder_alloc_test.cpp);
//  - the end-to-end cost the harness adds per request: Runner + Recorder + record building,
//    against an engine that does no work, compared with calling that engine directly.
// Run: ./build/bench/harness_bench   (report figures as ratios measured in one run)
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>

#include "engines/engine.hpp"
#include "platform/clock.hpp"
#include "run/journal.hpp"
#include "run/recorder.hpp"
#include "run/runner.hpp"

namespace {

using namespace tokscope;

// Emits max_new_tokens single-token chunks at once: all time measured is the harness's.
class NullEngine final : public engines::Engine {
 public:
  engines::EngineInfo info() const override { return {"null", "0", true, {}}; }
  nlohmann::json model_info() const override { return nlohmann::json::object(); }
  Expected<void> load() override { return {}; }
  Expected<void> run(const engines::Request& r, engines::EventSink& sink) override {
    sink.on_submit();
    for (std::uint32_t i = 0; i < r.max_new_tokens; ++i) {
      if (sink.should_stop()) return make_error(ErrorKind::kTimeout, "stop");
      sink.on_tokens(1);
    }
    sink.on_done();
    return {};
  }
};

// A sink that stamps nothing: the engine's own cost, for the ratio.
class CountingSink final : public engines::EventSink {
 public:
  void on_submit() noexcept override {}
  void on_tokens(std::uint32_t n) noexcept override { benchmark::DoNotOptimize(tokens += n); }
  void on_done() noexcept override {}
  void on_error(ErrorKind, std::string_view) noexcept override {}
  bool should_stop() const noexcept override { return false; }
  std::uint64_t tokens = 0;
};

void BM_ClockNow(benchmark::State& state) {
  platform::MonotonicClock clock;
  for (auto _ : state) benchmark::DoNotOptimize(clock.now_ns());
}
BENCHMARK(BM_ClockNow);

void BM_RecordTokenEvent(benchmark::State& state) {
  platform::MonotonicClock clock;
  std::atomic<bool> interrupted{false};
  constexpr std::size_t kCapacity = 4096;
  run::Recorder rec(clock, interrupted, kCapacity);
  rec.reset(kCapacity, 0);
  std::size_t n = 0;
  for (auto _ : state) {
    rec.on_tokens(1);
    if (++n == kCapacity) {  // stay on the stamping path, not the overflow path
      state.PauseTiming();
      rec.reset(kCapacity, 0);
      n = 0;
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RecordTokenEvent);

void BM_EngineAlone(benchmark::State& state) {
  NullEngine engine;
  CountingSink sink;
  std::vector<std::int32_t> prompt(128, 7);
  engines::Request req;
  req.prompt_ids = prompt;
  req.max_new_tokens = static_cast<std::uint32_t>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(engine.run(req, sink).ok());
  state.SetItemsProcessed(state.iterations());
  state.SetLabel("requests; engine without harness");
}
BENCHMARK(BM_EngineAlone)->Arg(128);

void BM_HarnessPerRequest(benchmark::State& state) {
  NullEngine engine;
  platform::MonotonicClock clock;
  std::atomic<bool> interrupted{false};
  constexpr std::uint32_t kRequests = 64;
  run::RunnerOptions o;
  o.warmup = 0;
  o.repetitions = kRequests;
  run::Runner runner(engine, clock, interrupted, o);
  const auto strata =
      workload::expand_strata({128}, {static_cast<std::uint32_t>(state.range(0))}, {1});
  for (auto _ : state) {
    auto out = runner.run(
        strata, {}, [](const nlohmann::json&) -> Expected<void> { return {}; }, nullptr);
    benchmark::DoNotOptimize(out.ok());
  }
  state.SetItemsProcessed(state.iterations() * kRequests);
  state.SetLabel("requests; runner+recorder+record, no journal");
}
// Workers are separate threads: wall time is the honest measure.
BENCHMARK(BM_HarnessPerRequest)->Arg(128)->UseRealTime();

void BM_HarnessPerRequestWithJournal(benchmark::State& state) {
  NullEngine engine;
  platform::MonotonicClock clock;
  std::atomic<bool> interrupted{false};
  constexpr std::uint32_t kRequests = 16;
  run::RunnerOptions o;
  o.warmup = 0;
  o.repetitions = kRequests;
  run::Runner runner(engine, clock, interrupted, o);
  const auto strata = workload::expand_strata({128}, {128}, {1});
  const auto path = std::filesystem::temp_directory_path() /
                    ("tokscope-bench-" + std::to_string(::getpid()) + ".journal.jsonl");
  std::filesystem::remove(path);
  auto journal = run::JournalWriter::create(path);
  if (!journal) {
    state.SkipWithError(journal.error().message.c_str());
    return;
  }
  for (auto _ : state) {
    auto out = runner.run(
        strata, {}, [&](const nlohmann::json& r) { return journal->append(r); }, nullptr);
    benchmark::DoNotOptimize(out.ok());
  }
  std::filesystem::remove(path);
  state.SetItemsProcessed(state.iterations() * kRequests);
  state.SetLabel("requests; with fsync'ed journal (between requests, off the token path)");
}
BENCHMARK(BM_HarnessPerRequestWithJournal)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
