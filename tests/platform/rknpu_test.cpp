#include "platform/sysfs/rknpu.hpp"

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

TEST(ParseRknpuLoad, ThreeCoreForm) {
  auto cores = parse_rknpu_load("NPU load:  Core0: 12%, Core1:  0%, Core2:  0%,\n");
  ASSERT_TRUE(cores.ok()) << cores.error().message;
  ASSERT_EQ(cores->size(), 3U);
  EXPECT_EQ((*cores)[0].core, 0);
  EXPECT_EQ((*cores)[0].load_pct, 12.0);
  EXPECT_EQ((*cores)[1].core, 1);
  EXPECT_EQ((*cores)[1].load_pct, 0.0);
  EXPECT_EQ((*cores)[2].core, 2);
  auto full = parse_rknpu_load("NPU load:  Core0:100%, Core1: 99%, Core2:  7%,");
  ASSERT_TRUE(full.ok());
  EXPECT_EQ((*full)[0].load_pct, 100.0);
  EXPECT_EQ((*full)[1].load_pct, 99.0);
}

TEST(ParseRknpuLoad, SingleCoreFormAndBlankZero) {
  auto single = parse_rknpu_load("NPU load: 35%\n");
  ASSERT_TRUE(single.ok());
  ASSERT_EQ(single->size(), 1U);
  EXPECT_EQ((*single)[0].core, 0);
  EXPECT_EQ((*single)[0].load_pct, 35.0);
  EXPECT_EQ(parse_rknpu_load("NPU load:  0%").value()[0].load_pct, 0.0);
  EXPECT_EQ(parse_rknpu_load("NPU load:   %").value()[0].load_pct, 0.0);
  EXPECT_EQ(parse_rknpu_load("NPU load:  Core0:   %, Core1: 5%,").value()[0].load_pct, 0.0);
}

TEST(ParseRknpuLoad, RejectsOtherText) {
  for (const char* bad :
       {"", "NPU load:", "NPU load: \n", "GPU load: 35%", "NPU load: 35", "NPU load: 101%",
        "NPU load: abc%", "NPU load:  Core0: 12%,, Core1: 0%,", "NPU load: 35%, 36%",
        "NPU load:  CoreX: 12%,", "NPU load:  Core0 12%,", "NPU load:  Core0: 12%, 5%,"}) {
    auto r = parse_rknpu_load(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().kind, ErrorKind::kInput);
  }
}

TEST(ParseRknpuLoad, IntoBufferWithoutRoomFails) {
  RknpuCoreLoad two[2];
  EXPECT_EQ(parse_rknpu_load_into("NPU load:  Core0: 1%, Core1: 2%,", two), 2U);
  EXPECT_FALSE(parse_rknpu_load_into("NPU load:  Core0: 1%, Core1: 2%, Core2: 3%,", two));
}

TEST(ReadRknpuLoad, Rk3588Debugfs) {
  const auto root = sysfs_fixture("rk3588");
  const auto state = read_rknpu_load(root);
  EXPECT_TRUE(state.unavailable.empty()) << joined(state.unavailable);
  EXPECT_EQ(state.file, root / "sys/kernel/debug/rknpu/load");
  ASSERT_EQ(state.cores.size(), 3U);
  EXPECT_EQ(state.cores[0].load_pct, 12.0);
}

TEST(ReadRknpuLoad, ProcfsFallback) {
  const auto root = fresh_test_dir();
  write_file(root / "proc/rknpu/load", "NPU load: 35%\n");
  const auto state = read_rknpu_load(root);
  EXPECT_TRUE(state.unavailable.empty()) << joined(state.unavailable);
  EXPECT_EQ(state.file, root / "proc/rknpu/load");
  ASSERT_EQ(state.cores.size(), 1U);
  EXPECT_EQ(state.cores[0].load_pct, 35.0);
}

TEST(ReadRknpuLoad, X86AndEmptyTreeNameEveryPathTried) {
  for (const auto& root : {sysfs_fixture("x86-laptop"), fresh_test_dir()}) {
    const auto state = read_rknpu_load(root);
    EXPECT_TRUE(state.cores.empty());
    EXPECT_TRUE(state.file.empty());
    EXPECT_TRUE(has_line(state.unavailable,
                         {"unavailable: rknpu load: ", "debug/rknpu/load", "proc/rknpu/load"}))
        << joined(state.unavailable);
  }
}

TEST(ReadRknpuLoad, Malformed) {
  const auto root = copy_sysfs_fixture("rk3588");
  const auto file = root / "sys/kernel/debug/rknpu/load";
  write_file(file, "busy\n");
  const auto state = read_rknpu_load(root);
  EXPECT_TRUE(state.cores.empty());
  EXPECT_TRUE(has_line(state.unavailable, {file.string(), "malformed", "NPU load", "\"busy\""}))
      << joined(state.unavailable);
}

}  // namespace
}  // namespace tokscope::platform
