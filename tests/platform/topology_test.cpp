#include "platform/topology.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "common/test_dir.hpp"

namespace tokscope::platform {
namespace {

namespace fs = std::filesystem;

fs::path fixture(const std::string& name) {
  return fs::path(TOKSCOPE_TEST_DATA_DIR).parent_path() / "fixtures" / "sysfs" / name;
}

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

bool has_note(const Topology& topo, const std::string& needle) {
  for (const auto& n : topo.notes) {
    if (n.find(needle) != std::string::npos) return true;
  }
  return false;
}

TEST(ParseCpuList, RangesSinglesAndNewline) {
  auto r = parse_cpu_list("0-3,6\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r, (std::vector<int>{0, 1, 2, 3, 6}));
  EXPECT_EQ(*parse_cpu_list("0"), std::vector<int>{0});
  EXPECT_EQ(*parse_cpu_list("4-7"), (std::vector<int>{4, 5, 6, 7}));
  EXPECT_TRUE(parse_cpu_list("").value().empty());
  EXPECT_TRUE(parse_cpu_list("\n").value().empty());
}

TEST(ParseCpuList, SortsAndMergesOverlaps) {
  EXPECT_EQ(*parse_cpu_list("6,0-2,1"), (std::vector<int>{0, 1, 2, 6}));
  EXPECT_EQ(parse_cpu_list("0-1023")->size(), 1024U);
}

TEST(ParseCpuList, RejectsMalformedText) {
  for (const char* bad : {"3-1", "a", "1,,2", "1,", ",1", "-1", "1-", "0-1024", "1 2"}) {
    auto r = parse_cpu_list(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().kind, ErrorKind::kInput);
    EXPECT_NE(r.error().message.find("malformed cpu list"), std::string::npos);
  }
}

TEST(FormatCpuList, InverseOfParse) {
  EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 6}), "0-3,6");
  EXPECT_EQ(format_cpu_list({0, 2, 4}), "0,2,4");
  EXPECT_EQ(format_cpu_list({5}), "5");
  EXPECT_EQ(format_cpu_list({}), "");
  EXPECT_EQ(*parse_cpu_list(format_cpu_list({0, 1, 4, 5, 6, 9})),
            (std::vector<int>{0, 1, 4, 5, 6, 9}));
}

TEST(ParseCacheSize, SuffixesAndPlainBytes) {
  EXPECT_EQ(*parse_cache_size("3072K\n"), 3072U * 1024);
  EXPECT_EQ(*parse_cache_size("8M"), 8U * 1024 * 1024);
  EXPECT_EQ(*parse_cache_size("1G"), 1024ULL * 1024 * 1024);
  EXPECT_EQ(*parse_cache_size("512"), 512U);
  for (const char* bad : {"", "K", "12X", "3072 K", "-1K", "99999999999999999999K"}) {
    EXPECT_FALSE(parse_cache_size(bad).ok()) << bad;
  }
}

TEST(ParseCpuParts, ArmBlocksAndX86) {
  const std::string arm =
      "processor\t: 0\nCPU part\t: 0xd05\n\nprocessor\t: 1\nCPU part\t: 0xd0b\n";
  const auto parts = parse_cpu_parts(arm);
  ASSERT_EQ(parts.size(), 2U);
  EXPECT_EQ(parts.at(0), "0xd05");
  EXPECT_EQ(parts.at(1), "0xd0b");
  EXPECT_TRUE(parse_cpu_parts("processor\t: 0\nmodel name\t: Some x86\n").empty());
}

TEST(ArmPartName, KnownAndUnknown) {
  EXPECT_EQ(arm_part_name("0xd05"), "Cortex-A55");
  EXPECT_EQ(arm_part_name("0xd0b"), "Cortex-A76");
  EXPECT_EQ(arm_part_name("0x123"), "");
}

TEST(LastLevelCache, HighestDataHoldingLevel) {
  const std::vector<CacheLevel> rk = {{1, "Data", 32768},
                                      {1, "Instruction", 32768},
                                      {2, "Unified", 131072},
                                      {3, "Unified", 3 << 20}};
  auto llc = last_level_cache(rk);
  ASSERT_TRUE(llc);
  EXPECT_EQ(llc->level, 3);
  EXPECT_EQ(llc->bytes, 3U << 20);
  // An instruction cache is never the LLC, even at a higher level.
  llc = last_level_cache({{1, "Data", 1024}, {2, "Instruction", 4096}});
  ASSERT_TRUE(llc);
  EXPECT_EQ(llc->level, 1);
  EXPECT_FALSE(last_level_cache({}));
  EXPECT_FALSE(last_level_cache({{1, "Instruction", 1024}}));
}

