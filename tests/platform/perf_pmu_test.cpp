#include <gtest/gtest.h>

#include <fstream>

#include "common/test_dir.hpp"
#include "platform/perf/pmu.hpp"

namespace tokscope::platform::perf {
namespace {

namespace fs = std::filesystem;

fs::path fixture(const std::string& name) {
  return fs::path(TOKSCOPE_TEST_DATA_DIR).parent_path() / "fixtures" / "sysfs" / name;
}

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

TEST(PerfFormatSpec, SingleRangeSplitRangesAndOneBit) {
  auto f = parse_format_spec("config:0-15\n");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->word, "config");
  EXPECT_EQ(f->ranges, (std::vector<std::pair<int, int>>{{0, 15}}));

  auto split = parse_format_spec("config:0-7,32-35");
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(split->ranges, (std::vector<std::pair<int, int>>{{0, 7}, {32, 35}}));

  auto bit = parse_format_spec("config1:0");
  ASSERT_TRUE(bit.ok());
  EXPECT_EQ(bit->word, "config1");
  EXPECT_EQ(bit->ranges, (std::vector<std::pair<int, int>>{{0, 0}}));
}

TEST(PerfFormatSpec, RejectsMalformedText) {
  for (const char* bad : {"", "config", "config3:0-7", "config:7-0", "config:0-64", "config:a",
                          "config:0-7,", "period:0-7"}) {
    auto f = parse_format_spec(bad);
    ASSERT_FALSE(f.ok()) << bad;
    EXPECT_EQ(f.error().kind, ErrorKind::kInput);
    EXPECT_NE(f.error().message.find("malformed PMU format"), std::string::npos);
  }
}

TEST(PerfEventTerms, HexDecimalAndBareTerms) {
  auto t = parse_event_terms("event=0x0017\n");
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->size(), 1U);
  EXPECT_EQ((*t)[0], (std::pair<std::string, std::uint64_t>{"event", 0x17}));

  auto x86 = parse_event_terms("event=0x2e,umask=0x41,edge,cmask=2");
  ASSERT_TRUE(x86.ok());
  EXPECT_EQ(*x86, (std::vector<std::pair<std::string, std::uint64_t>>{
                      {"event", 0x2e}, {"umask", 0x41}, {"edge", 1}, {"cmask", 2}}));
}

TEST(PerfEventTerms, RejectsParametersAndGarbage) {
  for (const char* bad : {"", "event=", "event=0xzz", "=3", "event=1,,umask=2", "chan=?"}) {
    EXPECT_FALSE(parse_event_terms(bad).ok()) << bad;
  }
}

TEST(PerfEncodeTerms, PlacesBitsPerFormat) {
  std::map<std::string, FormatField> formats{
      {"event", FormatField{"config", {{0, 7}}}},
      {"umask", FormatField{"config", {{8, 15}}}},
      {"edge", FormatField{"config", {{18, 18}}}},
      {"split", FormatField{"config1", {{0, 3}, {32, 35}}}},
  };
  auto w = encode_event_terms({{"event", 0x2e}, {"umask", 0x41}, {"edge", 1}}, formats);
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->config, 0x4412eU);
  EXPECT_EQ(w->config1, 0U);

  // Low bits of the value fill the first range, the next bits the second.
  auto s = encode_event_terms({{"split", 0xab}}, formats);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->config1, 0xbU | (std::uint64_t{0xa} << 32));
}

TEST(PerfEncodeTerms, RejectsUnknownTermsAndValuesWiderThanTheField) {
  std::map<std::string, FormatField> formats{{"event", FormatField{"config", {{0, 7}}}}};
  auto unknown = encode_event_terms({{"umask", 1}}, formats);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("umask"), std::string::npos);
  auto wide = encode_event_terms({{"event", 0x100}}, formats);
  ASSERT_FALSE(wide.ok());
  EXPECT_NE(wide.error().message.find("wider"), std::string::npos);
}

