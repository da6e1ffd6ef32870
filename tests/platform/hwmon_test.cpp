#include "platform/sysfs/hwmon.hpp"

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

TEST(ParseHwmonFileName, KnownValueFilesOnly) {
  const auto temp = parse_hwmon_file_name("temp1_input");
  ASSERT_TRUE(temp.has_value());
  EXPECT_EQ(temp->type, "temp");
  EXPECT_EQ(temp->index, 1);
  EXPECT_EQ(temp->attribute, "input");
  const auto avg = parse_hwmon_file_name("power2_average");
  ASSERT_TRUE(avg.has_value());
  EXPECT_EQ(avg->type, "power");
  EXPECT_EQ(avg->attribute, "average");
  EXPECT_EQ(parse_hwmon_file_name("in0_input")->type, "in");
  EXPECT_EQ(parse_hwmon_file_name("in0_input")->index, 0);
  EXPECT_EQ(parse_hwmon_file_name("curr1_input")->type, "curr");
  EXPECT_EQ(parse_hwmon_file_name("energy1_input")->type, "energy");
  for (const char* other :
       {"name", "temp1_label", "temp1_max", "temp1_crit_alarm", "power1_average_interval",
        "temp_input", "tempX_input", "temp1_average", "fan1_input", "intrusion0_alarm", "uevent"}) {
    EXPECT_FALSE(parse_hwmon_file_name(other).has_value()) << other;
  }
}

TEST(HwmonUnit, PerType) {
  EXPECT_EQ(hwmon_unit("temp"), "c");
  EXPECT_EQ(hwmon_unit("power"), "uw");
  EXPECT_EQ(hwmon_unit("curr"), "ma");
  EXPECT_EQ(hwmon_unit("in"), "mv");
  EXPECT_EQ(hwmon_unit("energy"), "uj");
  EXPECT_EQ(hwmon_unit("fan"), "");
}

TEST(ReadHwmon, X86CoretempAcpitzBattery) {
  const auto root = sysfs_fixture("x86-laptop");
  ASSERT_TRUE(fs::is_symlink(root / "sys/class/hwmon/hwmon2"));
  const auto state = read_hwmon(root);
  EXPECT_TRUE(state.unavailable.empty()) << joined(state.unavailable);
  ASSERT_EQ(state.devices.size(), 3U);
  EXPECT_EQ(state.devices[0].name, "acpitz");
  ASSERT_EQ(state.devices[0].sensors.size(), 1U);
  EXPECT_DOUBLE_EQ(*state.devices[0].sensors[0].value, 27.8);
  EXPECT_EQ(state.devices[0].sensors[0].label, "");

  const auto& bat = state.devices[1];
  EXPECT_EQ(bat.name, "BAT0");
  ASSERT_EQ(bat.sensors.size(), 2U);
  EXPECT_EQ(bat.sensors[0].sensor, "curr1");
  EXPECT_EQ(bat.sensors[0].unit, "ma");
  EXPECT_EQ(bat.sensors[0].value, 1032.0);
  EXPECT_EQ(bat.sensors[1].sensor, "in0");
  EXPECT_EQ(bat.sensors[1].unit, "mv");
  EXPECT_EQ(bat.sensors[1].value, 12473.0);

  const auto& core = state.devices[2];
  EXPECT_EQ(core.hwmon, 2);
  EXPECT_EQ(core.name, "coretemp");
  ASSERT_EQ(core.sensors.size(), 5U) << "only *_input files, not _max/_crit";
  EXPECT_EQ(core.sensors[0].sensor, "temp1");
  EXPECT_EQ(core.sensors[0].label, "Package id 0");
  EXPECT_DOUBLE_EQ(*core.sensors[0].value, 52.0);
  EXPECT_EQ(core.sensors[0].channel_suffix(), "temp1_c");
  EXPECT_EQ(core.sensors[1].label, "Core 0");
  EXPECT_EQ(core.sensors[4].label, "Core 3");
}

