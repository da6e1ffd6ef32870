#include <gtest/gtest.h>

#include <fstream>

#include "common/test_dir.hpp"
#include "platform/perf/event_resolver.hpp"

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

// A CPU PMU under dir with the given events ("name" → "event=0x..").
void make_pmu(const fs::path& root, const std::string& name, int type, const std::string& cpus,
              const std::vector<std::pair<std::string, std::string>>& events) {
  const fs::path dir = root / "sys/bus/event_source/devices" / name;
  write_file(dir / "type", std::to_string(type) + "\n");
  write_file(dir / "cpus", cpus + "\n");
  write_file(dir / "format/event", "config:0-15\n");
  for (const auto& [event, text] : events) write_file(dir / "events" / event, text + "\n");
}

TEST(PerfResolver, SoftwareEventsAreOneOpenOnEveryMachine) {
  EventResolver rk3588(fixture("rk3588"));
  EventResolver bare(PmuList{});
  for (auto* resolver : {&rk3588, &bare}) {
    for (const auto& [name, config] : std::vector<std::pair<std::string, std::uint64_t>>{
             {"task-clock", 1}, {"page-faults", 2}, {"context-switches", 3}, {"cs", 3}}) {
      auto e = resolver->resolve(name);
      ASSERT_TRUE(e.ok()) << e.error().message;
      EXPECT_TRUE(e->software);
      EXPECT_TRUE(e->unavailable.empty());
      ASSERT_EQ(e->encodings.size(), 1U) << name;
      EXPECT_EQ(e->encodings[0], (EventEncoding{"", false, kTypeSoftware, {config, 0, 0}}));
    }
  }
}

TEST(PerfResolver, GenericHardwareOnBigLittleUsesEachClusterPmusOwnEvent) {
  EventResolver resolver(fixture("rk3588"));
  ASSERT_EQ(resolver.cpu_pmu_list().size(), 2U);
  auto e = resolver.resolve("instructions");
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_FALSE(e->software);
  ASSERT_EQ(e->encodings.size(), 2U);
  EXPECT_EQ(e->encodings[0], (EventEncoding{"armv8_cortex_a55", true, 8, {0x08, 0, 0}}));
  EXPECT_EQ(e->encodings[1], (EventEncoding{"armv8_cortex_a76", true, 9, {0x08, 0, 0}}));
  EXPECT_NE(e->note.find("inst_retired"), std::string::npos);

  auto cycles = resolver.resolve("cycles");
  ASSERT_TRUE(cycles.ok());
  EXPECT_EQ(cycles->encodings[1].words.config, 0x11U);
  auto misses = resolver.resolve("L1-dcache-load-misses");
  ASSERT_TRUE(misses.ok());
  EXPECT_EQ(misses->encodings[0].words.config, 0x03U);
  EXPECT_EQ(resolver.resolve("cache-misses")->encodings[0].words.config, 0x03U);
}

TEST(PerfResolver, GenericHardwareWithoutArmAliasUsesExtendedType) {
  EventResolver resolver(fixture("rk3588"));
  auto e = resolver.resolve("branch-instructions");  // no ARMv8 alias in the table
  ASSERT_TRUE(e.ok());
  ASSERT_EQ(e->encodings.size(), 2U);
  EXPECT_EQ(e->encodings[0],
            (EventEncoding{
                "armv8_cortex_a55", true, kTypeHardware, {(std::uint64_t{8} << 32) | 4, 0, 0}}));
  EXPECT_EQ(e->encodings[1].words.config, (std::uint64_t{9} << 32) | 4);
  // The fixture's PMUs do not list l1i_cache_refill, so L1-icache-load-misses is extended too.
  auto icache = resolver.resolve("L1-icache-load-misses");
  ASSERT_TRUE(icache.ok());
  EXPECT_EQ(icache->encodings[0].type, kTypeHwCache);
  EXPECT_EQ(icache->encodings[0].words.config, (std::uint64_t{8} << 32) | 0x10001);
}

