#include "run/engine_factory.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "engines/rkllm/rkllm_engine.hpp"
#include "engines/sim_engine.hpp"
#include "engines/sim_schedule_device.hpp"
#include "model/catalog_names.hpp"
#include "model/decode_bytes.hpp"
#include "model/device_model.hpp"
#include "model/device_profile.hpp"
#include "model/gguf/model_facts.hpp"
#include "model/non_gguf.hpp"
#include "model/quant.hpp"
#include "model/shapes.hpp"
#include "platform/probe/probe.hpp"

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

// W, K and F for the ceiling, where they come from, and the result's "model" object.
struct ModelBytes {
  model::DecodeBytes bytes;
  std::string source;
  nlohmann::json model_info;
};

Expected<std::optional<ModelBytes>> model_bytes(const Settings& s) {
  const bool catalog = !s.model_shape.empty() || !s.quant.empty();
  if (catalog && (s.model_shape.empty() || s.quant.empty())) {
    return make_error(ErrorKind::kUsage, "--model-shape and --quant go together");
  }
  if (!s.model_file.empty()) {
    auto format = model::detect_model_format(s.model_file);
    if (!format) return format.error();
    if (*format == model::ModelFileFormat::kGguf) {
      if (catalog) {
        return make_error(ErrorKind::kUsage,
                          fmt::format("--model-file {} is a GGUF: its tensors give W and K; drop "
                                      "--model-shape/--quant",
                                      s.model_file));
      }
      auto file = model::gguf::read_gguf(s.model_file);
      if (!file) return file.error();
      const model::gguf::ModelFacts facts = model::gguf::model_facts(*file);
      const auto bytes = model::gguf::decode_bytes(facts);
      if (!bytes) {
        return make_error(ErrorKind::kInput,
                          fmt::format("--model-file {}: W or K is unknown (see `tokscope inspect "
                                      "{}`)",
                                      s.model_file, s.model_file));
      }
      return std::optional<ModelBytes>(ModelBytes{*bytes, fmt::format("file {}", s.model_file),
                                                  model::gguf::model_info_json(*file, facts)});
    }
    if (!catalog) {
      return make_error(ErrorKind::kUsage,
                        fmt::format("--model-file {}: a {} file has no documented tensor table; "
                                    "add --model-shape NAME --quant NAME (the ceiling is then "
                                    "estimated)",
                                    s.model_file, model::to_string(*format)));
    }
  }
  if (!catalog) return std::optional<ModelBytes>();
  auto shape = lookup_shape(s.model_shape);
  if (!shape) return shape.error();
  auto quant = lookup_quant(s.quant);
  if (!quant) return quant.error();
  ModelBytes mb{model::decode_bytes(**shape, **quant),
                fmt::format("{} {} from the shape catalog", (*shape)->name, (*quant)->name),
                engines::catalog_model_info(**shape, **quant)};
  if (!s.model_file.empty()) {
    mb.model_info["path"] = s.model_file;
    mb.model_info["ceiling_estimated"] = true;
    mb.source += fmt::format(" (estimated for {})", s.model_file);
  }
  return std::optional<ModelBytes>(std::move(mb));
}

struct Bandwidth {
  double gbps = 0;
  double peak_ops_per_s = 0;  // 0 = unknown
  std::string source;
};

