// Tests for core/energy.hpp. Every expectation is computed by hand in the comment beside it;
// times are written in seconds (s(x) = x × 1e9 ns).
#include "core/energy.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace tokscope::core {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kTol = 1e-9;

constexpr std::int64_t s(double seconds) {
  return static_cast<std::int64_t>(seconds * 1e9);
}

// Samples every `period_s` from 0 to `end_s` inclusive.
std::vector<std::int64_t> times(double period_s, double end_s) {
  std::vector<std::int64_t> t;
  for (int i = 0; static_cast<double>(i) * period_s <= end_s + 1e-12; ++i) {
    t.push_back(s(static_cast<double>(i) * period_s));
  }
  return t;
}

bool contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

// --- power samples, trapezoid --------------------------------------------------------------

TEST(EnergyFromPower, ConstantPowerIsExact) {
  const auto t = times(0.1, 10);
  const std::vector<double> p_mw(t.size(), 2000.0);
  // 2000 mW × 2.5 s = 5000 mJ; both edges fall between samples.
  const WindowEnergy e = energy_from_power(t, p_mw, PowerUnit::kMilliwatt, s(1.05), s(3.55));
  ASSERT_EQ(e.status, EnergyStatus::kComplete) << e.reason;
  EXPECT_NEAR(e.energy_mj, 5000.0, kTol);
  EXPECT_NEAR(e.covered_energy_mj, 5000.0, kTol);
  EXPECT_EQ(e.covered_t0_ns, s(1.05));
  EXPECT_EQ(e.covered_t1_ns, s(3.55));
  EXPECT_EQ(e.max_gap_ns, s(0.1));
  EXPECT_EQ(e.samples, 27u);  // 1.0 … 3.6: the 25 inside plus one bracketing on each side
  EXPECT_TRUE(e.reason.empty());
}

TEST(EnergyFromPower, MicrowattsAndMilliwattsAgree) {
  const auto t = times(0.5, 4);
  const std::vector<double> p_uw(t.size(), 2.0e6);  // 2 W
  // 2 W × 4 s = 8 J = 8000 mJ.
  const WindowEnergy e = energy_from_power(t, p_uw, PowerUnit::kMicrowatt, s(0), s(4));
  ASSERT_EQ(e.status, EnergyStatus::kComplete) << e.reason;
  EXPECT_NEAR(e.energy_mj, 8000.0, kTol);
}

TEST(EnergyFromPower, RampIsExactTrapezoid) {
  // P(t) = 1000 + 500 t mW, sampled every 1 s; trapezoids integrate a line exactly.
  const auto t = times(1, 10);
  std::vector<double> p_mw;
  for (std::size_t i = 0; i < t.size(); ++i)
    p_mw.push_back(1000.0 + 500.0 * static_cast<double>(i));
  // ∫₂⁶ = 1000·4 + 250·(6² − 2²) = 4000 + 8000 = 12000 mJ.
  EXPECT_NEAR(energy_from_power(t, p_mw, PowerUnit::kMilliwatt, s(2), s(6)).energy_mj, 12000.0,
              kTol);
  // Edges inside sample intervals: ∫_{2.5}^{6.5} = 1000·4 + 250·(42.25 − 6.25) = 13000 mJ.
  EXPECT_NEAR(energy_from_power(t, p_mw, PowerUnit::kMilliwatt, s(2.5), s(6.5)).energy_mj, 13000.0,
              kTol);
}

TEST(EnergyFromPower, TriangleUsesTheTrapezoidRuleAndInterpolatesEdges) {
  const std::vector<std::int64_t> t{s(0), s(1), s(2)};
  const std::vector<double> p_mw{0, 1000, 0};
  // Two trapezoids of 1 s × (0 + 1000)/2 = 1000 mJ in all.
  EXPECT_NEAR(energy_from_power(t, p_mw, PowerUnit::kMilliwatt, s(0), s(2)).energy_mj, 1000.0,
              kTol);
  // P(0.5) = 500, P(1) = 1000, P(1.5) = 500: 0.5·(500 + 1000)/2 × 2 = 750 mJ.
  EXPECT_NEAR(energy_from_power(t, p_mw, PowerUnit::kMilliwatt, s(0.5), s(1.5)).energy_mj, 750.0,
              kTol);
  // Inside one interval: P(0.25) = 250, P(0.75) = 750: 0.5·(250 + 750)/2 = 250 mJ.
  EXPECT_NEAR(energy_from_power(t, p_mw, PowerUnit::kMilliwatt, s(0.25), s(0.75)).energy_mj, 250.0,
              kTol);
}

