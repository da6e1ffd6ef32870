#include "platform/sysfs/cpufreq.hpp"

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

TEST(ParseCpufreqCpus, SpaceSeparatedIds) {
  EXPECT_EQ(*parse_cpufreq_cpus("0 1 2 3\n"), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(*parse_cpufreq_cpus("6 7"), (std::vector<int>{6, 7}));
  EXPECT_TRUE(parse_cpufreq_cpus("").value().empty());
  for (const char* bad : {"0-3", "a", "1024", "-1"}) {
    auto r = parse_cpufreq_cpus(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().kind, ErrorKind::kInput);
  }
}

TEST(ReadCpufreq, Rk3588ThreeClusters) {
  const auto state = read_cpufreq(sysfs_fixture("rk3588"));
  EXPECT_TRUE(state.unavailable.empty()) << joined(state.unavailable);
  ASSERT_EQ(state.policies.size(), 3U);
  const auto& little = state.policies[0];
  EXPECT_EQ(little.policy, 0);
  EXPECT_EQ(little.affected_cpus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(little.related_cpus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(little.driver, "cpufreq-dt");
  EXPECT_EQ(little.governor, "schedutil");
  EXPECT_EQ(little.cur_khz, 1416000U);
  EXPECT_EQ(little.cur_source, "scaling_cur_freq");
  EXPECT_EQ(little.cpuinfo_min_khz, 408000U);
  EXPECT_EQ(little.cpuinfo_max_khz, 1800000U);
  EXPECT_EQ(little.scaling_max_khz, 1800000U);
  ASSERT_EQ(little.available_khz.size(), 8U);
  EXPECT_EQ(little.available_khz.back(), 1800000U);
  EXPECT_NE(
      std::find(little.available_governors.begin(), little.available_governors.end(), "userspace"),
      little.available_governors.end());

  EXPECT_EQ(state.policies[1].policy, 4);
  EXPECT_EQ(state.policies[1].affected_cpus, (std::vector<int>{4, 5}));
  EXPECT_EQ(state.policies[1].cpuinfo_max_khz, 2352000U);
  EXPECT_EQ(state.policies[2].policy, 6);
  EXPECT_EQ(state.policies[2].related_cpus, (std::vector<int>{6, 7}));
  EXPECT_EQ(state.policies[2].available_khz.back(), 2352000U);
}

TEST(ReadCpufreq, X86IntelPstateHasNoFrequencyTable) {
  const auto state = read_cpufreq(sysfs_fixture("x86-laptop"));
  EXPECT_TRUE(state.unavailable.empty()) << joined(state.unavailable);
  ASSERT_EQ(state.policies.size(), 4U);
  for (int i = 0; i < 4; ++i) {
    const auto& p = state.policies[static_cast<std::size_t>(i)];
    EXPECT_EQ(p.policy, i);
    EXPECT_EQ(p.affected_cpus, std::vector<int>{i});
    EXPECT_EQ(p.driver, "intel_pstate");
    EXPECT_EQ(p.governor, "powersave");
    EXPECT_TRUE(p.available_khz.empty());
    EXPECT_EQ(p.available_governors, (std::vector<std::string>{"performance", "powersave"}));
    EXPECT_EQ(p.cpuinfo_max_khz, 4200000U);
  }
  EXPECT_EQ(state.policies[3].cur_khz, 4087654U);
}

TEST(ReadCpufreq, EmptyTree) {
  const auto state = read_cpufreq(fresh_test_dir());
  EXPECT_TRUE(state.policies.empty());
  ASSERT_EQ(state.unavailable.size(), 1U);
  EXPECT_TRUE(has_line(state.unavailable, {"unavailable: cpufreq: ", "cpufreq"}));
}

TEST(ReadCpufreq, EmptyCpufreqDirectory) {
  const auto root = fresh_test_dir();
  fs::create_directories(root / "sys/devices/system/cpu/cpufreq");
  const auto state = read_cpufreq(root);
  EXPECT_TRUE(state.policies.empty());
  EXPECT_TRUE(has_line(state.unavailable, {"no policyN"}));
}

TEST(ReadCpufreq, FallsBackToCpuinfoCurFreq) {
  const auto root = copy_sysfs_fixture("rk3588");
  const auto dir = root / "sys/devices/system/cpu/cpufreq/policy4";
  fs::remove(dir / "scaling_cur_freq");
  write_file(dir / "cpuinfo_cur_freq", "2208000\n");
  const auto state = read_cpufreq(root);
  ASSERT_EQ(state.policies.size(), 3U);
  EXPECT_EQ(state.policies[1].cur_khz, 2208000U);
  EXPECT_EQ(state.policies[1].cur_source, "cpuinfo_cur_freq");
  EXPECT_TRUE(has_line(state.unavailable, {(dir / "scaling_cur_freq").string()}))
      << joined(state.unavailable);
}

TEST(ReadCpufreq, MalformedValuesAreAbsentAndNamed) {
  const auto root = copy_sysfs_fixture("rk3588");
  const auto dir = root / "sys/devices/system/cpu/cpufreq/policy0";
  write_file(dir / "scaling_cur_freq", "abc\n");
  fs::remove(dir / "cpuinfo_cur_freq");
  write_file(dir / "scaling_available_frequencies", "408000 fast\n");
  write_file(dir / "affected_cpus", "0-3\n");
  fs::remove(dir / "scaling_governor");
  const auto state = read_cpufreq(root);
  ASSERT_EQ(state.policies.size(), 3U);
  const auto& p = state.policies[0];
  EXPECT_FALSE(p.cur_khz.has_value());
  EXPECT_EQ(p.cur_source, "");
  EXPECT_TRUE(p.available_khz.empty());
  EXPECT_TRUE(p.affected_cpus.empty());
  EXPECT_EQ(p.governor, "");
  EXPECT_EQ(p.cpuinfo_max_khz, 1800000U) << "the other values are still read";
  const auto& u = state.unavailable;
  EXPECT_TRUE(has_line(u, {(dir / "scaling_cur_freq").string(), "malformed", "kHz", "\"abc\""}))
      << joined(u);
  EXPECT_TRUE(has_line(u, {(dir / "scaling_available_frequencies").string(), "malformed"}));
  EXPECT_TRUE(has_line(u, {(dir / "affected_cpus").string(), "cpu ids", "\"0-3\""}));
  EXPECT_TRUE(has_line(u, {(dir / "scaling_governor").string(), "No such file"}));
  EXPECT_FALSE(has_line(u, {"cpuinfo_cur_freq"})) << "an absent optional file is not reported";
  EXPECT_EQ(state.policies[1].cur_khz, 2352000U);
}

}  // namespace
}  // namespace tokscope::platform
