#include "cli/report_command.hpp"

#include <fmt/format.h>

#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>

#include "cli/output.hpp"
#include "report/result_builder.hpp"
#include "run/journal.hpp"
#include "run/power_log_alignment.hpp"

namespace tokscope::cli {

struct ReportOptions {
  std::vector<std::string> files;
  std::string format = "md";
  std::string out;
  std::string power_log;  // a meter's CSV to take each phase's energy from (journals only)
  std::optional<double> power_log_offset_s;
};

namespace {

int fail(std::ostream& err, const Error& e) {
  err << "tokscope report: error: " << e.message << "\n";
  return exit_code_for(e);
}

// A result document, or a journal rebuilt into one.
Expected<nlohmann::json> load_result(const std::string& path, const ReportOptions& o) {
  std::ifstream in(path);
  if (!in) {
    return make_error(ErrorKind::kInput, fmt::format("{}: cannot open (check the path)", path));
  }
  std::string first_line;
  std::getline(in, first_line);
  nlohmann::json first = nlohmann::json::parse(first_line, nullptr, false);
  if (!first.is_discarded() && first.is_object() && first.value("type", "") == "header") {
    auto journal = run::read_journal(path);
    if (!journal) return journal.error();
    report::BuildOptions bo;
    bo.complete = journal->ended && !journal->interrupted;
    bo.interrupted = journal->interrupted;
    bo.telemetry = &journal->telemetry;
    if (journal->end.is_object())
      bo.sampler_cost = journal->end.value("sampler_cost", nlohmann::json());
    // --power-log here, else the one the run named (read now: the meter may have kept writing).
    const std::string log_path =
        !o.power_log.empty()
            ? o.power_log
            : journal->header.value("settings", nlohmann::json::object()).value("power_log", "");
    std::optional<double> offset_s = o.power_log_offset_s;
    const nlohmann::json settings = journal->header.value("settings", nlohmann::json::object());
    if (!offset_s && o.power_log.empty() && settings.value("power_log_offset_given", false)) {
      offset_s = settings.value("power_log_offset_s", 0.0);
    }
    std::optional<run::RunPowerLog> power_log;
    if (!log_path.empty()) {
      auto loaded = run::load_run_power_log(
          log_path, journal->header.value("environment", nlohmann::json::object()), offset_s);
      if (!loaded) return loaded.error();
      power_log = std::move(*loaded);
      bo.power_log = &power_log->series;
      bo.power_log_info = power_log->info;
    }
    return report::build_result(journal->header, journal->requests, bo);
  }
  if (!o.power_log.empty()) {
    return make_error(ErrorKind::kUsage,
                      fmt::format("--power-log {}: {} is a result file; energy from a power log "
                                  "is computed from a journal (give the run's .journal.jsonl)",
                                  o.power_log, path));
  }
  in.clear();
  in.seekg(0);
  std::stringstream buffer;
  buffer << in.rdbuf();
  nlohmann::json doc = nlohmann::json::parse(buffer.str(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || doc.value("schema", "") != report::kResultSchema) {
    return make_error(ErrorKind::kInput,
                      fmt::format("{}: neither a tokscope journal nor a result file (schema "
                                  "\"{}\"); produce one with `tokscope bench -o json --out FILE`",
                                  path, report::kResultSchema));
  }
  return doc;
}

}  // namespace

std::shared_ptr<ReportOptions> add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Render result files or journals (a journal is rebuilt into the full result)");
  cmd->add_option("files", o->files, "Result JSON files or bench journals (.journal.jsonl)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--format", o->format, "Output format: md|json|jsonl|csv|html")
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Write to FILE instead of stdout");
  cmd->add_option("--power-log", o->power_log,
                  "External power meter CSV (docs/power-log.md): each phase's energy of a "
                  "journal comes from it")
      ->check(CLI::ExistingFile);
  cmd->add_option("--power-log-offset-s", o->power_log_offset_s,
                  "Seconds to add to the log's times to get tokscope's clock (default: the run's "
                  "marker pulse, or its clock sync point for a log in Unix time)");
  return o;
}

int run_report(const ReportOptions& o, std::ostream& out, std::ostream& err) {
  auto format = report::parse_format(o.format);
  if (!format) return fail(err, format.error());
  if (o.files.size() > 1 && !o.out.empty()) {
    return fail(err, make_error(ErrorKind::kUsage,
                                "--out takes one input file; render several "
                                "files to stdout or one at a time"));
  }
  int code = 0;
  for (const auto& file : o.files) {
    auto result = load_result(file, o);
    if (!result) return fail(err, result.error());
    if (auto e = emit(*result, *format, o.out, out); !e) return fail(err, e.error());
    if (report::has_blocking_flags(*result)) code = 1;
  }
  return code;
}

}  // namespace tokscope::cli
