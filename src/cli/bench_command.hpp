// `tokscope bench`: run a stratified benchmark against one engine and write a result.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <memory>

namespace tokscope::cli {

struct BenchOptions;

// Registers the subcommand; the returned object holds the parsed values until run_bench.
std::shared_ptr<BenchOptions> add_bench_command(CLI::App& app);
int run_bench(const BenchOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tokscope::cli
