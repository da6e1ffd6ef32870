#include "platform/sysfs/powercap.hpp"

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

TEST(RaplZones, NamesAndParents) {
  EXPECT_TRUE(is_rapl_zone("intel-rapl:0"));
  EXPECT_TRUE(is_rapl_zone("intel-rapl:0:1"));
  EXPECT_TRUE(is_rapl_zone("intel-rapl-mmio:0"));
  EXPECT_FALSE(is_rapl_zone("intel-rapl"));
  EXPECT_FALSE(is_rapl_zone("intel-rapl:"));
  EXPECT_FALSE(is_rapl_zone("dtpm"));
  EXPECT_EQ(rapl_parent_zone("intel-rapl:0:1"), "intel-rapl:0");
  EXPECT_EQ(rapl_parent_zone("intel-rapl:0"), "");
  EXPECT_EQ(rapl_parent_zone("intel-rapl-mmio:0"), "");
}

TEST(ReadPowercap, X86PackageAndSubdomains) {
  const auto state = read_powercap(sysfs_fixture("x86-laptop"));
  EXPECT_TRUE(state.unavailable.empty()) << joined(state.unavailable);
  ASSERT_EQ(state.domains.size(), 3U) << "the intel-rapl control directory is not a zone";
  const auto& pkg = state.domains[0];
  EXPECT_EQ(pkg.zone, "intel-rapl:0");
  EXPECT_EQ(pkg.parent_zone, "");
  EXPECT_EQ(pkg.name, "package-0");
  EXPECT_EQ(pkg.energy_uj, 262143000000U);
  EXPECT_EQ(pkg.max_energy_range_uj, 262143328850U);
  EXPECT_LT(*pkg.max_energy_range_uj - *pkg.energy_uj, 1000000U) << "near the wrap, on purpose";
  EXPECT_EQ(state.domains[1].zone, "intel-rapl:0:0");
  EXPECT_EQ(state.domains[1].parent_zone, "intel-rapl:0");
  EXPECT_EQ(state.domains[1].name, "core");
  EXPECT_EQ(state.domains[2].name, "uncore");
}

TEST(ReadPowercap, Rk3588AndEmptyTreeHaveNone) {
  for (const auto& root : {sysfs_fixture("rk3588"), fresh_test_dir()}) {
    const auto state = read_powercap(root);
    EXPECT_TRUE(state.domains.empty());
    EXPECT_TRUE(has_line(state.unavailable, {"unavailable: RAPL: "})) << joined(state.unavailable);
  }
  const auto root = fresh_test_dir();
  fs::create_directories(root / "sys/class/powercap/dtpm");
  const auto state = read_powercap(root);
  EXPECT_TRUE(state.domains.empty());
  EXPECT_TRUE(has_line(state.unavailable, {"no intel-rapl zone"}));
}

TEST(ReadPowercap, MalformedAndMissingEnergy) {
  const auto root = copy_sysfs_fixture("x86-laptop");
  const auto pkg = root / "sys/class/powercap/intel-rapl:0";
  write_file(pkg / "energy_uj", "-1\n");
  fs::remove(root / "sys/class/powercap/intel-rapl:0:0/max_energy_range_uj");
  const auto state = read_powercap(root);
  ASSERT_EQ(state.domains.size(), 3U);
  EXPECT_FALSE(state.domains[0].energy_uj.has_value());
  EXPECT_TRUE(state.domains[0].max_energy_range_uj.has_value());
  EXPECT_FALSE(state.domains[1].max_energy_range_uj.has_value());
  EXPECT_TRUE(has_line(state.unavailable,
                       {(pkg / "energy_uj").string(), "malformed", "microjoules", "\"-1\""}))
      << joined(state.unavailable);
  EXPECT_TRUE(has_line(state.unavailable, {"intel-rapl:0:0/max_energy_range_uj"}));
}

}  // namespace
}  // namespace tokscope::platform
