// `tokscope soak --minutes M`: decode without pause and show how the board's speed follows its
// temperature (per-window table, junction-band table, time of first throttling; docs/soak.md).
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <memory>

namespace tokscope::cli {

struct SoakOptions;

// Registers the subcommand; the returned object holds the parsed values until run_soak.
std::shared_ptr<SoakOptions> add_soak_command(CLI::App& app);
// Exit codes: 0 ok; 1 interrupted, or stopped by failing requests or an unwritable journal;
// 2 bad usage.
int run_soak(const SoakOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tokscope::cli