Expected<std::optional<Bandwidth>> bandwidth(const Settings& s) {
  if (s.bandwidth_gbps > 0 && s.probe) {
    return make_error(ErrorKind::kUsage,
                      "--bandwidth-gbps and --probe both give the bandwidth; "
                      "keep one");
  }
  Bandwidth b;
  if (s.bandwidth_gbps > 0) {
    b.gbps = s.bandwidth_gbps;
    b.source = fmt::format("declared: --bandwidth-gbps {}", s.bandwidth_gbps);
  } else if (s.probe) {
    namespace probe = platform::probe;
    auto cached = probe::load_cached_probe(probe::current_identity("/"));
    if (!cached || !cached->value("peak_read_bandwidth_gbps", nlohmann::json()).is_number()) {
      return make_error(ErrorKind::kUsage,
                        "--probe: no probe result is cached for this machine; run `tokscope "
                        "probe` first (or give --bandwidth-gbps)");
    }
    b.gbps = cached->at("peak_read_bandwidth_gbps").get<double>();
    b.source = fmt::format("measured: tokscope probe {} (read-only sum kernel, all cpus)",
                           cached->value("finished_at", std::string()));
  } else {
    return std::optional<Bandwidth>();
  }
  if (s.peak_tops > 0) b.peak_ops_per_s = s.peak_tops * 1e12;
  return std::optional<Bandwidth>(std::move(b));
}

// Ceiling inputs for the explicit schedule: model bytes and a bandwidth, both or neither.
Expected<std::pair<nlohmann::json, nlohmann::json>> explicit_ceiling(const Settings& s) {
  auto mb = model_bytes(s);
  if (!mb) return mb.error();
  auto bw = bandwidth(s);
  if (!bw) return bw.error();
  if (!mb->has_value() && !bw->has_value()) return std::pair{nlohmann::json(), nlohmann::json()};
  if (!mb->has_value() || !bw->has_value()) {
    return make_error(ErrorKind::kUsage,
                      "a ceiling needs the model's bytes (--model-file FILE, or --model-shape and "
                      "--quant) and a bandwidth (--bandwidth-gbps or --probe) together, or "
                      "--device, whose profile gives the bandwidth");
  }
  const ModelBytes& m = **mb;
  const Bandwidth& b = **bw;
  nlohmann::json c = {{"bandwidth_gbps", b.gbps},
                      {"weight_bytes_per_token", m.bytes.weight_bytes_per_token},
                      {"kv_bytes_per_context_token", m.bytes.kv_bytes_per_context_token},
                      {"ops_per_token", m.bytes.flops_per_token},
                      {"peak_ops_per_s", b.peak_ops_per_s > 0 ? nlohmann::json(b.peak_ops_per_s)
                                                              : nlohmann::json(nullptr)},
                      {"source", fmt::format("{}; W and K: {}", b.source, m.source)}};
  return std::pair{std::move(c), m.model_info};
}

// --engine rkllm: the adapter over the dlopen'ed runtime; the ceiling, as for any real engine,
// from --model-shape/--quant (a .rkllm file's tensors are not documented) and a bandwidth.
Expected<EngineSetup> make_rkllm_engine(const Settings& s) {
  auto abi = engines::rkllm::parse_abi(s.rkllm_abi);
  if (!abi) return abi.error();
  engines::rkllm::RkllmConfig c;
  c.lib_path = s.rkllm_lib;
  c.abi = *abi;
  c.model_path = s.rkllm_model;
  c.max_context_len = static_cast<std::int32_t>(s.max_context);
  c.max_new_tokens = *std::max_element(s.output_tokens.begin(), s.output_tokens.end());
  c.cpus = s.rkllm_cpus;
  c.ignore_eos = true;
  EngineSetup setup;
  auto ceiling = explicit_ceiling(s);
  if (!ceiling) return ceiling.error();
  setup.ceiling_inputs = std::move(ceiling->first);
  setup.engine = std::make_unique<engines::rkllm::RkllmEngine>(std::move(c));
  return setup;
}

}  // namespace

Expected<EngineSetup> make_engine(const Settings& s) {
  if (s.engine == "rkllm") return make_rkllm_engine(s);
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
  auto ceiling = explicit_ceiling(s);
  if (!ceiling) return ceiling.error();
  setup.ceiling_inputs = std::move(ceiling->first);
  nlohmann::json model_info = std::move(ceiling->second);  // null: the schedule's "unknown"
  setup.engine = std::make_unique<engines::SimEngine>(engines::make_explicit_schedule(p),
                                                      std::move(model_info));
  return setup;
}

}  // namespace tokscope::run
