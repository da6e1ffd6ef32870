// Builds the engine a Settings asks for, and the inputs of the physical ceiling (bandwidth,
// bytes per token, peak compute) when they are known: from the device profile, or from
// --model-shape/--quant plus a declared --bandwidth-gbps. Errors name the flag and the fix.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>

#include "core/expected.hpp"
#include "engines/engine.hpp"
#include "run/settings.hpp"

namespace tokscope::run {

struct EngineSetup {
  std::unique_ptr<engines::Engine> engine;
  // {"bandwidth_gbps", "weight_bytes_per_token", "kv_bytes_per_context_token",
  //  "peak_ops_per_s", "ops_per_token", "source"}, or null when nothing is known.
  nlohmann::json ceiling_inputs;
};

Expected<EngineSetup> make_engine(const Settings& settings);

}  // namespace tokscope::run
