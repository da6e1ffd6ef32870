#include "workload/strata.hpp"

namespace tokscope::workload {

std::vector<Stratum> expand_strata(const std::vector<std::uint32_t>& prompt_tokens,
                                   const std::vector<std::uint32_t>& output_tokens,
                                   const std::vector<std::uint32_t>& concurrency) {
  std::vector<Stratum> strata;
  strata.reserve(prompt_tokens.size() * output_tokens.size() * concurrency.size());
  for (const auto p : prompt_tokens) {
    for (const auto n : output_tokens) {
      for (const auto c : concurrency) {
        strata.push_back(Stratum{static_cast<std::uint32_t>(strata.size()), p, n, c});
      }
    }
  }
  return strata;
}

}  // namespace tokscope::workload
