#include "cli/bench_command.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <ostream>

#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "platform/clock.hpp"
#include "platform/host_info.hpp"
#include "platform/interrupt.hpp"
#include "report/result_builder.hpp"
#include "run/engine_factory.hpp"
#include "run/journal.hpp"
#include "run/runner.hpp"
#include "run/settings.hpp"
#include "run/telemetry_session.hpp"
#include "tokscope/build_info.hpp"
#include "workload/prompts.hpp"
#include "workload/strata.hpp"

namespace tokscope::cli {

struct BenchOptions {
  run::Settings settings;
  std::string journal;
  std::string resume;
  std::string format = "md";
  std::string out;
  bool quiet = false;
  std::string sysfs_root = "/";
  CLI::App* command = nullptr;
};

namespace {

constexpr const char* kBenchFooter = R"(
Metrics (definitions and why: docs/metrics.md):
  decode_tps_p50 = 1000 / ITL P50: the headline decode speed. ITL is decode only; TTFT is never
  part of it. blended_tps (output tokens / end-to-end time) is reported beside it and is NOT a
  decode metric: it mixes prefill and decode, so it changes with the prompt length.
  Warm-up requests (--warmup) run per stratum, are kept in the raw data with warmup=true and are
  excluded from every statistic.

Examples:
  tokscope bench --engine sim --sim-prefill-tps 20000 --sim-itl-ms 2 -p 64,512 -n 32 -r 20
  tokscope bench --engine sim --device rk3588-npu --model-shape deepseek-r1-distill-qwen-1.5b \
                 --quant w8a8 -p 8,512 -n 64 -o json --out result.json
  tokscope bench --resume tokscope-runs/20261130T101500Z-sim-4242.journal.jsonl
  tokscope report tokscope-runs/20261130T101500Z-sim-4242.journal.jsonl -o csv

Exit codes: 0 ok; 1 finished but a request failed, was interrupted or a result is flagged
(exceeds_physical_ceiling, failed_requests, short_requests); 2 bad usage or input.)";

std::string utc_stamp(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

nlohmann::json environment_json(const std::string& root, const platform::Clock& clock,
                                const run::TelemetrySession& telemetry) {
  const platform::HostInfo host = platform::read_host_info(root);
  nlohmann::json env = {{"host", host.host},
                        {"kernel", host.kernel},
                        {"arch", host.arch},
                        {"cpu", host.cpu},
                        {"logical_cpus", host.logical_cpus},
                        {"clock", clock.name()},
                        {"sysfs_root", root},
                        {"locks", nlohmann::json::array()}};
  env.update(telemetry.environment);
  env["telemetry_available"]["perf_counters"] =
      "unavailable: hardware counters are not wired into bench yet (issue 4)";
  return env;
}

nlohmann::json strata_json(const std::vector<workload::Stratum>& strata) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& s : strata) {
    a.push_back({{"id", s.id},
                 {"prompt_tokens", s.prompt_tokens},
                 {"output_tokens", s.output_tokens},
                 {"concurrency", s.concurrency}});
  }
  return a;
}

nlohmann::json tool_json() {
  return {{"name", "tokscope"},
          {"version", std::string(build::kVersion)},
          {"git_commit", std::string(build::kGitCommit)},
          {"build_type", TOKSCOPE_BUILD_TYPE},
          {"sanitizer", TOKSCOPE_SANITIZER}};
}

// Options that define the plan; with --resume the plan comes from the journal instead.
bool plan_flags_given(const CLI::App& cmd) {
  for (const char* name :
       {"--engine",         "--prompt-tokens",     "--output-tokens",
        "--concurrency",    "--repetitions",       "--warmup",
        "--seed",           "--timeout-s",         "--dataset",
        "--min-duration-s", "--max-requests",      "--sim-prefill-tps",
        "--sim-itl-ms",     "--sim-jitter-ms",     "--sim-itl-growth-ms-per-1k-ctx",
        "--device",         "--model-shape",       "--quant",
        "--bandwidth-gbps", "--peak-tops",         "--bootstrap-resamples",
        "--sample-ms",      "--discard-throttled", "--journal"}) {
    if (cmd.count(name) > 0) return true;
  }
  return false;
}

int fail(std::ostream& err, const Error& e) {
  err << "tokscope bench: error: " << e.message << "\n";
  return exit_code_for(e);
}

}  // namespace

