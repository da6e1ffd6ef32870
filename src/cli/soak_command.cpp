#include "cli/soak_command.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <ctime>
#include <ostream>

#include "cli/engine_flags.hpp"
#include "cli/output.hpp"
#include "cli/run_provenance.hpp"
#include "platform/clock.hpp"
#include "platform/host_info.hpp"
#include "platform/interrupt.hpp"
#include "report/soak_render.hpp"
#include "report/soak_table.hpp"
#include "run/engine_factory.hpp"
#include "run/journal.hpp"
#include "run/settings.hpp"
#include "run/soak_loop.hpp"
#include "run/telemetry_session.hpp"
#include "tokscope/build_info.hpp"

namespace tokscope::cli {

struct SoakOptions {
  run::Settings settings;
  double minutes = 0;
  double window_s = 60;
  std::uint32_t prompt_tokens = 128;
  std::uint32_t output_tokens = 256;
  std::string journal;
  std::string format = "md";
  std::string out;
  bool quiet = false;
  std::string sysfs_root = "/";
};

namespace {

constexpr const char* kSoakJournalSchema = "tokscope.soak-journal/1";
constexpr double kMaxMinutes = 1440;
constexpr double kMaxWindowS = 3600;

constexpr const char* kSoakFooter = R"(
What it shows (docs/soak.md): edge chips throttle after minutes of sustained decode. soak runs
requests back to back (concurrency 1, synthetic prompts, forced output length) and, per window,
reports decode_tps_p50 (1000 / ITL P50 of the decode intervals that ended in the window), its
drop vs the first window, the junction temperature (max over thermal zones), mean frequencies
and power; then a table of 5 °C junction bands and the time of first throttling.
Every window is appended to the journal (fsync) as soon as it closes: Ctrl-C keeps them.

Examples:
  tokscope soak --minutes 20 --engine sim --sim-prefill-tps 200 --sim-itl-ms 80
  tokscope soak --minutes 0.5 --window-s 5 --engine sim --sim-prefill-tps 2000 --sim-itl-ms 2 \
                --sysfs-root tests/fixtures/sysfs/rk3588 -o json --out soak.json

Exit codes: 0 ok; 1 interrupted, or stopped by failing requests; 2 bad usage.)";

int fail(std::ostream& err, const Error& e) {
  err << "tokscope soak: error: " << e.message << "\n";
  return exit_code_for(e);
}

Expected<void> validate_soak(const SoakOptions& o) {
  if (!(o.minutes > 0 && o.minutes <= kMaxMinutes)) {
    return make_error(ErrorKind::kUsage,
                      fmt::format("--minutes {}: give a duration above 0 and at most {:g} "
                                  "(24 h); fractions are allowed (--minutes 0.5)",
                                  o.minutes, kMaxMinutes));
  }
  if (!(o.window_s >= 1 && o.window_s <= kMaxWindowS)) {
    return make_error(ErrorKind::kUsage,
                      fmt::format("--window-s {}: give a window from 1 to {:g} seconds (default "
                                  "60: one row per minute)",
                                  o.window_s, kMaxWindowS));
  }
  if (o.format != "md" && o.format != "json") {
    return make_error(ErrorKind::kUsage, fmt::format("-o {}: soak writes md or json", o.format));
  }
  return {};
}

nlohmann::json environment_json(const std::string& root, const platform::Clock& clock,
                                const run::TelemetrySession& telemetry) {
  nlohmann::json env = host_environment(root, clock);
  env.update(telemetry.environment);
  return env;
}

std::string progress_text(const report::SoakWindow& w, std::uint32_t planned, bool simulated) {
  std::string s = fmt::format("tokscope soak: window {}/{}: ", w.index + 1, planned);
  s += std::isfinite(w.decode_tps_p50) ? fmt::format("{:.1f} tok/s p50", w.decode_tps_p50)
                                       : std::string("no decode");
  if (std::isfinite(w.drop_pct)) {
    s += fmt::format(" (drop {:.1f}%)", std::abs(w.drop_pct) < 0.05 ? 0.0 : w.drop_pct);
  }
  if (std::isfinite(w.junction_max_c))
    s += fmt::format(", junction max {:.1f} °C", w.junction_max_c);
  s += w.throttled_rows > 0 ? ", THROTTLED" : ", not throttled";
  if (simulated) s += " (SIMULATED)";
  return s + "\n";
}

}  // namespace

