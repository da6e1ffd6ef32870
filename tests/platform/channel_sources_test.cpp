#include "platform/sysfs/channel_sources.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

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

using Sources = std::vector<std::unique_ptr<ChannelSource>>;

// Every channel's info and its value from one read of every source.
struct Snapshot {
  std::map<std::string, ChannelInfo> info;
  std::map<std::string, double> value;
};

Snapshot read_all(const Sources& sources) {
  Snapshot snap;
  for (const auto& source : sources) {
    const auto& channels = source->channels();
    std::vector<double> values(channels.size(), -12345.0);
    source->read(values);
    for (std::size_t i = 0; i < channels.size(); ++i) {
      EXPECT_EQ(snap.info.count(channels[i].name), 0U) << "duplicate " << channels[i].name;
      snap.info[channels[i].name] = channels[i];
      snap.value[channels[i].name] = values[i];
    }
  }
  return snap;
}

std::vector<std::string> names(const Snapshot& snap) {
  std::vector<std::string> out;
  for (const auto& [name, info] : snap.info) out.push_back(name);
  return out;
}

TEST(ChannelNamePart, KeepsSysfsNamesAndReplacesTheRest) {
  EXPECT_EQ(channel_name_part("soc-thermal"), "soc-thermal");
  EXPECT_EQ(channel_name_part("fdab0000.npu"), "fdab0000.npu");
  EXPECT_EQ(channel_name_part("intel-rapl:0:0"), "intel-rapl:0:0");
  EXPECT_EQ(channel_name_part("x86_pkg_temp"), "x86_pkg_temp");
  EXPECT_EQ(channel_name_part("Package id 0/x"), "Package_id_0_x");
  EXPECT_EQ(channel_name_part(""), "unnamed");
}

TEST(ChannelSources, Rk3588) {
  std::vector<std::string> unavailable;
  const auto sources = open_channel_sources(sysfs_fixture("rk3588"), unavailable);
  const auto snap = read_all(sources);
  EXPECT_EQ(names(snap),
            (std::vector<std::string>{
                "cpufreq.policy0.cur_khz", "cpufreq.policy4.cur_khz", "cpufreq.policy6.cur_khz",
                "devfreq.dmc.cur_hz", "devfreq.fb000000.gpu.cur_hz", "devfreq.fdab0000.npu.cur_hz",
                "rknpu.core0.load_pct", "rknpu.core1.load_pct", "rknpu.core2.load_pct",
                "thermal.bigcore0-thermal.temp_c", "thermal.bigcore1-thermal.temp_c",
                "thermal.center-thermal.temp_c", "thermal.gpu-thermal.temp_c",
                "thermal.littlecore-thermal.temp_c", "thermal.npu-thermal.temp_c",
                "thermal.soc-thermal.temp_c"}));
  // No hwmon and no RAPL on this board: said once each.
  EXPECT_EQ(unavailable.size(), 2U) << joined(unavailable);
  EXPECT_TRUE(has_line(unavailable, {"unavailable: hwmon"}));
  EXPECT_TRUE(has_line(unavailable, {"unavailable: RAPL"}));

  const auto& soc = snap.info.at("thermal.soc-thermal.temp_c");
  EXPECT_EQ(soc.kind, ChannelKind::kTemperature);
  EXPECT_EQ(soc.passive_trip_c, 75.0);
  EXPECT_FALSE(soc.wrap_at.has_value());
  EXPECT_EQ(snap.value.at("thermal.soc-thermal.temp_c"), 45.23)
      << "exactly as the inventory reads it";
  EXPECT_FALSE(snap.info.at("thermal.npu-thermal.temp_c").passive_trip_c.has_value());
  EXPECT_EQ(snap.info.at("cpufreq.policy4.cur_khz").kind, ChannelKind::kFrequency);
  EXPECT_EQ(snap.value.at("cpufreq.policy0.cur_khz"), 1416000.0);
  EXPECT_EQ(snap.value.at("cpufreq.policy6.cur_khz"), 2208000.0);
  EXPECT_EQ(snap.value.at("devfreq.dmc.cur_hz"), 1560000000.0);
  EXPECT_EQ(snap.value.at("devfreq.fdab0000.npu.cur_hz"), 1000000000.0);
  EXPECT_EQ(snap.info.at("rknpu.core0.load_pct").kind, ChannelKind::kLoad);
  EXPECT_EQ(snap.value.at("rknpu.core0.load_pct"), 12.0);
  EXPECT_EQ(snap.value.at("rknpu.core2.load_pct"), 0.0);
}

