// Tests for core/stats.hpp. Expected values are computed by hand from the type-7 definition
// (h = (n - 1) p, x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h])), which is numpy's
// default; the arithmetic is written next to each literal.
#include "core/stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <span>
#include <vector>

namespace tokscope::core {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kTol = 1e-12;

using Groups = std::vector<std::span<const double>>;

// ---- percentile ---------------------------------------------------------------------------

TEST(PercentileSorted, EmptyIsNaN) {
  EXPECT_TRUE(std::isnan(percentile_sorted({}, 0.5)));
  EXPECT_TRUE(std::isnan(percentile({}, 0.5)));
}

TEST(PercentileSorted, SingleValueAtEveryP) {
  const std::vector<double> one{7.25};
  for (const double p : {0.0, 0.5, 0.9, 0.99, 1.0}) EXPECT_EQ(percentile_sorted(one, p), 7.25);
}

TEST(PercentileSorted, TwoValuesInterpolate) {
  const std::vector<double> two{10.0, 20.0};
  EXPECT_EQ(percentile_sorted(two, 0.0), 10.0);
  EXPECT_NEAR(percentile_sorted(two, 0.5), 15.0, kTol);   // h = 0.5
  EXPECT_NEAR(percentile_sorted(two, 0.99), 19.9, kTol);  // h = 0.99
  EXPECT_EQ(percentile_sorted(two, 1.0), 20.0);
}

TEST(PercentileSorted, FourValuesType7) {
  const std::vector<double> v{1, 2, 3, 4};
  EXPECT_NEAR(percentile_sorted(v, 0.9), 3.7, kTol);    // h = 2.7: 3 + 0.7 * 1
  EXPECT_NEAR(percentile_sorted(v, 0.5), 2.5, kTol);    // h = 1.5
  EXPECT_NEAR(percentile_sorted(v, 0.25), 1.75, kTol);  // h = 0.75
  EXPECT_EQ(percentile_sorted(v, 0.0), 1.0);
  EXPECT_EQ(percentile_sorted(v, 1.0), 4.0);
}

TEST(PercentileSorted, ExactRankNeedsNoNeighbour) {
  const std::vector<double> v{1, 2, 3, 4, 5};
  EXPECT_EQ(percentile_sorted(v, 0.5), 3.0);   // h = 2 exactly
  EXPECT_EQ(percentile_sorted(v, 0.25), 2.0);  // h = 1 exactly
}

TEST(PercentileSorted, P99InterpolatesBetweenTopRanks) {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  EXPECT_NEAR(percentile_sorted(v, 0.99), 99.01, 1e-9);  // h = 98.01: 99 + 0.01 * 1
  const std::vector<double> tens{0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
  EXPECT_NEAR(percentile_sorted(tens, 0.99), 99.0, 1e-9);  // h = 9.9: 90 + 0.9 * 10
}

TEST(Percentile, UnsortedInputIsSortedFirst) {
  const std::vector<double> v{4, 1, 3, 2};
  EXPECT_NEAR(percentile(v, 0.9), 3.7, kTol);
  EXPECT_NEAR(percentile(v, 0.5), 2.5, kTol);
  EXPECT_EQ(v, (std::vector<double>{4, 1, 3, 2}));  // the input is not modified
}

TEST(Percentile, SkipsNaN) {
  const std::vector<double> v{4, kNaN, 1, 3, kNaN, 2};
  EXPECT_NEAR(percentile(v, 0.9), 3.7, kTol);
}

// ---- summarize ----------------------------------------------------------------------------

TEST(Summarize, EmptyHasCountZeroAndNaNElsewhere) {
  const Summary s = summarize({});
  EXPECT_EQ(s.count, 0u);
  for (const double field : {s.mean, s.stddev, s.min, s.p50, s.p90, s.p99, s.max}) {
    EXPECT_TRUE(std::isnan(field));
  }
}

TEST(Summarize, AllNaNCountsAsEmpty) {
  const std::vector<double> v{kNaN, kNaN};
  const Summary s = summarize(v);
  EXPECT_EQ(s.count, 0u);
  EXPECT_TRUE(std::isnan(s.mean));
  EXPECT_TRUE(std::isnan(s.p50));
}

TEST(Summarize, OneValueEqualsEveryStatistic) {
  const std::vector<double> v{3.5};
  const Summary s = summarize(v);
  EXPECT_EQ(s.count, 1u);
  EXPECT_EQ(s.stddev, 0.0);
  for (const double field : {s.mean, s.min, s.p50, s.p90, s.p99, s.max}) EXPECT_EQ(field, 3.5);
}

TEST(Summarize, TwoValues) {
  const std::vector<double> v{3, 1};
  const Summary s = summarize(v);
  EXPECT_EQ(s.count, 2u);
  EXPECT_NEAR(s.mean, 2.0, kTol);
  EXPECT_NEAR(s.stddev, std::sqrt(2.0), kTol);  // ((1-2)^2 + (3-2)^2) / (2-1) = 2
  EXPECT_EQ(s.min, 1.0);
  EXPECT_NEAR(s.p50, 2.0, kTol);
  EXPECT_NEAR(s.p90, 2.8, kTol);   // h = 0.9: 1 + 0.9 * 2
  EXPECT_NEAR(s.p99, 2.98, kTol);  // h = 0.99
  EXPECT_EQ(s.max, 3.0);
}

TEST(Summarize, UnsortedEightValues) {
  // Sorted: {2, 4, 4, 4, 5, 5, 7, 9}; mean 5; squared deviations sum to 32; 32 / 7.
  const std::vector<double> v{9, 2, 5, 4, 4, 7, 4, 5};
  const Summary s = summarize(v);
  EXPECT_EQ(s.count, 8u);
  EXPECT_NEAR(s.mean, 5.0, kTol);
  EXPECT_NEAR(s.stddev, 2.1380899352993950, 1e-12);  // sqrt(32 / 7), sample (n - 1)
  EXPECT_EQ(s.min, 2.0);
  EXPECT_NEAR(s.p50, 4.5, kTol);   // h = 3.5: 4 + 0.5 * 1
  EXPECT_NEAR(s.p90, 7.6, kTol);   // h = 6.3: 7 + 0.3 * 2
  EXPECT_NEAR(s.p99, 8.86, kTol);  // h = 6.93: 7 + 0.93 * 2
  EXPECT_EQ(s.max, 9.0);
}

TEST(Summarize, NaNSamplesAreLeftOut) {
  const std::vector<double> v{kNaN, 3, 1, kNaN};
  const Summary s = summarize(v);
  EXPECT_EQ(s.count, 2u);
  EXPECT_NEAR(s.mean, 2.0, kTol);
  EXPECT_EQ(s.max, 3.0);
}

// ---- bootstrap ----------------------------------------------------------------------------

// 60 single-value groups, spread irregularly over [0, 100): a well-behaved sample.
std::vector<double> irregular_values() {
  std::vector<double> values;
  for (int i = 0; i < 60; ++i) values.push_back(static_cast<double>((i * 37) % 101));
  return values;
}

Groups one_value_groups(const std::vector<double>& values) {
  Groups groups;
  for (const double& x : values) groups.emplace_back(&x, 1);
  return groups;
}

bool is_nan_interval(const Interval& interval) {
  return std::isnan(interval.lo) && std::isnan(interval.hi);
}

TEST(Bootstrap, NoGroupsGiveNaNIntervals) {
  const PercentileCis cis = bootstrap_percentile_cis({}, 1, 100, 0.95);
  EXPECT_TRUE(is_nan_interval(cis.p50));
  EXPECT_TRUE(is_nan_interval(cis.p99));
}

TEST(Bootstrap, OnlyEmptyGroupsGiveNaNIntervals) {
  const Groups groups{std::span<const double>{}, std::span<const double>{}};
  const PercentileCis cis = bootstrap_percentile_cis(groups, 1, 100, 0.95);
  EXPECT_TRUE(is_nan_interval(cis.p50));
  EXPECT_TRUE(is_nan_interval(cis.p99));
}

TEST(Bootstrap, NonPositiveResampleCountGivesNaN) {
  const std::vector<double> values{1, 2, 3};
  const PercentileCis cis = bootstrap_percentile_cis(one_value_groups(values), 1, 0, 0.95);
  EXPECT_TRUE(is_nan_interval(cis.p50));
}

TEST(Bootstrap, SingleValueGivesPointInterval) {
  const std::vector<double> values{42.0};
  const PercentileCis cis = bootstrap_percentile_cis(one_value_groups(values), 9, 50, 0.95);
  EXPECT_EQ(cis.p50.lo, 42.0);
  EXPECT_EQ(cis.p50.hi, 42.0);
  EXPECT_EQ(cis.p99.lo, 42.0);
  EXPECT_EQ(cis.p99.hi, 42.0);
}

TEST(Bootstrap, ResamplesOfOnlyEmptyGroupsAreSkipped) {
  // Each resample draws 2 of {empty, {5}}; a quarter of them draw the empty group twice.
  const std::vector<double> five{5.0};
  const Groups groups{std::span<const double>{}, std::span<const double>(five)};
  const PercentileCis cis = bootstrap_percentile_cis(groups, 3, 200, 0.95);
  EXPECT_EQ(cis.p50.lo, 5.0);
  EXPECT_EQ(cis.p50.hi, 5.0);
  EXPECT_EQ(cis.p99.lo, 5.0);
  EXPECT_EQ(cis.p99.hi, 5.0);
}

TEST(Bootstrap, SameSeedSameResultOtherSeedDifferent) {
  const std::vector<double> values = irregular_values();
  const Groups groups = one_value_groups(values);
  const PercentileCis a = bootstrap_percentile_cis(groups, 12345, 500, 0.95);
  const PercentileCis b = bootstrap_percentile_cis(groups, 12345, 500, 0.95);
  const PercentileCis c = bootstrap_percentile_cis(groups, 54321, 500, 0.95);
  EXPECT_EQ(a.p50.lo, b.p50.lo);
  EXPECT_EQ(a.p50.hi, b.p50.hi);
  EXPECT_EQ(a.p99.lo, b.p99.lo);
  EXPECT_EQ(a.p99.hi, b.p99.hi);
  const bool differs =
      a.p50.lo != c.p50.lo || a.p50.hi != c.p50.hi || a.p99.lo != c.p99.lo || a.p99.hi != c.p99.hi;
  EXPECT_TRUE(differs);
}

TEST(Bootstrap, IntervalContainsPointEstimate) {
  const std::vector<double> values = irregular_values();
  const Summary s = summarize(values);
  const PercentileCis cis = bootstrap_percentile_cis(one_value_groups(values), 7, 1000, 0.95);
  EXPECT_LT(cis.p50.lo, s.p50);
  EXPECT_GT(cis.p50.hi, s.p50);
  EXPECT_LE(cis.p99.lo, s.p99);
  EXPECT_GE(cis.p99.hi, s.p99);
  EXPECT_LE(cis.p99.hi, s.max);  // a resample can never exceed the largest sample
  EXPECT_LT(cis.p50.hi, cis.p99.hi);
}

TEST(Bootstrap, WiderLevelGivesWiderInterval) {
  const std::vector<double> values = irregular_values();
  const Groups groups = one_value_groups(values);
  const PercentileCis wide = bootstrap_percentile_cis(groups, 7, 1000, 0.99);
  const PercentileCis narrow = bootstrap_percentile_cis(groups, 7, 1000, 0.50);
  EXPECT_LE(wide.p50.lo, narrow.p50.lo);
  EXPECT_GE(wide.p50.hi, narrow.p50.hi);
  EXPECT_GT(wide.p50.hi - wide.p50.lo, narrow.p50.hi - narrow.p50.lo);
}

TEST(Bootstrap, OneGroupIsNeverSplit) {
  // Resampling one request draws that whole request every time, so every resample's pool is
  // exactly the sample: P50 = 5.5 (h = 4.5) and P99 = 9.91 (h = 8.91). Resampling individual
  // values instead would spread both intervals.
  const std::vector<double> request{3, 1, 4, 10, 5, 9, 2, 6, 8, 7};
  const Groups groups{std::span<const double>(request)};
  const PercentileCis cis = bootstrap_percentile_cis(groups, 99, 300, 0.95);
  EXPECT_NEAR(cis.p50.lo, 5.5, kTol);
  EXPECT_NEAR(cis.p50.hi, 5.5, kTol);
  EXPECT_NEAR(cis.p99.lo, 9.91, kTol);
  EXPECT_NEAR(cis.p99.hi, 9.91, kTol);
}

TEST(Bootstrap, PoolsAreMadeOfWholeGroups) {
  // With one resample both interval ends are that resample's statistic, so each seed exposes
  // one pool. Whole-group pools of A = {0,0,0} and B = {10,20,30} are AA, BB or AB:
  //   P50: AA 0; BB {10,10,20,20,30,30} h=2.5 -> 20; AB {0,0,0,10,20,30} h=2.5 -> 5.
  //   P99: AA 0; BB h=4.95 -> 30; AB h=4.95 -> 20 + 0.95 * 10 = 29.5.
  const std::vector<double> a{0, 0, 0};
  const std::vector<double> b{10, 20, 30};
  const Groups groups{std::span<const double>(a), std::span<const double>(b)};
  std::set<double> p50s_seen;
  std::set<double> p99s_seen;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    const PercentileCis cis = bootstrap_percentile_cis(groups, seed, 1, 0.95);
    ASSERT_EQ(cis.p50.lo, cis.p50.hi);
    ASSERT_EQ(cis.p99.lo, cis.p99.hi);
    p50s_seen.insert(cis.p50.lo);
    p99s_seen.insert(cis.p99.lo);
  }
  EXPECT_EQ(p50s_seen, (std::set<double>{0.0, 5.0, 20.0}));
  EXPECT_EQ(p99s_seen, (std::set<double>{0.0, 29.5, 30.0}));
}

TEST(Bootstrap, TwoConstantGroupsGiveMassPointEndpoints) {
  // Groups {1,1,1} and {100,100,100}: resample P50 is 1 (p = 1/4), 50.5 (1/2) or 100 (1/4).
  // With 1000 resamples the 5% and 95% quantiles sit deep inside the 1 and 100 masses.
  const std::vector<double> low{1, 1, 1};
  const std::vector<double> high{100, 100, 100};
  const Groups groups{std::span<const double>(low), std::span<const double>(high)};
  const PercentileCis cis = bootstrap_percentile_cis(groups, 2024, 1000, 0.90);
  EXPECT_EQ(cis.p50.lo, 1.0);
  EXPECT_EQ(cis.p50.hi, 100.0);
}

// ---- MAD outliers -------------------------------------------------------------------------

TEST(MadOutliers, EmptyInputGivesNoFlags) {
  EXPECT_TRUE(mad_outliers({}).empty());
}

TEST(MadOutliers, FlagsTheObviousOutlierOnly) {
  // median 12.5; |deviations| sorted {0.5,0.5,1.5,1.5,2.5,87.5}: MAD 1.5.
  // z(100) = 0.6745 * 87.5 / 1.5 = 39.3; z(10) = 0.6745 * 2.5 / 1.5 = 1.12.
  const std::vector<double> v{12, 10, 100, 13, 11, 14};
  const std::vector<bool> expected{false, false, true, false, false, false};
  EXPECT_EQ(mad_outliers(v), expected);
}

TEST(MadOutliers, ThresholdIsRespected) {
  // Same data: z(10) = 1.12, z(11) = z(14) = 0.6745 * 1.5 / 1.5 = 0.67, so a threshold of
  // 1.0 adds 10 and nothing else.
  const std::vector<double> v{12, 10, 100, 13, 11, 14};
  const std::vector<bool> expected{false, true, true, false, false, false};
  EXPECT_EQ(mad_outliers(v, 1.0), expected);
}

TEST(MadOutliers, ZeroMadFallsBackToMeanAbsoluteDeviation) {
  // median 5, MAD 0 (four of five equal); mean |deviation| = 95 / 5 = 19;
  // z(100) = 95 / (1.2533 * 19) = 3.99 > 3.5.
  const std::vector<double> v{5, 5, 100, 5, 5};
  const std::vector<bool> expected{false, false, true, false, false};
  EXPECT_EQ(mad_outliers(v), expected);
}

TEST(MadOutliers, ZeroMadFallbackIsScaledNotAnyNonzeroDeviation) {
  // median 5, MAD 0; one deviant among n gives z = d / (1.2533 * d / n) = n / 1.2533, so with
  // four samples z(100) = 3.19 <= 3.5 (not flagged) and with five z = 3.99 (flagged, above).
  const std::vector<double> v{5, 100, 5, 5};
  EXPECT_EQ(mad_outliers(v), (std::vector<bool>(4, false)));
  EXPECT_EQ(mad_outliers(v, 3.0), (std::vector<bool>{false, true, false, false}));
}

TEST(MadOutliers, ConstantDataFlagsNothing) {
  const std::vector<double> v{7, 7, 7, 7};
  EXPECT_EQ(mad_outliers(v), (std::vector<bool>(4, false)));
}

TEST(MadOutliers, NaNIsNeverFlagged) {
  const std::vector<double> v{12, 10, kNaN, 100, 13, 11, 14};
  const std::vector<bool> expected{false, false, false, true, false, false, false};
  EXPECT_EQ(mad_outliers(v), expected);
}

}  // namespace
}  // namespace tokscope::core