TEST(EnergyFromPower, EmptyWindowIsZero) {
  const auto t = times(1, 3);
  const std::vector<double> p_mw(t.size(), 1000.0);
  const WindowEnergy e = energy_from_power(t, p_mw, PowerUnit::kMilliwatt, s(1.5), s(1.5));
  ASSERT_EQ(e.status, EnergyStatus::kComplete);
  EXPECT_EQ(e.energy_mj, 0.0);
}

TEST(EnergyFromPower, NanSamplesAreSkipped) {
  // The failed reading at 1 s is skipped; 1000 mW from 0 to 2 s still gives 2000 mJ, over one
  // 2 s gap.
  const std::vector<std::int64_t> t{s(0), s(1), s(2)};
  const std::vector<double> p_mw{1000, kNaN, 1000};
  const WindowEnergy e = energy_from_power(t, p_mw, PowerUnit::kMilliwatt, s(0), s(2));
  ASSERT_EQ(e.status, EnergyStatus::kComplete) << e.reason;
  EXPECT_NEAR(e.energy_mj, 2000.0, kTol);
  EXPECT_EQ(e.max_gap_ns, s(2));
  EXPECT_EQ(e.samples, 2u);
}

TEST(EnergyFromPower, WindowPastTheSamplesIsPartialNotExtrapolated) {
  const std::vector<std::int64_t> t{s(1), s(2), s(3)};
  const std::vector<double> p_mw{1000, 1000, 1000};
  const WindowEnergy e = energy_from_power(t, p_mw, PowerUnit::kMilliwatt, s(0), s(2));
  EXPECT_EQ(e.status, EnergyStatus::kPartial);
  EXPECT_TRUE(std::isnan(e.energy_mj));
  EXPECT_NEAR(e.covered_energy_mj, 1000.0, kTol);  // 1000 mW over [1, 2] s
  EXPECT_EQ(e.covered_t0_ns, s(1));
  EXPECT_EQ(e.covered_t1_ns, s(2));
  EXPECT_TRUE(contains(e.reason, "the samples start 1.000 s after the window starts")) << e.reason;

  const WindowEnergy both = energy_from_power(t, p_mw, PowerUnit::kMilliwatt, s(0.5), s(4));
  EXPECT_EQ(both.status, EnergyStatus::kPartial);
  EXPECT_NEAR(both.covered_energy_mj, 2000.0, kTol);  // [1, 3] s
  EXPECT_TRUE(contains(both.reason, "start 0.500 s after")) << both.reason;
  EXPECT_TRUE(contains(both.reason, "end 1.000 s before the window ends")) << both.reason;
}

TEST(EnergyFromPower, WindowOutsideTheSamplesIsUnavailable) {
  const std::vector<std::int64_t> t{s(1), s(2)};
  const std::vector<double> p_mw{1000, 1000};
  const WindowEnergy before = energy_from_power(t, p_mw, PowerUnit::kMilliwatt, s(0), s(0.5));
  EXPECT_EQ(before.status, EnergyStatus::kUnavailable);
  EXPECT_TRUE(std::isnan(before.energy_mj));
  EXPECT_TRUE(std::isnan(before.covered_energy_mj));
  EXPECT_TRUE(contains(before.reason, "ends 0.500 s before the first sample")) << before.reason;
  const WindowEnergy after = energy_from_power(t, p_mw, PowerUnit::kMilliwatt, s(3), s(4));
  EXPECT_TRUE(contains(after.reason, "starts 1.000 s after the last sample")) << after.reason;
}

TEST(EnergyFromPower, EmptyAndOneSampleInputAreUnavailable) {
  const WindowEnergy none = energy_from_power({}, {}, PowerUnit::kMilliwatt, s(0), s(1));
  EXPECT_EQ(none.status, EnergyStatus::kUnavailable);
  EXPECT_TRUE(contains(none.reason, "no usable samples")) << none.reason;

  const std::vector<std::int64_t> t1{s(0)};
  const std::vector<double> p1{1000};
  const WindowEnergy one = energy_from_power(t1, p1, PowerUnit::kMilliwatt, s(0), s(0));
  EXPECT_EQ(one.status, EnergyStatus::kUnavailable);
  EXPECT_TRUE(contains(one.reason, "one usable sample")) << one.reason;

  const std::vector<std::int64_t> t2{s(0), s(1)};
  const std::vector<double> all_nan{kNaN, kNaN};
  EXPECT_EQ(energy_from_power(t2, all_nan, PowerUnit::kMilliwatt, s(0), s(1)).status,
            EnergyStatus::kUnavailable);
}