TEST(ChannelSources, X86Laptop) {
  std::vector<std::string> unavailable;
  const auto sources = open_channel_sources(sysfs_fixture("x86-laptop"), unavailable);
  const auto snap = read_all(sources);
  EXPECT_EQ(names(snap),
            (std::vector<std::string>{
                "cpufreq.policy0.cur_khz", "cpufreq.policy1.cur_khz", "cpufreq.policy2.cur_khz",
                "cpufreq.policy3.cur_khz", "hwmon.acpitz.temp1_c", "hwmon.coretemp.temp1_c",
                "hwmon.coretemp.temp2_c", "hwmon.coretemp.temp3_c", "hwmon.coretemp.temp4_c",
                "hwmon.coretemp.temp5_c", "rapl.core.energy_uj", "rapl.package-0.energy_uj",
                "rapl.uncore.energy_uj", "thermal.acpitz.temp_c", "thermal.x86_pkg_temp.temp_c"}))
      << "BAT0 has only curr/in sensors: inventory facts, not channels";
  EXPECT_EQ(unavailable.size(), 2U) << joined(unavailable);
  EXPECT_TRUE(has_line(unavailable, {"unavailable: devfreq"}));
  EXPECT_TRUE(has_line(unavailable, {"unavailable: rknpu load"}));

  const auto& pkg = snap.info.at("rapl.package-0.energy_uj");
  EXPECT_EQ(pkg.kind, ChannelKind::kEnergy);
  EXPECT_EQ(pkg.wrap_at, 262143328850.0);
  EXPECT_EQ(snap.value.at("rapl.package-0.energy_uj"), 262143000000.0);
  EXPECT_EQ(snap.info.at("hwmon.coretemp.temp1_c").kind, ChannelKind::kTemperature);
  EXPECT_DOUBLE_EQ(snap.value.at("hwmon.coretemp.temp1_c"), 52.0);
  EXPECT_FALSE(snap.info.at("thermal.x86_pkg_temp.temp_c").passive_trip_c.has_value());
  EXPECT_EQ(snap.info.at("thermal.acpitz.temp_c").passive_trip_c, 97.0);
  EXPECT_EQ(snap.value.at("cpufreq.policy3.cur_khz"), 4087654.0);
}

TEST(ChannelSources, ReadSeesChangesWrapsAndVanishedFiles) {
  const auto root = copy_sysfs_fixture("x86-laptop");
  std::vector<std::string> unavailable;
  const auto sources = open_channel_sources(root, unavailable);
  auto snap = read_all(sources);
  EXPECT_DOUBLE_EQ(snap.value.at("thermal.x86_pkg_temp.temp_c"), 52.0);
  snap = read_all(sources);
  EXPECT_DOUBLE_EQ(snap.value.at("thermal.x86_pkg_temp.temp_c"), 52.0) << "a second read too";

  write_file(root / "sys/class/thermal/thermal_zone1/temp", "78500\n");
  write_file(root / "sys/class/powercap/intel-rapl:0/energy_uj", "1234\n");  // wrapped
  write_file(root / "sys/devices/system/cpu/cpufreq/policy2/scaling_cur_freq", "4200000\n");
  write_file(root / "sys/class/hwmon/hwmon2/temp3_input", "abc\n");
  fs::remove(root / "sys/class/powercap/intel-rapl:0:0/energy_uj");
  snap = read_all(sources);
  EXPECT_DOUBLE_EQ(snap.value.at("thermal.x86_pkg_temp.temp_c"), 78.5);
  EXPECT_EQ(snap.value.at("rapl.package-0.energy_uj"), 1234.0);
  EXPECT_EQ(snap.info.at("rapl.package-0.energy_uj").wrap_at, 262143328850.0);
  EXPECT_EQ(snap.value.at("cpufreq.policy2.cur_khz"), 4200000.0);
  EXPECT_TRUE(std::isnan(snap.value.at("hwmon.coretemp.temp3_c"))) << "malformed → kNoReading";
  EXPECT_DOUBLE_EQ(snap.value.at("hwmon.coretemp.temp2_c"), 50.0) << "its neighbours still read";
  EXPECT_TRUE(std::isnan(snap.value.at("rapl.core.energy_uj"))) << "deleted → kNoReading";

  // A file that comes back under the same name is a new file: the open one stays gone.
  write_file(root / "sys/class/powercap/intel-rapl:0:0/energy_uj", "5\n");
  snap = read_all(sources);
  EXPECT_TRUE(std::isnan(snap.value.at("rapl.core.energy_uj")));
}

