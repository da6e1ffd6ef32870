// The timeline of one request (spec/metrics.md, "The timeline of one request"): instants in
// nanoseconds from one monotonic clock, stamped by the harness (never by an engine), plus the
// output chunks as (arrival, token count) pairs. Pure data; no clock is read here.
#pragma once

#include <cstdint>
#include <span>

namespace tokscope::core {

struct Chunk {
  std::int64_t t_ns = 0;     // arrival of the chunk at the harness
  std::uint32_t tokens = 0;  // tokens it carries (>= 1; empty chunks are never recorded)
};

// A view over one request's instants and chunks. Chunks are in arrival order.
struct TimelineView {
  std::int64_t t_request_ns = 0;
  std::int64_t t_tokenized_ns = 0;
  std::int64_t t_submit_ns = 0;
  std::int64_t t_done_ns = 0;
  std::uint32_t prompt_tokens = 0;
  std::span<const Chunk> chunks;
};

}  // namespace tokscope::core
