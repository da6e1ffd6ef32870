// `tokscope roofline`: physical ceilings of a model on a machine, from declared or profiled
// figures: decode B / (W + K·c) over context lengths, prefill min(P / F, B·L / W).
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <memory>

namespace tokscope::cli {

struct RooflineOptions;
std::shared_ptr<RooflineOptions> add_roofline_command(CLI::App& app);
int run_roofline(const RooflineOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tokscope::cli
