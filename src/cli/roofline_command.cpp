#include "cli/roofline_command.hpp"

#include <fmt/format.h>

#include <ostream>

#include "cli/output.hpp"
#include "model/catalog_names.hpp"
#include "model/decode_bytes.hpp"
#include "model/device_profile.hpp"
#include "model/gguf/model_facts.hpp"
#include "model/non_gguf.hpp"
#include "model/quant.hpp"
#include "model/roofline_table.hpp"
#include "model/shapes.hpp"
#include "platform/probe/probe.hpp"

namespace tokscope::cli {

struct RooflineOptions {
  std::string model_file;
  std::string model_shape;
  std::string quant;
  double weights_gb = 0;
  double kv_bytes_per_token = 0;
  double bandwidth_gbps = 0;
  bool probe = false;
  std::string device;
  double peak_tops = 0;
  std::vector<std::uint32_t> context{0, 128, 512, 1024, 2048, 4096};
  std::vector<std::uint32_t> prompt_tokens{128, 512, 1024};
  std::string format = "md";
  std::string out;
  CLI::App* command = nullptr;
};

namespace {

using nlohmann::json;

constexpr const char* kFooter = R"(
Examples:
  tokscope roofline --bandwidth-gbps 17 --weights-gb 1.1          # the seed's 15.45 tok/s
  tokscope roofline --model qwen2.5-0.5b-q4_0.gguf --bandwidth-gbps 33.8
  tokscope roofline --model-shape deepseek-r1-distill-qwen-1.5b --quant w8a8 --device rk3588-npu
  tokscope roofline --model-shape qwen2.5-1.5b --quant q4_0 --bandwidth-gbps 33.8 --peak-tops 0.6

W (bytes per decode step) counts every weight once, one row of the input embedding and the whole
output head; K is the f16 KV cache per context token. Definitions: docs/metrics.md.)";

int fail(std::ostream& err, const Error& e) {
  err << "tokscope roofline: error: " << e.message << "\n";
  return exit_code_for(e);
}

Expected<model::RooflineInputs> resolve(const RooflineOptions& o) {
  model::RooflineInputs in;
  const bool by_file = !o.model_file.empty();
  const bool by_shape = !o.model_shape.empty() || !o.quant.empty();
  const bool by_weights = o.weights_gb != 0 || o.command->count("--weights-gb") > 0;
  if (static_cast<int>(by_file) + static_cast<int>(by_shape) + static_cast<int>(by_weights) != 1) {
    return make_error(ErrorKind::kUsage,
                      "give the model once: --model FILE.gguf, or --model-shape NAME --quant NAME, "
                      "or --weights-gb G (bytes of weights read per decode token, in 1e9 bytes)");
  }
  if (by_file) {
    auto format = model::detect_model_format(o.model_file);
    if (!format) return format.error();
    if (*format != model::ModelFileFormat::kGguf) {
      return make_error(ErrorKind::kUsage,
                        fmt::format("--model {}: a {} file does not document its tensor sizes; "
                                    "give --model-shape NAME --quant NAME instead (the ceiling is "
                                    "then estimated)",
                                    o.model_file, model::to_string(*format)));
    }
    auto file = model::gguf::read_gguf(o.model_file);
    if (!file) return file.error();
    const model::gguf::ModelFacts facts = model::gguf::model_facts(*file);
    const auto bytes = model::gguf::decode_bytes(facts);
    if (!bytes) {
      std::string why;
      for (const auto& n : facts.notes) why += (why.empty() ? "" : "; ") + n;
      return make_error(ErrorKind::kInput,
                        fmt::format("--model {}: W or K is unknown ({})", o.model_file, why));
    }
    in.weight_bytes_per_token = bytes->weight_bytes_per_token;
    in.kv_bytes_per_context_token = bytes->kv_bytes_per_context_token;
    in.ops_per_token = bytes->flops_per_token;
    in.model_source = fmt::format("file {} ({}, {:.3g}B parameters{})", o.model_file, facts.arch,
                                  static_cast<double>(bytes->params) / 1e9,
                                  facts.synthetic_weights ? ", synthetic weights" : "");
  } else if (by_shape) {
    if (o.model_shape.empty() || o.quant.empty()) {
      return make_error(ErrorKind::kUsage, "--model-shape and --quant go together");
    }
    const model::ModelShape* shape = model::find_shape(o.model_shape);
    if (shape == nullptr) {
      return make_error(ErrorKind::kUsage, fmt::format("--model-shape {}: unknown shape; known: {}",
                                                       o.model_shape, model::known_shape_names()));
    }
    const model::QuantPreset* quant = model::find_quant(o.quant);
    if (quant == nullptr) {
      return make_error(ErrorKind::kUsage,
                        fmt::format("--quant {}: unknown quantization; known: {}", o.quant,
                                    model::known_quant_names()));
    }
    const model::DecodeBytes b = model::decode_bytes(*shape, *quant);
    in.weight_bytes_per_token = b.weight_bytes_per_token;
    in.kv_bytes_per_context_token = b.kv_bytes_per_context_token;
    in.ops_per_token = b.flops_per_token;
    in.model_source = fmt::format("catalog shape {} in {} ({:.3g}B parameters)", shape->name,
                                  quant->name, static_cast<double>(b.params) / 1e9);
  } else {
    if (!(o.weights_gb > 0)) {
      return make_error(ErrorKind::kUsage,
                        fmt::format("--weights-gb {}: must be greater than 0", o.weights_gb));
    }
    if (o.kv_bytes_per_token < 0) {
      return make_error(ErrorKind::kUsage, "--kv-bytes-per-token cannot be negative");
    }
    in.weight_bytes_per_token = o.weights_gb * 1e9;
    in.kv_bytes_per_context_token = o.kv_bytes_per_token;
    in.model_source = fmt::format("declared: --weights-gb {}", o.weights_gb);
  }

  const bool declared_bw = o.command->count("--bandwidth-gbps") > 0;
  if (static_cast<int>(declared_bw) + static_cast<int>(!o.device.empty()) +
          static_cast<int>(o.probe) !=
      1) {
    return make_error(
        ErrorKind::kUsage,
        "give the memory bandwidth once: --bandwidth-gbps B (declared), --probe (this "
        "machine's cached `tokscope probe` figure) or --device NAME (a profile, see "
        "`tokscope devices`)");
  }
  if (o.probe) {
    namespace probe = platform::probe;
    auto cached = probe::load_cached_probe(probe::current_identity("/"));
    if (!cached || !cached->value("peak_read_bandwidth_gbps", json()).is_number()) {
      return make_error(ErrorKind::kUsage,
                        "--probe: no probe result is cached for this machine; run `tokscope "
                        "probe` first (or give --bandwidth-gbps)");
    }
    in.bandwidth_gbps = cached->at("peak_read_bandwidth_gbps").get<double>();
    in.bandwidth_source = fmt::format(
        "measured: tokscope probe, read-only sum kernel on all cpus "
        "({})",
        cached->value("finished_at", std::string("time unknown")));
    if (cached->value("peak_int8_gops", json()).is_number()) {
      in.peak_tops = cached->at("peak_int8_gops").get<double>() / 1000.0;
      in.peak_source = "measured: tokscope probe, int8 dot-product peak on all cpus";
    }
  } else if (declared_bw) {
    if (!(o.bandwidth_gbps > 0)) {
      return make_error(
          ErrorKind::kUsage,
          fmt::format("--bandwidth-gbps {}: must be greater than 0 (GB/s)", o.bandwidth_gbps));
    }
    in.bandwidth_gbps = o.bandwidth_gbps;
    in.bandwidth_source = "declared: --bandwidth-gbps";
  } else {
    auto device = model::builtin_device(o.device);
    if (!device) {
      return make_error(ErrorKind::kUsage,
                        fmt::format("--device {}: {}", o.device, device.error().message));
    }
    in.bandwidth_gbps = device->memory_bandwidth_gbps.value;
    in.bandwidth_source =
        fmt::format("device profile {}: {}{}", device->name, device->memory_bandwidth_gbps.source,
                    device->memory_bandwidth_gbps.uncertain ? " (uncertain)" : "");
    in.peak_tops = device->peak_tops.value;
    in.peak_source = fmt::format("device profile {}: {}{}", device->name, device->peak_tops.source,
                                 device->peak_tops.uncertain ? " (uncertain)" : "");
  }
  if (o.command->count("--peak-tops") > 0) {
    if (!(o.peak_tops > 0)) {
      return make_error(ErrorKind::kUsage,
                        fmt::format("--peak-tops {}: must be greater than 0", o.peak_tops));
    }
    in.peak_tops = o.peak_tops;
    in.peak_source = "declared: --peak-tops";
  }
  return in;
}

}  // namespace

