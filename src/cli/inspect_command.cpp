#include "cli/inspect_command.hpp"

#include <fmt/format.h>

#include <ostream>

#include "cli/output.hpp"
#include "model/gguf/model_facts.hpp"
#include "model/non_gguf.hpp"

namespace tokscope::cli {

struct InspectOptions {
  std::string file;
  bool tensors = false;
  std::string format = "md";
  std::string out;
};

namespace {

using nlohmann::json;

std::string text(const json& j) {
  if (j.is_null()) return "unknown";
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number_float()) return fmt::format("{:.6g}", j.get<double>());
  return j.dump();
}

std::string gb(const json& j) {
  return j.is_number() ? fmt::format("{:.4g} GB", j.get<double>() / 1e9) : "unknown";
}

std::string render_md(const json& d) {
  std::string out;
  if (d.value("format", "") != "gguf") {
    out += fmt::format("# {} ({})\n\n", d.value("path", std::string("?")), d.value("format", "?"));
    for (const auto& [k, v] : d.items()) out += fmt::format("- **{}**: {}\n", k, text(v));
    return out;
  }
  const json& a = d.at("architecture");
  const json& q = d.at("quantization");
  const json& dec = d.at("decode");
  const json& f = d.at("file");
  const json& m = d.at("model");
  out += fmt::format("# {}\n\n", text(f.at("path")));
  if (m.value("synthetic_weights", false)) {
    out +=
        "> **SYNTHETIC WEIGHTS** (tokscope synth-model): good for speed, meaningless output.\n\n";
  }
  out += fmt::format("- **Format:** GGUF v{}, {} metadata keys, {} tensors, {:.4g} GB, header {}\n",
                     text(f.at("gguf_version")), text(f.at("metadata_count")),
                     text(f.at("tensor_count")), f.at("size_bytes").get<double>() / 1e9,
                     text(f.at("header_hash")));
  out += fmt::format("- **Model:** {} (arch {}), {:.4g}B parameters\n", text(a.at("name")),
                     text(a.at("arch")), dec.value("params", 0.0) / 1e9);
  std::string match;
  for (const auto& s : d.value("catalog_match", json::array())) {
    match += (match.empty() ? "" : ", ") + s.get<std::string>();
  }
  out += fmt::format("- **Catalog shape:** {}\n", match.empty() ? "none matches" : match);
  out += fmt::format(
      "- **Shape:** {} layers, hidden {}, {} heads ({} KV, head dim {}), FFN {}, vocabulary {}, "
      "context {}, tied output {}\n",
      text(a.at("n_layer")), text(a.at("n_embd")), text(a.at("n_head")), text(a.at("n_head_kv")),
      text(a.at("head_dim_k")), text(a.at("n_ff")), text(a.at("n_vocab")),
      text(a.at("context_length")), text(a.at("tied_output")));
  out += fmt::format(
      "- **Quantization:** {} (file type {}, {:.4g} bits/weight incl. scales, head "
      "{})\n",
      text(q.at("label")), text(q.at("file_type")),
      q.at("weight_bits_effective").is_number() ? q.at("weight_bits_effective").get<double>() : 0.0,
      text(q.at("output_head_type")));
  out += fmt::format("- **W** (bytes read per decode token): {}\n",
                     gb(dec.at("weight_bytes_per_token")));
  out += fmt::format("- **K** (KV-cache bytes per context token): {}\n",
                     text(dec.at("kv_bytes_per_context_token")));
  for (const auto& n : d.value("notes", json::array())) out += fmt::format("- Note: {}\n", text(n));
  if (d.contains("tensors")) {
    out += "\n| tensor | type | dims | bytes | role |\n|---|---|---|---:|---|\n";
    for (const auto& t : d.at("tensors")) {
      out += fmt::format("| {} | {} | {} | {} | {} |\n", text(t.value("name", json())),
                         text(t.value("type", json())), t.value("dims", json::array()).dump(),
                         text(t.value("bytes", json())), text(t.value("role", json())));
    }
  }
  out +=
      "\nW and K follow docs/metrics.md; `tokscope roofline --model FILE --bandwidth-gbps B` "
      "turns them into ceilings.\n";
  return out;
}

}  // namespace

std::shared_ptr<InspectOptions> add_inspect_command(CLI::App& app) {
  auto o = std::make_shared<InspectOptions>();
  CLI::App* cmd = app.add_subcommand(
      "inspect", "Model file facts: architecture, shape, tensor bytes, quantization, W and K");
  cmd->add_option("file", o->file, "A .gguf (read in detail), .rkllm or .axmodel file")->required();
  cmd->add_flag("--tensors", o->tensors, "Add the per-tensor table (name, type, dims, bytes)");
  cmd->add_option("-o,--format", o->format, "md|json")
      ->check(CLI::IsMember({"md", "json"}))
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Write to FILE instead of stdout");
  return o;
}

int run_inspect(const InspectOptions& o, std::ostream& out, std::ostream& err) {
  const auto fail = [&](const Error& e) {
    err << "tokscope inspect: error: " << e.message << "\n";
    return exit_code_for(e);
  };
  auto format = model::detect_model_format(o.file);
  if (!format) return fail(format.error());
  json doc;
  if (*format == model::ModelFileFormat::kGguf) {
    auto file = model::gguf::read_gguf(o.file);
    if (!file) return fail(file.error());
    doc = model::gguf::inspect_json(*file, o.tensors);
  } else {
    auto described = model::describe_non_gguf(o.file);
    if (!described) return fail(described.error());
    doc = std::move(*described);
  }
  const std::string text_out = o.format == "json" ? doc.dump(2) + "\n" : render_md(doc);
  if (auto e = write_text(text_out, o.out, out); !e) return fail(e.error());
  return 0;
}

}  // namespace tokscope::cli
