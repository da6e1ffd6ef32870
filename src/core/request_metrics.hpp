// Per-request metrics from a timeline, exactly as spec/metrics.md defines them. Pure.
// Units are in the names. A metric that is undefined for this request (no token, or fewer than
// two tokens for tpot) is NaN and is left out of aggregates.
#pragma once

#include <cstdint>
#include <vector>

#include "core/timeline.hpp"

namespace tokscope::core {

struct RequestMetrics {
  double tokenize_ms = 0;                // t_tokenized - t_request
  double ttft_ms = 0;                    // t_token[0] - t_submit (tokenization excluded)
  double ttft_e2e_ms = 0;                // t_token[0] - t_request
  double prefill_tps = 0;                // prompt_tokens / ttft
  double tpot_ms = 0;                    // (t_token[n-1] - t_token[0]) / (n - 1), n >= 2
  double e2e_ms = 0;                     // t_token[n-1] - t_submit
  double blended_tps = 0;                // n / e2e: NOT a decode metric (the 42-vs-8.5 confound)
  std::uint32_t output_tokens = 0;       // n: sum of chunk token counts
  std::uint32_t multi_token_chunks = 0;  // chunks carrying more than one token
  bool first_chunk_multi_token = false;  // its extra tokens get ITL 0 (spec)
  // Decode-only intervals, one per token after the first (n - 1 values): the interval before
  // a chunk of k tokens is split evenly over its k tokens, so the sum equals decode time; the
  // k - 1 extra tokens of the first chunk get 0.
  std::vector<double> itl_ms;
};

RequestMetrics compute_request_metrics(const TimelineView& timeline);

// Same as above but writes ITLs into a caller-owned buffer (cleared first), for reuse.
void compute_request_metrics(const TimelineView& timeline, RequestMetrics& out);

}  // namespace tokscope::core
