#include "cli/run.hpp"

#include <CLI/CLI.hpp>
#include <ostream>

namespace tokscope::cli {

int run(int argc, char** argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"tokscope: phase-separated LLM inference benchmarks for edge devices", "tokscope"};
  app.require_subcommand(1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e, out, err) == 0 ? 0 : 2;
  }
  return 0;
}

}  // namespace tokscope::cli