TEST(PerfResolver, GenericHardwareWithOneOrNoCpuPmuIsOneGenericOpen) {
  EventResolver bare(PmuList{});
  auto e = bare.resolve("instructions");
  ASSERT_TRUE(e.ok());
  ASSERT_EQ(e->encodings.size(), 1U);
  EXPECT_EQ(e->encodings[0], (EventEncoding{"", false, kTypeHardware, {1, 0, 0}}));
  EXPECT_EQ(bare.resolve("LLC-load-misses")->encodings[0],
            (EventEncoding{"", false, kTypeHwCache, {0x10002, 0, 0}}));

  const auto dir = tokscope::testing::fresh_test_dir();  // a BSP kernel: one armv8_pmuv3
  make_pmu(dir, "armv8_pmuv3", 8, "0-7", {{"bus_access", "event=0x0019"}});
  EventResolver bsp(dir);
  auto instr = bsp.resolve("instructions");
  ASSERT_TRUE(instr.ok());
  EXPECT_EQ(instr->encodings, (std::vector<EventEncoding>{{"", false, kTypeHardware, {1, 0, 0}}}));
  auto bus = bsp.resolve("bus_access");
  ASSERT_TRUE(bus.ok());
  EXPECT_EQ(bus->encodings, (std::vector<EventEncoding>{{"armv8_pmuv3", false, 8, {0x19, 0, 0}}}));
  fs::remove_all(dir);
}

TEST(PerfResolver, KernelEventNamesOpenOnEveryClusterListingThem) {
  EventResolver resolver(fixture("rk3588"));
  for (const auto& [name, code] : std::vector<std::pair<std::string, std::uint64_t>>{
           {"bus_access", 0x19}, {"l2d_cache_refill", 0x17}, {"l3d_cache_refill", 0x2a}}) {
    auto e = resolver.resolve(name);
    ASSERT_TRUE(e.ok()) << e.error().message;
    EXPECT_EQ(e->source, "sysfs");
    ASSERT_EQ(e->encodings.size(), 2U);
    EXPECT_EQ(e->encodings[0], (EventEncoding{"armv8_cortex_a55", true, 8, {code, 0, 0}}));
    EXPECT_EQ(e->encodings[1], (EventEncoding{"armv8_cortex_a76", true, 9, {code, 0, 0}}));
    EXPECT_TRUE(e->note.empty()) << e->note;
  }
}

TEST(PerfResolver, EventListedByOneClusterOnlyIsNoted) {
  const auto dir = tokscope::testing::fresh_test_dir();
  make_pmu(dir, "little", 8, "0-3", {});
  make_pmu(dir, "big", 9, "4-7", {{"only_big", "event=0x00c0"}});
  EventResolver resolver(dir);
  auto e = resolver.resolve("only_big");
  ASSERT_TRUE(e.ok()) << e.error().message;
  ASSERT_EQ(e->encodings.size(), 1U);
  EXPECT_EQ(e->encodings[0], (EventEncoding{"big", true, 9, {0xc0, 0, 0}}));
  EXPECT_NE(e->note.find("not counted on little"), std::string::npos);
  fs::remove_all(dir);
}

TEST(PerfResolver, EventOfAPmuWithoutCpusFile) {
  // x86's "cpu" PMU, or an ARM kernel whose PMU has no "cpus" file: found there, opened once.
  const auto dir = tokscope::testing::fresh_test_dir();
  const fs::path cpu = dir / "sys/bus/event_source/devices/cpu";
  write_file(cpu / "type", "4\n");
  write_file(cpu / "format/event", "config:0-7\n");
  write_file(cpu / "format/umask", "config:8-15\n");
  write_file(cpu / "events/mem-loads", "event=0xcd,umask=0x1\n");
  EventResolver resolver(dir);
  EXPECT_TRUE(resolver.cpu_pmu_list().empty());
  auto e = resolver.resolve("mem-loads");
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->encodings, (std::vector<EventEncoding>{{"cpu", false, 4, {0x1cd, 0, 0}}}));
  fs::remove_all(dir);
}

TEST(PerfResolver, RawCodes) {
  EventResolver rk3588(fixture("rk3588"));
  auto e = rk3588.resolve("r17");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->source, "raw");
  ASSERT_EQ(e->encodings.size(), 2U);
  EXPECT_EQ(e->encodings[0], (EventEncoding{"armv8_cortex_a55", true, 8, {0x17, 0, 0}}));
  EXPECT_EQ(e->encodings[1], (EventEncoding{"armv8_cortex_a76", true, 9, {0x17, 0, 0}}));
  EventResolver bare(PmuList{});
  EXPECT_EQ(bare.resolve("r1B")->encodings,
            (std::vector<EventEncoding>{{"", false, kTypeRaw, {0x1b, 0, 0}}}));
}