std::shared_ptr<SoakOptions> add_soak_command(CLI::App& app) {
  auto o = std::make_shared<SoakOptions>();
  CLI::App* cmd = app.add_subcommand(
      "soak", "Decode without pause for M minutes and show throughput vs junction temperature");
  cmd->footer(kSoakFooter);
  cmd->add_option("--minutes", o->minutes, "How long to decode, in minutes (fractions allowed)")
      ->required()
      ->group("Run");
  cmd->add_option("--window-s", o->window_s, "Length of one table row, seconds")
      ->capture_default_str()
      ->group("Run");
  cmd->add_option("-p,--prompt-tokens", o->prompt_tokens, "Prompt length of every request, tokens")
      ->capture_default_str()
      ->group("Run");
  cmd->add_option("-n,--output-tokens", o->output_tokens,
                  "Forced output length of every request, tokens")
      ->capture_default_str()
      ->group("Run");
  cmd->add_option("--seed", o->settings.seed, "Seed of the synthetic prompts and engine jitter")
      ->capture_default_str()
      ->group("Run");
  cmd->add_option("--journal", o->journal,
                  "Append-only JSONL, one line per window as it closes (default "
                  "tokscope-runs/<UTC time>-soak-<pid>.jsonl)")
      ->group("Files");
  cmd->add_option("-o,--format", o->format, "Output format: md|json")
      ->capture_default_str()
      ->group("Output");
  cmd->add_option("--out", o->out, "Write the result to FILE instead of stdout")->group("Output");
  cmd->add_flag("-q,--quiet", o->quiet, "No progress lines")->group("Output");
  cmd->add_option("--sysfs-root", o->sysfs_root,
                  "Root of /proc and /sys to read platform facts and telemetry from (a tree "
                  "copied from a board works too)")
      ->capture_default_str()
      ->group("Platform");
  cmd->add_option("--sample-ms", o->settings.sample_ms,
                  "Telemetry sampler period: temperatures, frequencies and power are read this "
                  "often (0 = off: no temperature, no band table)")
      ->capture_default_str()
      ->group("Platform");
  add_engine_flags(cmd, o->settings);
  return o;
}

