#include "platform/sysfs/inventory.hpp"

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

TEST(DiscoverPlatform, Rk3588) {
  const auto inv = discover_platform(sysfs_fixture("rk3588"));
  EXPECT_EQ(inv.cpufreq.policies.size(), 3U);
  EXPECT_EQ(inv.devfreq.devices.size(), 3U);
  EXPECT_EQ(inv.thermal.zones.size(), 7U);
  EXPECT_TRUE(inv.hwmon.devices.empty());
  EXPECT_TRUE(inv.powercap.domains.empty());
  EXPECT_EQ(inv.rknpu.cores.size(), 3U);
  EXPECT_TRUE(inv.memory.zram_swap());
  ASSERT_EQ(inv.unavailable.size(), 2U) << joined(inv.unavailable);
  EXPECT_TRUE(has_line(inv.unavailable, {"unavailable: hwmon"}));
  EXPECT_TRUE(has_line(inv.unavailable, {"unavailable: RAPL"}));

  const auto j = to_json(inv);
  EXPECT_EQ(j.at("cpufreq").size(), 3U);
  EXPECT_EQ(j.at("cpufreq")[1].at("cur_khz"), 2352000);
  EXPECT_EQ(j.at("cpufreq")[1].at("related_cpus"), nlohmann::json::array({4, 5}));
  EXPECT_EQ(j.at("devfreq")[0].at("name"), "dmc");
  EXPECT_EQ(j.at("devfreq")[0].at("cur_hz"), 1560000000U);
  EXPECT_EQ(j.at("devfreq")[0].at("trans_stat").at("total_transitions"), 17);
  EXPECT_EQ(j.at("devfreq")[0].at("trans_stat").at("states").size(), 4U);
  EXPECT_EQ(j.at("thermal")[0].at("type"), "soc-thermal");
  EXPECT_DOUBLE_EQ(j.at("thermal")[0].at("temp_c").get<double>(), 45.23);
  EXPECT_EQ(j.at("thermal")[0].at("lowest_passive_trip_c"), 75.0);
  EXPECT_TRUE(j.at("thermal")[1].at("lowest_passive_trip_c").is_null());
  EXPECT_EQ(j.at("thermal")[0].at("trips").size(), 3U);
  EXPECT_EQ(j.at("rknpu_load").at("cores")[0].at("load_pct"), 12.0);
  EXPECT_EQ(j.at("memory").at("zram_swap"), true);
  EXPECT_EQ(j.at("memory").at("swappiness"), 100);
  EXPECT_EQ(j.at("memory").at("thp_enabled"), "madvise");
  EXPECT_EQ(j.at("memory").at("mem_total_kib"), 7924392);
  EXPECT_TRUE(j.at("hwmon").empty());
  EXPECT_TRUE(j.at("rapl").empty());
  EXPECT_EQ(j.at("unavailable").size(), 2U);
}

TEST(DiscoverPlatform, X86Laptop) {
  const auto inv = discover_platform(sysfs_fixture("x86-laptop"));
  EXPECT_EQ(inv.cpufreq.policies.size(), 4U);
  EXPECT_TRUE(inv.devfreq.devices.empty());
  EXPECT_EQ(inv.thermal.zones.size(), 2U);
  EXPECT_EQ(inv.hwmon.devices.size(), 3U);
  EXPECT_EQ(inv.powercap.domains.size(), 3U);
  EXPECT_TRUE(inv.rknpu.cores.empty());
  EXPECT_FALSE(inv.memory.zram_swap());
  ASSERT_EQ(inv.unavailable.size(), 2U) << joined(inv.unavailable);
  EXPECT_TRUE(has_line(inv.unavailable, {"unavailable: devfreq"}));
  EXPECT_TRUE(has_line(inv.unavailable, {"unavailable: rknpu load"}));

  const auto j = to_json(inv);
  EXPECT_TRUE(j.at("cpufreq")[0].at("available_khz").empty());
  EXPECT_EQ(j.at("cpufreq")[0].at("driver"), "intel_pstate");
  EXPECT_EQ(j.at("rapl")[0].at("name"), "package-0");
  EXPECT_EQ(j.at("rapl")[0].at("max_energy_range_uj"), 262143328850U);
  EXPECT_TRUE(j.at("rapl")[0].at("parent_zone").is_null());
  EXPECT_EQ(j.at("rapl")[1].at("parent_zone"), "intel-rapl:0");
  const auto& coretemp = j.at("hwmon")[2];
  EXPECT_EQ(coretemp.at("name"), "coretemp");
  EXPECT_EQ(coretemp.at("sensors")[0].at("label"), "Package id 0");
  EXPECT_EQ(coretemp.at("sensors")[0].at("unit"), "c");
  EXPECT_TRUE(j.at("hwmon")[0].at("sensors")[0].at("label").is_null());
  EXPECT_TRUE(j.at("rknpu_load").at("file").is_null());
  EXPECT_EQ(j.at("memory").at("swaps")[0].at("filename"), "/swapfile");
  EXPECT_EQ(j.at("memory").at("zram_swap"), false);
}