TEST(PerfResolver, ArmEventOnAMachineWithoutArmPmuIsUnavailableNotAnError) {
  EventResolver bare(PmuList{});
  auto e = bare.resolve("l2d_cache_refill");
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_TRUE(e->encodings.empty());
  EXPECT_EQ(e->unavailable.rfind("unavailable: ", 0), 0U);
  EXPECT_NE(e->unavailable.find("ARMv8"), std::string::npos);
  EXPECT_NE(e->unavailable.find("CPU PMUs: none"), std::string::npos);
}

TEST(PerfResolver, LibpfmNamesForGenericPerfEvents) {
  EventResolver bare(PmuList{});
  auto e = bare.resolve("perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS");
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->source.rfind("libpfm perf::", 0), 0U) << e->source;
  EXPECT_EQ(e->encodings, (std::vector<EventEncoding>{{"", false, kTypeHwCache, {0x10000, 0, 0}}}));

  auto sw = bare.resolve("perf::PERF_COUNT_SW_PAGE_FAULTS");
  ASSERT_TRUE(sw.ok()) << sw.error().message;
  EXPECT_TRUE(sw->software);
  EXPECT_EQ(sw->encodings, (std::vector<EventEncoding>{{"", false, kTypeSoftware, {2, 0, 0}}}));

  // On big.LITTLE a libpfm hardware event is opened per cluster with the extended type.
  EventResolver rk3588(fixture("rk3588"));
  auto split = rk3588.resolve("perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS");
  ASSERT_TRUE(split.ok());
  ASSERT_EQ(split->encodings.size(), 2U);
  EXPECT_EQ(split->encodings[1].words.config, (std::uint64_t{9} << 32) | 0x10000);
}

TEST(PerfResolver, LibpfmNameOfAPmuThisLibpfmCannotEncodeIsUnavailable) {
  // Debian bookworm's libpfm 4.13 has no Cortex-A76 table; a newer libpfm on an A76 board
  // encodes it (PERF_TYPE_RAW, 0x17), which then opens once per CPU PMU.
  EventResolver bare(PmuList{});
  auto e = bare.resolve("arm_ac76::L2D_CACHE_REFILL");
  ASSERT_TRUE(e.ok()) << e.error().message;
  if (e->unavailable.empty()) {
    ASSERT_EQ(e->encodings.size(), 1U);
    EXPECT_EQ(e->encodings[0].words.config, 0x17U);
  } else {
    EXPECT_TRUE(e->encodings.empty());
    EXPECT_NE(e->unavailable.find("libpfm"), std::string::npos) << e->unavailable;
    EXPECT_NE(e->unavailable.find("l2d_cache_refill"), std::string::npos) << e->unavailable;
  }
}

TEST(PerfResolver, UnknownNameIsAUsageErrorWithExamples) {
  EventResolver resolver(fixture("rk3588"));
  for (const char* bad : {"instructionz", "l2d_cache_refil", "", "bogus event", "../../etc"}) {
    auto e = resolver.resolve(bad);
    ASSERT_FALSE(e.ok()) << bad;
    EXPECT_EQ(e.error().kind, ErrorKind::kUsage);
    EXPECT_NE(e.error().message.find("unknown counter event"), std::string::npos);
    EXPECT_NE(e.error().message.find("Examples: instructions"), std::string::npos);
    EXPECT_NE(e.error().message.find("armv8_cortex_a55, armv8_cortex_a76"), std::string::npos);
  }
}

TEST(PerfResolver, EveryExampleNameResolvesOrIsUnavailable) {
  EventResolver bare(PmuList{});
  EventResolver rk3588(fixture("rk3588"));
  for (const auto& name : example_event_names()) {
    for (auto* resolver : {&bare, &rk3588}) {
      auto e = resolver->resolve(name);
      ASSERT_TRUE(e.ok()) << name << ": " << e.error().message;
      EXPECT_TRUE(!e->encodings.empty() || !e->unavailable.empty()) << name;
    }
  }
}

}  // namespace
}  // namespace tokscope::platform::perf
