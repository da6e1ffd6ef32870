// The soak tables (report/soak_table.hpp): windows cut from synthetic token timestamps and
// sampler rows, the junction band table with the drop vs the first window, the first
// throttling, and what happens without data or without thermal channels.
#include "report/soak_table.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "report/soak_render.hpp"

namespace tokscope::report {
namespace {

constexpr std::int64_t kS = 1'000'000'000;
constexpr std::int64_t kT0 = 5 * kS;  // the soak starts at 5 s on the clock

std::vector<SoakChannel> board_channels() {
  return {{"thermal.soc-thermal.temp_c", SoakChannelKind::kTemperature, 75.0, std::nullopt},
          {"thermal.bigcore0-thermal.temp_c", SoakChannelKind::kTemperature, std::nullopt,
           std::nullopt},
          {"cpufreq.policy4.cur_khz", SoakChannelKind::kFrequency, std::nullopt, std::nullopt},
          {"hwmon.ina226.power1_uw", SoakChannelKind::kPower, std::nullopt, std::nullopt}};
}

// A decode stream: one token every itl_ms from t_from to t_to.
void decode(std::vector<DecodeInterval>& out, std::int64_t t_from, std::int64_t t_to,
            double itl_ms) {
  const auto step = static_cast<std::int64_t>(itl_ms * 1e6);
  for (std::int64_t t = t_from + step; t < t_to; t += step) out.push_back({t, itl_ms});
}

TEST(SoakTable, DecodeIntervalsFollowTheItlRule) {
  const std::vector<core::Chunk> chunks = {{100'000'000, 2}, {104'000'000, 1}, {110'000'000, 3}};
  std::vector<DecodeInterval> out;
  append_decode_intervals(chunks, out);
  ASSERT_EQ(out.size(), 5U);  // 1 extra token of the first chunk + 1 + 3
  EXPECT_EQ(out[0].itl_ms, 0.0);
  EXPECT_EQ(out[0].t_end_ns, 100'000'000);
  EXPECT_DOUBLE_EQ(out[1].itl_ms, 4.0);
  EXPECT_DOUBLE_EQ(out[2].itl_ms, 2.0);
  EXPECT_EQ(out[4].t_end_ns, 110'000'000);
}

TEST(SoakTable, WindowsCutTokensRowsAndRequestsByTime) {
  std::vector<DecodeInterval> intervals;
  decode(intervals, kT0, kT0 + 1 * kS, 2.0);           // window 0: 500 tok/s
  decode(intervals, kT0 + 1 * kS, kT0 + 2 * kS, 4.0);  // window 1: 250 tok/s
  const std::vector<std::int64_t> done = {kT0 + kS / 2, kT0 + kS * 3 / 2, kT0 + kS * 19 / 10};
  std::vector<SoakRow> rows;
  for (int i = 0; i < 25; ++i) {  // 100 ms rows; 2.5 s of them
    const double temp = 50.0 + i;
    rows.push_back({kT0 + i * kS / 10, false, {temp, temp - 2, 1'800'000.0, 3.0e6}});
  }
  const auto windows =
      build_windows(intervals, done, rows, board_channels(), kT0, kT0 + kS * 5 / 2, 1.0);
  ASSERT_EQ(windows.size(), 3U);
  EXPECT_TRUE(windows[0].complete);
  EXPECT_TRUE(windows[1].complete);
  EXPECT_FALSE(windows[2].complete);
  EXPECT_NEAR(windows[2].duration_s, 0.5, 1e-9);
  EXPECT_NEAR(windows[1].start_s, 1.0, 1e-9);

  EXPECT_NEAR(windows[0].decode_tps_p50, 500.0, 1e-6);
  EXPECT_NEAR(windows[1].decode_tps_p50, 250.0, 1e-6);
  EXPECT_NEAR(windows[1].decode_tps_mean, 250.0, 1e-6);
  EXPECT_NEAR(windows[0].drop_pct, 0.0, 1e-9);
  EXPECT_NEAR(windows[1].drop_pct, 50.0, 1e-6);
  EXPECT_GT(windows[0].decode_tokens, 490U);
  EXPECT_EQ(windows[0].requests, 1U);
  EXPECT_EQ(windows[1].requests, 2U);

  // Rows 0..9 in window 0: soc-thermal 50..59 (the junction: max over zones per row).
  EXPECT_EQ(windows[0].rows, 10U);
  EXPECT_NEAR(windows[0].junction_max_c, 59.0, 1e-9);
  EXPECT_NEAR(windows[0].junction_mean_c, 54.5, 1e-9);
  EXPECT_EQ(windows[0].hottest_channel, "thermal.soc-thermal.temp_c");
  ASSERT_EQ(windows[0].temperatures_c.size(), 2U);
  EXPECT_NEAR(windows[0].temperatures_c[1].max, 57.0, 1e-9);
  ASSERT_EQ(windows[0].frequencies.size(), 1U);
  EXPECT_NEAR(windows[0].frequencies[0].mean, 1'800'000.0, 1e-6);
  EXPECT_NEAR(windows[0].power_mean_w, 3.0, 1e-9);
  EXPECT_EQ(windows[0].power_channel, "hwmon.ina226.power1_uw");
  // Row 25 (75 °C) is not in the run; rows 20..24 (70..74 °C) are below the trip: no throttle.
  EXPECT_FALSE(first_throttle(windows).has_value());
}

TEST(SoakTable, EmptyWindowsHaveNoSpeedAndNoDrop) {
  std::vector<DecodeInterval> intervals;
  decode(intervals, kT0 + 2 * kS, kT0 + 3 * kS, 2.0);  // nothing in windows 0 and 1
  const auto windows = build_windows(intervals, {}, {}, {}, kT0, kT0 + 3 * kS, 1.0);
  ASSERT_EQ(windows.size(), 3U);
  EXPECT_TRUE(std::isnan(windows[0].decode_tps_p50));
  EXPECT_TRUE(std::isnan(windows[0].drop_pct));
  EXPECT_EQ(windows[0].decode_tokens, 0U);
  EXPECT_EQ(windows[0].rows, 0U);
  EXPECT_TRUE(std::isnan(windows[0].junction_max_c));
  EXPECT_TRUE(std::isnan(windows[0].power_mean_w));
  // The baseline is the first window with decode data.
  EXPECT_NEAR(windows[2].drop_pct, 0.0, 1e-9);
  const nlohmann::json j = soak_window_json(windows[0]);
  EXPECT_TRUE(j["decode_tps_p50"].is_null());
  EXPECT_TRUE(j["junction_max_c"].is_null());
}

// A heating board: junction climbs 2 °C per minute from 52 °C and decode slows by 1% per °C
// above 60 °C. One window per minute for 20 minutes.
struct Heating {
  std::vector<DecodeInterval> intervals;
  std::vector<SoakRow> rows;
};

Heating heating_series(bool over_trip) {
  Heating h;
  for (int minute = 0; minute < 20; ++minute) {
    const double junction = 52.0 + 2.0 * minute;
    const double slowdown = 1.0 + 0.01 * std::max(0.0, junction - 60.0);
    const std::int64_t start = kT0 + minute * 60 * kS;
    // 100 decode intervals per minute suffice for the median.
    for (int k = 1; k <= 100; ++k) {
      h.intervals.push_back({start + k * kS / 2, 2.0 * slowdown});
    }
    for (int s = 0; s < 60; ++s) {
      const double t = over_trip ? junction : std::min(junction, 74.0);
      h.rows.push_back({start + s * kS, over_trip && t >= 75.0, {t, t - 1.0, 2.4e6, std::nan("")}});
    }
  }
  return h;
}

TEST(SoakTable, BandsShowTheDropAsTheJunctionHeats) {
  const Heating h = heating_series(true);
  const auto windows =
      build_windows(h.intervals, {}, h.rows, board_channels(), kT0, kT0 + 20 * 60 * kS, 60.0);
  ASSERT_EQ(windows.size(), 20U);
  const SoakBands bands = soak_bands(windows);
  ASSERT_TRUE(bands.available);
  ASSERT_EQ(bands.bands.size(), 7U);
  EXPECT_EQ(bands.bands[0].label, "<60");
  EXPECT_EQ(bands.bands[1].label, "60–65");
  EXPECT_EQ(bands.bands[6].label, "≥85");
  EXPECT_NEAR(bands.baseline_tps, 500.0, 1e-6);
  // Minutes 0..3 (52..58 °C) are below 60: full speed.
  EXPECT_EQ(bands.bands[0].windows, 4U);
  EXPECT_NEAR(bands.bands[0].drop_pct, 0.0, 1e-9);
  // 60–65: minutes 4, 5, 6 (60, 62, 64 °C): slowdowns 1.00, 1.02, 1.04 -> median 1.02.
  EXPECT_EQ(bands.bands[1].windows, 3U);
  EXPECT_NEAR(bands.bands[1].decode_tps_p50, 500.0 / 1.02, 1e-6);
  EXPECT_NEAR(bands.bands[1].drop_pct, 100.0 * (1 - 1 / 1.02), 1e-6);
  // The drop grows band after band.
  for (std::size_t b = 2; b < bands.bands.size(); ++b) {
    EXPECT_GT(bands.bands[b].drop_pct, bands.bands[b - 1].drop_pct) << bands.bands[b].label;
  }
  // ≥85: minutes 17..19 (86, 88, 90 °C).
  EXPECT_EQ(bands.bands[6].windows, 3U);
  // Every window lands in exactly one band.
  std::uint32_t total = 0;
  for (const auto& b : bands.bands) total += b.windows;
  EXPECT_EQ(total, 20U);
}

TEST(SoakTable, FirstThrottleIsTheFirstThrottledRowWithItsZone) {
  const Heating h = heating_series(true);
  const auto windows =
      build_windows(h.intervals, {}, h.rows, board_channels(), kT0, kT0 + 20 * 60 * kS, 60.0);
  const auto t = first_throttle(windows);
  ASSERT_TRUE(t.has_value());
  // 76 °C is the first value ≥ 75 °C: minute 12 (52 + 24), its first row.
  EXPECT_NEAR(t->t_s, 12 * 60.0, 1e-9);
  EXPECT_EQ(t->channel, "thermal.soc-thermal.temp_c");
  EXPECT_NEAR(t->value_c, 76.0, 1e-9);
  EXPECT_FALSE(windows[11].first_throttle.has_value());
  EXPECT_EQ(windows[12].throttled_rows, 60U);

  const Heating cool = heating_series(false);
  const auto cool_windows =
      build_windows(cool.intervals, {}, cool.rows, board_channels(), kT0, kT0 + 20 * 60 * kS, 60.0);
  EXPECT_FALSE(first_throttle(cool_windows).has_value());
  EXPECT_TRUE(throttle_json(first_throttle(cool_windows)).is_null());
}

TEST(SoakTable, NoThermalChannelsMakeTheBandTableUnavailable) {
  std::vector<DecodeInterval> intervals;
  decode(intervals, kT0, kT0 + 2 * kS, 2.0);
  const std::vector<SoakChannel> freq_only = {
      {"cpufreq.policy0.cur_khz", SoakChannelKind::kFrequency, std::nullopt, std::nullopt}};
  const std::vector<SoakRow> rows = {{kT0, false, {1.8e6}}, {kT0 + kS, false, {1.8e6}}};
  const auto windows = build_windows(intervals, {}, rows, freq_only, kT0, kT0 + 2 * kS, 1.0);
  ASSERT_EQ(windows.size(), 2U);
  EXPECT_TRUE(std::isnan(windows[0].junction_max_c));
  const SoakBands bands = soak_bands(windows);
  EXPECT_FALSE(bands.available);
  EXPECT_EQ(bands.unavailable.rfind("unavailable: no temperature", 0), 0U) << bands.unavailable;

  nlohmann::json doc = {{"simulated", false},
                        {"window_s", 1.0},
                        {"windows", nlohmann::json::array()},
                        {"bands", soak_bands_json(bands)},
                        {"first_throttle", nullptr}};
  for (const auto& w : windows) doc["windows"].push_back(soak_window_json(w));
  const std::string md = render_soak_md(doc);
  EXPECT_NE(md.find("Band table unavailable: no temperature"), std::string::npos) << md;
  EXPECT_NE(md.find("no throttling seen"), std::string::npos) << md;
  EXPECT_EQ(md.find("SIMULATED"), std::string::npos) << md;
}

TEST(SoakTable, EnergyCounterGivesPowerAcrossAWrap) {
  const std::vector<SoakChannel> channels = {
      {"rapl.package-0.energy_uj", SoakChannelKind::kEnergy, std::nullopt, 10e6}};
  // 2 W: 2e6 µJ per second, wrapping at 10e6 µJ.
  std::vector<SoakRow> rows;
  for (int i = 0; i <= 9; ++i) {
    rows.push_back({kT0 + i * kS / 10, false, {std::fmod(9.0e6 + i * 2e5, 10e6)}});
  }
  const auto windows = build_windows({}, {}, rows, channels, kT0, kT0 + kS, 1.0);
  ASSERT_EQ(windows.size(), 1U);
  EXPECT_NEAR(windows[0].power_mean_w, 2.0, 1e-6);
  EXPECT_EQ(windows[0].power_channel, "rapl.package-0.energy_uj");
}

TEST(SoakTable, MarkdownSaysSimulatedOnEveryRowAndLine) {
  const Heating h = heating_series(true);
  const auto windows =
      build_windows(h.intervals, {}, h.rows, board_channels(), kT0, kT0 + 20 * 60 * kS, 60.0);
  nlohmann::json doc = {{"simulated", true},
                        {"engine", {{"name", "sim"}}},
                        {"window_s", 60.0},
                        {"planned_minutes", 20.0},
                        {"elapsed_s", 1200.0},
                        {"windows", nlohmann::json::array()},
                        {"bands", soak_bands_json(soak_bands(windows))},
                        {"first_throttle", throttle_json(first_throttle(windows))}};
  for (const auto& w : windows) doc["windows"].push_back(soak_window_json(w));
  const std::string md = render_soak_md(doc);
  EXPECT_NE(md.find("| minute |"), std::string::npos) << md;
  EXPECT_NE(md.find("first throttling: 720.0 s (zone soc-thermal at 76.0 °C)"), std::string::npos)
      << md;
  std::size_t rows = 0, start = 0;
  while (start < md.size()) {
    const std::size_t end = md.find('\n', start);
    const std::string line = md.substr(start, end - start);
    start = end + 1;
    if (line.empty() || line.rfind("|---", 0) == 0) continue;
    const bool is_table_heading =
        line.rfind("| minute", 0) == 0 || line.rfind("| junction", 0) == 0;
    if (is_table_heading) continue;
    ++rows;
    EXPECT_NE(line.find("SIMULATED"), std::string::npos) << line;
  }
  EXPECT_GE(rows, 20U + 7U + 2U);
}

}  // namespace
}  // namespace tokscope::report
