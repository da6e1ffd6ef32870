// `tokscope probe`: measure this machine's memory bandwidth (several kernels, all cpus and each
// core type) and compute peaks, cache the result per machine identity, print it.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <memory>

namespace tokscope::cli {

struct ProbeCommandOptions;
std::shared_ptr<ProbeCommandOptions> add_probe_command(CLI::App& app);
int run_probe_command(const ProbeCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tokscope::cli
