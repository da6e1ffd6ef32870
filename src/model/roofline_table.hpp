// The `tokscope roofline` table: decode ceilings over context lengths and prefill ceilings over
// prompt lengths, from W, K, F, a bandwidth and an optional peak compute, each input named with
// its source. Pure.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

namespace tokscope::model {

struct RooflineInputs {
  double weight_bytes_per_token = 0;      // W: bytes read per decode step (> 0)
  double kv_bytes_per_context_token = 0;  // K: bytes of KV cache per context token (0: unknown)
  double ops_per_token = 0;               // F: ops per prompt token (0: unknown)
  std::string model_source;               // where W, K, F come from
  double bandwidth_gbps = 0;              // B in 1e9 bytes/s (> 0)
  std::string bandwidth_source;
  double peak_tops = 0;  // P in 1e12 ops/s (0: unknown -> no compute bound)
  std::string peak_source;
};

// {"inputs": {...}, "decode": [{context_tokens, bytes_per_step, ceiling_tps}],
//  "prefill": [{prompt_tokens, memory_bound_tps, compute_bound_tps|null, ceiling_tps, bound}]}
nlohmann::json roofline_table(const RooflineInputs& inputs,
                              std::span<const std::uint32_t> context_tokens,
                              std::span<const std::uint32_t> prompt_tokens);

// Markdown rendering of roofline_table's document.
std::string roofline_markdown(const nlohmann::json& table);

}  // namespace tokscope::model
