// Physical ceilings (spec/metrics.md, "Physical ceilings (roofline)"): the fastest decode and
// prefill that memory bandwidth and peak compute allow. A measured decode speed above 1.05x its
// ceiling is not a decode measurement, or B or W is wrong.
//
// Pure functions. Invalid inputs (non-positive bandwidth, compute or bytes, non-finite values)
// give NaN, so a ceiling built from a missing figure can never be mistaken for a real one.
#pragma once

#include <cstdint>
#include <string>

#include "model/decode_bytes.hpp"

namespace tokscope::model {

// Decode ceiling, tokens/s: B / (W + K * c).
//   bandwidth_bytes_per_s  B, memory bandwidth
//   weight_bytes           W, bytes streamed per decode step
//   kv_bytes_per_context_token, context_tokens   K and c; K * c bytes of cache read per step
double decode_ceiling_tps(double bandwidth_bytes_per_s, double weight_bytes,
                          double kv_bytes_per_context_token, std::uint32_t context_tokens);

// Prefill ceiling, tokens/s: min(P / F, B / (W / L)). Compute-bound for long prompts; for short
// ones the weights must still be read once per prompt, so a prompt of L tokens cannot beat
// B * L / W.
double prefill_ceiling_tps(double peak_ops_per_s, double ops_per_token,
                           double bandwidth_bytes_per_s, double weight_bytes,
                           std::uint32_t prompt_tokens);

struct Ceiling {
  double decode_tps = 0.0;      // at context_tokens
  double prefill_tps = 0.0;     // at the prompt length it was built for
  double bandwidth_gbps = 0.0;  // B used, 1e9 bytes/s
  std::uint32_t context_tokens = 0;
  std::string source;  // which figures were used and whether measured or declared
};

// Both ceilings for one model/quant on one machine. bandwidth_gbps in 1e9 bytes/s.
Ceiling make_ceiling(double bandwidth_gbps, double peak_ops_per_s, const DecodeBytes& bytes,
                     std::uint32_t prompt_tokens, std::uint32_t context_tokens, std::string source);

}  // namespace tokscope::model
