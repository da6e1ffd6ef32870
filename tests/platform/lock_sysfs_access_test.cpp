#include <gtest/gtest.h>

#include <cerrno>

#include "common/test_dir.hpp"
#include "platform/lock/sysfs_access.hpp"
#include "platform/lock_fixture.hpp"

namespace tokscope::platform::lock {
namespace {

namespace fs = std::filesystem;
using testing::make_rk3588_lock_tree;
using testing::read_lock_file;
using testing::write_lock_file;

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

TEST(LockSysfsAccess, OpenNeedsAnExistingDirectory) {
  const auto dir = testing::fresh_test_dir();
  auto missing = SysfsRoot::open(dir / "nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::kUsage);
  EXPECT_TRUE(has(missing.error().message, "--sysfs-root"));
  write_lock_file(dir / "file", "x");
  EXPECT_FALSE(SysfsRoot::open(dir / "file").ok());
}

TEST(LockSysfsAccess, FollowsSymlinksThatStayInsideTheRoot) {
  const auto root_dir = make_rk3588_lock_tree(testing::fresh_test_dir());
  auto root = SysfsRoot::open(root_dir);
  ASSERT_TRUE(root.ok());
  // sys/class/devfreq/dmc → ../../devices/platform/dmc/devfreq/dmc, as on a board.
  auto full = root->resolve("sys/class/devfreq/dmc/governor");
  ASSERT_TRUE(full.ok()) << full.error().message;
  EXPECT_EQ(*full, fs::canonical(root_dir) / "sys/devices/platform/dmc/devfreq/dmc/governor");
  EXPECT_EQ(*root->read("sys/class/devfreq/dmc/governor"), "dmc_ondemand");
  EXPECT_TRUE(root->exists("sys/class/devfreq/dmc/cur_freq"));
  EXPECT_FALSE(root->exists("sys/class/devfreq/dmc/nope"));
  auto names = root->list("sys/class/devfreq");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"dmc", "fb000000.gpu", "fdab0000.npu"}));
}

TEST(LockSysfsAccess, RefusesPathsLeavingTheRoot) {
  const auto dir = testing::fresh_test_dir();
  const auto root_dir = make_rk3588_lock_tree(dir);
  write_lock_file(dir / "outside" / "governor", "secret\n");
  fs::create_directory_symlink("../../../../outside", root_dir / "sys/class/devfreq/evil.gpu");
  auto root = SysfsRoot::open(root_dir);
  ASSERT_TRUE(root.ok());
  for (const char* bad : {"../outside/governor", "sys/../../outside/governor", "/etc/passwd",
                          "sys/class/devfreq/evil.gpu/governor", ""}) {
    auto r = root->resolve(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().kind, ErrorKind::kUsage) << bad;
    EXPECT_TRUE(has(r.error().message, "outside the sysfs root")) << r.error().message;
  }
  EXPECT_FALSE(root->read("sys/class/devfreq/evil.gpu/governor").ok());
  auto w = root->write("sys/class/devfreq/evil.gpu/governor", "performance", "tokscope lock");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().kind, ErrorKind::kUsage);
  EXPECT_EQ(read_lock_file(dir / "outside" / "governor"), "secret");
}

TEST(LockSysfsAccess, WriteIsEchoLikeAndNeverCreatesFiles) {
  const auto root_dir = make_rk3588_lock_tree(testing::fresh_test_dir());
  auto root = SysfsRoot::open(root_dir);
  ASSERT_TRUE(root.ok());
  const std::string gov = "sys/devices/system/cpu/cpufreq/policy4/scaling_governor";
  ASSERT_TRUE(root->write(gov, "performance", "tokscope lock").ok());
  std::string raw;
  {
    std::ifstream in(root_dir / gov);
    std::getline(in, raw, '\0');
  }
  EXPECT_EQ(raw, "performance\n");  // truncated, one trailing newline, as `echo` writes
  EXPECT_EQ(*root->read(gov), "performance");

  auto created = root->write("sys/devices/system/cpu/cpufreq/policy4/new_file", "1", "x");
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.error().kind, ErrorKind::kUnavailable);
  EXPECT_FALSE(fs::exists(root_dir / "sys/devices/system/cpu/cpufreq/policy4/new_file"));
}

TEST(LockSysfsAccess, WriteErrorsExplainRootAndDriverRefusals) {
  for (const int err : {EACCES, EPERM}) {
    const Error e =
        write_error(err, "/sys/class/devfreq/dmc/governor", "userspace", "tokscope lock");
    EXPECT_EQ(e.kind, ErrorKind::kUsage);
    EXPECT_TRUE(has(e.message, "run as root: sudo tokscope lock ...")) << e.message;
    EXPECT_TRUE(has(e.message, "/sys/class/devfreq/dmc/governor")) << e.message;
  }
  const Error inval = write_error(EINVAL, "f", "userspace", "tokscope lock");
  EXPECT_EQ(inval.kind, ErrorKind::kUnavailable);
  EXPECT_TRUE(has(inval.message, "refused 'userspace'")) << inval.message;
  EXPECT_EQ(write_error(EIO, "f", "1", "tokscope lock").kind, ErrorKind::kIo);
}

TEST(LockSysfsAccess, Trim) {
  EXPECT_EQ(trim(" schedutil \n"), "schedutil");
  EXPECT_EQ(trim("\n\n"), "");
  EXPECT_EQ(trim("408000 600000 \n"), "408000 600000");
}

}  // namespace
}  // namespace tokscope::platform::lock
