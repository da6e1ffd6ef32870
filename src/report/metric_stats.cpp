#include "report/metric_stats.hpp"

#include <cmath>
#include <span>

#include "core/stats.hpp"

namespace tokscope::report {

using nlohmann::json;

json num(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

void MetricSamples::add(double v) {
  if (std::isfinite(v)) groups.push_back({v});
}

void MetricSamples::add_group(std::vector<double> g) {
  if (!g.empty()) groups.push_back(std::move(g));
}

json stat_object(const MetricSamples& m, std::uint64_t seed, int resamples) {
  std::vector<double> pooled;
  for (const auto& g : m.groups) pooled.insert(pooled.end(), g.begin(), g.end());
  const core::Summary s = core::summarize(pooled);
  json o = {{"count", s.count}};
  if (s.count == 0) {
    for (const char* k :
         {"mean", "stddev", "min", "p50", "p90", "p99", "max", "ci95_p50", "ci95_p99"}) {
      o[k] = nullptr;
    }
    return o;
  }
  o["mean"] = num(s.mean);
  o["stddev"] = num(s.stddev);
  o["min"] = num(s.min);
  o["p50"] = num(s.p50);
  o["p90"] = num(s.p90);
  o["p99"] = num(s.p99);
  o["max"] = num(s.max);
  std::vector<std::span<const double>> spans;
  spans.reserve(m.groups.size());
  for (const auto& g : m.groups) spans.emplace_back(g);
  const core::PercentileCis ci = core::bootstrap_percentile_cis(spans, seed, resamples, 0.95);
  o["ci95_p50"] = json::array({num(ci.p50.lo), num(ci.p50.hi)});
  o["ci95_p99"] = json::array({num(ci.p99.lo), num(ci.p99.hi)});
  return o;
}

}  // namespace tokscope::report
