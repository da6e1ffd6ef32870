#include "run/engine_factory.hpp"

#include <fmt/format.h>

#include "engines/sim_engine.hpp"
#include "engines/sim_schedule_device.hpp"
#include "model/catalog_names.hpp"
#include "model/decode_bytes.hpp"
#include "model/device_model.hpp"
#include "model/device_profile.hpp"
#include "model/quant.hpp"
#include "model/shapes.hpp"

namespace tokscope::run {
namespace {

Expected<const model::ModelShape*> lookup_shape(const std::string& name) {
  const model::ModelShape* shape = model::find_shape(name);
  if (shape == nullptr) {
    return make_error(ErrorKind::kUsage, fmt::format("--model-shape {}: unknown shape; known: {}",
                                                     name, model::known_shape_names()));
  }
  return shape;
}

Expected<const model::QuantPreset*> lookup_quant(const std::string& name) {
  const model::QuantPreset* quant = model::find_quant(name);
  if (quant == nullptr) {
    return make_error(ErrorKind::kUsage, fmt::format("--quant {}: unknown quantization; known: {}",
                                                     name, model::known_quant_names()));
  }
  return quant;
}

// Ceiling inputs from a declared bandwidth and a catalog shape/quant (explicit schedule).
Expected<nlohmann::json> declared_ceiling(const Settings& s) {
  if (s.model_shape.empty() && s.quant.empty() && s.bandwidth_gbps <= 0) return nlohmann::json();
  if (s.model_shape.empty() || s.quant.empty() || s.bandwidth_gbps <= 0) {
    return make_error(ErrorKind::kUsage,
                      "a ceiling needs --model-shape, --quant and --bandwidth-gbps together "
                      "(or --device, whose profile gives the bandwidth)");
  }
  auto shape = lookup_shape(s.model_shape);
  if (!shape) return shape.error();
  auto quant = lookup_quant(s.quant);
  if (!quant) return quant.error();
  const model::DecodeBytes bytes = model::decode_bytes(**shape, **quant);
  nlohmann::json c = {{"bandwidth_gbps", s.bandwidth_gbps},
                      {"weight_bytes_per_token", bytes.weight_bytes_per_token},
                      {"kv_bytes_per_context_token", bytes.kv_bytes_per_context_token},
                      {"ops_per_token", bytes.flops_per_token},
                      {"peak_ops_per_s", s.peak_tops > 0 ? nlohmann::json(s.peak_tops * 1e12)
                                                         : nlohmann::json(nullptr)},
                      {"source", fmt::format("declared: --bandwidth-gbps {} with {} {} from the "
                                             "shape catalog",
                                             s.bandwidth_gbps, (*shape)->name, (*quant)->name)}};
  return c;
}

}  // namespace

Expected<EngineSetup> make_engine(const Settings& s) {
  if (s.engine != "sim") {
    return make_error(ErrorKind::kUsage, fmt::format("--engine {}: not available", s.engine));
  }
  EngineSetup setup;
  if (!s.device.empty()) {
    auto device = model::builtin_device(s.device);
    if (!device) {
      return make_error(ErrorKind::kUsage,
                        fmt::format("--device {}: {}", s.device, device.error().message));
    }
    auto shape = lookup_shape(s.model_shape);
    if (!shape) return shape.error();
    auto quant = lookup_quant(s.quant);
    if (!quant) return quant.error();
    auto dm = model::make_device_model(*device, **shape, **quant);
    if (!dm) {
      return make_error(dm.error().kind, fmt::format("--device {} --quant {}: {}", s.device,
                                                     s.quant, dm.error().message));
    }
    setup.ceiling_inputs = engines::device_ceiling_inputs(*dm);
    if (s.bandwidth_gbps > 0) {  // a declared figure overrides the profile's
      setup.ceiling_inputs["bandwidth_gbps"] = s.bandwidth_gbps;
      setup.ceiling_inputs["source"] =
          fmt::format("declared: --bandwidth-gbps {} (device profile {} otherwise)",
                      s.bandwidth_gbps, s.device);
    }
    setup.engine =
        std::make_unique<engines::SimEngine>(engines::make_device_schedule(std::move(*dm)));
    return setup;
  }
  engines::ExplicitScheduleParams p;
  p.prefill_tps = s.sim_prefill_tps;
  p.itl_ms = s.sim_itl_ms;
  p.jitter_ms = s.sim_jitter_ms;
  p.itl_growth_ms_per_1k_ctx = s.sim_itl_growth_ms_per_1k_ctx;
  auto ceiling = declared_ceiling(s);
  if (!ceiling) return ceiling.error();
  setup.ceiling_inputs = std::move(*ceiling);
  nlohmann::json model_info;  // null: the schedule's "unknown" model
  if (!s.model_shape.empty() && !s.quant.empty()) {
    model_info =
        engines::catalog_model_info(*model::find_shape(s.model_shape), *model::find_quant(s.quant));
  }
  setup.engine = std::make_unique<engines::SimEngine>(engines::make_explicit_schedule(p),
                                                      std::move(model_info));
  return setup;
}

}  // namespace tokscope::run
