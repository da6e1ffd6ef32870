// The statistics object of one metric in a stratum ({count, mean, stddev, min, p50, p90, p99,
// max, ci95_p50, ci95_p99}; docs/result-schema.md), shared by every metric of the result.
// Pure.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

namespace tokscope::report {

// A finite number, or null.
nlohmann::json num(double v);

// Per-request samples of one metric, kept with their request so the bootstrap resamples
// requests (an ITL group is one request's decode intervals). Non-finite values are dropped.
struct MetricSamples {
  std::vector<std::vector<double>> groups;
  void add(double v);
  void add_group(std::vector<double> g);
};

// Summary and 95% bootstrap intervals of the pooled samples; every figure null when empty.
nlohmann::json stat_object(const MetricSamples& m, std::uint64_t seed, int resamples);

}  // namespace tokscope::report