TEST(ChannelSources, RknpuLoadChangesAndVanishes) {
  const auto root = copy_sysfs_fixture("rk3588");
  std::vector<std::string> unavailable;
  const auto sources = open_channel_sources(root, unavailable);
  const auto load = root / "sys/kernel/debug/rknpu/load";
  write_file(load, "NPU load:  Core0: 50%, Core1:100%, Core2:  3%,\n");
  auto snap = read_all(sources);
  EXPECT_EQ(snap.value.at("rknpu.core0.load_pct"), 50.0);
  EXPECT_EQ(snap.value.at("rknpu.core1.load_pct"), 100.0);
  EXPECT_EQ(snap.value.at("rknpu.core2.load_pct"), 3.0);

  write_file(load, "NPU load:  Core0: 7%, Core1: 8%,\n");  // a core missing from the text
  snap = read_all(sources);
  EXPECT_EQ(snap.value.at("rknpu.core0.load_pct"), 7.0);
  EXPECT_TRUE(std::isnan(snap.value.at("rknpu.core2.load_pct")));

  write_file(load, "garbage\n");
  snap = read_all(sources);
  EXPECT_TRUE(std::isnan(snap.value.at("rknpu.core0.load_pct")));

  fs::remove(load);
  snap = read_all(sources);
  for (const char* name :
       {"rknpu.core0.load_pct", "rknpu.core1.load_pct", "rknpu.core2.load_pct"}) {
    EXPECT_TRUE(std::isnan(snap.value.at(name))) << name;
  }
  fs::remove(root / "sys/class/devfreq/dmc/cur_freq");  // through the class symlink
  snap = read_all(sources);
  EXPECT_TRUE(std::isnan(snap.value.at("devfreq.dmc.cur_hz")));
  EXPECT_EQ(snap.value.at("devfreq.fb000000.gpu.cur_hz"), 300000000.0);
}

TEST(ChannelSources, DuplicateNamesAreDisambiguated) {
  const auto root = copy_sysfs_fixture("x86-laptop");
  const auto zone = root / "sys/class/thermal/thermal_zone2";
  write_file(zone / "type", "acpitz\n");
  write_file(zone / "temp", "30000\n");
  const auto hwmon = root / "sys/class/hwmon/hwmon3";
  write_file(hwmon / "name", "coretemp\n");
  write_file(hwmon / "temp1_input", "40000\n");
  const auto mmio = root / "sys/class/powercap/intel-rapl-mmio:0";
  write_file(mmio / "name", "package-0\n");
  write_file(mmio / "energy_uj", "77\n");
  write_file(mmio / "max_energy_range_uj", "262143328850\n");
  std::vector<std::string> unavailable;
  const auto snap = read_all(open_channel_sources(root, unavailable));
  EXPECT_TRUE(unavailable.size() == 2U) << joined(unavailable);
  EXPECT_EQ(snap.info.count("thermal.acpitz.temp_c"), 0U);
  EXPECT_DOUBLE_EQ(snap.value.at("thermal.acpitz-zone0.temp_c"), 27.8);
  EXPECT_DOUBLE_EQ(snap.value.at("thermal.acpitz-zone2.temp_c"), 30.0);
  EXPECT_DOUBLE_EQ(snap.value.at("thermal.x86_pkg_temp.temp_c"), 52.0);
  EXPECT_DOUBLE_EQ(snap.value.at("hwmon.coretemp-hwmon2.temp1_c"), 52.0);
  EXPECT_DOUBLE_EQ(snap.value.at("hwmon.coretemp-hwmon3.temp1_c"), 40.0);
  EXPECT_DOUBLE_EQ(snap.value.at("hwmon.acpitz.temp1_c"), 27.8);
  EXPECT_EQ(snap.value.at("rapl.package-0-intel-rapl:0.energy_uj"), 262143000000.0);
  EXPECT_EQ(snap.value.at("rapl.package-0-intel-rapl-mmio:0.energy_uj"), 77.0);
  EXPECT_EQ(snap.value.at("rapl.core.energy_uj"), 98765432101.0);
}

