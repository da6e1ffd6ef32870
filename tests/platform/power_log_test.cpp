// Tests for platform/power_log.hpp: the CSV format and its variants, errors with their
// line:column, offset alignment, and the marker pulse search on synthetic noisy series.
#include "platform/power_log.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "core/energy.hpp"

namespace tokscope::platform {
namespace {

namespace fs = std::filesystem;

constexpr std::int64_t kNsPerS = 1'000'000'000;

fs::path fixture(const std::string& name) {
  return fs::path(TOKSCOPE_TEST_DATA_DIR) / "power_log" / name;
}

bool contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

bool has_note(const PowerLog& log, const std::string& needle) {
  for (const auto& note : log.notes) {
    if (contains(note, needle)) return true;
  }
  return false;
}

PowerLog parse_ok(const std::string& text) {
  auto log = parse_power_log(text, "meter.csv");
  EXPECT_TRUE(log.ok()) << (log.ok() ? "" : log.error().message);
  return log.ok() ? *log : PowerLog{};
}

// Parses text that must fail; returns the message after checking it is a kInput error.
std::string parse_error(const std::string& text) {
  auto log = parse_power_log(text, "meter.csv");
  EXPECT_FALSE(log.ok()) << text;
  if (log.ok()) return {};
  EXPECT_EQ(log.error().kind, ErrorKind::kInput);
  return log.error().message;
}

// ---- format ---------------------------------------------------------------------------------

TEST(PowerLogFormat, CanonicalSecondsAndWatts) {
  const PowerLog log = parse_ok("t_s,power_w\n0,2\n0.5,2.5\n1.0,3\n");
  EXPECT_EQ(log.t_log_ns, (std::vector<std::int64_t>{0, kNsPerS / 2, kNsPerS}));
  EXPECT_EQ(log.power_mw, (std::vector<double>{2000, 2500, 3000}));
  EXPECT_EQ(log.time_column, "t_s");
  EXPECT_EQ(log.power_from, "power_w");
  EXPECT_EQ(log.clock, LogClock::kRelative);
  EXPECT_EQ(log.median_period_ns, kNsPerS / 2);
  EXPECT_TRUE(log.notes.empty());
}

TEST(PowerLogFormat, PowerUnits) {
  EXPECT_EQ(parse_ok("t_s,power_mw\n0,1500\n").power_mw, std::vector<double>{1500});
  EXPECT_NEAR(parse_ok("t_s,power_uw\n0,1500000\n").power_mw.at(0), 1500.0, 1e-9);
  EXPECT_NEAR(parse_ok("t_s,Power [µW]\n0,1500000\n").power_mw.at(0), 1500.0, 1e-9);
  EXPECT_NEAR(parse_ok("t_s,Power (W)\n0,1.5\n").power_mw.at(0), 1500.0, 1e-9);
  EXPECT_NEAR(parse_ok("t_s,P(mW)\n0,1.5\n").power_mw.at(0), 1.5, 1e-12);
}

TEST(PowerLogFormat, TimeUnits) {
  EXPECT_EQ(parse_ok("t_ms,power_w\n1500,1\n").t_log_ns, std::vector<std::int64_t>{1'500'000'000});
  EXPECT_EQ(parse_ok("Time(us),power_w\n1500,1\n").t_log_ns, std::vector<std::int64_t>{1'500'000});
  EXPECT_EQ(parse_ok("elapsed_s,power_w\n2,1\n").t_log_ns, std::vector<std::int64_t>{2 * kNsPerS});
  // A unit-less time column holding numbers is seconds.
  EXPECT_EQ(parse_ok("time,power_w\n3.25,1\n").t_log_ns, std::vector<std::int64_t>{3'250'000'000});
}

TEST(PowerLogFormat, VoltageTimesCurrent) {
  // 5.0 V × 0.4 A = 2000 mW; 5000 mV × 800 mA = 4000 mW.
  const PowerLog vi = parse_ok("t_s,voltage_v,current_a\n0,5.0,0.4\n");
  EXPECT_NEAR(vi.power_mw.at(0), 2000.0, 1e-9);
  EXPECT_EQ(vi.power_from, "voltage_v × current_a");
  EXPECT_NEAR(parse_ok("t_s,vbus_mv,ibus_ma\n0,5000,800\n").power_mw.at(0), 4000.0, 1e-9);
  EXPECT_NEAR(parse_ok("t_s,Voltage(V),Current(uA)\n0,3.3,1000\n").power_mw.at(0), 3.3, 1e-12);
}

TEST(PowerLogFormat, SpreadsheetStyleHeadersFromAFile) {
  const auto log = read_power_log(fixture("spreadsheet_vi.csv"));
  ASSERT_TRUE(log.ok()) << log.error().message;
  EXPECT_EQ(log->time_column, "Timestamp(ms)");
  EXPECT_EQ(log->t_log_ns, (std::vector<std::int64_t>{0, 100'000'000, 200'000'000, 300'000'000}));
  EXPECT_NEAR(log->power_mw.at(0), 2000.0, 1e-9);  // 5 V × 0.4 A
  EXPECT_NEAR(log->power_mw.at(3), 4000.0, 1e-9);  // 5 V × 0.8 A
  EXPECT_TRUE(has_note(*log, "columns ignored: 'Temp(C)'"));
}

TEST(PowerLogFormat, PowerColumnIsPreferredOverVoltageAndCurrent) {
  const PowerLog log = parse_ok("Time(s),Voltage(V),Current(A),Power(W)\n0,5,0.4,2.01\n");
  EXPECT_EQ(log.power_from, "Power(W)");
  EXPECT_NEAR(log.power_mw.at(0), 2010.0, 1e-9);
  EXPECT_TRUE(has_note(log, "the voltage/current columns are not used"));
}

TEST(PowerLogFormat, TheExampleOfDocsPowerLogMd) {
  const PowerLog log = parse_ok(
      "# exported 2024-05-01\n"
      "Time;Elapsed(s);Voltage(V);Current(A)\n"
      "12:00:00;0,0;5,08;0,812\n"
      "12:00:00;0,1;5,08;0,815\n"
      "12:00:00;0,2;5,07;1,402\n");
  EXPECT_EQ(log.time_column, "Elapsed(s)");
  EXPECT_EQ(log.power_from, "Voltage(V) × Current(A)");
  EXPECT_EQ(log.t_log_ns, (std::vector<std::int64_t>{0, 100'000'000, 200'000'000}));
  EXPECT_NEAR(log.power_mw.at(0), 4124.96, 1e-6);  // 5.08 V × 0.812 A
  EXPECT_TRUE(has_note(log, "columns ignored: 'Time'"));
}

TEST(PowerLogFormat, SemicolonDecimalCommaIsoTimesCrlfFromAFile) {
  const auto log = read_power_log(fixture("bench_supply_semicolon.csv"));
  ASSERT_TRUE(log.ok()) << log.error().message;
  // 2024-05-01T12:00:00Z = 1714564800 s; 12.0 V × 0.25 A = 3000 mW, × 0.5 A = 6000 mW.
  const std::int64_t t0 = 1'714'564'800LL * kNsPerS;
  EXPECT_EQ(log->t_log_ns, (std::vector<std::int64_t>{t0, t0 + kNsPerS / 2, t0 + kNsPerS}));
  EXPECT_NEAR(log->power_mw.at(0), 3000.0, 1e-9);
  EXPECT_NEAR(log->power_mw.at(2), 6000.0, 1e-9);
  EXPECT_EQ(log->clock, LogClock::kEpoch);
}

TEST(PowerLogFormat, IsoZonesAndSeparators) {
  const std::int64_t t0 = 1'714'564'800LL * kNsPerS;  // 2024-05-01T12:00:00Z
  const PowerLog log = parse_ok(
      "timestamp,power_w\n"
      "2024-05-01T12:00:00Z,1\n"
      "2024-05-01 14:00:00.5+02:00,1\n"
      "2024-05-01T07:00:01.000000001-0500,1\n"
      "2024-05-01t12:00:02+00,1\n");
  EXPECT_EQ(log.t_log_ns,
            (std::vector<std::int64_t>{t0, t0 + kNsPerS / 2, t0 + kNsPerS + 1, t0 + 2 * kNsPerS}));
  EXPECT_EQ(log.clock, LogClock::kEpoch);
  // No zone: read as UTC, and said so.
  const PowerLog naive = parse_ok("time,power_w\n2000-02-29 00:00:00.25,1\n");
  EXPECT_EQ(naive.t_log_ns.at(0), 951'782'400LL * kNsPerS + 250'000'000);
  EXPECT_EQ(naive.clock, LogClock::kWallNoZone);
}

TEST(PowerLogFormat, EpochSecondsAreRecognised) {
  const PowerLog log = parse_ok("t_s,power_w\n1714564800.25,1\n1714564800.35,1\n");
  EXPECT_EQ(log.clock, LogClock::kEpoch);
  // Decimal seconds are converted exactly (a double would be off by up to ~0.1 µs here).
  EXPECT_EQ(log.t_log_ns.at(0), 1'714'564'800'250'000'000);
  EXPECT_EQ(log.t_log_ns.at(1) - log.t_log_ns.at(0), 100'000'000);
  EXPECT_EQ(parse_ok("t_s,power_w\n1714564800.1234567896,1\n").t_log_ns.at(0),
            1'714'564'800'123'456'790);  // rounded at the nanosecond
  EXPECT_EQ(parse_ok("t_ms;power_w\n-1,5;1\n").t_log_ns.at(0), -1'500'000);
  EXPECT_EQ(parse_ok("t_s,power_w\n1.5e3,1\n").t_log_ns.at(0), 1'500'000'000'000);
}

TEST(PowerLogFormat, CommentsBlankLinesBomQuotesAndSpaces) {
  const PowerLog log = parse_ok(
      "\xEF\xBB\xBF# exported by a logging script\n"
      "\n"
      "  # indented comment\n"
      "\"t_s\" , \"Power (W)\" , \"Note, with comma\"\r\n"
      "0 , 1.5 , \"ok, fine\"\r\n"
      "\r\n"
      "# mid-file comment\n"
      "1,+2.5e0,\"say \"\"hi\"\"\"\n");
  EXPECT_EQ(log.t_log_ns, (std::vector<std::int64_t>{0, kNsPerS}));
  EXPECT_EQ(log.power_mw, (std::vector<double>{1500, 2500}));
  EXPECT_TRUE(has_note(log, "'Note, with comma'"));
}

TEST(PowerLogFormat, TruncatedLastRowIsDroppedWithANote) {
  const auto log = read_power_log(fixture("truncated_last_row.csv"));
  ASSERT_TRUE(log.ok()) << log.error().message;
  EXPECT_EQ(log->t_log_ns.size(), 2u);
  EXPECT_TRUE(has_note(*log, "line 4 dropped")) << log->notes.at(0);
  // The same short row followed by a newline is an error: the file did not just stop there.
  EXPECT_TRUE(contains(parse_error("t_s,power_mw\n0,1\n2\n"),
                       "meter.csv:3:2: the row has 1 "
                       "fields"));
}

TEST(PowerLogFormat, NegativePowerIsKeptAndNoted) {
  const PowerLog log = parse_ok("t_s,voltage_v,current_a\n0,5,0.1\n1,5,-0.002\n");
  EXPECT_NEAR(log.power_mw.at(1), -10.0, 1e-9);
  EXPECT_TRUE(has_note(log, "1 rows with negative power (lowest -10.000 mW)"));
}

// ---- errors ---------------------------------------------------------------------------------

TEST(PowerLogErrors, HeaderProblemsNameTheLineAndTheFix) {
  EXPECT_TRUE(contains(parse_error(""), "meter.csv: no header row"));
  EXPECT_TRUE(contains(parse_error("# only\n\n# comments\n"), "no header row"));
  EXPECT_TRUE(contains(parse_error("# c\nt_s,power_w\n"), "meter.csv:2: no data rows"));
  EXPECT_TRUE(contains(parse_error("seconds,power_w\n0,1\n"),
                       "meter.csv:1: no time column in the header; name one t_s"));
  EXPECT_TRUE(contains(parse_error("t_s,energy_wh\n0,1\n"),
                       "meter.csv:1: no power column in the header; name one power_w"));
  const std::string no_unit = parse_error("t_s,power\n0,1\n");
  EXPECT_TRUE(contains(no_unit, "meter.csv:1:5: column 'power' has no unit")) << no_unit;
  EXPECT_TRUE(contains(no_unit, "power_w")) << no_unit;
  EXPECT_TRUE(contains(parse_error("t_s,power_kw\n0,1\n"),
                       "meter.csv:1:5: column 'power_kw': unit 'kw' is not understood; use W, mW"));
  EXPECT_TRUE(contains(parse_error("t_s,voltage_v\n0,1\n"),
                       "meter.csv:1:5: voltage column 'voltage_v' but no current column"));
  EXPECT_TRUE(contains(parse_error("t_s,Current(mA)\n0,1\n"), "but no voltage column"));
  EXPECT_TRUE(contains(parse_error("t_s,power_w,Power(W)\n0,1,1\n"),
                       "2 columns give the same quantity: 'power_w' (column 5), 'Power(W)'"));
  EXPECT_TRUE(contains(parse_error("time,timestamp,power_w\n0,0,1\n"), "several time columns"));
  EXPECT_TRUE(contains(parse_error("\"t_s,power_w\n"), "meter.csv:1:1: the quote opened here"));
}

TEST(PowerLogErrors, TwoTimeColumnsOneWithAUnitIsFine) {
  const PowerLog log = parse_ok("Time,Elapsed(s),Power(W)\n12:00:00,0,1\n12:00:01,1,1\n");
  EXPECT_EQ(log.time_column, "Elapsed(s)");
  EXPECT_TRUE(has_note(log, "'Time'"));
}

TEST(PowerLogErrors, RowProblemsNameLineAndColumn) {
  const auto bad = read_power_log(fixture("bad_number.csv"));
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(contains(bad.error().message,
                       "bad_number.csv:4:5: '2.O' in column 'power_w' is "
                       "not a number"))
      << bad.error().message;

  EXPECT_TRUE(contains(parse_error("t_s,power_w\n0,1\n1,\n"),
                       "meter.csv:3:3: column 'power_w' is empty; fill it in or delete the row"));
  const std::string order = parse_error("t_s,power_w\n0,1\n# c\n1,1\n\n1,1\n");
  EXPECT_TRUE(contains(order,
                       "meter.csv:6:1: time '1' is not later than the previous row's "
                       "(line 4)"))
      << order;
  EXPECT_TRUE(contains(parse_error("t_s;power_w\n0;1\n1;1.5.0\n"), "or 1,25"));
  EXPECT_TRUE(contains(parse_error("time,power_w\n0,1\n2024-05-01T00:00:00Z,1\n"),
                       "meter.csv:3:1: '2024-05-01T00:00:00Z' in column 'time' is not a number"));
  EXPECT_TRUE(contains(parse_error("time,power_w\n2024-05-01T00:00:00Z,1\n5,1\n"),
                       "meter.csv:3:1: '5' in column 'time' is not a time"));
  EXPECT_TRUE(contains(parse_error("time,power_w\n2024-13-01T00:00:00Z,1\n"), "is not a time"));
  EXPECT_TRUE(contains(parse_error("time,power_w\n2024-02-30T00:00:00Z,1\n"), "is not a time"));
  EXPECT_TRUE(contains(parse_error("t_s,power_w\n1e300,1\n"), "out of range"));
  EXPECT_TRUE(contains(parse_error("t_s,power_w\n0,nan\n"), "is not a number"));
  EXPECT_TRUE(contains(parse_error("t_s,power_w\n0,\"1\" x\n"),
                       "meter.csv:2:7: text after a quoted field"));
}

TEST(PowerLogErrors, MissingFileNamesThePath) {
  const auto log = read_power_log(fixture("does_not_exist.csv"));
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.error().kind, ErrorKind::kInput);
  EXPECT_TRUE(contains(log.error().message, "--power-log "));
  EXPECT_TRUE(contains(log.error().message, "does_not_exist.csv: cannot open"));
}

// ---- offset alignment -----------------------------------------------------------------------

TEST(PowerLogAlign, OffsetFlag) {
  EXPECT_EQ(*offset_ns_from_s(1.5), 1'500'000'000);
  EXPECT_EQ(*offset_ns_from_s(-1714564800.25), -1'714'564'800'250'000'000);
  for (const double bad : {std::nan(""), 1e300, -1e12}) {
    const auto r = offset_ns_from_s(bad);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ErrorKind::kUsage);
    EXPECT_TRUE(contains(r.error().message, "--power-log-offset-s"));
  }
}

TEST(PowerLogAlign, OffsetShiftsAndEnergyFollows) {
  const auto log = read_power_log(fixture("canonical.csv"));
  ASSERT_TRUE(log.ok()) << log.error().message;
  // The log starts 10 s into tokscope's timeline.
  const auto aligned = align_power_log(*log, 10 * kNsPerS, "offset given by --power-log-offset-s");
  ASSERT_TRUE(aligned.ok()) << aligned.error().message;
  EXPECT_EQ(aligned->t_ns.front(), 10 * kNsPerS);
  EXPECT_EQ(aligned->t_ns.back(), 12 * kNsPerS);
  // 2 W over [10.5, 11.75] s = 2000 mW × 1.25 s = 2500 mJ.
  const core::WindowEnergy e =
      core::energy_from_power(aligned->t_ns, aligned->power_mw, core::PowerUnit::kMilliwatt,
                              10'500'000'000, 11'750'000'000);
  ASSERT_EQ(e.status, core::EnergyStatus::kComplete) << e.reason;
  EXPECT_NEAR(e.energy_mj, 2500.0, 1e-9);

  PowerLog late;
  late.source = "late.csv";
  late.t_log_ns = {std::numeric_limits<std::int64_t>::max() - 5};
  late.power_mw = {1};
  const auto overflow = align_power_log(late, 10, "test");
  ASSERT_FALSE(overflow.ok());
  EXPECT_TRUE(contains(overflow.error().message, "late.csv: log time"));
}

// ---- marker pulse ---------------------------------------------------------------------------

// Deterministic Gaussian noise (own Box–Muller: std distributions differ between libraries).
class Noise {
 public:
  explicit Noise(std::uint64_t seed) : gen_(seed) {}
  double operator()(double sd) {
    const double u1 = (static_cast<double>(gen_() >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
    const double u2 = static_cast<double>(gen_() >> 11) * 0x1.0p-53;
    return sd * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }

 private:
  std::mt19937_64 gen_;
};

// The meter's clock: Unix time, 2024-05-01T12:00:00Z at its first row.
constexpr std::int64_t kLogStart = 1'714'564'800LL * kNsPerS;

struct Series {
  std::vector<std::int64_t> t;
  std::vector<double> p;
};

// A meter on an epoch clock sampling every period_s for end_s seconds: idle_mw plus noise, and
// add_mw more on every [from_s, to_s) in `blocks`.
struct Block {
  double from_s, to_s, add_mw;
};
Series synth(double period_s, double end_s, double idle_mw, double sd_mw,
             const std::vector<Block>& blocks, std::uint64_t seed) {
  Noise noise(seed);
  Series s;
  for (int i = 0; static_cast<double>(i) * period_s < end_s; ++i) {
    const double x = static_cast<double>(i) * period_s;
    double p = idle_mw + noise(sd_mw);
    for (const Block& b : blocks) {
      if (x >= b.from_s && x < b.to_s) p += b.add_mw;
    }
    s.t.push_back(kLogStart + std::llround(x * 1e9));
    s.p.push_back(p);
  }
  return s;
}

// tokscope started the busy pulse at 50 s on its timeline.
const MarkerPulse kPulse{50 * kNsPerS, 2 * kNsPerS, 3 * kNsPerS, 3 * kNsPerS};

TEST(MarkerPulse, NoiselessPulseBetweenSamples) {
  // 10 Hz; the pulse rises at 12.34 s of the log, 1500 mW above a 3000 mW idle.
  const Series s = synth(0.1, 30, 3000, 0, {{12.34, 14.34, 1500}}, 1);
  const auto m = find_marker_pulse(s.t, s.p, kPulse);
  ASSERT_TRUE(m.ok()) << m.error().message;
  const std::int64_t true_edge = kLogStart + 12'340'000'000;
  // Rows 12.4 … 14.3 are busy: the edge lies in (12.3, 12.4]; the middle is 12.35 ± 0.05 s.
  EXPECT_EQ(m->edge_log_ns, kLogStart + 12'350'000'000);
  EXPECT_EQ(m->uncertainty_ns, 50'000'000);
  EXPECT_LE(std::llabs(m->edge_log_ns - true_edge), m->uncertainty_ns);
  EXPECT_EQ(m->offset_ns, kPulse.start_ns - m->edge_log_ns);
  EXPECT_NEAR(m->pulse_mw, 4500.0, 1e-6);
  EXPECT_NEAR(m->idle_mw, 3000.0, 1e-6);
  EXPECT_EQ(m->pulse_samples, 20u);
  EXPECT_EQ(m->noise_sd_mw, 1e-3);  // the floor
  EXPECT_GT(m->snr, 1e6);
}

TEST(MarkerPulse, NoisyPulseFoundWithinOneSamplePeriod) {
  // 10 Hz meter, 3000 mW idle, noise sd 150 mW; pulse +1000 mW (6.7 sd) at 20.37 s of the log;
  // then, 4 s after the pulse, a 40 s "benchmark" at +900 mW with 1 s idle gaps every 8 s.
  const double edge_s = 20.37;
  std::vector<Block> blocks{{edge_s, edge_s + 2, 1000}};
  for (double start = edge_s + 6; start < edge_s + 46; start += 8) {
    blocks.push_back({start, start + 7, 900});
  }
  const std::int64_t true_offset = kPulse.start_ns - (kLogStart + std::llround(edge_s * 1e9));
  for (std::uint64_t seed = 1; seed <= 25; ++seed) {
    const Series s = synth(0.1, 80, 3000, 150, blocks, seed);
    const auto m = find_marker_pulse(s.t, s.p, kPulse);
    ASSERT_TRUE(m.ok()) << "seed " << seed << ": " << m.error().message;
    EXPECT_LE(std::llabs(m->offset_ns - true_offset), 100'000'000)
        << "seed " << seed << ": off by " << (m->offset_ns - true_offset) << " ns";
    EXPECT_GT(m->snr, 3.0);
    EXPECT_NEAR(m->noise_sd_mw, 150.0, 40.0);
    EXPECT_LT(m->runner_up_ratio, 0.8);
  }
}

TEST(MarkerPulse, SlowMeterAtOneHertz) {
  // 1 Hz, 5 s pulse so that it holds 3+ rows; found within one period (1 s).
  const MarkerPulse pulse{50 * kNsPerS, 5 * kNsPerS, 5 * kNsPerS, 5 * kNsPerS};
  const Series s = synth(1.0, 60, 5000, 30, {{17.6, 22.6, 2000}}, 7);
  const auto m = find_marker_pulse(s.t, s.p, pulse);
  ASSERT_TRUE(m.ok()) << m.error().message;
  const std::int64_t true_offset = pulse.start_ns - (kLogStart + 17'600'000'000);
  EXPECT_LE(std::llabs(m->offset_ns - true_offset), kNsPerS);
  EXPECT_LE(m->uncertainty_ns, kNsPerS / 2);
}

TEST(MarkerPulse, NoPulseIsAClearError) {
  const Series s = synth(0.1, 60, 3000, 150, {}, 3);
  const auto m = find_marker_pulse(s.t, s.p, kPulse);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, ErrorKind::kInput);
  EXPECT_TRUE(contains(m.error().message, "no marker pulse stands out")) << m.error().message;
  EXPECT_TRUE(contains(m.error().message, "--power-log-offset-s")) << m.error().message;
}

TEST(MarkerPulse, PulseBelowThreeNoiseSdIsRejected) {
  // +300 mW against noise sd 150 mW: 2 sd, below the 3 sd a pulse must reach.
  const Series s = synth(0.1, 60, 3000, 150, {{20, 22, 300}}, 4);
  const auto m = find_marker_pulse(s.t, s.p, kPulse);
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(contains(m.error().message, "snr")) << m.error().message;
}

TEST(MarkerPulse, TwoLookAlikePulsesAreAmbiguous) {
  const Series s = synth(0.1, 60, 3000, 50, {{10, 12, 1000}, {40, 42, 1000}}, 5);
  const auto m = find_marker_pulse(s.t, s.p, kPulse);
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(contains(m.error().message, "two places look like the marker pulse"))
      << m.error().message;
}

TEST(MarkerPulse, TooFewRowsForThePulse) {
  // One row every 1 s cannot put 3 rows inside a 2 s pulse.
  const Series s = synth(1.0, 60, 3000, 50, {{20, 22, 1000}}, 6);
  const auto m = find_marker_pulse(s.t, s.p, kPulse);
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(contains(m.error().message, "one every 1.000 s")) << m.error().message;
  EXPECT_TRUE(contains(m.error().message, "sample faster")) << m.error().message;
}

TEST(MarkerPulse, FoundOffsetAlignsTheLogForEnergy) {
  // Pulse found, log shifted by its offset: the busy part lands on [50, 52] s of tokscope's
  // timeline, so the energy over it is (3000 + 1500) mW × 2 s = 9000 mJ within one row's
  // worth of edge error (a 0.1 s row of 1500 mW extra: 150 mJ).
  const Series s = synth(0.1, 30, 3000, 0, {{8.0, 10.0, 1500}}, 1);
  const auto m = find_marker_pulse(s.t, s.p, kPulse);
  ASSERT_TRUE(m.ok()) << m.error().message;
  PowerLog log;
  log.t_log_ns = s.t;
  log.power_mw = s.p;
  const auto aligned = align_power_log(log, m->offset_ns, "marker pulse");
  ASSERT_TRUE(aligned.ok());
  const core::WindowEnergy e = core::energy_from_power(
      aligned->t_ns, aligned->power_mw, core::PowerUnit::kMilliwatt, 50 * kNsPerS, 52 * kNsPerS);
  ASSERT_EQ(e.status, core::EnergyStatus::kComplete) << e.reason;
  EXPECT_NEAR(e.energy_mj, 9000.0, 150.0);
}

TEST(MarkerPulse, InputContract) {
  const std::vector<std::int64_t> t{0, 1, 1};
  const std::vector<double> p{1, 1, 1};
  EXPECT_EQ(find_marker_pulse(t, p, kPulse).error().kind, ErrorKind::kInternal);
  const std::vector<double> short_p{1};
  EXPECT_EQ(find_marker_pulse(t, short_p, kPulse).error().kind, ErrorKind::kInternal);
  MarkerPulse no_idle = kPulse;
  no_idle.idle_before_ns = no_idle.idle_after_ns = 0;
  const std::vector<std::int64_t> ok_t{0, 1, 2};
  EXPECT_EQ(find_marker_pulse(ok_t, p, no_idle).error().kind, ErrorKind::kInternal);
}

}  // namespace
}  // namespace tokscope::platform