TEST(EnergyFromPower, BadSeriesAndWindowsAreUnavailableWithAReason) {
  const std::vector<std::int64_t> t{s(0), s(1), s(1), s(2)};
  const std::vector<double> p_mw{1, 1, 1, 1};
  const WindowEnergy repeated = energy_from_power(t, p_mw, PowerUnit::kMilliwatt, s(0), s(2));
  EXPECT_EQ(repeated.status, EnergyStatus::kUnavailable);
  EXPECT_TRUE(contains(repeated.reason, "sample 2 is not later")) << repeated.reason;

  const std::vector<double> short_values{1, 1};
  EXPECT_TRUE(contains(energy_from_power(t, short_values, PowerUnit::kMilliwatt, s(0), s(1)).reason,
                       "internal"));

  const std::vector<std::int64_t> ok_t{s(0), s(1)};
  const WindowEnergy reversed =
      energy_from_power(ok_t, short_values, PowerUnit::kMilliwatt, s(1), s(0));
  EXPECT_EQ(reversed.status, EnergyStatus::kUnavailable);
  EXPECT_TRUE(contains(reversed.reason, "ends 1.000 s before it starts")) << reversed.reason;
}

// --- cumulative counter ----------------------------------------------------------------------

TEST(EnergyFromCounter, EdgesAreInterpolatedLinearly) {
  const std::vector<std::int64_t> t{s(0), s(1), s(2)};
  const std::vector<double> uj{0, 1000, 3000};
  // [0.25, 1.5]: 0.75 × 1000 + 0.5 × 2000 = 1750 µJ = 1.75 mJ.
  const WindowEnergy e = energy_from_counter(t, uj, std::nullopt, s(0.25), s(1.5));
  ASSERT_EQ(e.status, EnergyStatus::kComplete) << e.reason;
  EXPECT_NEAR(e.energy_mj, 1.75, kTol);
  EXPECT_EQ(e.wraps, 0u);
  // Whole series: 3000 µJ = 3 mJ.
  EXPECT_NEAR(energy_from_counter(t, uj, std::nullopt, s(0), s(2)).energy_mj, 3.0, kTol);
}

TEST(EnergyFromCounter, OneWrapIsUnwrapped) {
  // Wrap value 1e6 µJ: 700000 → 900000 → (wrap) 100000 → 300000, each step +200000 µJ.
  const std::vector<std::int64_t> t{s(0), s(1), s(2), s(3)};
  const std::vector<double> uj{700000, 900000, 100000, 300000};
  const WindowEnergy whole = energy_from_counter(t, uj, 1e6, s(0), s(3));
  ASSERT_EQ(whole.status, EnergyStatus::kComplete) << whole.reason;
  EXPECT_NEAR(whole.energy_mj, 600.0, kTol);  // 3 × 200000 µJ
  EXPECT_EQ(whole.wraps, 1u);
  // [0.5, 2.5]: 100000 + 200000 (across the wrap) + 100000 = 400000 µJ = 400 mJ.
  const WindowEnergy middle = energy_from_counter(t, uj, 1e6, s(0.5), s(2.5));
  EXPECT_NEAR(middle.energy_mj, 400.0, kTol);
  EXPECT_EQ(middle.wraps, 1u);
  // A window before the wrap sees none.
  const WindowEnergy early = energy_from_counter(t, uj, 1e6, s(0), s(1));
  EXPECT_NEAR(early.energy_mj, 200.0, kTol);
  EXPECT_EQ(early.wraps, 0u);
}

TEST(EnergyFromCounter, RaplSizedWrap) {
  // A typical package-domain max_energy_range_uj: 262143328850 µJ.
  const double wrap_uj = 262143328850.0;
  const std::vector<std::int64_t> t{s(0), s(1), s(2)};
  const std::vector<double> uj{262143000000.0, 262143300000.0, 100000.0};
  // 300000 + (262143328850 − 262143300000 + 100000) = 300000 + 128850 = 428850 µJ.
  const WindowEnergy e = energy_from_counter(t, uj, wrap_uj, s(0), s(2));
  ASSERT_EQ(e.status, EnergyStatus::kComplete) << e.reason;
  EXPECT_NEAR(e.energy_mj, 428.85, 1e-6);
  EXPECT_EQ(e.wraps, 1u);
}

