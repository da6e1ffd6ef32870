// The engine flags shared by the commands that run an engine (bench, soak):
// --engine, the sim engine's explicit schedule (--sim-prefill-tps, --sim-itl-ms,
// --sim-jitter-ms, --sim-itl-growth-ms-per-1k-ctx), its device model (--device, --model-shape,
// --quant) and --model-file. Same names, help texts and groups as `tokscope bench`.
#pragma once

#include <CLI/CLI.hpp>

#include "run/settings.hpp"

namespace tokscope::cli {

// Binds the flags to fields of `settings`, which must outlive the parse.
void add_engine_flags(CLI::App* cmd, run::Settings& settings);

}  // namespace tokscope::cli
