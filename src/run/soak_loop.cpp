#include "run/soak_loop.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "run/recorder.hpp"
#include "workload/prompts.hpp"

namespace tokscope::run {
namespace {

constexpr std::size_t kChunkSlack = 64;  // room for engines that overshoot the token target

report::SoakChannelKind soak_kind(platform::ChannelKind kind) {
  switch (kind) {
    case platform::ChannelKind::kTemperature:
      return report::SoakChannelKind::kTemperature;
    case platform::ChannelKind::kFrequency:
      return report::SoakChannelKind::kFrequency;
    case platform::ChannelKind::kPower:
      return report::SoakChannelKind::kPower;
    case platform::ChannelKind::kEnergy:
      return report::SoakChannelKind::kEnergy;
    case platform::ChannelKind::kLoad:
    case platform::ChannelKind::kOther:
      break;
  }
  return report::SoakChannelKind::kOther;
}

// Cuts the stream of decode intervals, request ends and sampler rows into windows.
class WindowCutter {
 public:
  WindowCutter(std::int64_t t0_ns, std::int64_t window_ns,
               std::vector<report::SoakChannel> channels)
      : t0_ns_(t0_ns), window_ns_(window_ns), channels_(std::move(channels)) {}

  std::vector<report::DecodeInterval>& intervals() { return intervals_; }
  std::vector<std::int64_t>& done() { return done_; }
  std::vector<report::SoakRow>& rows() { return rows_; }
  [[nodiscard]] std::int64_t next_start() const {
    return t0_ns_ + static_cast<std::int64_t>(index_) * window_ns_;
  }
  [[nodiscard]] std::int64_t next_full_end() const { return next_start() + window_ns_; }

  // Closes the next window at end_ns and hands it to the sink.
  Expected<void> close(std::int64_t end_ns, const WindowSink& sink,
                       std::vector<report::SoakWindow>& out) {
    const std::int64_t start = next_start();
    report::SoakWindow w =
        report::summarize_window(index_, t0_ns_, start, end_ns, end_ns - start == window_ns_,
                                 intervals_, done_, rows_, channels_);
    if (!std::isfinite(baseline_tps_) && std::isfinite(w.decode_tps_p50)) {
      baseline_tps_ = w.decode_tps_p50;
    }
    w.drop_pct = report::drop_pct(w.decode_tps_p50, baseline_tps_);
    ++index_;
    std::erase_if(intervals_, [&](const report::DecodeInterval& i) { return i.t_end_ns < end_ns; });
    std::erase_if(done_, [&](std::int64_t t) { return t < end_ns; });
    std::erase_if(rows_, [&](const report::SoakRow& r) { return r.t_ns < end_ns; });
    if (auto s = sink(w); !s) return s;
    out.push_back(std::move(w));
    return {};
  }