std::shared_ptr<RooflineOptions> add_roofline_command(CLI::App& app) {
  auto o = std::make_shared<RooflineOptions>();
  CLI::App* cmd = app.add_subcommand(
      "roofline", "Physical ceilings for a model on a machine (declared or profiled figures)");
  o->command = cmd;
  cmd->footer(kFooter);
  cmd->add_option("--model", o->model_file, "A GGUF file: W, K and F from its tensors")
      ->group("Model");
  cmd->add_option("--model-shape", o->model_shape, "Model shape from `tokscope shapes`")
      ->group("Model");
  cmd->add_option("--quant", o->quant, "Quantization preset from `tokscope quants`")
      ->group("Model");
  cmd->add_option("--weights-gb", o->weights_gb,
                  "Bytes of weights read per decode token, in GB (1e9 bytes)")
      ->group("Model");
  cmd->add_option("--kv-bytes-per-token", o->kv_bytes_per_token,
                  "With --weights-gb: KV-cache bytes read per context token (default 0)")
      ->group("Model");
  cmd->add_option("--bandwidth-gbps", o->bandwidth_gbps, "Declared memory bandwidth, GB/s")
      ->group("Machine");
  cmd->add_flag("--probe", o->probe,
                "Take bandwidth (and int8 peak) from this machine's cached `tokscope probe`")
      ->group("Machine");
  cmd->add_option("--device", o->device,
                  "Take bandwidth and peak compute from a device profile (`tokscope devices`)")
      ->group("Machine");
  cmd->add_option("--peak-tops", o->peak_tops, "Declared peak compute, tera-ops/s")
      ->group("Machine");
  cmd->add_option("--context", o->context, "Context lengths for the decode ceiling")
      ->delimiter(',')
      ->capture_default_str()
      ->group("Table");
  cmd->add_option("-p,--prompt-tokens", o->prompt_tokens, "Prompt lengths for the prefill ceiling")
      ->delimiter(',')
      ->capture_default_str()
      ->group("Table");
  cmd->add_option("-o,--format", o->format, "md|json")
      ->check(CLI::IsMember({"md", "json"}))
      ->capture_default_str()
      ->group("Output");
  cmd->add_option("--out", o->out, "Write to FILE instead of stdout")->group("Output");
  return o;
}

int run_roofline(const RooflineOptions& o, std::ostream& out, std::ostream& err) {
  auto inputs = resolve(o);
  if (!inputs) return fail(err, inputs.error());
  for (const auto l : o.prompt_tokens) {
    if (l == 0) {
      return fail(err, make_error(ErrorKind::kUsage, "--prompt-tokens values must be positive"));
    }
  }
  const nlohmann::json table = model::roofline_table(*inputs, o.context, o.prompt_tokens);
  const std::string text =
      o.format == "json" ? table.dump(2) + "\n" : model::roofline_markdown(table);
  if (auto e = write_text(text, o.out, out); !e) return fail(err, e.error());
  return 0;
}

}  // namespace tokscope::cli
