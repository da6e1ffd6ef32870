// `tokscope synth-model`: write a loadable GGUF with random weights of a named real shape.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <memory>

namespace tokscope::cli {

struct SynthCommandOptions;
std::shared_ptr<SynthCommandOptions> add_synth_command(CLI::App& app);
int run_synth(const SynthCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tokscope::cli
