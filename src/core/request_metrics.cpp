// Implementation of request_metrics.hpp: the per-request table of spec/metrics.md, computed
// from the harness's own timestamps. Pure; no clock is read here.
#include "core/request_metrics.hpp"

#include <algorithm>
#include <limits>
#include <utility>

namespace tokscope::core {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kNsPerMs = 1e6;
constexpr double kMsPerS = 1e3;

// Milliseconds from one instant to a later one. The subtraction is done in integer
// nanoseconds first so that large absolute clock values lose no precision.
double ms_between(std::int64_t from_ns, std::int64_t to_ns) noexcept {
  return static_cast<double>(to_ns - from_ns) / kNsPerMs;
}

// tokens / (duration_ms / 1000); NaN when the duration is not positive (no defined rate).
double tokens_per_s(double tokens, double duration_ms) noexcept {
  return duration_ms > 0 ? tokens / (duration_ms / kMsPerS) : kNaN;
}

// What one pass over the chunks tells: where the tokens start and end and how many there are.
// Chunks without tokens are skipped: they never stop the TTFT clock (spec), even though
// timeline.hpp says adapters do not record them.
struct ChunkScan {
  const Chunk* first = nullptr;  // first chunk carrying a token
  const Chunk* last = nullptr;   // last chunk carrying a token
  std::uint64_t tokens = 0;
  std::uint32_t multi_token_chunks = 0;
};

ChunkScan scan_chunks(std::span<const Chunk> chunks) noexcept {
  ChunkScan scan;
  for (const Chunk& chunk : chunks) {
    if (chunk.tokens == 0) continue;
    if (scan.first == nullptr) scan.first = &chunk;
    scan.last = &chunk;
    scan.tokens += chunk.tokens;
    if (chunk.tokens > 1) ++scan.multi_token_chunks;
  }
  return scan;
}

// Appends one inter-token latency per token after the first (spec, multi-token chunks): the
// interval before a chunk of k tokens is split evenly over its k tokens, so the ITLs sum to
// t_last - t_first; the k - 1 extra tokens of the first chunk arrived with it and get 0.
void append_itls(std::span<const Chunk> chunks, std::vector<double>& itl_ms) {
  const Chunk* previous = nullptr;
  for (const Chunk& chunk : chunks) {
    if (chunk.tokens == 0) continue;
    if (previous == nullptr) {
      itl_ms.insert(itl_ms.end(), chunk.tokens - 1, 0.0);
    } else {
      const double share_ms =
          ms_between(previous->t_ns, chunk.t_ns) / static_cast<double>(chunk.tokens);
      itl_ms.insert(itl_ms.end(), chunk.tokens, share_ms);
    }
    previous = &chunk;
  }
}

// Resets every field of `out` to its default but keeps the ITL buffer's capacity.
void reset_keeping_capacity(RequestMetrics& out) {
  std::vector<double> itl_ms = std::move(out.itl_ms);
  itl_ms.clear();
  out = RequestMetrics{};
  out.itl_ms = std::move(itl_ms);
}

}  // namespace

RequestMetrics compute_request_metrics(const TimelineView& timeline) {
  RequestMetrics metrics;
  compute_request_metrics(timeline, metrics);
  return metrics;
}

void compute_request_metrics(const TimelineView& timeline, RequestMetrics& out) {
  reset_keeping_capacity(out);
  out.tokenize_ms = ms_between(timeline.t_request_ns, timeline.t_tokenized_ns);

  const ChunkScan scan = scan_chunks(timeline.chunks);
  if (scan.first == nullptr) {  // no token: every token-based metric is undefined
    out.ttft_ms = out.ttft_e2e_ms = out.prefill_tps = kNaN;
    out.tpot_ms = out.e2e_ms = out.blended_tps = kNaN;
    return;
  }

  const std::uint64_t n = scan.tokens;
  out.output_tokens = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(n, std::numeric_limits<std::uint32_t>::max()));
  out.multi_token_chunks = scan.multi_token_chunks;
  out.first_chunk_multi_token = scan.first->tokens > 1;

  out.ttft_ms = ms_between(timeline.t_submit_ns, scan.first->t_ns);
  out.ttft_e2e_ms = ms_between(timeline.t_request_ns, scan.first->t_ns);
  out.prefill_tps = tokens_per_s(static_cast<double>(timeline.prompt_tokens), out.ttft_ms);
  out.e2e_ms = ms_between(timeline.t_submit_ns, scan.last->t_ns);
  out.blended_tps = tokens_per_s(static_cast<double>(n), out.e2e_ms);
  out.tpot_ms =
      n >= 2 ? ms_between(scan.first->t_ns, scan.last->t_ns) / static_cast<double>(n - 1) : kNaN;

  out.itl_ms.reserve(static_cast<std::size_t>(n - 1));  // never shrinks a larger buffer
  append_itls(timeline.chunks, out.itl_ms);
}

}  // namespace tokscope::core