std::shared_ptr<BenchOptions> add_bench_command(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  auto& s = o->settings;
  CLI::App* cmd = app.add_subcommand(
      "bench", "Run a stratified benchmark against one engine and write a result");
  o->command = cmd;
  cmd->footer(kBenchFooter);
  cmd->add_option("--engine", s.engine, "Engine adapter (available: sim)")
      ->capture_default_str()
      ->group("Run");
  cmd->add_option("-p,--prompt-tokens", s.prompt_tokens,
                  "Prompt lengths in exact tokens, one stratum each (comma-separated)")
      ->delimiter(',')
      ->capture_default_str()
      ->group("Run");
  cmd->add_option("-n,--output-tokens", s.output_tokens, "Forced output length(s) in tokens")
      ->delimiter(',')
      ->capture_default_str()
      ->group("Run");
  cmd->add_option("-c,--concurrency", s.concurrency,
                  "Requests in flight, closed loop (a list makes more strata)")
      ->delimiter(',')
      ->capture_default_str()
      ->group("Run");
  cmd->add_option("-r,--repetitions", s.repetitions,
                  "Measured requests per stratum, after warm-up (minimum with --min-duration-s)")
      ->capture_default_str()
      ->group("Run");
  cmd->add_option("--warmup", s.warmup, "Discarded warm-up requests per stratum")
      ->capture_default_str()
      ->group("Run");
  cmd->add_option("--min-duration-s", s.min_duration_s,
                  "Keep measuring each stratum at least this long (0 = off)")
      ->capture_default_str()
      ->group("Run");
  cmd->add_option("--max-requests", s.max_requests,
                  "Cap on measured requests per stratum with --min-duration-s")
      ->capture_default_str()
      ->group("Run");
  cmd->add_option("--seed", s.seed, "Seed of every random choice (prompts, jitter, bootstrap)")
      ->capture_default_str()
      ->group("Run");
  cmd->add_option("--timeout-s", s.timeout_s,
                  "Per-request limit; a timed-out request is recorded as failed")
      ->capture_default_str()
      ->group("Run");
  cmd->add_option("--dataset", s.dataset,
                  "Prompt texts (JSON array or JSONL of strings or {\"prompt\":...}); each is "
                  "tokenized by the engine and trimmed/padded to the exact length")
      ->group("Run");
  cmd->add_option("--bootstrap-resamples", s.bootstrap_resamples,
                  "Resamples of the 95% bootstrap intervals")
      ->capture_default_str()
      ->group("Run");
  cmd->add_option("--journal", o->journal,
                  "Append-only JSONL of every request as it completes (default "
                  "tokscope-runs/<UTC time>-<engine>-<pid>.journal.jsonl)")
      ->group("Files");
  cmd->add_option("--resume", o->resume,
                  "Continue an interrupted journal (the plan comes from its header)")
      ->group("Files");
  cmd->add_option("-o,--format", o->format, "Output format: md|json|jsonl|csv|html")
      ->capture_default_str()
      ->group("Output");
  cmd->add_option("--out", o->out, "Write the result to FILE instead of stdout")->group("Output");
  cmd->add_flag("-q,--quiet", o->quiet, "No progress line")->group("Output");
  cmd->add_option("--sysfs-root", o->sysfs_root,
                  "Root of /proc and /sys to read platform facts and telemetry from (a tree "
                  "copied from a board works too)")
      ->capture_default_str()
      ->group("Platform");
  cmd->add_option("--sample-ms", s.sample_ms,
                  "Telemetry sampler period: temperatures, frequencies, power and NPU load are "
                  "read this often and stamped on every request (0 = off)")
      ->capture_default_str()
      ->group("Platform");
  cmd->add_flag("--discard-throttled", s.discard_throttled,
                "Exclude requests that ran while the platform throttled (over a passive trip "
                "point, or a locked frequency fell) from statistics; they stay in the raw data")
      ->group("Platform");

  cmd->add_option("--sim-prefill-tps", s.sim_prefill_tps, "sim: prefill speed, tokens/s")
      ->group("sim engine: explicit schedule");
  cmd->add_option("--sim-itl-ms", s.sim_itl_ms, "sim: inter-token latency, ms")
      ->group("sim engine: explicit schedule");
  cmd->add_option("--sim-jitter-ms", s.sim_jitter_ms, "sim: Gaussian jitter sd per interval, ms")
      ->group("sim engine: explicit schedule");
  cmd->add_option("--sim-itl-growth-ms-per-1k-ctx", s.sim_itl_growth_ms_per_1k_ctx,
                  "sim: ITL added per 1000 tokens of context, ms")
      ->group("sim engine: explicit schedule");
  cmd->add_option("--device", s.device,
                  "sim: device profile (rk3588-npu, rk3588-cpu, ax650n; see `tokscope devices`)")
      ->group("sim engine: device model");
  cmd->add_option("--model-shape", s.model_shape,
                  "Model shape from the catalog (see `tokscope shapes`); also gives the ceiling")
      ->group("sim engine: device model");
  cmd->add_option("--quant", s.quant, "Quantization preset (w8a8, w4a16_g128, q4_0, ...)")
      ->group("sim engine: device model");
  cmd->add_option("--model-file", s.model_file,
                  "GGUF whose tensors give W and K for the ceiling (a .rkllm/.axmodel needs "
                  "--model-shape and --quant too: the ceiling is then estimated)")
      ->group("Ceiling");
  cmd->add_option("--bandwidth-gbps", s.bandwidth_gbps,
                  "Declared memory bandwidth for the decode ceiling (GB/s)")
      ->group("Ceiling");
  cmd->add_flag("--probe", s.probe,
                "Take the ceiling's bandwidth from this machine's cached `tokscope probe`")
      ->group("Ceiling");
  cmd->add_option("--peak-tops", s.peak_tops,
                  "Declared peak compute for the prefill ceiling (tera-ops/s)")
      ->group("Ceiling");
  return o;
}

