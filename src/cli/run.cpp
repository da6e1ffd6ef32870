#include "cli/run.hpp"

#include <CLI/CLI.hpp>
#include <ostream>

#include "cli/bench_command.hpp"
#include "cli/catalog_commands.hpp"
#include "cli/doctor_command.hpp"
#include "cli/inspect_command.hpp"
#include "cli/lock_command.hpp"
#include "cli/probe_command.hpp"
#include "cli/report_command.hpp"
#include "cli/roofline_command.hpp"
#include "cli/soak_command.hpp"
#include "cli/synth_command.hpp"
#include "tokscope/build_info.hpp"

namespace tokscope::cli {

int run(int argc, char** argv, std::ostream& out, std::ostream& err) {
  CLI::App app{
      "tokscope: phase-separated LLM inference benchmarks for edge devices.\n"
      "Decode speed from inter-token latency, TTFT without tokenization, warm-up "
      "discarded, percentiles with confidence intervals, physical ceilings.\n"
      "Metric definitions: docs/metrics.md",
      "tokscope"};
  app.set_version_flag("--version",
                       std::string(build::kVersion) + " (" + std::string(build::kGitCommit) + ")");
  app.require_subcommand(1);
  app.footer("Run `tokscope COMMAND --help` for a command's flags and examples.");
  auto bench = add_bench_command(app);
  auto report = add_report_command(app);
  auto roofline = add_roofline_command(app);
  auto inspect = add_inspect_command(app);
  auto probe = add_probe_command(app);
  auto lock = add_lock_command(app);
  auto unlock = add_unlock_command(app);
  auto doctor = add_doctor_command(app);
  auto synth = add_synth_command(app);
  auto soak = add_soak_command(app);
  auto catalogs = add_catalog_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    app.exit(e, out, err);
    return 2;
  }
  try {
    for (CLI::App* sub : app.get_subcommands()) {
      const std::string name = sub->get_name();
      if (name == "bench") return run_bench(*bench, out, err);
      if (name == "report") return run_report(*report, out, err);
      if (name == "roofline") return run_roofline(*roofline, out, err);
      if (name == "synth-model") return run_synth(*synth, out, err);
      if (name == "soak") return run_soak(*soak, out, err);
      if (name == "inspect") return run_inspect(*inspect, out, err);
      if (name == "probe") return run_probe_command(*probe, out, err);
      if (name == "lock") return run_lock_command(*lock, out, err);
      if (name == "unlock") return run_unlock_command(*unlock, out, err);
      if (name == "doctor") return run_doctor_command(*doctor, out, err);
      return run_catalog_command(*catalogs, name, out, err);
    }
  } catch (const std::exception& e) {
    // Every expected failure is an Error value; reaching here is a bug. The journal already
    // holds every completed request.
    err << "tokscope: internal error: " << e.what()
        << " (a bug in tokscope: please report it with the command line)\n";
    return 1;
  }
  return 2;
}

}  // namespace tokscope::cli
