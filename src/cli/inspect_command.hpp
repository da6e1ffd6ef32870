// `tokscope inspect FILE`: model file facts (architecture, shape, tensor bytes, quantization,
// W and K for the ceilings). GGUF is read in full detail (header only, never the weights); an
// RKLLM .rkllm or AXERA .axmodel is identified, and its W must come from --model-shape/--quant.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <memory>

namespace tokscope::cli {

struct InspectOptions;
std::shared_ptr<InspectOptions> add_inspect_command(CLI::App& app);
int run_inspect(const InspectOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tokscope::cli