int run_soak(const SoakOptions& o, std::ostream& out, std::ostream& err) {
  if (auto v = validate_soak(o); !v) return fail(err, v.error());
  run::Settings settings = o.settings;
  settings.prompt_tokens = {o.prompt_tokens};
  settings.output_tokens = {o.output_tokens};
  settings.concurrency = {1};
  if (auto v = run::validate(settings); !v) return fail(err, v.error());

  // 1. Engine and model.
  auto setup = run::make_engine(settings);
  if (!setup) return fail(err, setup.error());
  engines::Engine& engine = *setup->engine;
  if (auto loaded = engine.load(); !loaded) return fail(err, loaded.error());
  const engines::EngineInfo info = engine.info();

  // 2. Telemetry (started by the loop) and the journal with its header.
  platform::MonotonicClock clock;
  run::TelemetrySession telemetry = run::open_telemetry(o.sysfs_root, settings.sample_ms, clock);
  const std::string path =
      !o.journal.empty()
          ? o.journal
          : fmt::format("tokscope-runs/{}-soak-{}.jsonl", utc_stamp("%Y%m%dT%H%M%SZ"), ::getpid());
  auto journal = run::JournalWriter::create(path);
  if (!journal) return fail(err, journal.error());
  nlohmann::json engine_json = info.extra;
  engine_json["name"] = info.name;
  engine_json["version"] = info.version;
  engine_json["simulated"] = info.simulated;
  nlohmann::json soak_settings = run::to_json(settings);
  soak_settings["minutes"] = o.minutes;
  soak_settings["window_s"] = o.window_s;
  const nlohmann::json environment = environment_json(o.sysfs_root, clock, telemetry);
  const nlohmann::json header = {{"type", "header"},
                                 {"schema", kSoakJournalSchema},
                                 {"created_utc", utc_stamp("%Y-%m-%dT%H:%M:%SZ")},
                                 {"tool", tool_json()},
                                 {"settings", soak_settings},
                                 {"engine", engine_json},
                                 {"model", engine.model_info()},
                                 {"environment", environment}};
  if (auto a = journal->append(header); !a) return fail(err, a.error());
  const auto planned_windows =
      static_cast<std::uint32_t>(std::ceil(o.minutes * 60.0 / o.window_s - 1e-9));
  if (!o.quiet) {
    err << fmt::format("tokscope soak: {}{} for {:g} min in {} windows of {:g} s -> journal {}\n",
                       info.name, info.simulated ? " (SIMULATED)" : "", o.minutes, planned_windows,
                       o.window_s, journal->path().string());
  }

  // 3. Run. Each window is on disk (fsync) before the loop goes on.
  platform::InterruptGuard interrupt;
  run::SoakLoopOptions lo;
  lo.duration_s = o.minutes * 60.0;
  lo.window_s = o.window_s;
  lo.prompt_tokens = o.prompt_tokens;
  lo.output_tokens = o.output_tokens;
  lo.seed = settings.seed;
  lo.timeout_s = settings.timeout_s;
  auto outcome = run::run_soak(engine, clock, interrupt.flag(), telemetry.sampler.get(), lo,
                               [&](const report::SoakWindow& w) -> Expected<void> {
                                 nlohmann::json line = report::soak_window_json(w);
                                 line["type"] = "window";
                                 if (auto a = journal->append(line); !a) return a;
                                 if (!o.quiet)
                                   err << progress_text(w, planned_windows, info.simulated)
                                       << std::flush;
                                 return {};
                               });
  if (!outcome) {
    (void)journal->append({{"type", "end"}, {"error", outcome.error().message}});
    return fail(err, outcome.error());
  }

  // 4. Tables, end line, output.
  const report::SoakBands bands = report::soak_bands(outcome->windows);
  const auto throttle = report::first_throttle(outcome->windows);
  nlohmann::json windows = nlohmann::json::array();
  for (const auto& w : outcome->windows) windows.push_back(report::soak_window_json(w));
  nlohmann::json doc = {
      {"schema", report::kSoakSchema},
      {"simulated", info.simulated},
      {"tool", tool_json()},
      {"engine", engine_json},
      {"model", engine.model_info()},
      {"environment", environment},
      {"settings", soak_settings},
      {"journal", journal->path().string()},
      {"window_s", o.window_s},
      {"planned_minutes", o.minutes},
      {"elapsed_s", outcome->elapsed_s},
      {"interrupted", outcome->interrupted},
      {"complete", !outcome->interrupted},
      {"requests", outcome->requests},
      {"failed_requests", outcome->failed},
      {"lost_sampler_rows", outcome->lost_rows},
      {"windows", std::move(windows)},
      {"bands", report::soak_bands_json(bands)},
      {"first_throttle_s", throttle ? nlohmann::json(throttle->t_s) : nlohmann::json("none")},
      {"first_throttle", report::throttle_json(throttle)}};
  if (telemetry.sampler) {
    const platform::SamplerCost cost = telemetry.sampler->cost();
    doc["environment"]["sampler_cost"] = {
        {"rows", cost.rows},
        {"thread_cpu_ms", static_cast<double>(cost.thread_cpu_ns) / 1e6},
        {"wall_ms", static_cast<double>(cost.wall_ns) / 1e6},
        {"core_fraction", cost.core_fraction()}};
  }
  const nlohmann::json end_line = {{"type", "end"},
                                   {"interrupted", outcome->interrupted},
                                   {"elapsed_s", outcome->elapsed_s},
                                   {"requests", outcome->requests},
                                   {"failed_requests", outcome->failed},
                                   {"first_throttle", doc["first_throttle"]},
                                   {"bands", doc["bands"]}};
  if (auto a = journal->append(end_line); !a) return fail(err, a.error());
  const std::string text = o.format == "json" ? doc.dump(2) + "\n" : report::render_soak_md(doc);
  if (auto e = write_text(text, o.out, out); !e) return fail(err, e.error());
  if (!o.out.empty() && !o.quiet) err << "tokscope soak: wrote " << o.out << "\n";
  if (outcome->interrupted) {
    err << fmt::format("tokscope soak: interrupted after {:.1f} s; {} windows are in {}\n",
                       outcome->elapsed_s, outcome->windows.size(), journal->path().string());
    return 1;
  }
  return 0;
}

}  // namespace tokscope::cli