TEST(EnergyFromCounter, DecreaseWithoutAWrapValueIsUnavailable) {
  const std::vector<std::int64_t> t{s(0), s(1), s(2)};
  const std::vector<double> uj{900, 1000, 100};
  const WindowEnergy e = energy_from_counter(t, uj, std::nullopt, s(0), s(2));
  EXPECT_EQ(e.status, EnergyStatus::kUnavailable);
  EXPECT_TRUE(contains(e.reason, "decreased from 1000 to 100")) << e.reason;
  EXPECT_TRUE(contains(e.reason, "max_energy_range_uj")) << e.reason;
  // The decrease lies outside [0, 1]: that window is fine.
  EXPECT_NEAR(energy_from_counter(t, uj, std::nullopt, s(0), s(1)).energy_mj, 0.1, kTol);
}

TEST(EnergyFromCounter, NanReadingsAreSkipped) {
  const std::vector<std::int64_t> t{s(0), s(1), s(2), s(3)};
  const std::vector<double> uj{1000, kNaN, 3000, 4000};
  // 1000 → 3000 over [0, 2] s (linear), 3000 → 4000 over [2, 3]: [1, 3] = 1000 + 1000 µJ.
  const WindowEnergy e = energy_from_counter(t, uj, std::nullopt, s(1), s(3));
  ASSERT_EQ(e.status, EnergyStatus::kComplete) << e.reason;
  EXPECT_NEAR(e.energy_mj, 2.0, kTol);
  EXPECT_EQ(e.max_gap_ns, s(2));
}

TEST(EnergyFromCounter, PartialAndEmpty) {
  const std::vector<std::int64_t> t{s(1), s(2)};
  const std::vector<double> uj{0, 1000};
  const WindowEnergy e = energy_from_counter(t, uj, std::nullopt, s(1.5), s(3));
  EXPECT_EQ(e.status, EnergyStatus::kPartial);
  EXPECT_TRUE(std::isnan(e.energy_mj));
  EXPECT_NEAR(e.covered_energy_mj, 0.5, kTol);  // [1.5, 2]: 500 µJ
  EXPECT_EQ(energy_from_counter({}, {}, 1e6, s(0), s(1)).status, EnergyStatus::kUnavailable);
}

// --- baseline --------------------------------------------------------------------------------

TEST(Baseline, MeanPowerIsTimeWeighted) {
  // 1000 mW sampled every 0.1 s over [0, 1] s (11 samples), then 3000 mW at 1.1 s and 2 s.
  // ∫₀² = 1000 + 0.1·(1000 + 3000)/2 + 0.9·3000 = 1000 + 200 + 2700 = 3900 mJ → 1950 mW.
  // The mean of the 13 samples would be 17000 / 13 ≈ 1308 mW: sampling density is no weight.
  std::vector<std::int64_t> t = times(0.1, 1);
  std::vector<double> p_mw(t.size(), 1000.0);
  t.push_back(s(1.1));
  p_mw.push_back(3000);
  t.push_back(s(2));
  p_mw.push_back(3000);
  const auto mean = mean_power_mw(energy_from_power(t, p_mw, PowerUnit::kMilliwatt, s(0), s(2)));
  ASSERT_TRUE(mean.ok()) << mean.error().message;
  EXPECT_NEAR(*mean, 1950.0, 1e-9);
}

TEST(Baseline, MeanPowerNeedsACompleteNonEmptyWindow) {
  const std::vector<std::int64_t> t{s(1), s(2)};
  const std::vector<double> p_mw{1000, 1000};
  const auto partial = mean_power_mw(energy_from_power(t, p_mw, PowerUnit::kMilliwatt, 0, s(2)));
  ASSERT_FALSE(partial.ok());
  EXPECT_EQ(partial.error().kind, ErrorKind::kUnavailable);
  EXPECT_TRUE(contains(partial.error().message, "partial")) << partial.error().message;
  EXPECT_FALSE(mean_power_mw(energy_from_power(t, p_mw, PowerUnit::kMilliwatt, s(1), s(1))).ok());
}

TEST(Baseline, SubtractedAndNeverBelowZeroUnlessAllowed) {
  const auto t = times(0.5, 5);
  const std::vector<double> p_mw(t.size(), 2000.0);
  const WindowEnergy gross = energy_from_power(t, p_mw, PowerUnit::kMilliwatt, s(1), s(3.5));
  // 5000 mJ − 1500 mW × 2.5 s = 5000 − 3750 = 1250 mJ.
  const auto net = subtract_baseline(gross, 1500, false);
  ASSERT_TRUE(net.ok()) << net.error().message;
  EXPECT_NEAR(net->energy_mj, 1250.0, kTol);
  EXPECT_NEAR(net->baseline_mj, 3750.0, kTol);
  EXPECT_FALSE(net->clamped);
  EXPECT_TRUE(net->note.empty());

  // 5000 − 2500 × 2.5 = −1250 mJ: clamped to 0 with a note, or kept when allowed.
  const auto clamped = subtract_baseline(gross, 2500, false);
  ASSERT_TRUE(clamped.ok());
  EXPECT_EQ(clamped->energy_mj, 0.0);
  EXPECT_TRUE(clamped->clamped);
  EXPECT_TRUE(contains(clamped->note, "below the idle baseline")) << clamped->note;
  const auto negative = subtract_baseline(gross, 2500, true);
  ASSERT_TRUE(negative.ok());
  EXPECT_NEAR(negative->energy_mj, -1250.0, kTol);
  EXPECT_FALSE(negative->clamped);
  EXPECT_FALSE(negative->note.empty());
}