 private:
  std::int64_t t0_ns_;
  std::int64_t window_ns_;
  std::vector<report::SoakChannel> channels_;
  std::uint32_t index_ = 0;
  double baseline_tps_ = std::numeric_limits<double>::quiet_NaN();
  std::vector<report::DecodeInterval> intervals_;
  std::vector<std::int64_t> done_;
  std::vector<report::SoakRow> rows_;
};

// Copies the rows written since *cursor; returns the time of the newest row read (or
// `newest` unchanged when none).
std::int64_t read_rows(const platform::Sampler& sampler, std::uint64_t& cursor,
                       std::vector<report::SoakRow>& out, std::uint64_t& lost,
                       std::int64_t newest) {
  platform::SampleRow row;
  const std::uint64_t written = sampler.rows_written();
  for (; cursor < written; ++cursor) {
    if (!sampler.read_row(cursor, row)) {
      ++lost;
      continue;
    }
    out.push_back({row.t_ns, row.throttled, row.values});
    newest = std::max(newest, row.t_ns);
  }
  return newest;
}

}  // namespace

std::vector<report::SoakChannel> soak_channels(const std::vector<platform::ChannelInfo>& channels) {
  std::vector<report::SoakChannel> out;
  out.reserve(channels.size());
  for (const auto& c : channels) {
    out.push_back({c.name, soak_kind(c.kind), c.passive_trip_c, c.wrap_at});
  }
  return out;
}

Expected<SoakLoopOutcome> run_soak(engines::Engine& engine, const platform::Clock& clock,
                                   const std::atomic<bool>& interrupted, platform::Sampler* sampler,
                                   const SoakLoopOptions& options, const WindowSink& sink) {
  SoakLoopOutcome outcome;
  const auto window_ns = static_cast<std::int64_t>(std::llround(options.window_s * 1e9));
  const auto duration_ns = static_cast<std::int64_t>(std::llround(options.duration_s * 1e9));
  const auto timeout_ns = static_cast<std::int64_t>(options.timeout_s * 1e9);
  const std::int64_t settle_ns =
      sampler != nullptr ? 2 * static_cast<std::int64_t>(sampler->options().period_ms * 1e6) : 0;
  WindowCutter cutter(
      clock.now_ns(), window_ns,
      sampler != nullptr ? soak_channels(sampler->channels()) : std::vector<report::SoakChannel>{});
  const std::int64_t t0 = cutter.next_start();
  const std::int64_t t_end = t0 + duration_ns;
  if (sampler != nullptr) sampler->start();

  Recorder rec(clock, interrupted, options.output_tokens + kChunkSlack);
  std::vector<std::int32_t> prompt;
  std::uint64_t row_cursor = 0;
  std::int64_t newest_row_ns = std::numeric_limits<std::int64_t>::min();
  std::uint32_t consecutive_failures = 0;
  std::optional<Error> fatal;

  for (std::uint32_t index = 0; !interrupted.load() && clock.now_ns() < t_end; ++index) {
    prompt = workload::synthetic_prompt_ids(options.seed, 0, index, options.prompt_tokens);
    rec.reset(options.output_tokens + kChunkSlack, std::min(clock.now_ns() + timeout_ns, t_end));
    rec.mark_request();
    rec.mark_ids_in_hand();
    engines::Request req;
    req.prompt_ids = prompt;
    req.max_new_tokens = options.output_tokens;
    req.ignore_eos = true;
    req.concurrency = 1;
    req.seed = options.seed ^ (0x9e3779b97f4a7c15ULL * (index + 1ULL));
    const Expected<void> result = engine.run(req, rec);
    const std::int64_t t_after = clock.now_ns();
    ++outcome.requests;

    const core::TimelineView tl = rec.timeline(options.prompt_tokens);
    report::append_decode_intervals(tl.chunks, cutter.intervals());
    cutter.done().push_back(rec.t_done_ns() != 0 ? rec.t_done_ns() : t_after);
    const bool stopped_by_us = interrupted.load() || t_after >= t_end;
    const bool failed = (!result.ok() || rec.has_error() || tl.chunks.empty()) && !stopped_by_us;
    if (failed) {
      ++outcome.failed;
      outcome.last_failure = !result.ok()      ? result.error().message
                             : rec.has_error() ? rec.error_message()
                                               : "the engine produced no token";
      if (++consecutive_failures >= options.max_consecutive_failures) {
        fatal = make_error(ErrorKind::kEngine,
                           fmt::format("soak stopped: {} requests in a row failed; last: {}",
                                       consecutive_failures, outcome.last_failure));
        break;
      }
    } else {
      consecutive_failures = 0;
    }

    if (sampler != nullptr) {
      newest_row_ns =
          read_rows(*sampler, row_cursor, cutter.rows(), outcome.lost_rows, newest_row_ns);
    }
    // Close every window that ended before this request did and whose rows are all in.
    while (cutter.next_full_end() <= std::min(t_after, t_end)) {
      const std::int64_t end = cutter.next_full_end();
      const bool rows_in = sampler == nullptr || newest_row_ns >= end || t_after >= end + settle_ns;
      if (!rows_in) break;
      if (auto c = cutter.close(end, sink, outcome.windows); !c) {
        fatal = c.error();
        break;
      }
    }
    if (fatal) break;
  }

  outcome.interrupted = interrupted.load();
  const std::int64_t t_stop = std::min(clock.now_ns(), t_end);
  if (sampler != nullptr) {
    sampler->stop();
    read_rows(*sampler, row_cursor, cutter.rows(), outcome.lost_rows, newest_row_ns);
  }
  outcome.elapsed_s = static_cast<double>(t_stop - t0) / 1e9;
  // The windows left: whole ones up to t_stop, then the cut last one.
  while (cutter.next_start() < t_stop) {
    const std::int64_t end = std::min(cutter.next_full_end(), t_stop);
    if (auto c = cutter.close(end, sink, outcome.windows); !c) {
      if (!fatal) fatal = c.error();
      break;
    }
  }
  if (fatal) return *fatal;
  return outcome;
}

}  // namespace tokscope::run