TEST(ReadHwmon, PowerMonitorUnitsAndOldDeviceLayout) {
  const auto root = fresh_test_dir();
  const auto ina = root / "sys/class/hwmon/hwmon0";
  write_file(ina / "name", "ina226\n");
  write_file(ina / "in1_input", "5104\n");
  write_file(ina / "curr1_input", "1530\n");
  write_file(ina / "power1_input", "7809000\n");
  write_file(ina / "power1_average", "7650000\n");
  write_file(ina / "energy1_input", "123456789\n");
  write_file(ina / "power1_label", "vbus\n");
  // hwmon1 keeps name and sensors in device/, as some older drivers do.
  write_file(root / "sys/class/hwmon/hwmon1/device/name", "oldchip\n");
  write_file(root / "sys/class/hwmon/hwmon1/device/temp1_input", "-5000\n");

  const auto state = read_hwmon(root);
  EXPECT_TRUE(state.unavailable.empty()) << joined(state.unavailable);
  ASSERT_EQ(state.devices.size(), 2U);
  const auto& s = state.devices[0].sensors;
  ASSERT_EQ(s.size(), 5U);
  // sorted by type, index, attribute: curr1, energy1, in1, power1 average, power1 input
  EXPECT_EQ(s[0].channel_suffix(), "curr1_ma");
  EXPECT_EQ(s[1].channel_suffix(), "energy1_uj");
  EXPECT_EQ(s[1].value, 123456789.0);
  EXPECT_EQ(s[2].channel_suffix(), "in1_mv");
  EXPECT_EQ(s[3].channel_suffix(), "power1_average_uw");
  EXPECT_EQ(s[3].value, 7650000.0);
  EXPECT_EQ(s[3].label, "vbus");
  EXPECT_EQ(s[4].channel_suffix(), "power1_uw");
  EXPECT_EQ(s[4].value, 7809000.0);

  EXPECT_EQ(state.devices[1].name, "oldchip");
  EXPECT_EQ(state.devices[1].dir, root / "sys/class/hwmon/hwmon1/device");
  ASSERT_EQ(state.devices[1].sensors.size(), 1U);
  EXPECT_DOUBLE_EQ(*state.devices[1].sensors[0].value, -5.0);
}

TEST(ReadHwmon, Rk3588AndEmptyTreeHaveNone) {
  for (const auto& root : {sysfs_fixture("rk3588"), fresh_test_dir()}) {
    const auto state = read_hwmon(root);
    EXPECT_TRUE(state.devices.empty());
    EXPECT_TRUE(has_line(state.unavailable, {"unavailable: hwmon: "})) << joined(state.unavailable);
  }
}

TEST(ReadHwmon, MalformedValueAndMissingName) {
  const auto root = copy_sysfs_fixture("x86-laptop");
  const auto dir = root / "sys/class/hwmon/hwmon2";
  write_file(dir / "temp2_input", "N/A\n");
  fs::remove(root / "sys/class/hwmon/hwmon0/name");
  const auto state = read_hwmon(root);
  ASSERT_EQ(state.devices.size(), 3U);
  EXPECT_EQ(state.devices[0].name, "");
  const auto& core = state.devices[2];
  ASSERT_EQ(core.sensors.size(), 5U);
  EXPECT_FALSE(core.sensors[1].value.has_value());
  EXPECT_EQ(core.sensors[1].label, "Core 0");
  EXPECT_TRUE(core.sensors[2].value.has_value());
  EXPECT_TRUE(has_line(state.unavailable,
                       {(dir / "temp2_input").string(), "malformed", "millidegrees", "\"N/A\""}))
      << joined(state.unavailable);
  EXPECT_TRUE(has_line(state.unavailable, {"hwmon0/name", "No such file"}));
}

}  // namespace
}  // namespace tokscope::platform
