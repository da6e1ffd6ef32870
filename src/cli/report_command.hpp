// `tokscope report FILE...`: render result files or journals (a journal is rebuilt into the
// full result through the same code path as `bench`).
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <memory>

namespace tokscope::cli {

struct ReportOptions;
std::shared_ptr<ReportOptions> add_report_command(CLI::App& app);
int run_report(const ReportOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tokscope::cli
