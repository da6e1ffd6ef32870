#include "cli/catalog_commands.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <ostream>

#include "model/decode_bytes.hpp"
#include "model/device_profile.hpp"
#include "model/quant.hpp"
#include "model/shape_json.hpp"
#include "model/shapes.hpp"

namespace tokscope::cli {

struct CatalogOptions {
  std::string format = "md";
};

namespace {

nlohmann::json sourced(const model::SourcedValue& v) {
  return {{"value", v.value}, {"source", v.source}, {"uncertain", v.uncertain}};
}

std::string mark(const model::SourcedValue& v) {
  return fmt::format("{:g}{}", v.value, v.uncertain ? " (uncertain)" : "");
}

int devices(const CatalogOptions& o, std::ostream& out, std::ostream& err) {
  const auto& profiles = model::builtin_device_profiles();
  if (!profiles) {
    err << "tokscope devices: error: " << profiles.error().message << "\n";
    return 1;
  }
  if (o.format == "json") {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& p : *profiles) {
      nlohmann::json quants = nlohmann::json::array();
      for (const auto& q : p.supported_quants) quants.push_back(q.name);
      a.push_back({{"name", p.name},
                   {"unit", p.unit},
                   {"description", p.description},
                   {"memory_bandwidth_gbps", sourced(p.memory_bandwidth_gbps)},
                   {"peak_tops", sourced(p.peak_tops)},
                   {"supported_quants", quants},
                   {"unsupported_quant_reason", p.unsupported_quant_reason},
                   {"fitted_to", p.factors.fitted_to}});
    }
    out << a.dump(2) << "\n";
    return 0;
  }
  out << "| device | unit | bandwidth GB/s | peak TOPS | quants | calibration |\n"
         "|---|---|---|---|---|---|\n";
  for (const auto& p : *profiles) {
    std::string quants;
    for (const auto& q : p.supported_quants) quants += (quants.empty() ? "" : ", ") + q.name;
    out << fmt::format("| {} | {} | {} | {} | {} | {} |\n", p.name, p.unit,
                       mark(p.memory_bandwidth_gbps), mark(p.peak_tops), quants,
                       p.factors.fitted_to);
  }
  out << "\nSources: `tokscope devices -o json`. Device-model results are always SIMULATED.\n";
  return 0;
}

int shapes(const CatalogOptions& o, std::ostream& out) {
  nlohmann::json a = nlohmann::json::array();
  if (o.format != "json") {
    out << "| shape | arch | layers | hidden | heads | kv heads | head dim | ffn | vocab | tied "
           "| params |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
  }
  for (const auto& s : model::shape_catalog()) {
    const auto params = model::parameter_count(s);
    if (o.format == "json") {
      a.push_back(model::shape_json(s));
    } else {
      out << fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.2f}B |\n", s.name,
                         s.arch, s.n_layer, s.n_embd, s.n_head, s.n_head_kv, s.head_dim, s.n_ff,
                         s.n_vocab, s.tied_embeddings ? "yes" : "no",
                         static_cast<double>(params) / 1e9);
    }
  }
  if (o.format == "json") {
    out << a.dump(2) << "\n";
  } else {
    out << "\nSources per shape: `tokscope shapes -o json`.\n";
  }
  return 0;
}

int quants(const CatalogOptions& o, std::ostream& out) {
  nlohmann::json a = nlohmann::json::array();
  if (o.format != "json") {
    out << "| quant | weight bits (nominal) | bits/weight incl. scales | act bits | group | "
           "output head bits |\n|---|---|---|---|---|---|\n";
  }
  for (const auto& q : model::quant_presets()) {
    if (o.format == "json") {
      a.push_back({{"name", q.name},
                   {"weight_bits", q.weight_bits},
                   {"weight_bits_effective", q.weight_bits_effective},
                   {"act_bits", q.act_bits},
                   {"group_size", q.group_size},
                   {"output_head_bits", q.output_head_bits},
                   {"kv_bytes_per_element", q.kv_bytes_per_element},
                   {"description", q.description}});
    } else {
      out << fmt::format("| {} | {} | {:.4g} | {} | {} | {:.4g} |\n", q.name, q.weight_bits,
                         q.weight_bits_effective,
                         q.act_bits > 0 ? std::to_string(q.act_bits) : "unknown", q.group_size,
                         q.output_head_bits);
    }
  }
  if (o.format == "json") out << a.dump(2) << "\n";
  return 0;
}

}  // namespace

std::shared_ptr<CatalogOptions> add_catalog_commands(CLI::App& app) {
  auto o = std::make_shared<CatalogOptions>();
  for (const auto& [name, help] :
       {std::pair{"devices", "List the device profiles of the sim engine's device model"},
        std::pair{"shapes", "List the built-in model shapes (layers, heads, vocab, ...)"},
        std::pair{"quants", "List the quantization presets and their bytes per weight"}}) {
    CLI::App* cmd = app.add_subcommand(name, help);
    cmd->add_option("-o,--format", o->format, "md|json")
        ->check(CLI::IsMember({"md", "json"}))
        ->capture_default_str();
  }
  return o;
}

int run_catalog_command(const CatalogOptions& o, const std::string& command, std::ostream& out,
                        std::ostream& err) {
  if (command == "devices") return devices(o, out, err);
  if (command == "shapes") return shapes(o, out);
  if (command == "quants") return quants(o, out);
  err << "tokscope: unknown command " << command << "\n";
  return 2;
}

}  // namespace tokscope::cli