int run_bench(const BenchOptions& o, std::ostream& out, std::ostream& err) {
  auto format = report::parse_format(o.format);
  if (!format) return fail(err, format.error());

  // 1. Settings: from the flags, or from the journal being resumed.
  run::Settings settings = o.settings;
  std::vector<nlohmann::json> records;
  std::optional<run::JournalContents> resumed;
  if (!o.resume.empty()) {
    if (plan_flags_given(*o.command)) {
      return fail(err, make_error(ErrorKind::kUsage,
                                  "--resume takes the plan and engine settings from the "
                                  "journal's header; drop the other run flags (keep -o/--out)"));
    }
    auto contents = run::read_journal(o.resume);
    if (!contents) return fail(err, contents.error());
    if (contents->ended && !contents->interrupted) {
      return fail(err, make_error(ErrorKind::kUsage,
                                  fmt::format("--resume {}: this run already finished; render it "
                                              "with `tokscope report {}`",
                                              o.resume, o.resume)));
    }
    auto from_header =
        run::settings_from_json(contents->header.value("settings", nlohmann::json()));
    if (!from_header) return fail(err, from_header.error());
    settings = *from_header;
    resumed = std::move(*contents);
  }
  if (auto v = run::validate(settings); !v) return fail(err, v.error());

  // 2. Engine and model.
  auto setup = run::make_engine(settings);
  if (!setup) return fail(err, setup.error());
  engines::Engine& engine = *setup->engine;
  if (auto loaded = engine.load(); !loaded) return fail(err, loaded.error());
  run::RunnerOptions ro;
  ro.warmup = settings.warmup;
  ro.repetitions = settings.repetitions;
  ro.min_duration_s = settings.min_duration_s;
  ro.max_requests = settings.max_requests;
  ro.timeout_s = settings.timeout_s;
  ro.seed = settings.seed;
  if (!settings.dataset.empty()) {
    if (!engine.can_tokenize()) {
      return fail(err, make_error(ErrorKind::kUsage,
                                  fmt::format("--dataset needs an engine that can tokenize; "
                                              "engine '{}' cannot",
                                              settings.engine)));
    }
    auto texts = workload::load_text_dataset(settings.dataset);
    if (!texts) return fail(err, texts.error());
    ro.dataset = std::move(*texts);
  }
  const auto strata =
      workload::expand_strata(settings.prompt_tokens, settings.output_tokens, settings.concurrency);

  // 3. Telemetry (sampler not started yet), then the journal: a new one with its header, or the
  //    resumed one.
  platform::MonotonicClock clock;
  run::TelemetrySession telemetry = run::open_telemetry(o.sysfs_root, settings.sample_ms, clock);
  std::vector<nlohmann::json> telemetry_lines;
  const engines::EngineInfo info = engine.info();
  nlohmann::json header;
  std::optional<run::JournalWriter> journal;
  std::set<std::pair<std::uint32_t, std::uint32_t>> done;
  if (resumed) {
    header = resumed->header;
    records = resumed->requests;
    telemetry_lines = resumed->telemetry;
    for (const auto& r : records) done.insert({r.value("stratum", 0U), r.value("index", 0U)});
    auto w = run::JournalWriter::open_append(o.resume);
    if (!w) return fail(err, w.error());
    journal.emplace(std::move(*w));
  } else {
    const std::string path =
        !o.journal.empty() ? o.journal
                           : fmt::format("tokscope-runs/{}-{}-{}.journal.jsonl",
                                         utc_stamp("%Y%m%dT%H%M%SZ"), settings.engine, ::getpid());
    auto w = run::JournalWriter::create(path);
    if (!w) return fail(err, w.error());
    journal.emplace(std::move(*w));
    nlohmann::json engine_json = info.extra;
    engine_json["name"] = info.name;
    engine_json["version"] = info.version;
    engine_json["simulated"] = info.simulated;
    header = {{"type", "header"},
              {"schema", run::kJournalSchema},
              {"created_utc", utc_stamp("%Y-%m-%dT%H:%M:%SZ")},
              {"tool", tool_json()},
              {"settings", run::to_json(settings)},
              {"strata", strata_json(strata)},
              {"engine", std::move(engine_json)},
              {"model", engine.model_info()},
              {"environment", environment_json(o.sysfs_root, clock, telemetry)},
              {"ceiling_inputs", setup->ceiling_inputs}};
    if (auto a = journal->append(header); !a) return fail(err, a.error());
  }
  if (!o.quiet) {
    err << fmt::format("tokscope bench: {}{} -> journal {}\n", info.name,
                       info.simulated ? " (SIMULATED)" : "", journal->path().string());
  }

  // 4. Run. Each completed request is on disk (fsync) before its worker starts the next one.
  platform::InterruptGuard interrupt;
  ProgressLine progress(err, !o.quiet && isatty(STDERR_FILENO) == 1);
  //    The sink runs under the runner's completion lock, never on the per-token path: it stamps
  //    the record with telemetry, journals it, then journals the sampler rows taken meanwhile.
  const auto journal_telemetry = [&]() -> Expected<void> {
    if (!telemetry.stamper) return {};
    auto line = telemetry.stamper->drain();
    if (!line) return {};
    if (auto a = journal->append(*line); !a) return a;
    telemetry_lines.push_back(std::move(*line));
    return {};
  };
  run::Runner runner(engine, clock, interrupt.flag(), ro);
  if (telemetry.sampler) telemetry.sampler->start();
  auto outcome = runner.run(
      strata, done,
      [&](const nlohmann::json& record) -> Expected<void> {
        nlohmann::json stamped = record;
        if (telemetry.stamper) telemetry.stamper->stamp(stamped);
        if (auto a = journal->append(stamped); !a) return a;
        records.push_back(std::move(stamped));
        return journal_telemetry();
      },
      [&](const run::Progress& p) { progress.update(p); });
  progress.finish();
  nlohmann::json end_line = {{"type", "end"}, {"interrupted", outcome && outcome->interrupted}};
  if (telemetry.sampler) {
    telemetry.sampler->stop();
    if (auto a = journal_telemetry(); !a) return fail(err, a.error());
    const platform::SamplerCost cost = telemetry.sampler->cost();
    end_line["sampler_cost"] = {{"rows", cost.rows},
                                {"thread_cpu_ms", static_cast<double>(cost.thread_cpu_ns) / 1e6},
                                {"wall_ms", static_cast<double>(cost.wall_ns) / 1e6},
                                {"core_fraction", cost.core_fraction()}};
  }
  if (!outcome) return fail(err, outcome.error());
  const bool interrupted = outcome->interrupted;
  if (auto a = journal->append(end_line); !a) return fail(err, a.error());

  // 5. Result, from the same records the journal holds.
  report::BuildOptions bo;
  bo.complete = !interrupted;
  bo.interrupted = interrupted;
  bo.telemetry = &telemetry_lines;
  bo.sampler_cost = end_line.value("sampler_cost", nlohmann::json(nullptr));
  const nlohmann::json result = report::build_result(header, records, bo);
  if (auto e = emit(result, *format, o.out, out); !e) return fail(err, e.error());
  if (!o.out.empty() && !o.quiet) err << "tokscope bench: wrote " << o.out << "\n";
  if (interrupted) {
    err << fmt::format(
        "tokscope bench: interrupted; {} requests are in {}; continue with "
        "`tokscope bench --resume {}`\n",
        records.size(), journal->path().string(), journal->path().string());
    return 1;
  }
  if (outcome->failed > 0 || report::has_blocking_flags(result)) {
    err << "tokscope bench: finished with failed requests or blocking flags (see the flags "
           "column)\n";
    return 1;
  }
  return 0;
}

}  // namespace tokscope::cli