TEST(PerfSysfsEventName, RefusesPathsAndOddCharacters) {
  EXPECT_TRUE(is_sysfs_event_name("l2d_cache_refill"));
  EXPECT_TRUE(is_sysfs_event_name("cpu-cycles"));
  EXPECT_TRUE(is_sysfs_event_name("read-bytes0"));
  for (const char* bad : {"", "..", "../type", "a/b", "arm_ac76::L2D", "x y", "a..b"}) {
    EXPECT_FALSE(is_sysfs_event_name(bad)) << bad;
  }
}

TEST(PerfDiscoverPmus, Rk3588FixtureHasTwoClusterPmus) {
  const PmuList list = discover_pmus(fixture("rk3588"));
  ASSERT_EQ(list.pmus.size(), 4U);  // armv8_cortex_a55, armv8_cortex_a76, software, tracepoint
  const auto cpu = cpu_pmus(list);
  ASSERT_EQ(cpu.size(), 2U);
  EXPECT_EQ(cpu[0].name, "armv8_cortex_a55");
  EXPECT_EQ(cpu[0].type, 8U);
  EXPECT_EQ(cpu[0].cpus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(cpu[1].name, "armv8_cortex_a76");
  EXPECT_EQ(cpu[1].type, 9U);
  EXPECT_EQ(cpu[1].cpus, (std::vector<int>{4, 5, 6, 7}));
  const auto software = std::find_if(list.pmus.begin(), list.pmus.end(),
                                     [](const PmuInfo& p) { return p.name == "software"; });
  ASSERT_NE(software, list.pmus.end());
  EXPECT_EQ(software->type, 1U);
  EXPECT_FALSE(software->cpu_pmu);
}

TEST(PerfDiscoverPmus, ReadsKernelEventFiles) {
  const auto cpu = cpu_pmus(discover_pmus(fixture("rk3588")));
  ASSERT_EQ(cpu.size(), 2U);
  auto refill = read_pmu_event(cpu[1], "l2d_cache_refill");
  ASSERT_TRUE(refill.ok()) << refill.error().message;
  EXPECT_EQ(refill->config, 0x17U);
  EXPECT_EQ(read_pmu_event(cpu[0], "bus_access")->config, 0x19U);
  EXPECT_TRUE(pmu_has_event(cpu[0], "inst_retired"));
  EXPECT_FALSE(pmu_has_event(cpu[0], "no_such_event"));
  auto missing = read_pmu_event(cpu[0], "no_such_event");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::kUnavailable);
  EXPECT_FALSE(read_pmu_event(cpu[0], "../type").ok());
}

TEST(PerfDiscoverPmus, MissingTreeIsANoteAndBadPmusAreSkipped) {
  const auto dir = tokscope::testing::fresh_test_dir();
  const PmuList none = discover_pmus(dir);
  EXPECT_TRUE(none.pmus.empty());
  ASSERT_EQ(none.notes.size(), 1U);
  EXPECT_NE(none.notes[0].find("no PMU list"), std::string::npos);

  const fs::path devices = dir / "sys/bus/event_source/devices";
  write_file(devices / "good/type", "12\n");
  write_file(devices / "good/cpus", "0-1\n");
  write_file(devices / "notype/cpus", "0\n");
  write_file(devices / "badtype/type", "x\n");
  const PmuList list = discover_pmus(dir);
  ASSERT_EQ(list.pmus.size(), 1U);
  EXPECT_EQ(list.pmus[0].name, "good");
  EXPECT_EQ(list.notes.size(), 2U);
  fs::remove_all(dir);
}

TEST(PerfDiscoverPmus, LiveSystemDoesNotFail) {
  // Whatever this machine has (this VM: software, tracepoint, breakpoint, … and no CPU PMU).
  const PmuList list = discover_pmus("/");
  for (const auto& p : list.pmus) EXPECT_FALSE(p.name.empty());
  const auto software = std::find_if(list.pmus.begin(), list.pmus.end(),
                                     [](const PmuInfo& p) { return p.name == "software"; });
  if (software != list.pmus.end()) {
    EXPECT_EQ(software->type, 1U);
  }
}

}  // namespace
}  // namespace tokscope::platform::perf
