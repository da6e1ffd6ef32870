// Strata: the (prompt tokens, output tokens, concurrency) triples of a run (spec/metrics.md,
// "Strata"). Results of different strata are never averaged together. Pure.
#pragma once

#include <cstdint>
#include <vector>

namespace tokscope::workload {

struct Stratum {
  std::uint32_t id = 0;             // position in the run, 0-based
  std::uint32_t prompt_tokens = 0;  // exact prompt length in tokens
  std::uint32_t output_tokens = 0;  // forced output length
  std::uint32_t concurrency = 1;    // requests in flight (closed loop)
};

// Cartesian product in the order given: prompt lengths outermost, then output lengths, then
// concurrency, so a sweep over prompt lengths reads top to bottom in the report.
std::vector<Stratum> expand_strata(const std::vector<std::uint32_t>& prompt_tokens,
                                   const std::vector<std::uint32_t>& output_tokens,
                                   const std::vector<std::uint32_t>& concurrency);

}  // namespace tokscope::workload
