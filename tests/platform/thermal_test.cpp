#include "platform/sysfs/thermal.hpp"

#include <gtest/gtest.h>

#include "common/sysfs_fixture.hpp"

namespace tokscope::platform {
namespace {

namespace fs = std::filesystem;
using tokscope::testing::copy_sysfs_fixture;
using tokscope::testing::fresh_test_dir;
using tokscope::testing::has_line;
using tokscope::testing::joined;
using tokscope::testing::sysfs_fixture;
using tokscope::testing::write_file;

TEST(ParseMillidegrees, SignedIntegers) {
  EXPECT_DOUBLE_EQ(*parse_millidegrees_c("45230\n"), 45.23);
  EXPECT_DOUBLE_EQ(*parse_millidegrees_c("-5000"), -5.0);
  EXPECT_DOUBLE_EQ(*parse_millidegrees_c("0"), 0.0);
  for (const char* bad : {"", "abc", "45.2", "45230 mC"}) {
    EXPECT_FALSE(parse_millidegrees_c(bad).has_value()) << bad;
  }
}

TEST(LowestPassiveTrip, SkipsOtherTypesAndUnsetTrips) {
  EXPECT_EQ(
      lowest_passive_trip_c({{0, "passive", 85.0}, {1, "passive", 75.0}, {2, "critical", 5.0}}),
      75.0);
  EXPECT_FALSE(lowest_passive_trip_c({{0, "critical", 115.0}}).has_value());
  EXPECT_FALSE(lowest_passive_trip_c({{0, "passive", 0.0}, {1, "passive", std::nullopt}}));
  EXPECT_FALSE(lowest_passive_trip_c({}).has_value());
}

TEST(ReadThermal, Rk3588SevenZones) {
  const auto state = read_thermal(sysfs_fixture("rk3588"));
  EXPECT_TRUE(state.unavailable.empty()) << joined(state.unavailable);
  ASSERT_EQ(state.zones.size(), 7U) << "cooling_deviceN entries are not zones";
  const std::vector<std::string> types = {
      "soc-thermal",    "bigcore0-thermal", "bigcore1-thermal", "littlecore-thermal",
      "center-thermal", "gpu-thermal",      "npu-thermal"};
  for (std::size_t i = 0; i < types.size(); ++i) {
    EXPECT_EQ(state.zones[i].zone, static_cast<int>(i));
    EXPECT_EQ(state.zones[i].type, types[i]);
    ASSERT_TRUE(state.zones[i].temp_c.has_value());
    EXPECT_GT(*state.zones[i].temp_c, 40.0);
    ASSERT_FALSE(state.zones[i].trips.empty());
    EXPECT_EQ(state.zones[i].trips.back().type, "critical");
    EXPECT_EQ(state.zones[i].trips.back().temp_c, 115.0);
  }
  const auto& soc = state.zones[0];
  EXPECT_DOUBLE_EQ(*soc.temp_c, 45.23);
  EXPECT_EQ(soc.policy, "power_allocator");
  ASSERT_EQ(soc.trips.size(), 3U);
  EXPECT_EQ(soc.trips[0].type, "passive");
  EXPECT_EQ(soc.trips[0].temp_c, 75.0);
  EXPECT_EQ(soc.trips[1].temp_c, 85.0);
  EXPECT_EQ(lowest_passive_trip_c(soc.trips), 75.0);
  EXPECT_FALSE(lowest_passive_trip_c(state.zones[1].trips).has_value());
}

TEST(ReadThermal, X86AcpitzAndPackage) {
  const auto state = read_thermal(sysfs_fixture("x86-laptop"));
  EXPECT_TRUE(state.unavailable.empty()) << joined(state.unavailable);
  ASSERT_EQ(state.zones.size(), 2U);
  EXPECT_EQ(state.zones[0].type, "acpitz");
  EXPECT_DOUBLE_EQ(*state.zones[0].temp_c, 27.8);
  EXPECT_EQ(lowest_passive_trip_c(state.zones[0].trips), 97.0);
  EXPECT_EQ(state.zones[1].type, "x86_pkg_temp");
  EXPECT_DOUBLE_EQ(*state.zones[1].temp_c, 52.0);
  EXPECT_FALSE(lowest_passive_trip_c(state.zones[1].trips).has_value())
      << "x86_pkg_temp's unset passive trips (0) are no throttling point";
}

TEST(ReadThermal, EmptyTreeAndEmptyClass) {
  auto state = read_thermal(fresh_test_dir());
  EXPECT_TRUE(state.zones.empty());
  EXPECT_TRUE(has_line(state.unavailable, {"unavailable: thermal: "}));

  const auto root = fresh_test_dir();
  fs::create_directories(root / "sys/class/thermal");  // as on this VM
  state = read_thermal(root);
  EXPECT_TRUE(state.zones.empty());
  EXPECT_TRUE(has_line(state.unavailable, {"no thermal_zoneN"}));
}

TEST(ReadThermal, MalformedTempAndTrip) {
  const auto root = copy_sysfs_fixture("rk3588");
  const auto zone = root / "sys/class/thermal/thermal_zone0";
  write_file(zone / "temp", "abc\n");
  write_file(zone / "trip_point_1_temp", "hot\n");
  fs::remove(root / "sys/class/thermal/thermal_zone3/type");
  const auto state = read_thermal(root);
  ASSERT_EQ(state.zones.size(), 7U);
  EXPECT_FALSE(state.zones[0].temp_c.has_value());
  EXPECT_EQ(state.zones[0].type, "soc-thermal");
  EXPECT_FALSE(state.zones[0].trips[1].temp_c.has_value());
  EXPECT_EQ(lowest_passive_trip_c(state.zones[0].trips), 75.0);
  EXPECT_EQ(state.zones[3].type, "");
  EXPECT_TRUE(state.zones[3].temp_c.has_value());
  const auto& u = state.unavailable;
  EXPECT_TRUE(has_line(u, {(zone / "temp").string(), "malformed", "millidegrees", "\"abc\""}))
      << joined(u);
  EXPECT_TRUE(has_line(u, {(zone / "trip_point_1_temp").string(), "malformed"}));
  EXPECT_TRUE(has_line(u, {"thermal_zone3/type", "No such file"}));
}

}  // namespace
}  // namespace tokscope::platform
