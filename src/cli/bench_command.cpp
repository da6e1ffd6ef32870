#include "cli/bench_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <ostream>

#include "cli/bench_counters.hpp"
#include "cli/bench_platform.hpp"
#include "cli/engine_flags.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "cli/run_provenance.hpp"
#include "platform/clock.hpp"
#include "platform/host_info.hpp"
#include "platform/interrupt.hpp"
#include "report/result_builder.hpp"
#include "run/engine_factory.hpp"
#include "run/journal.hpp"
#include "run/power_log_alignment.hpp"
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
  LockFlags lock_flags;  // --ddr-freq … as typed (copied into settings) and --lock-journal
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

nlohmann::json environment_json(const std::string& root, const platform::Clock& clock,
                                const run::TelemetrySession& telemetry,
                                const std::optional<platform::perf::CounterSet>& counters,
                                const run::Settings& settings) {
  nlohmann::json env = host_environment(root, clock);
  env["locks"] = nlohmann::json::array();
  env.update(telemetry.environment);
  env["telemetry_available"]["perf_counters"] = counters_available(counters);
  env["counters"] = counters_environment(counters, settings);
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

// Options that define the plan; with --resume the plan comes from the journal instead.
bool plan_flags_given(const CLI::App& cmd) {
  for (const char* name : {"--engine",
                           "--prompt-tokens",
                           "--output-tokens",
                           "--concurrency",
                           "--repetitions",
                           "--warmup",
                           "--seed",
                           "--timeout-s",
                           "--dataset",
                           "--min-duration-s",
                           "--max-requests",
                           "--sim-prefill-tps",
                           "--sim-itl-ms",
                           "--sim-jitter-ms",
                           "--sim-itl-growth-ms-per-1k-ctx",
                           "--device",
                           "--model-shape",
                           "--quant",
                           "--bandwidth-gbps",
                           "--peak-tops",
                           "--bootstrap-resamples",
                           "--sample-ms",
                           "--discard-throttled",
                           "--journal",
                           "--counters",
                           "--counter-line-fill-event",
                           "--lock",
                           "--ddr-freq",
                           "--npu-freq",
                           "--gpu-freq",
                           "--cpu-freq",
                           "--mlock",
                           "--cpus",
                           "--core-type",
                           "--idle-baseline-s",
                           "--subtract-idle",
                           "--marker-pulse",
                           "--power-log",
                           "--power-log-offset-s",
                           "--rkllm-lib",
                           "--rkllm-abi",
                           "--rkllm-model",
                           "--rkllm-cpus",
                           "--max-context"}) {
    if (cmd.count(name) > 0) return true;
  }
  return false;
}

int fail(std::ostream& err, const Error& e) {
  err << "tokscope bench: error: " << e.message << "\n";
  return exit_code_for(e);
}

}  // namespace

