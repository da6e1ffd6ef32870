// Pure statistics over samples (no I/O, no clocks, no globals). Contract from spec/metrics.md:
// percentiles are Hyndman-Fan type 7 (linear interpolation between closest ranks, numpy's
// default); confidence intervals are seeded percentile-bootstrap intervals with resampling at
// the request level (a request's ITLs stay together); outliers are flagged, never dropped.
//
// Degenerate cases, defined here once:
//   n = 0: count 0, every other field NaN (written as null in JSON); intervals NaN.
//   n = 1: every statistic equals the sample; stddev 0; intervals [x, x].
// stddev is the sample standard deviation (n - 1 in the denominator) for n >= 2.
// NaN samples mark undefined metrics (request_metrics.hpp) and are skipped by every function
// that takes unsorted samples or groups: n counts the non-NaN samples, and mad_outliers never
// flags a NaN. percentile_sorted expects a span without NaN (it cannot be sorted otherwise).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tokscope::core {

struct Summary {
  std::size_t count = 0;
  double mean = 0, stddev = 0, min = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
};

struct Interval {
  double lo = 0, hi = 0;
};

// Type-7 percentile of an ascending-sorted span; p in [0, 1]. NaN for an empty span.
double percentile_sorted(std::span<const double> sorted, double p) noexcept;

// Type-7 percentile of unsorted samples (copies and sorts).
double percentile(std::span<const double> samples, double p);

// count, mean, stddev, min, P50, P90, P99, max. NaN fields for n = 0 (see banner).
Summary summarize(std::span<const double> samples);

// Bootstrap confidence intervals for P50 and P99.
// `groups` holds one span per request: for TTFT each group has one value, for ITL a request's
// decode intervals. Each resample draws groups.size() groups with replacement and pools their
// values. Deterministic for a given seed (own splitmix64 generator: std distributions are not
// portable across standard libraries). level is e.g. 0.95. resamples >= 1.
struct PercentileCis {
  Interval p50;
  Interval p99;
};
PercentileCis bootstrap_percentile_cis(std::span<const std::span<const double>> groups,
                                       std::uint64_t seed, int resamples, double level);

// Median absolute deviation rule (Iglewicz & Hoaglin modified z-score):
// z_i = 0.6745 * (x_i - median) / MAD; flagged when |z_i| > threshold (3.5 by default).
// When MAD is 0 (more than half the samples equal), the mean absolute deviation around the
// median scaled by 1.2533 replaces 0.6745/MAD (z_i = (x_i - median) / (1.2533 * MeanAD)); when
// that is 0 too, nothing is flagged. Returns one bool per sample.
std::vector<bool> mad_outliers(std::span<const double> samples, double threshold = 3.5);

}  // namespace tokscope::core
