#include "cli/report_command.hpp"

#include <fmt/format.h>

#include <fstream>
#include <ostream>
#include <sstream>

#include "cli/output.hpp"
#include "report/result_builder.hpp"
#include "run/journal.hpp"

namespace tokscope::cli {

struct ReportOptions {
  std::vector<std::string> files;
  std::string format = "md";
  std::string out;
};

namespace {

int fail(std::ostream& err, const Error& e) {
  err << "tokscope report: error: " << e.message << "\n";
  return exit_code_for(e);
}

// A result document, or a journal rebuilt into one.
Expected<nlohmann::json> load_result(const std::string& path) {
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
    return report::build_result(journal->header, journal->requests, bo);
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
    auto result = load_result(file);
    if (!result) return fail(err, result.error());
    if (auto e = emit(*result, *format, o.out, out); !e) return fail(err, e.error());
    if (report::has_blocking_flags(*result)) code = 1;
  }
  return code;
}

}  // namespace tokscope::cli