// Locks, pinning, mlock, idle baseline and power-meter flags (docs/telemetry.md).
void add_platform_control_flags(CLI::App& cmd, BenchOptions& o) {
  auto& s = o.settings;
  const char* group = "Platform control (docs/telemetry.md)";
  cmd.add_flag("--lock", s.lock,
               "Lock CPU/DDR/NPU/GPU frequencies for the run (as `tokscope lock`; needs root) and "
               "restore them at the end, on Ctrl-C, or at the next start after a crash; a locked "
               "frequency that falls marks requests throttled")
      ->group(group);
  add_lock_frequency_flags(cmd, o.lock_flags);
  for (const char* name :
       {"--ddr-freq", "--npu-freq", "--gpu-freq", "--cpu-freq", "--lock-journal"}) {
    cmd.get_option(name)->group(group);
  }
  cmd.add_flag("--mlock", s.mlock,
               "mlockall() after the model loads, so no page of the harness or an in-process "
               "engine is swapped or dropped (needs root or a high `ulimit -l`)")
      ->group(group);
  cmd.add_option("--cpus", s.cpus,
                 "Pin the harness and in-process engines to these cpus (sysfs list: 4-7 or 0,2); "
                 "pin a server engine with taskset")
      ->group(group);
  cmd.add_option("--core-type", s.core_type,
                 "Pin to the big or little cores (from cpu_capacity or the CPU part)")
      ->check(CLI::IsMember({"big", "little"}))
      ->group(group);
  cmd.add_option("--idle-baseline-s", s.idle_baseline_s,
                 "Sit idle this long before the first request while the sampler (or a power "
                 "log) records the idle power; the result reports it (0 = off)")
      ->capture_default_str()
      ->group(group);
  cmd.add_flag("--subtract-idle", s.subtract_idle,
               "Also report each phase's energy above the idle baseline (*_net_mj_per_token)")
      ->group(group);
  cmd.add_flag("--marker-pulse", s.marker_pulse,
               "Before the first request: 3 s idle, 2 s every cpu busy, 3 s idle, so an external "
               "meter's log can be aligned (docs/power-log.md)")
      ->group(group);
  cmd.add_option("--power-log", s.power_log,
                 "CSV of an external power meter (docs/power-log.md), read when the run ends: "
                 "energy per phase comes from it")
      ->group(group);
  cmd.add_option_function<double>(
         "--power-log-offset-s",
         [&s](double v) {
           s.power_log_offset_s = v;
           s.power_log_offset_given = true;
         },
         "Seconds to add to the log's times to get tokscope's clock (default: found from "
         "--marker-pulse, or from the run's clock sync point for a log in Unix time)")
      ->group(group);
}

