// Telemetry sampler cost (issue 4: under 1% of one core at the default 100 ms period).
//  - One sampler row over the RK3588 fixture tree (7 thermal zones, 3 cpufreq policies, 3
//    devfreq devices, rknpu load: the channels a real board gives), taken on the calling thread:
//    the counter core_pct_at_100ms = time per row / 100 ms × 100.
//  - The same over this machine's own /sys (often no channel at all on a VM).
// Run: ./build/bench/sampler_bench   The fixture is read from the source tree, so run it from
// the repository root (or set TOKSCOPE_SYSFS_FIXTURE). Page-cache-backed fixture files are
// cheaper to read than kernfs files that call a driver, so a real board costs more per row:
// measure there with --benchmark_filter=Live after `cd /`.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "platform/clock.hpp"
#include "platform/sysfs/channel_sources.hpp"
#include "platform/telemetry/sampler.hpp"

namespace {

using namespace tokscope;

void sample_rows(benchmark::State& state, const std::filesystem::path& root) {
  std::vector<std::string> unavailable;
  auto sources = platform::open_channel_sources(root, unavailable);
  platform::MonotonicClock clock;
  platform::Sampler sampler(std::move(sources), clock, {.period_ms = 100, .capacity_rows = 64});
  if (sampler.channels().empty() && root != "/") {
    state.SkipWithError(("no telemetry channel under " + root.string()).c_str());
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  for (auto _ : state) sampler.sample_now();
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - t0;
  state.counters["channels"] = static_cast<double>(sampler.channels().size());
  // Seconds per row / 0.1 s × 100 = percent of one core at a 100 ms period.
  const double s_per_row = elapsed.count() / static_cast<double>(state.iterations());
  state.counters["core_pct_at_100ms"] = s_per_row / 0.1 * 100.0;
}

void BM_SamplerRowRk3588Fixture(benchmark::State& state) {
  const char* env = std::getenv("TOKSCOPE_SYSFS_FIXTURE");
  sample_rows(state, env != nullptr ? env : "tests/fixtures/sysfs/rk3588");
}
BENCHMARK(BM_SamplerRowRk3588Fixture);

void BM_SamplerRowLive(benchmark::State& state) {
  sample_rows(state, "/");
}
BENCHMARK(BM_SamplerRowLive);

}  // namespace

BENCHMARK_MAIN();
