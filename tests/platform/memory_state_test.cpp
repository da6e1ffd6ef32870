#include "platform/sysfs/memory_state.hpp"

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

TEST(ParseMeminfo, KeysAndValues) {
  const auto values = parse_meminfo(
      "MemTotal:        7924392 kB\nMemAvailable:    6620128 kB\nHugePages_Total:       0\n"
      "Broken:    lots kB\nno colon line\n");
  EXPECT_EQ(values.at("MemTotal"), 7924392U);
  EXPECT_EQ(values.at("MemAvailable"), 6620128U);
  EXPECT_EQ(values.at("HugePages_Total"), 0U);
  EXPECT_EQ(values.count("Broken"), 0U);
  EXPECT_EQ(values.size(), 3U);
}

TEST(ParseSwaps, ZramFileAndEscapes) {
  auto swaps = parse_swaps(
      "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
      "/dev/zram0                              partition\t3962192\t\t1024\t\t100\n"
      "/mnt/my\\040swap                         file\t\t2097148\t\t0\t\t-2\n");
  ASSERT_TRUE(swaps.ok()) << swaps.error().message;
  ASSERT_EQ(swaps->size(), 2U);
  EXPECT_EQ((*swaps)[0].filename, "/dev/zram0");
  EXPECT_EQ((*swaps)[0].type, "partition");
  EXPECT_EQ((*swaps)[0].size_kib, 3962192U);
  EXPECT_EQ((*swaps)[0].used_kib, 1024U);
  EXPECT_EQ((*swaps)[0].priority, 100);
  EXPECT_TRUE((*swaps)[0].zram);
  EXPECT_EQ((*swaps)[1].filename, "/mnt/my swap");
  EXPECT_EQ((*swaps)[1].priority, -2);
  EXPECT_FALSE((*swaps)[1].zram);
  EXPECT_TRUE(parse_swaps("Filename\tType\tSize\tUsed\tPriority\n").value().empty());
}

TEST(ParseSwaps, RejectsOtherText) {
  for (const char* bad :
       {"", "/dev/zram0 partition 1 0 100\n", "Filename Type Size Used Priority\n/dev/sda2 x 1\n",
        "Filename Type Size Used Priority\n/dev/sda2 partition big 0 -2\n"}) {
    auto r = parse_swaps(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().kind, ErrorKind::kInput);
  }
}

TEST(IsZramDevice, OnlyZramBlockDevices) {
  EXPECT_TRUE(is_zram_device("/dev/zram0"));
  EXPECT_TRUE(is_zram_device("/dev/zram12"));
  EXPECT_FALSE(is_zram_device("/dev/zram"));
  EXPECT_FALSE(is_zram_device("/swap/zram0"));
  EXPECT_FALSE(is_zram_device("/dev/zramfoo"));
  EXPECT_FALSE(is_zram_device("/swapfile"));
}

TEST(ReadMemoryState, Rk3588ZramSwap) {
  const auto state = read_memory_state(sysfs_fixture("rk3588"));
  EXPECT_TRUE(state.unavailable.empty()) << joined(state.unavailable);
  EXPECT_EQ(state.meminfo.mem_total_kib, 7924392U);
  EXPECT_EQ(state.meminfo.mem_available_kib, 6620128U);
  EXPECT_EQ(state.meminfo.swap_total_kib, 3962192U);
  EXPECT_EQ(state.meminfo.swap_free_kib, 3962192U);
  EXPECT_TRUE(state.swaps_known);
  ASSERT_EQ(state.swaps.size(), 1U);
  EXPECT_TRUE(state.zram_swap());
  EXPECT_EQ(state.swappiness, 100);
  EXPECT_EQ(state.thp_enabled, "madvise");
}

TEST(ReadMemoryState, X86SwapfileWithoutZram) {
  const auto state = read_memory_state(sysfs_fixture("x86-laptop"));
  EXPECT_TRUE(state.unavailable.empty()) << joined(state.unavailable);
  EXPECT_EQ(state.meminfo.mem_total_kib, 16080776U);
  ASSERT_EQ(state.swaps.size(), 1U);
  EXPECT_EQ(state.swaps[0].filename, "/swapfile");
  EXPECT_EQ(state.swaps[0].type, "file");
  EXPECT_FALSE(state.zram_swap());
  EXPECT_EQ(state.swappiness, 60);
  EXPECT_EQ(state.thp_enabled, "always");
}

TEST(ReadMemoryState, EmptyTree) {
  const auto state = read_memory_state(fresh_test_dir());
  EXPECT_FALSE(state.meminfo.mem_total_kib.has_value());
  EXPECT_FALSE(state.swaps_known);
  EXPECT_FALSE(state.zram_swap());
  EXPECT_FALSE(state.swappiness.has_value());
  EXPECT_EQ(state.thp_enabled, "");
  const auto& u = state.unavailable;
  EXPECT_EQ(u.size(), 4U) << joined(u);
  for (const char* file :
       {"proc/meminfo", "proc/swaps", "proc/sys/vm/swappiness", "transparent_hugepage/enabled"}) {
    EXPECT_TRUE(has_line(u, {"unavailable: ", file, "No such file"})) << file << "\n" << joined(u);
  }
}

TEST(ReadMemoryState, MalformedFiles) {
  const auto root = copy_sysfs_fixture("rk3588");
  write_file(root / "proc/meminfo", "MemTotal:  lots kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n");
  write_file(root / "proc/swaps", "/dev/zram0 partition 1 0 100\n");
  write_file(root / "proc/sys/vm/swappiness", "500\n");
  write_file(root / "sys/kernel/mm/transparent_hugepage/enabled", "always madvise never\n");
  const auto state = read_memory_state(root);
  EXPECT_FALSE(state.meminfo.mem_total_kib.has_value());
  EXPECT_FALSE(state.meminfo.mem_available_kib.has_value());
  EXPECT_EQ(state.meminfo.swap_total_kib, 0U);
  EXPECT_FALSE(state.swaps_known);
  EXPECT_FALSE(state.swappiness.has_value());
  EXPECT_EQ(state.thp_enabled, "");
  const auto& u = state.unavailable;
  EXPECT_TRUE(has_line(u, {"proc/meminfo", "MemTotal"})) << joined(u);
  EXPECT_TRUE(has_line(u, {"proc/meminfo", "MemAvailable"}));
  EXPECT_TRUE(has_line(u, {"proc/swaps", "malformed", "header"}));
  EXPECT_TRUE(has_line(u, {"proc/sys/vm/swappiness", "malformed", "0 to 200", "\"500\""}));
  EXPECT_TRUE(has_line(u, {"transparent_hugepage/enabled", "malformed", "[bracketed]"}));
}

}  // namespace
}  // namespace tokscope::platform