std::shared_ptr<BenchOptions> add_bench_command(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  auto& s = o->settings;
  CLI::App* cmd = app.add_subcommand(
      "bench", "Run a stratified benchmark against one engine and write a result");
  o->command = cmd;
  cmd->footer(kBenchFooter);
  add_engine_flags(cmd, s);  // --engine, the sim schedules, --model-file (shared with soak)
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
  cmd->add_option_function<std::vector<std::string>>(
         "--counters",
         [&s](const std::vector<std::string>& v) { s.counters = run::parse_counter_list(v); },
         "perf_event_open counters over each request's prefill and decode, counting every "
         "engine thread: perf names (instructions, cycles, cache-misses, L1-dcache-load-misses, "
         "task-clock, context-switches, page-faults), PMU events (bus_access, l2d_cache_refill, "
         "...), rNNN or libpfm names; at most 16, at most 6 hardware. `none` = off. Events this "
         "machine cannot count are reported unavailable. The token path reads them once per "
         "request (first token): one read() per counter, no allocation (default: " +
             fmt::format("{}", fmt::join(run::default_counter_events(), ",")) + ")")
      ->delimiter(',')
      ->group("Counters");
  cmd->add_option("--counter-line-fill-event", s.counter_line_fill_event,
                  "Event whose count x 64 B estimates DRAM bytes per token and bandwidth "
                  "utilization (an estimate: ignores write-backs; counted even if not in "
                  "--counters). Default: the first counted of l3d_cache_refill, ll_cache_miss_rd, "
                  "bus_access_rd, LLC-load-misses, cache-misses")
      ->group("Counters");
  add_platform_control_flags(*cmd, *o);

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
  } else {
    settings.lock_ddr_freq_hz = o.lock_flags.ddr_freq_hz;
    settings.lock_npu_freq_hz = o.lock_flags.npu_freq_hz;
    settings.lock_gpu_freq_hz = o.lock_flags.gpu_freq_hz;
    settings.lock_cpu_freq_khz = o.lock_flags.cpu_freq_khz;
  }
  if (auto v = run::validate(settings); !v) return fail(err, v.error());
  // A resumed run reads the same tree as the run it continues unless told otherwise.
  std::string sysfs_root = o.sysfs_root;
  if (resumed && o.command->count("--sysfs-root") == 0) {
    sysfs_root = resumed->header.value("environment", nlohmann::json::object())
                     .value("sysfs_root", o.sysfs_root);
  }
  // Counters: opened now to check the event names (exit 2 before a journal exists) and to
  // describe them in the header; opened again for the run in step 3 (cli/bench_counters.hpp).
  auto counters = open_bench_counters(settings);
  if (!counters) return fail(err, counters.error());

  // 2. Engine (created, loaded in step 3): pinned first, so its threads inherit the mask.
  BenchPlatform plat;
  if (auto p = pin_for_bench(settings, sysfs_root, plat); !p) return fail(err, p.error());
  auto setup = run::make_engine(settings);
  if (!setup) return fail(err, setup.error());
  engines::Engine& engine = *setup->engine;
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

  // 3. Telemetry, the frequency lock (its channels marked before the sampler starts), the
  //    sampler, the idle baseline and marker pulse (they need the sampler running), then the
  //    journal: a new one with its header, or the resumed one.
  platform::MonotonicClock clock;
  platform::InterruptGuard interrupt;
  run::TelemetrySession telemetry = run::open_telemetry(sysfs_root, settings.sample_ms, clock);
  if (resumed) {
    if (auto same = run::check_same_channels(resumed->header, telemetry); !same) {
      return fail(err, same.error());
    }
  }
  if (auto l =
          lock_for_bench(settings, sysfs_root, o.lock_flags.journal, telemetry.sampler.get(), plat);
      !l) {
    return fail(err, l.error());
  }
  if (telemetry.sampler) {  // the channel list now carries the locked values
    telemetry.environment["telemetry"] = run::telemetry_channels_json(*telemetry.sampler);
    telemetry.sampler->start();
  }
  //    Counters for the run: opened after the sampler started (its thread is not counted) and
  //    before the engine loads, so every thread an in-process engine starts (in load() or later,
  //    and the runner's workers) inherits them. Then the load, at the locked frequencies, and
  //    mlock (the model's pages are locked with everything else).
  counters = open_bench_counters(settings);
  if (!counters) return fail(err, counters.error());
  if (auto loaded = engine.load(); !loaded) return fail(err, loaded.error());
  if (auto m = mlock_for_bench(settings, plat); !m) return fail(err, m.error());
  if (!resumed) {
    if (auto pre = pre_run_phases(settings, clock, interrupt.flag(), o.quiet, err, plat); !pre) {
      if (pre.error().kind == ErrorKind::kCancelled) {
        err << "tokscope bench: interrupted before the first request; nothing was measured\n";
        return 1;
      }
      return fail(err, pre.error());
    }
  }
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
              {"environment", environment_json(sysfs_root, clock, telemetry, *counters, settings)},
              {"ceiling_inputs", setup->ceiling_inputs}};
    header["environment"].update(plat.environment);
    if (auto a = journal->append(header); !a) return fail(err, a.error());
  }
  if (!o.quiet) {
    err << fmt::format("tokscope bench: {}{} -> journal {}\n", info.name,
                       info.simulated ? " (SIMULATED)" : "", journal->path().string());
  }

  // 4. Run. Each completed request is on disk (fsync) before its worker starts the next one.
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
  //    The rows of the idle baseline and the marker pulse go to disk now.
  if (auto a = journal_telemetry(); !a) return fail(err, a.error());
  run::Runner runner(engine, clock, interrupt.flag(), ro);
  runner.set_counters(*counters ? &**counters : nullptr);
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
  if (const nlohmann::json released = release_bench_lock(plat); !released.is_null()) {
    end_line["lock_release"] = released;
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
  //    An external meter's log, written while the run went on, is read now.
  std::optional<run::RunPowerLog> power_log;
  if (!settings.power_log.empty()) {
    auto loaded = run::load_run_power_log(
        settings.power_log, header.value("environment", nlohmann::json::object()),
        settings.power_log_offset_given ? std::optional<double>(settings.power_log_offset_s)
                                        : std::nullopt);
    if (!loaded) {
      err << "tokscope bench: error: " << loaded.error().message << "\n"
          << fmt::format(
                 "tokscope bench: the run is saved in {}; add the energy later with "
                 "`tokscope report {} --power-log FILE --power-log-offset-s S`\n",
                 journal->path().string(), journal->path().string());
      return exit_code_for(loaded.error());
    }
    power_log = std::move(*loaded);
    bo.power_log = &power_log->series;
    bo.power_log_info = power_log->info;
  }
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
