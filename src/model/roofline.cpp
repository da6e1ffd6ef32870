#include "model/roofline.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace tokscope::model {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool positive(double v) {
  return std::isfinite(v) && v > 0.0;
}

}  // namespace

double decode_ceiling_tps(double bandwidth_bytes_per_s, double weight_bytes,
                          double kv_bytes_per_context_token, std::uint32_t context_tokens) {
  if (!positive(bandwidth_bytes_per_s) || !positive(weight_bytes) ||
      !std::isfinite(kv_bytes_per_context_token) || kv_bytes_per_context_token < 0.0) {
    return kNaN;
  }
  const double bytes_per_step =
      weight_bytes + kv_bytes_per_context_token * static_cast<double>(context_tokens);
  return bandwidth_bytes_per_s / bytes_per_step;
}

double prefill_ceiling_tps(double peak_ops_per_s, double ops_per_token,
                           double bandwidth_bytes_per_s, double weight_bytes,
                           std::uint32_t prompt_tokens) {
  if (!positive(peak_ops_per_s) || !positive(ops_per_token) || !positive(bandwidth_bytes_per_s) ||
      !positive(weight_bytes) || prompt_tokens == 0) {
    return kNaN;
  }
  const double compute_bound = peak_ops_per_s / ops_per_token;
  const double memory_bound =
      bandwidth_bytes_per_s / (weight_bytes / static_cast<double>(prompt_tokens));
  return std::min(compute_bound, memory_bound);
}

Ceiling make_ceiling(double bandwidth_gbps, double peak_ops_per_s, const DecodeBytes& bytes,
                     std::uint32_t prompt_tokens, std::uint32_t context_tokens,
                     std::string source) {
  const double bandwidth_bytes_per_s = bandwidth_gbps * 1e9;
  Ceiling out;
  out.decode_tps = decode_ceiling_tps(bandwidth_bytes_per_s, bytes.weight_bytes_per_token,
                                      bytes.kv_bytes_per_context_token, context_tokens);
  out.prefill_tps =
      prefill_ceiling_tps(peak_ops_per_s, bytes.flops_per_token, bandwidth_bytes_per_s,
                          bytes.weight_bytes_per_token, prompt_tokens);
  out.bandwidth_gbps = bandwidth_gbps;
  out.context_tokens = context_tokens;
  out.source = std::move(source);
  return out;
}

}  // namespace tokscope::model
