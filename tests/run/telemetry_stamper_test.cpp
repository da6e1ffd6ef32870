#include "run/telemetry_stamper.hpp"

#include <gtest/gtest.h>

#include "run/record_check.hpp"

namespace tokscope::run {
namespace {

using nlohmann::json;
using platform::ChannelInfo;
using platform::ChannelKind;

// A zone whose temperature the test sets before each row.
class SettableSource final : public platform::ChannelSource {
 public:
  SettableSource()
      : channels_{{"thermal.soc-thermal.temp_c", ChannelKind::kTemperature, 85.0, {}},
                  {"devfreq.dmc.cur_hz", ChannelKind::kFrequency, {}, {}}} {}
  [[nodiscard]] const std::vector<ChannelInfo>& channels() const override { return channels_; }
  void read(std::span<double> out) noexcept override {
    out[0] = temp_c;
    out[1] = freq_hz;
  }
  double temp_c = 50;
  double freq_hz = 2112e6;

 private:
  std::vector<ChannelInfo> channels_;
};

struct Fixture {
  platform::ManualClock clock;
  SettableSource* source = nullptr;
  std::unique_ptr<platform::Sampler> sampler;
  Fixture() {
    auto s = std::make_unique<SettableSource>();
    source = s.get();
    std::vector<std::unique_ptr<platform::ChannelSource>> sources;
    sources.push_back(std::move(s));
    sampler =
        std::make_unique<platform::Sampler>(std::move(sources), clock, platform::SamplerOptions{});
  }
  void row_at(std::int64_t t_ns, double temp_c) {
    clock.set_ns(t_ns);
    source->temp_c = temp_c;
    sampler->sample_now();
  }
};

json request(std::int64_t t_submit, std::int64_t t_done) {
  return {{"type", "request"}, {"t_submit_ns", t_submit}, {"t_done_ns", t_done}};
}

TEST(TelemetryStamper, StampsTheRowsNearestSubmitAndDone) {
  Fixture f;
  f.row_at(1000, 40);
  f.row_at(2000, 41);
  f.row_at(3000, 42);
  f.row_at(4000, 43);
  TelemetryStamper stamper(*f.sampler);
  json r = request(1900, 3900);
  stamper.stamp(r);
  const json& t = r.at("telemetry");
  EXPECT_EQ(t.at("submit").at("thermal.soc-thermal.temp_c"), 41.0);
  EXPECT_EQ(t.at("done").at("thermal.soc-thermal.temp_c"), 43.0);
  EXPECT_EQ(t.at("done").at("devfreq.dmc.cur_hz"), 2112e6);
  EXPECT_EQ(t.at("rows"), 2);  // rows at 2000 and 3000 fall inside [1900, 3900]
  EXPECT_FALSE(t.at("throttled").get<bool>());
}

TEST(TelemetryStamper, ARowOverThePassiveTripInsideTheRequestMarksItThrottled) {
  Fixture f;
  f.row_at(1000, 60);
  f.row_at(2000, 86);  // over 85 °C, mid-request
  f.row_at(3000, 60);
  TelemetryStamper stamper(*f.sampler);
  json inside = request(1000, 3000);
  stamper.stamp(inside);
  EXPECT_TRUE(inside["telemetry"]["throttled"].get<bool>());
  json before = request(100, 900);
  stamper.stamp(before);
  EXPECT_FALSE(before["telemetry"]["throttled"].get<bool>());
}

TEST(TelemetryStamper, NoRowsYetSaysSoAndAFailedRequestGetsTheSubmitStamp) {
  Fixture f;
  TelemetryStamper stamper(*f.sampler);
  json r = request(1000, 2000);
  stamper.stamp(r);
  EXPECT_EQ(r["telemetry"]["unavailable"], "no telemetry sample yet");
  f.row_at(1000, 40);
  json failed = request(1000, 0);
  stamper.stamp(failed);
  EXPECT_TRUE(failed["telemetry"].contains("submit"));
  EXPECT_FALSE(failed["telemetry"].contains("done"));
}

TEST(TelemetryStamper, DrainReturnsEachRowOnceAsACheckableJournalLine) {
  Fixture f;
  TelemetryStamper stamper(*f.sampler);
  EXPECT_FALSE(stamper.drain().has_value());
  f.row_at(1000, 40);
  f.source->freq_hz = platform::kNoReading;  // unreadable → null
  f.row_at(2000, 41);
  auto line = stamper.drain();
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(check_telemetry_record(*line), "");
  EXPECT_EQ(line->at("t_ns"), json::array({1000, 2000}));
  EXPECT_EQ(line->at("values")[1][0], 41.0);
  EXPECT_TRUE(line->at("values")[1][1].is_null());
  EXPECT_FALSE(stamper.drain().has_value());
  f.row_at(3000, 42);
  auto next = stamper.drain();
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->at("t_ns"), json::array({3000}));
}

TEST(TelemetryStamper, RowsLostToTheRingAreCounted) {
  platform::ManualClock clock;
  std::vector<std::unique_ptr<platform::ChannelSource>> sources;
  sources.push_back(std::make_unique<SettableSource>());
  platform::Sampler sampler(std::move(sources), clock, {.period_ms = 100, .capacity_rows = 4});
  TelemetryStamper stamper(sampler);
  for (int i = 1; i <= 10; ++i) {
    clock.set_ns(i * 100);
    sampler.sample_now();
  }
  auto line = stamper.drain();
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->at("lost_rows"), 6);
  EXPECT_EQ(line->at("t_ns").size(), 4U);
}

TEST(TelemetryChannelsJson, NamesKindsAndTripPoints) {
  Fixture f;
  const json j = telemetry_channels_json(*f.sampler);
  EXPECT_EQ(j.at("period_ms"), 100.0);
  ASSERT_EQ(j.at("channels").size(), 2U);
  EXPECT_EQ(j["channels"][0]["kind"], "temperature");
  EXPECT_EQ(j["channels"][0]["passive_trip_c"], 85.0);
  EXPECT_FALSE(j["channels"][1].contains("passive_trip_c"));
}

TEST(TelemetryRecordCheck, RejectsMismatchedLengthsAndWrongTypes) {
  EXPECT_NE(check_telemetry_record({{"t_ns", {1, 2}}, {"values", {{1}}}, {"throttled", {false}}}),
            "");
  EXPECT_NE(check_telemetry_record({{"t_ns", {1}}, {"values", {{"hot"}}}, {"throttled", {false}}}),
            "");
  EXPECT_NE(check_telemetry_record({{"t_ns", {1}}, {"values", {{1}}}, {"throttled", {1}}}), "");
  EXPECT_EQ(check_telemetry_record({{"t_ns", {1}}, {"values", {{nullptr}}}, {"throttled", {true}}}),
            "");
}

}  // namespace
}  // namespace tokscope::run