TEST(Baseline, RejectsIncompleteEnergyAndBadBaselines) {
  const std::vector<std::int64_t> t{s(1), s(2)};
  const std::vector<double> p_mw{1000, 1000};
  const WindowEnergy partial = energy_from_power(t, p_mw, PowerUnit::kMilliwatt, 0, s(2));
  EXPECT_EQ(subtract_baseline(partial, 100, false).error().kind, ErrorKind::kUnavailable);
  const WindowEnergy full = energy_from_power(t, p_mw, PowerUnit::kMilliwatt, s(1), s(2));
  EXPECT_EQ(subtract_baseline(full, -1, false).error().kind, ErrorKind::kUsage);
  EXPECT_EQ(subtract_baseline(full, kNaN, false).error().kind, ErrorKind::kUsage);
}

// --- phases and energy per token -------------------------------------------------------------

TEST(PhaseEnergy, WindowsFollowTtftAndItl) {
  const std::vector<Chunk> chunks{{s(1.0), 1}, {s(1.1), 1}, {s(1.3), 2}};
  TimelineView view;
  view.t_request_ns = s(0.4);
  view.t_submit_ns = s(0.5);
  view.prompt_tokens = 128;
  view.chunks = chunks;
  const auto prefill = prefill_window(view);
  ASSERT_TRUE(prefill.has_value());
  EXPECT_EQ(prefill->t0_ns, s(0.5));  // t_submit, not t_request: tokenization excluded
  EXPECT_EQ(prefill->t1_ns, s(1.0));
  const auto decode = decode_window(view);
  ASSERT_TRUE(decode.has_value());
  EXPECT_EQ(decode->t0_ns, s(1.0));
  EXPECT_EQ(decode->t1_ns, s(1.3));

  // Constant 4000 mW: prefill 0.5 s = 2000 mJ over 128 tokens = 15.625 mJ/token; decode
  // 0.3 s = 1200 mJ over 4 − 1 = 3 steps = 400 mJ/token.
  const auto t = times(0.05, 2);
  const std::vector<double> p_mw(t.size(), 4000.0);
  const WindowEnergy pe =
      energy_from_power(t, p_mw, PowerUnit::kMilliwatt, prefill->t0_ns, prefill->t1_ns);
  const WindowEnergy de =
      energy_from_power(t, p_mw, PowerUnit::kMilliwatt, decode->t0_ns, decode->t1_ns);
  EXPECT_NEAR(prefill_mj_per_token(pe.energy_mj, view.prompt_tokens), 15.625, 1e-9);
  EXPECT_NEAR(decode_mj_per_token(de.energy_mj, 4), 400.0, 1e-9);
}

TEST(PhaseEnergy, UndefinedCases) {
  TimelineView none;
  EXPECT_FALSE(prefill_window(none).has_value());
  EXPECT_FALSE(decode_window(none).has_value());

  const std::vector<Chunk> one{{s(1), 1}};
  TimelineView single;
  single.chunks = one;
  EXPECT_TRUE(prefill_window(single).has_value());
  EXPECT_FALSE(decode_window(single).has_value());

  // Three tokens in the first chunk: a decode window of length 0 (their ITLs are 0).
  const std::vector<Chunk> burst{{s(1), 3}};
  TimelineView first_multi;
  first_multi.chunks = burst;
  const auto w = decode_window(first_multi);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->t0_ns, w->t1_ns);

  EXPECT_TRUE(std::isnan(prefill_mj_per_token(100, 0)));
  EXPECT_TRUE(std::isnan(prefill_mj_per_token(kNaN, 10)));
  EXPECT_TRUE(std::isnan(decode_mj_per_token(100, 1)));
  EXPECT_TRUE(std::isnan(decode_mj_per_token(100, 0)));
  EXPECT_TRUE(std::isnan(decode_mj_per_token(kNaN, 10)));
  EXPECT_NEAR(decode_mj_per_token(100, 2), 100.0, kTol);  // one decode step
}

}  // namespace
}  // namespace tokscope::core