TEST(ChannelSources, PowerAndEnergyHwmonChannels) {
  const auto root = fresh_test_dir();
  const auto ina = root / "sys/class/hwmon/hwmon0";
  write_file(ina / "name", "ina226\n");
  write_file(ina / "in1_input", "5104\n");
  write_file(ina / "curr1_input", "1530\n");
  write_file(ina / "power1_input", "7809000\n");
  write_file(ina / "power1_average", "7650000\n");
  write_file(ina / "energy1_input", "123456789\n");
  std::vector<std::string> unavailable;
  const auto sources = open_channel_sources(root, unavailable);
  ASSERT_EQ(sources.size(), 1U) << "one source per hwmon device";
  const auto snap = read_all(sources);
  EXPECT_EQ(names(snap),
            (std::vector<std::string>{"hwmon.ina226.energy1_uj", "hwmon.ina226.power1_average_uw",
                                      "hwmon.ina226.power1_uw"}));
  EXPECT_EQ(snap.info.at("hwmon.ina226.power1_uw").kind, ChannelKind::kPower);
  EXPECT_EQ(snap.value.at("hwmon.ina226.power1_uw"), 7809000.0);
  EXPECT_EQ(snap.info.at("hwmon.ina226.energy1_uj").kind, ChannelKind::kEnergy);
  EXPECT_FALSE(snap.info.at("hwmon.ina226.energy1_uj").wrap_at.has_value());
}

TEST(ChannelSources, UnreadableValuesAtOpenAreLeftOut) {
  const auto root = copy_sysfs_fixture("rk3588");
  write_file(root / "sys/class/thermal/thermal_zone2/temp", "abc\n");
  fs::remove(root / "sys/devices/system/cpu/cpufreq/policy4/scaling_cur_freq");
  fs::remove(root / "sys/devices/system/cpu/cpufreq/policy4/cpuinfo_cur_freq");
  std::vector<std::string> unavailable;
  const auto snap = read_all(open_channel_sources(root, unavailable));
  EXPECT_EQ(snap.info.count("thermal.bigcore1-thermal.temp_c"), 0U);
  EXPECT_EQ(snap.info.count("cpufreq.policy4.cur_khz"), 0U);
  EXPECT_EQ(snap.info.count("thermal.bigcore0-thermal.temp_c"), 1U);
  EXPECT_TRUE(has_line(unavailable, {"thermal_zone2/temp", "malformed"})) << joined(unavailable);
  EXPECT_TRUE(has_line(unavailable, {"policy4/scaling_cur_freq"}));
}

TEST(ChannelSources, ShortSpanIsNotOverrun) {
  std::vector<std::string> unavailable;
  const auto sources = open_channel_sources(sysfs_fixture("rk3588"), unavailable);
  for (const auto& source : sources) {
    std::vector<double> values(source->channels().size() + 1, -1.0);
    source->read(std::span<double>(values.data(), values.size() - 1));
    EXPECT_EQ(values.back(), -1.0);
    source->read(std::span<double>());
  }
}

TEST(ChannelSources, EmptyTreeHasNone) {
  std::vector<std::string> unavailable;
  const auto sources = open_channel_sources(fresh_test_dir(), unavailable);
  EXPECT_TRUE(sources.empty());
  for (const char* family : {"thermal", "cpufreq", "devfreq", "hwmon", "RAPL", "rknpu load"}) {
    EXPECT_TRUE(has_line(unavailable, {std::string("unavailable: ") + family + ": "}))
        << family << "\n"
        << joined(unavailable);
  }
}

TEST(ChannelSources, ThisMachineDoesNotFail) {
  std::vector<std::string> unavailable;
  const auto sources = open_channel_sources("/", unavailable);
  for (int round = 0; round < 2; ++round) {
    const auto snap = read_all(sources);
    EXPECT_EQ(snap.info.size(), snap.value.size());
  }
  for (const auto& line : unavailable) EXPECT_EQ(line.rfind("unavailable: ", 0), 0U) << line;
}

}  // namespace
}  // namespace tokscope::platform
