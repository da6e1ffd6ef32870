#include "platform/sysfs/devfreq.hpp"

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

// As the kernel prints it: "%10lu" header columns run together for 10-digit frequencies.
constexpr const char* kDmcTransStat =
    "     From  :   To\n"
    "           : 528000000106800000015600000002112000000   time(ms)\n"
    "  528000000:         0         0         3         1      1520\n"
    " 1068000000:         0         0         0         0         0\n"
    "*1560000000:         2         0         0         5    612340\n"
    " 2112000000:         2         0         4         0     20410\n"
    "Total transition : 17\n";

TEST(ParseDevfreqTransStat, KernelTable) {
  auto stat = parse_devfreq_trans_stat(kDmcTransStat);
  ASSERT_TRUE(stat.ok()) << stat.error().message;
  ASSERT_EQ(stat->states.size(), 4U);
  EXPECT_EQ(stat->states[0].freq_hz, 528000000U);
  EXPECT_EQ(stat->states[0].time_ms, 1520U);
  EXPECT_EQ(stat->states[0].transitions_to, (std::vector<std::uint64_t>{0, 0, 3, 1}));
  EXPECT_EQ(stat->states[3].freq_hz, 2112000000U);
  EXPECT_EQ(stat->states[3].time_ms, 20410U);
  EXPECT_EQ(stat->current_hz, 1560000000U);
  EXPECT_EQ(stat->total_transitions, 17U);
}

TEST(ParseDevfreqTransStat, NotSupportedAndMalformed) {
  auto unsupported = parse_devfreq_trans_stat("Not Supported.\n");
  ASSERT_FALSE(unsupported.ok());
  EXPECT_EQ(unsupported.error().kind, ErrorKind::kUnavailable);

  for (const char* bad : {"", "garbage\n",
                          "     From  :   To\n  528000000:         0      1520\n",  // no total
                          "  528000000:    0    1    5\nTotal transition : 1\n",  // 2 counts, 1 row
                          "  5280000x0:    0    5\nTotal transition : 0\n",
                          "  528000000:    0    5\nTotal transition : many\n"}) {
    auto r = parse_devfreq_trans_stat(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().kind, ErrorKind::kInput) << bad;
  }
}

TEST(ReadDevfreq, Rk3588DmcNpuGpuThroughSymlinks) {
  const auto root = sysfs_fixture("rk3588");
  ASSERT_TRUE(fs::is_symlink(root / "sys/class/devfreq/dmc")) << "the fixture models /sys/class";
  const auto state = read_devfreq(root);
  EXPECT_TRUE(state.unavailable.empty()) << joined(state.unavailable);
  ASSERT_EQ(state.devices.size(), 3U);
  const auto& dmc = state.devices[0];
  EXPECT_EQ(dmc.name, "dmc");
  EXPECT_EQ(dmc.governor, "dmc_ondemand");
  EXPECT_EQ(dmc.cur_hz, 1560000000U);
  EXPECT_EQ(dmc.min_hz, 528000000U);
  EXPECT_EQ(dmc.max_hz, 2112000000U);
  EXPECT_EQ(dmc.available_hz,
            (std::vector<std::uint64_t>{528000000, 1068000000, 1560000000, 2112000000}));
  ASSERT_TRUE(dmc.trans_stat.has_value());
  EXPECT_EQ(dmc.trans_stat->current_hz, 1560000000U);
  EXPECT_EQ(dmc.trans_stat->total_transitions, 17U);

  EXPECT_EQ(state.devices[1].name, "fb000000.gpu");
  EXPECT_EQ(state.devices[1].min_hz, 300000000U);
  EXPECT_EQ(state.devices[1].max_hz, 1000000000U);
  EXPECT_EQ(state.devices[2].name, "fdab0000.npu");
  EXPECT_EQ(state.devices[2].cur_hz, 1000000000U);
  EXPECT_EQ(state.devices[2].available_hz.size(), 8U);
  ASSERT_TRUE(state.devices[2].trans_stat.has_value());
  EXPECT_EQ(state.devices[2].trans_stat->states.size(), 8U);
}

TEST(ReadDevfreq, PlainDirectoriesWorkToo) {
  const auto root = fresh_test_dir();
  const auto dir = root / "sys/class/devfreq/dmc";
  write_file(dir / "governor", "userspace\n");
  write_file(dir / "cur_freq", "2112000000\n");
  write_file(dir / "min_freq", "528000000\n");
  write_file(dir / "max_freq", "2112000000\n");
  write_file(dir / "available_frequencies", "528000000 2112000000\n");
  write_file(dir / "available_governors", "userspace performance\n");
  write_file(dir / "trans_stat", "Not Supported.\n");
  const auto state = read_devfreq(root);
  EXPECT_TRUE(state.unavailable.empty()) << joined(state.unavailable);
  ASSERT_EQ(state.devices.size(), 1U);
  EXPECT_EQ(state.devices[0].cur_hz, 2112000000U);
  EXPECT_FALSE(state.devices[0].trans_stat.has_value());
}

TEST(ReadDevfreq, X86AndEmptyTreeHaveNone) {
  for (const auto& root : {sysfs_fixture("x86-laptop"), fresh_test_dir()}) {
    const auto state = read_devfreq(root);
    EXPECT_TRUE(state.devices.empty());
    EXPECT_TRUE(has_line(state.unavailable, {"unavailable: devfreq: "}))
        << joined(state.unavailable);
  }
}

TEST(ReadDevfreq, MalformedValuesAreAbsentAndNamed) {
  const auto root = copy_sysfs_fixture("rk3588");
  const auto dir = root / "sys/class/devfreq/dmc";
  write_file(dir / "cur_freq", "1560 MHz\n");
  write_file(dir / "trans_stat", "nonsense\n");
  const auto state = read_devfreq(root);
  ASSERT_EQ(state.devices.size(), 3U);
  EXPECT_FALSE(state.devices[0].cur_hz.has_value());
  EXPECT_FALSE(state.devices[0].trans_stat.has_value());
  EXPECT_EQ(state.devices[0].max_hz, 2112000000U);
  EXPECT_TRUE(
      has_line(state.unavailable, {(dir / "cur_freq").string(), "malformed", "Hz", "\"1560 MHz\""}))
      << joined(state.unavailable);
  EXPECT_TRUE(has_line(state.unavailable, {(dir / "trans_stat").string(), "malformed"}));
}

}  // namespace
}  // namespace tokscope::platform
