// Implementation of stats.hpp. Every function is pure: its only inputs are its arguments, its
// only output its return value. Randomness comes from a local, explicitly seeded generator.
#include "core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

namespace tokscope::core {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Iglewicz & Hoaglin constants (see the banner of mad_outliers in stats.hpp).
constexpr double kMadZScale = 0.6745;     // 1 / (MAD of a standard normal)
constexpr double kMeanAdZScale = 1.2533;  // sqrt(pi / 2): mean absolute deviation of N(0, 1)

// splitmix64 (Steele, Lea & Flood 2014): tiny, fast, and its output is defined bit for bit,
// unlike std::*_distribution, so a seed gives the same bootstrap on every standard library.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) noexcept : state_(seed) {}

  std::uint64_t next() noexcept {
    state_ += 0x9E3779B97F4A7C15ULL;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  // Uniform integer in [0, bound), bound >= 1, with no modulo bias: the lowest
  // (2^64 mod bound) raw values are rejected, so the accepted range is a whole number of
  // periods of `x % bound` and every residue is equally likely.
  std::uint64_t below(std::uint64_t bound) noexcept {
    const std::uint64_t threshold = (std::uint64_t{0} - bound) % bound;  // 2^64 mod bound
    for (;;) {
      const std::uint64_t x = next();
      if (x >= threshold) return x % bound;
    }
  }

 private:
  std::uint64_t state_;
};

// Type-7 rank of quantile p among n >= 1 sorted values: h = (n - 1) p, split into the index of
// the lower closest rank and the interpolation weight towards the next one.
struct Rank {
  std::size_t index = 0;
  double fraction = 0;
};

Rank type7_rank(std::size_t n, double p) noexcept {
  const double clamped = std::clamp(p, 0.0, 1.0);
  const double h = static_cast<double>(n - 1) * clamped;
  const double floor_h = std::floor(h);
  Rank rank{static_cast<std::size_t>(floor_h), h - floor_h};
  if (rank.index >= n - 1) rank = Rank{n - 1, 0.0};  // p = 1 (or rounding up to it)
  return rank;
}

// Linear interpolation from lo (t = 0) to hi (t = 1) written as numpy writes it: from the
// nearer end, so both ends are exact and the result is monotone in t. Equal ends return early
// so that infinite samples do not produce inf - inf.
double interpolate(double lo, double hi, double t) noexcept {
  if (lo == hi) return lo;
  const double diff = hi - lo;
  return t < 0.5 ? lo + diff * t : hi - diff * (1.0 - t);
}

// Type-7 percentile by selection (O(n)) instead of sorting; reorders `values` but keeps the
// multiset, so it can be called again on the same buffer for another p. values non-empty.
double select_percentile(std::span<double> values, double p) {
  const Rank rank = type7_rank(values.size(), p);
  const auto nth = values.begin() + static_cast<std::ptrdiff_t>(rank.index);
  std::nth_element(values.begin(), nth, values.end());
  const double lo = *nth;
  if (rank.fraction == 0.0) return lo;
  // After nth_element everything right of nth is >= lo; its minimum is the next order statistic.
  const double hi = *std::min_element(nth + 1, values.end());
  return interpolate(lo, hi, rank.fraction);
}

// The samples that are numbers, ascending. NaN marks an undefined metric (request_metrics.hpp)
// and is left out of every aggregate; it would also break std::sort's ordering requirement.
std::vector<double> sorted_without_nan(std::span<const double> samples) {
  std::vector<double> sorted;
  sorted.reserve(samples.size());
  std::copy_if(samples.begin(), samples.end(), std::back_inserter(sorted),
               [](double x) { return !std::isnan(x); });
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

double mean_of(std::span<const double> values) noexcept {
  double sum = 0;
  for (const double x : values) sum += x;
  return sum / static_cast<double>(values.size());
}

// Sample standard deviation (n - 1 denominator), two-pass for accuracy; 0 for n = 1.
double sample_stddev(std::span<const double> values, double mean) noexcept {
  if (values.size() < 2) return 0.0;
  double sum_sq = 0;
  for (const double x : values) sum_sq += (x - mean) * (x - mean);
  return std::sqrt(sum_sq / static_cast<double>(values.size() - 1));
}

// Fills `pool` (cleared first, capacity kept) with the values of groups.size() groups drawn
// with replacement. NaN values are skipped like everywhere else in this file.
void draw_pool(std::span<const std::span<const double>> groups, SplitMix64& rng,
               std::vector<double>& pool) {
  pool.clear();
  for (std::size_t draw = 0; draw < groups.size(); ++draw) {
    const std::span<const double> group = groups[rng.below(groups.size())];
    for (const double x : group) {
      if (!std::isnan(x)) pool.push_back(x);
    }
  }
}

// Percentile-bootstrap interval: the (1 - level)/2 and 1 - (1 - level)/2 type-7 quantiles of
// the resample statistics. Sorts `statistics` in place. NaN when there are none.
Interval percentile_interval(std::vector<double>& statistics, double level) {
  if (statistics.empty()) return Interval{kNaN, kNaN};
  std::sort(statistics.begin(), statistics.end());
  const double tail = (1.0 - level) / 2.0;
  return Interval{percentile_sorted(statistics, tail), percentile_sorted(statistics, 1.0 - tail)};
}

}  // namespace

double percentile_sorted(std::span<const double> sorted, double p) noexcept {
  if (sorted.empty() || std::isnan(p)) return kNaN;
  const Rank rank = type7_rank(sorted.size(), p);
  const double lo = sorted[rank.index];
  if (rank.fraction == 0.0) return lo;
  return interpolate(lo, sorted[rank.index + 1], rank.fraction);
}

double percentile(std::span<const double> samples, double p) {
  const std::vector<double> sorted = sorted_without_nan(samples);
  return percentile_sorted(sorted, p);
}

Summary summarize(std::span<const double> samples) {
  const std::vector<double> sorted = sorted_without_nan(samples);
  Summary summary;
  summary.count = sorted.size();
  if (sorted.empty()) {
    summary.mean = summary.stddev = summary.min = kNaN;
    summary.p50 = summary.p90 = summary.p99 = summary.max = kNaN;
    return summary;
  }
  summary.mean = mean_of(sorted);
  summary.stddev = sample_stddev(sorted, summary.mean);
  summary.min = sorted.front();
  summary.p50 = percentile_sorted(sorted, 0.50);
  summary.p90 = percentile_sorted(sorted, 0.90);
  summary.p99 = percentile_sorted(sorted, 0.99);
  summary.max = sorted.back();
  return summary;
}

PercentileCis bootstrap_percentile_cis(std::span<const std::span<const double>> groups,
                                       std::uint64_t seed, int resamples, double level) {
  const PercentileCis undefined{Interval{kNaN, kNaN}, Interval{kNaN, kNaN}};
  if (groups.empty() || resamples < 1 || !(level >= 0.0 && level <= 1.0)) return undefined;

  std::size_t total_values = 0;
  for (const std::span<const double> group : groups) total_values += group.size();
  if (total_values == 0) return undefined;

  // One pool buffer for all resamples. A resample's pool averages total_values entries; when
  // one exceeds the reservation the vector grows geometrically and keeps that capacity, so
  // reallocations are rare and never per resample.
  std::vector<double> pool;
  pool.reserve(total_values);
  std::vector<double> p50s;
  std::vector<double> p99s;
  p50s.reserve(static_cast<std::size_t>(resamples));
  p99s.reserve(static_cast<std::size_t>(resamples));

  SplitMix64 rng(seed);
  for (int r = 0; r < resamples; ++r) {
    draw_pool(groups, rng, pool);
    // A resample that drew only empty groups has no percentile; it is left out, which makes
    // the interval the bootstrap distribution conditioned on a non-empty pool.
    if (pool.empty()) continue;
    p50s.push_back(select_percentile(pool, 0.50));
    p99s.push_back(select_percentile(pool, 0.99));
  }
  return PercentileCis{percentile_interval(p50s, level), percentile_interval(p99s, level)};
}

std::vector<bool> mad_outliers(std::span<const double> samples, double threshold) {
  std::vector<bool> flags(samples.size(), false);
  std::vector<double> sorted = sorted_without_nan(samples);
  if (sorted.empty()) return flags;
  const double median = percentile_sorted(sorted, 0.5);

  // Reuse the buffer for the absolute deviations from the median.
  for (double& x : sorted) x = std::abs(x - median);
  std::sort(sorted.begin(), sorted.end());
  const double mad = percentile_sorted(sorted, 0.5);

  // z_i = (x_i - median) * z_per_unit.
  double z_per_unit = 0;
  if (mad > 0) {
    z_per_unit = kMadZScale / mad;
  } else {
    const double mean_ad = mean_of(sorted);
    if (!(mean_ad > 0)) return flags;  // all samples equal: nothing stands out
    z_per_unit = 1.0 / (kMeanAdZScale * mean_ad);
  }
  for (std::size_t i = 0; i < samples.size(); ++i) {
    // NaN compares false, so undefined samples are never flagged.
    flags[i] = std::abs(samples[i] - median) * z_per_unit > threshold;
  }
  return flags;
}

}  // namespace tokscope::core
