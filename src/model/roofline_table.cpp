#include "model/roofline_table.hpp"

#include <fmt/format.h>

#include <cmath>

#include "model/roofline.hpp"

namespace tokscope::model {
namespace {

nlohmann::json num(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

std::string cell(const nlohmann::json& v, const char* format = "{:.2f}") {
  return v.is_number() ? fmt::format(fmt::runtime(format), v.get<double>()) : "–";
}

}  // namespace

nlohmann::json roofline_table(const RooflineInputs& in,
                              std::span<const std::uint32_t> context_tokens,
                              std::span<const std::uint32_t> prompt_tokens) {
  const double bw = in.bandwidth_gbps * 1e9;
  const double peak = in.peak_tops * 1e12;
  nlohmann::json decode = nlohmann::json::array();
  for (const auto c : context_tokens) {
    decode.push_back(
        {{"context_tokens", c},
         {"bytes_per_step", in.weight_bytes_per_token + in.kv_bytes_per_context_token * c},
         {"ceiling_tps", num(decode_ceiling_tps(bw, in.weight_bytes_per_token,
                                                in.kv_bytes_per_context_token, c))}});
  }
  nlohmann::json prefill = nlohmann::json::array();
  for (const auto l : prompt_tokens) {
    // The weights are read at least once per prompt: B / (W / L).
    const double memory_bound = bw / (in.weight_bytes_per_token / static_cast<double>(l));
    const double compute_bound =
        peak > 0 && in.ops_per_token > 0 ? peak / in.ops_per_token : std::nan("");
    const double ceiling =
        std::isfinite(compute_bound) ? std::min(memory_bound, compute_bound) : memory_bound;
    prefill.push_back({{"prompt_tokens", l},
                       {"memory_bound_tps", num(memory_bound)},
                       {"compute_bound_tps", num(compute_bound)},
                       {"ceiling_tps", num(ceiling)},
                       {"bound", !std::isfinite(compute_bound)  ? "memory (no peak compute given)"
                                 : compute_bound < memory_bound ? "compute"
                                                                : "memory"}});
  }
  return {
      {"inputs",
       {{"weight_bytes_per_token", in.weight_bytes_per_token},
        {"kv_bytes_per_context_token", in.kv_bytes_per_context_token},
        {"ops_per_token", num(in.ops_per_token > 0 ? in.ops_per_token : std::nan(""))},
        {"model_source", in.model_source},
        {"bandwidth_gbps", in.bandwidth_gbps},
        {"bandwidth_source", in.bandwidth_source},
        {"peak_tops", num(in.peak_tops > 0 ? in.peak_tops : std::nan(""))},
        {"peak_source", in.peak_source}}},
      {"formula",
       {{"decode", "B / (W + K * context)"}, {"prefill", "min(P / F, B / (W / prompt_tokens))"}}},
      {"decode", std::move(decode)},
      {"prefill", std::move(prefill)}};
}

std::string roofline_markdown(const nlohmann::json& t) {
  const auto& in = t.at("inputs");
  std::string out = "# Physical ceilings (roofline)\n\n";
  out += fmt::format("- **W** (weights read per decode step): {:.4g} GB — {}\n",
                     in.value("weight_bytes_per_token", 0.0) / 1e9,
                     in.value("model_source", std::string()));
  out += fmt::format("- **K** (KV cache per context token): {} bytes\n",
                     cell(in.at("kv_bytes_per_context_token"), "{:.0f}"));
  out += fmt::format("- **B** (memory bandwidth): {:.4g} GB/s — {}\n",
                     in.value("bandwidth_gbps", 0.0), in.value("bandwidth_source", std::string()));
  if (in.at("peak_tops").is_number()) {
    out += fmt::format("- **P** (peak compute): {:.4g} TOPS — {}\n",
                       in.at("peak_tops").get<double>(), in.value("peak_source", std::string()));
  } else {
    out +=
        "- **P** (peak compute): not given (`--peak-tops`); prefill shows the memory bound "
        "only\n";
  }
  out +=
      "\n## Decode: tokens/s ≤ B / (W + K·context)\n\n| context tokens | bytes per step | "
      "decode ceiling tok/s |\n|---:|---:|---:|\n";
  for (const auto& row : t.at("decode")) {
    out += fmt::format("| {} | {:.4g} GB | {} |\n", row.at("context_tokens").get<std::uint32_t>(),
                       row.at("bytes_per_step").get<double>() / 1e9, cell(row.at("ceiling_tps")));
  }
  out +=
      "\n## Prefill: tokens/s ≤ min(P / F, B·L / W)\n\n| prompt tokens | memory bound tok/s | "
      "compute bound tok/s | ceiling tok/s | bound |\n|---:|---:|---:|---:|---|\n";
  for (const auto& row : t.at("prefill")) {
    out += fmt::format("| {} | {} | {} | {} | {} |\n", row.at("prompt_tokens").get<std::uint32_t>(),
                       cell(row.at("memory_bound_tps"), "{:.0f}"),
                       cell(row.at("compute_bound_tps"), "{:.0f}"),
                       cell(row.at("ceiling_tps"), "{:.0f}"), row.value("bound", std::string()));
  }
  out +=
      "\nA measured decode speed above 1.05 × its ceiling is not a decode measurement, or B or "
      "W is wrong (`tokscope bench` flags it as exceeds_physical_ceiling).\n";
  return out;
}

}  // namespace tokscope::model