TEST(GroupCoreTypes, ByCapacityLittleFirstNamedByPart) {
  std::vector<CpuFacts> cpus;
  for (int c = 0; c < 8; ++c)
    cpus.push_back({c, c < 4 ? 414 : 1024, c < 4 ? "0xd05" : "0xd0b", {}});
  std::swap(cpus[0], cpus[7]);  // order of input does not matter
  const CoreTypes g = group_core_types(cpus, "ignored");
  EXPECT_EQ(g.basis, "cpu_capacity");
  ASSERT_EQ(g.types.size(), 2U);
  EXPECT_EQ(g.types[0].name, "Cortex-A55");
  EXPECT_EQ(g.types[0].role, "little");
  EXPECT_EQ(g.types[0].cpus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(g.types[0].capacity, 414);
  EXPECT_EQ(g.types[1].name, "Cortex-A76");
  EXPECT_EQ(g.types[1].role, "big");
  EXPECT_EQ(g.types[1].part, "0xd0b");
}

TEST(GroupCoreTypes, ThreeCapacitiesGiveMid) {
  const std::vector<CpuFacts> cpus = {{0, 300, {}, {}}, {1, 700, {}, {}}, {2, 1024, {}, {}}};
  const CoreTypes g = group_core_types(cpus, "x");
  ASSERT_EQ(g.types.size(), 3U);
  EXPECT_EQ(g.types[0].role, "little");
  EXPECT_EQ(g.types[1].role, "mid");
  EXPECT_EQ(g.types[2].role, "big");
  EXPECT_EQ(g.types[1].name, "capacity 700");  // no part: named by capacity
}

TEST(GroupCoreTypes, ByPartWhenCapacityIsMissing) {
  std::vector<CpuFacts> cpus;
  for (int c = 0; c < 4; ++c) cpus.push_back({c, std::nullopt, c < 2 ? "0xd05" : "0xd0b", {}});
  cpus[3].capacity = 1024;  // partial capacity is not enough to rank by
  const CoreTypes g = group_core_types(cpus, "x");
  EXPECT_EQ(g.basis, "cpuinfo CPU part");
  ASSERT_EQ(g.types.size(), 2U);
  EXPECT_EQ(g.types[0].name, "Cortex-A55");
  EXPECT_EQ(g.types[0].role, "unranked");
  EXPECT_EQ(g.types[1].cpus, (std::vector<int>{2, 3}));
}

TEST(GroupCoreTypes, UniformFallbackNamesAndClashes) {
  const std::vector<CpuFacts> cpus = {{0, {}, {}, {}}, {1, {}, {}, {}}};
  CoreTypes g = group_core_types(cpus, "Intel(R) Core(TM) i5");
  ASSERT_EQ(g.types.size(), 1U);
  EXPECT_EQ(g.types[0].name, "Intel(R) Core(TM) i5");
  EXPECT_EQ(g.types[0].role, "uniform");
  EXPECT_EQ(g.basis.rfind("uniform", 0), 0U);
  g = group_core_types(cpus, "unavailable: no cpuinfo");
  EXPECT_EQ(g.types[0].name, "all cpus");
  EXPECT_TRUE(group_core_types({}, "x").types.empty());
  // Two clusters of one design at different capacities keep distinct names.
  const std::vector<CpuFacts> binned = {{0, 900, "0xd0b", {}}, {1, 1024, "0xd0b", {}}};
  g = group_core_types(binned, "x");
  ASSERT_EQ(g.types.size(), 2U);
  EXPECT_EQ(g.types[0].name, "Cortex-A76 (cpus 0)");
  EXPECT_EQ(g.types[1].name, "Cortex-A76 (cpus 1)");
}

TEST(ReadTopology, Rk3588Fixture) {
  const Topology t = read_topology(fixture("rk3588"));
  EXPECT_EQ(t.online_cpus, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_TRUE(t.online_unavailable.empty());
  EXPECT_EQ(t.cpu_description, "4x Cortex-A55 + 4x Cortex-A76");
  EXPECT_EQ(t.core_types.basis, "cpu_capacity");
  ASSERT_EQ(t.core_types.types.size(), 2U);
  EXPECT_EQ(t.core_types.types[0].name, "Cortex-A55");
  EXPECT_EQ(t.core_types.types[0].cpus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(t.core_types.types[0].capacity, 414);
  EXPECT_EQ(t.core_types.types[1].name, "Cortex-A76");
  EXPECT_EQ(t.core_types.types[1].cpus, (std::vector<int>{4, 5, 6, 7}));
  ASSERT_TRUE(t.llc);
  EXPECT_EQ(t.llc->level, 3);
  EXPECT_EQ(t.llc->type, "Unified");
  EXPECT_EQ(t.llc->bytes, 3072U * 1024);
  ASSERT_EQ(t.cpus.size(), 8U);
  EXPECT_EQ(t.cpus[4].max_freq_khz, 2352000U);
  EXPECT_EQ(t.cpus[0].part, "0xd05");
  EXPECT_TRUE(t.notes.empty()) << t.notes.front();
}

TEST(ReadTopology, X86LaptopFixture) {
  const Topology t = read_topology(fixture("x86-laptop"));
  EXPECT_EQ(t.online_cpus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(t.cpu_description, "11th Gen Intel(R) Core(TM) i5-1135G7 @ 2.40GHz");
  ASSERT_EQ(t.core_types.types.size(), 1U);
  EXPECT_EQ(t.core_types.types[0].name, t.cpu_description);
  EXPECT_EQ(t.core_types.types[0].role, "uniform");
  EXPECT_EQ(t.core_types.basis.rfind("uniform", 0), 0U);
  ASSERT_TRUE(t.llc);
  EXPECT_EQ(t.llc->bytes, 8192U * 1024);
  EXPECT_TRUE(has_note(t, "cpu_capacity unavailable for cpus 0-3"));
  EXPECT_TRUE(has_note(t, "cpuinfo_max_freq unavailable"));
}

TEST(ReadTopology, EmptyRootGivesUnavailableReasons) {
  const Topology t = read_topology(testing::fresh_test_dir());
  EXPECT_TRUE(t.online_cpus.empty());
  EXPECT_EQ(t.online_unavailable.rfind("unavailable: cannot read", 0), 0U) << t.online_unavailable;
  EXPECT_FALSE(t.llc);
  EXPECT_EQ(t.llc_unavailable.rfind("unavailable:", 0), 0U);
  EXPECT_EQ(t.cpu_description.rfind("unavailable:", 0), 0U);
  EXPECT_TRUE(t.core_types.types.empty());
}

TEST(ReadTopology, NoOnlineFileFallsBackToCpuDirectories) {
  const fs::path root = testing::fresh_test_dir();
  const fs::path cpu = root / "sys/devices/system/cpu";
  fs::create_directories(cpu / "cpu0");
  fs::create_directories(cpu / "cpu1");
  fs::create_directories(cpu / "cpufreq");  // not a cpu
  write_file(cpu / "cpu0/cache/index0/level", "1\n");
  write_file(cpu / "cpu0/cache/index0/type", "Data\n");
  write_file(cpu / "cpu0/cache/index0/size", "bogus\n");  // unreadable entry is skipped, noted
  const Topology t = read_topology(root);
  EXPECT_EQ(t.online_cpus, (std::vector<int>{0, 1}));
  EXPECT_NE(t.online_unavailable.find("used the cpuN directories (2 found)"), std::string::npos);
  EXPECT_FALSE(t.llc);
  EXPECT_TRUE(has_note(t, "skipped"));
}

TEST(ReadTopology, MalformedOnlineFileIsReported) {
  const fs::path root = testing::fresh_test_dir();
  write_file(root / "sys/devices/system/cpu/online", "0-x\n");
  fs::create_directories(root / "sys/devices/system/cpu/cpu0");
  const Topology t = read_topology(root);
  EXPECT_EQ(t.online_cpus, std::vector<int>{0});
  EXPECT_NE(t.online_unavailable.find("malformed cpu list"), std::string::npos);
}

}  // namespace
}  // namespace tokscope::platform
