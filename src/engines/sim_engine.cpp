#include "engines/sim_engine.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numbers>

#include "platform/clock.hpp"
#include "tokscope/build_info.hpp"

namespace tokscope::engines {
namespace {

constexpr std::int64_t kSleepSliceNs = 20'000'000;  // poll should_stop at least every 20 ms

// splitmix64: small, fast, portable; the jitter of a request is a function of its seed only.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() noexcept {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform01() noexcept {  // in (0, 1]
    return (static_cast<double>(next() >> 11) + 1.0) * 0x1.0p-53;
  }
  double gaussian() noexcept {  // Box-Muller, one value per call
    return std::sqrt(-2.0 * std::log(uniform01())) * std::cos(2.0 * std::numbers::pi * uniform01());
  }
};

// Sleeps until deadline_ns (CLOCK_MONOTONIC), returning false early if the sink asks to stop.
bool sleep_until_or_stop(std::int64_t deadline_ns, const EventSink& sink) noexcept {
  for (;;) {
    if (sink.should_stop()) return false;
    const std::int64_t now = platform::monotonic_now_ns();
    if (deadline_ns - now <= kSleepSliceNs) {
      platform::sleep_until_monotonic_ns(deadline_ns);
      return true;
    }
    platform::sleep_until_monotonic_ns(now + kSleepSliceNs, 0);
  }
}

std::int64_t ms_to_ns(double ms) noexcept {
  return static_cast<std::int64_t>(std::llround(ms * 1e6));
}

Expected<void> stopped(EventSink& sink) {
  sink.on_error(ErrorKind::kTimeout, "stopped by the harness (deadline or interrupt)");
  return make_error(ErrorKind::kTimeout, "stopped by the harness (deadline or interrupt)");
}

}  // namespace

SimEngine::SimEngine(std::unique_ptr<SimSchedule> schedule, nlohmann::json model_info)
    : schedule_(std::move(schedule)), model_info_(std::move(model_info)) {}

EngineInfo SimEngine::info() const {
  EngineInfo info;
  info.name = "sim";
  info.version = std::string(build::kVersion);
  info.simulated = true;
  info.extra = {{"schedule", schedule_->describe()},
                {"execution", "real time: kernel sleep to 200 us before each event, then spin"}};
  return info;
}

nlohmann::json SimEngine::model_info() const {
  return model_info_.is_null() ? schedule_->model_info() : model_info_;
}

Expected<std::vector<std::int32_t>> SimEngine::tokenize(std::string_view text) {
  std::vector<std::int32_t> ids;
  std::uint32_t hash = 2166136261U;  // FNV-1a over the bytes of one word
  bool in_word = false;
  auto flush = [&] {
    if (in_word) ids.push_back(static_cast<std::int32_t>(hash % 32000U));
    hash = 2166136261U;
    in_word = false;
  };
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isspace(u) != 0) {
      flush();
    } else if (std::ispunct(u) != 0) {
      flush();
      ids.push_back(static_cast<std::int32_t>(32000U + u));
    } else {
      hash = (hash ^ u) * 16777619U;
      in_word = true;
    }
  }
  flush();
  return ids;
}

Expected<void> SimEngine::run(const Request& request, EventSink& sink) {
  const auto prompt_tokens = static_cast<std::uint32_t>(request.prompt_ids.size());
  SplitMix64 rng{request.seed};
  const double jitter_ms = schedule_->jitter_ms();
  auto jittered = [&](double ms) {
    return jitter_ms > 0 ? std::max(0.0, ms + jitter_ms * rng.gaussian()) : ms;
  };

  const std::int64_t t0 = platform::monotonic_now_ns();
  sink.on_submit();
  // Absolute targets: token i is due at t0 + prefill + sum of the first i intervals, so a late
  // wake-up does not shift every later token (the schedule is the ground truth).
  std::int64_t due_ns =
      t0 + ms_to_ns(jittered(schedule_->prefill_ms(prompt_tokens, request.concurrency)));
  for (std::uint32_t i = 0; i < request.max_new_tokens; ++i) {
    if (i > 0) {
      due_ns += ms_to_ns(jittered(schedule_->itl_ms(prompt_tokens + i, request.concurrency)));
    }
    if (!sleep_until_or_stop(due_ns, sink)) return stopped(sink);
    sink.on_tokens(1);
  }
  sink.on_done();
  return {};
}

}  // namespace tokscope::engines
