#include "run/runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <thread>

#include "core/request_metrics.hpp"
#include "core/stats.hpp"
#include "run/counter_record.hpp"
#include "run/recorder.hpp"
#include "workload/prompts.hpp"

namespace tokscope::run {
namespace {

constexpr std::size_t kChunkSlack = 64;  // room for engines that overshoot the token target

std::uint64_t request_seed(std::uint64_t seed, std::uint32_t stratum, std::uint32_t index) {
  std::uint64_t z = seed ^ ((static_cast<std::uint64_t>(stratum) << 32) | index);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Shared state of one stratum's workers.
struct StratumState {
  std::atomic<std::uint32_t> next_index{0};
  std::atomic<std::int64_t> measure_start_ns{0};
  std::atomic<bool> fatal{false};
  std::mutex completion_mutex;  // guards everything below; taken once per completed request
  std::uint32_t completed = 0;
  std::uint32_t failed = 0;
  std::optional<Error> fatal_error;
};

nlohmann::json make_record(const workload::Stratum& stratum, std::uint32_t index, bool warmup,
                           std::uint32_t prompt_tokens, const Recorder& rec,
                           const Expected<void>& result) {
  const core::TimelineView tl = rec.timeline(prompt_tokens);
  std::uint64_t n_tokens = 0;
  bool all_single = true;
  nlohmann::json chunk_t = nlohmann::json::array();
  nlohmann::json chunk_tokens = nlohmann::json::array();
  for (const auto& c : tl.chunks) {
    n_tokens += c.tokens;
    all_single = all_single && c.tokens == 1;
    chunk_t.push_back(c.t_ns);
    chunk_tokens.push_back(c.tokens);
  }
  std::string error;
  if (rec.has_error()) {
    error = fmt::format("{}: {}", to_string(rec.error_kind()), rec.error_message());
  } else if (!result.ok()) {
    error = fmt::format("{}: {}", to_string(result.error().kind), result.error().message);
  } else if (n_tokens == 0) {
    error = "engine: finished without producing a token";
  } else if (rec.t_done_ns() == 0) {
    error = "engine: returned without reporting the end of generation";
  }
  const bool ok = error.empty();
  nlohmann::json r = {
      {"type", "request"},
      {"stratum", stratum.id},
      {"index", index},
      {"warmup", warmup},
      {"ok", ok},
      {"error", ok ? nlohmann::json(nullptr) : nlohmann::json(error)},
      {"prompt_tokens", prompt_tokens},
      {"output_tokens", n_tokens},
      {"output_tokens_target", stratum.output_tokens},
      {"short", ok && n_tokens < stratum.output_tokens},
      {"concurrency", stratum.concurrency},
      {"t_request_ns", rec.t_request_ns()},
      {"t_tokenized_ns", rec.t_tokenized_ns()},
      {"t_submit_ns", rec.t_submit_ns()},
      {"t_done_ns", rec.t_done_ns()},
      {"chunks", tl.chunks.size()},
      {"chunk_t_ns", std::move(chunk_t)},
  };
  if (!all_single) r["chunk_tokens"] = std::move(chunk_tokens);
  if (rec.overflow_chunks() > 0) r["overflow_chunks"] = rec.overflow_chunks();
  if (!rec.engine_stats().is_null()) r["engine_stats"] = rec.engine_stats();
  if (rec.counters() != nullptr) r["counters"] = counter_record(rec);
  return r;
}

}  // namespace

Runner::Runner(engines::Engine& engine, const platform::Clock& clock,
               const std::atomic<bool>& interrupted, RunnerOptions options)
    : engine_(engine), clock_(clock), interrupted_(interrupted), options_(std::move(options)) {}

Expected<RunOutcome> Runner::run(const std::vector<workload::Stratum>& strata,
                                 const std::set<std::pair<std::uint32_t, std::uint32_t>>& done,
                                 const RecordSink& record_sink, const ProgressSink& progress_sink) {
  RunOutcome outcome;
  const auto timeout_ns = static_cast<std::int64_t>(options_.timeout_s * 1e9);
  const auto min_duration_ns = static_cast<std::int64_t>(options_.min_duration_s * 1e9);
  const std::uint32_t fixed_count = options_.warmup + options_.repetitions;

  for (const auto& stratum : strata) {
    if (interrupted_.load()) break;
    StratumState state;
    const std::uint32_t planned = fixed_count;  // at least this many (more with --min-duration-s)

    // Whether request `index` of this stratum should be issued at all.
    auto should_issue = [&](std::uint32_t index) {
      if (index < fixed_count) return true;
      if (min_duration_ns <= 0 || index >= options_.warmup + options_.max_requests) return false;
      const std::int64_t start = state.measure_start_ns.load();
      return start == 0 || clock_.now_ns() - start < min_duration_ns;
    };

    auto worker = [&]() {
      Recorder rec(clock_, interrupted_, stratum.output_tokens + kChunkSlack);
      rec.set_counters(options_.counters);
      std::vector<std::int32_t> prompt;
      core::RequestMetrics metrics;
      for (;;) {
        if (interrupted_.load() || state.fatal.load()) return;
        const std::uint32_t index = state.next_index.fetch_add(1);
        if (!should_issue(index)) return;
        if (done.count({stratum.id, index}) != 0) continue;
        const bool warmup = index < options_.warmup;

        // Prepare the input. Synthetic ids are made before t_request (they are "in hand");
        // dataset text is tokenized inside the measured tokenize_ms window.
        const bool from_text = !options_.dataset.empty();
        if (!from_text) {
          prompt = workload::synthetic_prompt_ids(options_.seed, stratum.id, index,
                                                  stratum.prompt_tokens);
        }
        rec.reset(stratum.output_tokens + kChunkSlack, clock_.now_ns() + timeout_ns);
        rec.mark_request();
        Expected<void> result{};
        if (from_text) {
          const auto& text =
              options_.dataset[(static_cast<std::size_t>(stratum.id) * 7919U + index) %
                               options_.dataset.size()];
          auto ids = engine_.tokenize(text);
          if (ids) {
            auto fitted = workload::fit_to_length(*ids, stratum.prompt_tokens);
            if (fitted) {
              prompt = std::move(*fitted);
            } else {
              result = fitted.error();
            }
          } else {
            result = ids.error();
          }
          rec.mark_tokenized();
        } else {
          rec.mark_ids_in_hand();
        }
        if (result.ok() && prompt.size() != stratum.prompt_tokens) {  // the count is verified
          result = make_error(ErrorKind::kInput,
                              fmt::format("prompt has {} tokens, the stratum asks for {}",
                                          prompt.size(), stratum.prompt_tokens));
        }
        if (!warmup) {
          std::int64_t expected = 0;
          state.measure_start_ns.compare_exchange_strong(expected, rec.t_request_ns());
        }
        if (result.ok()) {
          engines::Request req;
          req.prompt_ids = prompt;
          req.max_new_tokens = stratum.output_tokens;
          req.ignore_eos = true;
          req.concurrency = stratum.concurrency;
          req.seed = request_seed(options_.seed, stratum.id, index);
          result = engine_.run(req, rec);
        }
        if (interrupted_.load() && !result.ok()) return;  // abandoned by Ctrl-C: not a failure

        const auto prompt_len = static_cast<std::uint32_t>(prompt.size());
        nlohmann::json record = make_record(stratum, index, warmup, prompt_len, rec, result);
        core::compute_request_metrics(rec.timeline(prompt_len), metrics);

        std::lock_guard lock(state.completion_mutex);
        if (auto written = record_sink(record); !written) {
          state.fatal_error = written.error();
          state.fatal.store(true);
          return;
        }
        ++state.completed;
        if (!record["ok"].get<bool>()) ++state.failed;
        if (progress_sink) {
          Progress p;
          p.stratum = stratum.id;
          p.strata = static_cast<std::uint32_t>(strata.size());
          p.current = &stratum;
          p.completed = state.completed;
          p.planned = planned;
          p.failed = state.failed;
          p.warmup = warmup;
          p.last_itl_p50_ms = metrics.itl_ms.empty() ? std::numeric_limits<double>::quiet_NaN()
                                                     : core::percentile(metrics.itl_ms, 0.5);
          progress_sink(p);
        }
      }
    };

    {
      std::vector<std::jthread> workers;
      workers.reserve(stratum.concurrency);
      for (std::uint32_t w = 0; w < stratum.concurrency; ++w) workers.emplace_back(worker);
    }
    outcome.completed += state.completed;
    outcome.failed += state.failed;
    if (state.fatal_error) return *state.fatal_error;
  }
  outcome.interrupted = interrupted_.load();
  return outcome;
}

}  // namespace tokscope::run