TEST(DiscoverPlatform, EmptyTreeEverythingUnavailable) {
  const auto root = fresh_test_dir();
  const auto inv = discover_platform(root);
  EXPECT_TRUE(inv.cpufreq.policies.empty());
  EXPECT_TRUE(inv.devfreq.devices.empty());
  EXPECT_TRUE(inv.thermal.zones.empty());
  EXPECT_TRUE(inv.hwmon.devices.empty());
  EXPECT_TRUE(inv.powercap.domains.empty());
  EXPECT_TRUE(inv.rknpu.cores.empty());
  for (const char* family : {"cpufreq", "devfreq", "thermal", "hwmon", "RAPL", "rknpu load"}) {
    EXPECT_TRUE(has_line(inv.unavailable, {std::string("unavailable: ") + family + ": "}))
        << family;
  }
  EXPECT_TRUE(has_line(inv.unavailable, {"proc/meminfo"}));
  EXPECT_EQ(inv.unavailable.size(), 10U) << joined(inv.unavailable);
  for (const auto& line : inv.unavailable) EXPECT_EQ(line.rfind("unavailable: ", 0), 0U) << line;

  const auto j = to_json(inv);
  EXPECT_EQ(j.at("root"), root.string());
  EXPECT_TRUE(j.at("memory").at("mem_total_kib").is_null());
  EXPECT_TRUE(j.at("memory").at("swaps").is_null());
  EXPECT_TRUE(j.at("memory").at("zram_swap").is_null());
  EXPECT_TRUE(j.at("memory").at("thp_enabled").is_null());
  EXPECT_EQ(j.at("unavailable").size(), 10U);
}

TEST(DiscoverPlatform, MalformedValuesAreNullInJson) {
  const auto root = copy_sysfs_fixture("rk3588");
  write_file(root / "sys/class/thermal/thermal_zone0/temp", "abc\n");
  write_file(root / "sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq", "max\n");
  const auto inv = discover_platform(root);
  EXPECT_EQ(inv.unavailable.size(), 4U) << joined(inv.unavailable);
  const auto j = to_json(inv);
  EXPECT_TRUE(j.at("thermal")[0].at("temp_c").is_null());
  EXPECT_EQ(j.at("thermal")[0].at("type"), "soc-thermal");
  EXPECT_TRUE(j.at("cpufreq")[0].at("scaling_max_khz").is_null());
  EXPECT_EQ(j.at("cpufreq")[0].at("cpuinfo_max_khz"), 1800000);
}

TEST(DiscoverPlatform, ThisMachineDoesNotFail) {
  const auto inv = discover_platform("/");
  const auto text = to_json(inv).dump();
  EXPECT_FALSE(text.empty());
  for (const auto& line : inv.unavailable) EXPECT_EQ(line.rfind("unavailable: ", 0), 0U) << line;
}

}  // namespace
}  // namespace tokscope::platform
