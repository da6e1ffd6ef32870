#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <iostream>

#include "common/test_dir.hpp"
#include "platform/lock/frequency_lock.hpp"
#include "platform/lock_fixture.hpp"

namespace tokscope::platform::lock {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::make_rk3588_lock_tree;
using testing::read_lock_file;
using testing::snapshot_tree;
using testing::write_lock_file;

const std::string kP4 = "sys/devices/system/cpu/cpufreq/policy4";
const std::string kDmc = "sys/class/devfreq/dmc";
const std::string kGpu = "sys/class/devfreq/fb000000.gpu";

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

struct Tree {
  fs::path dir;
  fs::path root;
  fs::path journal;
};

Tree tree() {
  Tree t;
  t.dir = testing::fresh_test_dir();
  t.root = make_rk3588_lock_tree(t.dir);
  t.journal = t.dir / "state" / "lock-journal.json";
  return t;
}

LockRequest request_for(const Tree& t) {
  LockRequest r;
  r.sysfs_root = t.root;
  r.journal = t.journal;
  return r;
}

const json* channel(const json& report, const std::string& name) {
  for (const auto& c : report["channels"]) {
    if (c["name"] == name) return &c;
  }
  return nullptr;
}

TEST(FrequencyLock, LocksReadsBackAndRestoresWhenDestroyed) {
  const Tree t = tree();
  const auto original = snapshot_tree(t.root, false);
  {
    auto lock = FrequencyLock::acquire(request_for(t));
    ASSERT_TRUE(lock.ok()) << lock.error().message;
    EXPECT_TRUE(lock->active());
    EXPECT_TRUE(lock->held());
    EXPECT_TRUE(fs::exists(t.journal));  // on disk while the lock is held
    EXPECT_EQ(read_lock_file(t.root / kP4 / "scaling_governor"), "performance");
    EXPECT_EQ(read_lock_file(t.root / kDmc / "governor"), "userspace");
    EXPECT_EQ(read_lock_file(t.root / kDmc / "userspace/set_freq"), "2112000000");
    EXPECT_EQ(read_lock_file(t.root / kGpu / "governor"), "performance");
    const json report = lock->report();
    EXPECT_EQ(report["schema"], kLockReportSchema);
    EXPECT_TRUE(report["held"].get<bool>());
    EXPECT_TRUE(report["recovered"].is_null());
    EXPECT_EQ(report["channels"].size(), 6U);
    EXPECT_EQ(report["writes"].size(), 7U);
    for (const auto& w : report["writes"]) EXPECT_TRUE(w["ok"].get<bool>()) << w.dump();
    const json* dmc = channel(report, "devfreq.dmc");
    ASSERT_NE(dmc, nullptr);
    EXPECT_EQ((*dmc)["locked_freq"], 2112000000U);
    EXPECT_EQ((*dmc)["cur_freq"], 2112000000U);
    EXPECT_EQ((*dmc)["previous_governor"], "dmc_ondemand");
  }
  EXPECT_EQ(snapshot_tree(t.root, false), original);
  EXPECT_FALSE(fs::exists(t.journal));
}

TEST(FrequencyLock, ReleaseRestoresInReverseOrderOnce) {
  const Tree t = tree();
  auto lock = FrequencyLock::acquire(request_for(t));
  ASSERT_TRUE(lock.ok()) << lock.error().message;
  ASSERT_TRUE(lock->release().ok());
  EXPECT_FALSE(lock->active());
  EXPECT_TRUE(lock->release().ok());  // idempotent
  const json report = lock->report();
  EXPECT_TRUE(report["released"].get<bool>());
  const json& restored = report["release"]["restored"];
  ASSERT_EQ(restored.size(), 6U);  // 6 governors; set_freq goes with the dmc governor
  EXPECT_EQ(restored[0]["file"], kGpu + "/governor");  // the last write is undone first
  EXPECT_EQ(restored[5]["file"], "sys/devices/system/cpu/cpufreq/policy0/scaling_governor");
  EXPECT_TRUE(report["release"]["journal_removed"].get<bool>());
}

TEST(FrequencyLock, AFrequencyThatDoesNotHoldIsReported) {
  const Tree t = tree();
  LockRequest r = request_for(t);
  r.ddr_freq_hz = 1560000000;  // the fixture's cur_freq stays at 2112000000
  r.cpu_policy_freq_khz = {{"policy4", 2352000}};
  auto lock = FrequencyLock::acquire(r);
  ASSERT_TRUE(lock.ok()) << lock.error().message;
  EXPECT_FALSE(lock->held());
  const json report = lock->report();
  const json* dmc = channel(report, "devfreq.dmc");
  EXPECT_FALSE((*dmc)["held"].get<bool>());
  EXPECT_TRUE(has((*dmc)["reason"], "cur_freq reads 2112000000 Hz, locked to 1560000000 Hz"))
      << (*dmc)["reason"];
  const json* p4 = channel(report, "cpufreq.policy4");
  EXPECT_EQ((*p4)["mode"], "userspace");
  EXPECT_TRUE((*p4)["held"].get<bool>());
  EXPECT_EQ(read_lock_file(t.root / kP4 / "scaling_setspeed"), "2352000");
}

TEST(FrequencyLock, LockedChannelsForTheSampler) {
  const Tree t = tree();
  LockRequest r = request_for(t);
  r.npu_freq_hz = 1000000000;
  auto lock = FrequencyLock::acquire(r);
  ASSERT_TRUE(lock.ok()) << lock.error().message;
  const auto channels = lock->locked_channels();
  ASSERT_EQ(channels.size(), 6U);
  EXPECT_EQ(channels[1].channel, "cpufreq.policy4.cur_khz");
  EXPECT_EQ(channels[1].cur_file, kP4 + "/scaling_cur_freq");
  EXPECT_EQ(channels[1].locked_freq, 2352000U);
  EXPECT_EQ(channels[1].unit, "kHz");
  EXPECT_EQ(channels[3].channel, "devfreq.dmc.cur_hz");
  EXPECT_EQ(channels[3].cur_file, kDmc + "/cur_freq");
  EXPECT_EQ(channels[3].locked_freq, 2112000000U);
  EXPECT_EQ(channels[4].channel, "devfreq.fdab0000.npu.cur_hz");
  EXPECT_EQ(channels[4].locked_freq, 1000000000U);
}

TEST(FrequencyLock, FrequencyMatchesWithinOnePercent) {
  EXPECT_TRUE(frequency_matches(2112000000, 2112000000));
  EXPECT_TRUE(frequency_matches(2100000000, 2112000000));
  EXPECT_FALSE(frequency_matches(1560000000, 2112000000));
  EXPECT_FALSE(frequency_matches(2200000000, 2112000000));
  EXPECT_TRUE(frequency_matches(0, 0));
}

TEST(FrequencyLock, KeepLeavesItLockedForUnlock) {
  const Tree t = tree();
  const auto original = snapshot_tree(t.root, false);
  {
    auto lock = FrequencyLock::acquire(request_for(t));
    ASSERT_TRUE(lock.ok());
    lock->keep();
    EXPECT_FALSE(lock->active());
    EXPECT_TRUE(lock->report()["kept"].get<bool>());
  }
  EXPECT_EQ(read_lock_file(t.root / kDmc / "governor"), "userspace");
  ASSERT_TRUE(fs::exists(t.journal));
  RestoreOptions force;  // the journal names this (still running) process
  force.force = true;
  auto restored = restore_from_journal(t.journal, t.root, force);
  ASSERT_TRUE(restored.ok()) << restored.error().message;
  EXPECT_EQ(snapshot_tree(t.root, false), original);
}

TEST(FrequencyLock, LeftOverJournalIsRestoredFirst) {
  const Tree t = tree();
  const auto original = snapshot_tree(t.root, false);
  // A killed lock: journal with a dead pid, values still locked.
  LockJournal j;
  j.sysfs_root = fs::canonical(t.root).string();
  j.pid = 99999999;
  j.command = "tokscope lock";
  j.steps = {LockStep{kDmc + "/governor", "dmc_ondemand", "userspace", true},
             LockStep{kDmc + "/userspace/set_freq", "0", "1068000000", false}};
  ASSERT_TRUE(write_journal(t.journal, j).ok());
  write_lock_file(t.root / kDmc / "governor", "userspace\n");
  write_lock_file(t.root / kDmc / "userspace/set_freq", "1068000000\n");

  auto lock = FrequencyLock::acquire(request_for(t));
  ASSERT_TRUE(lock.ok()) << lock.error().message;
  const json report = lock->report();
  ASSERT_TRUE(report["recovered"].is_object());
  EXPECT_EQ(report["recovered"]["pid"], 99999999);
  // The previous values are the real originals, not the crashed lock's values.
  EXPECT_EQ((*channel(report, "devfreq.dmc"))["previous_governor"], "dmc_ondemand");
  ASSERT_TRUE(lock->release().ok());
  EXPECT_EQ(read_lock_file(t.root / kDmc / "governor"), "dmc_ondemand");
  EXPECT_EQ(snapshot_tree(t.root, false), original);
}

TEST(FrequencyLock, SecondLockWhileHeldIsRefused) {
  const Tree t = tree();
  auto first = FrequencyLock::acquire(request_for(t));
  ASSERT_TRUE(first.ok());
  auto second = FrequencyLock::acquire(request_for(t));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().kind, ErrorKind::kUsage);
  EXPECT_TRUE(has(second.error().message, "held by a running tokscope")) << second.error().message;
  EXPECT_TRUE(first->active());
  EXPECT_EQ(read_lock_file(t.root / kDmc / "governor"), "userspace");
}

TEST(FrequencyLock, RefusedRequestWritesNothing) {
  const Tree t = tree();
  const auto original = snapshot_tree(t.root);
  LockRequest r = request_for(t);
  r.ddr_freq_hz = 211200000;
  auto lock = FrequencyLock::acquire(r);
  ASSERT_FALSE(lock.ok());
  EXPECT_EQ(lock.error().kind, ErrorKind::kUsage);
  EXPECT_TRUE(has(lock.error().message, "did you mean 2112000000?"));
  EXPECT_EQ(snapshot_tree(t.root), original);
  EXPECT_FALSE(fs::exists(t.journal));
}

TEST(FrequencyLock, AFailedWriteRollsBackTheOnesBefore) {
  const Tree t = tree();
  // The GPU's set_freq is the last write; make it fail (a directory cannot be written).
  const auto set_freq = t.root /
                        "sys/devices/platform/fb000000.gpu/devfreq/fb000000.gpu/"
                        "userspace/set_freq";
  fs::remove(set_freq);
  fs::create_directories(set_freq);
  const auto before = snapshot_tree(t.root, false);
  LockRequest r = request_for(t);
  r.gpu_freq_hz = 1000000000;
  auto lock = FrequencyLock::acquire(r);
  ASSERT_FALSE(lock.ok());
  EXPECT_TRUE(has(lock.error().message, "were restored")) << lock.error().message;
  EXPECT_EQ(snapshot_tree(t.root, false), before);
  EXPECT_FALSE(fs::exists(t.journal));
}

TEST(FrequencyLock, MoveTransfersTheLock) {
  const Tree t = tree();
  auto lock = FrequencyLock::acquire(request_for(t));
  ASSERT_TRUE(lock.ok());
  FrequencyLock owner = std::move(*lock);
  EXPECT_TRUE(owner.active());
  EXPECT_FALSE(lock->active());  // NOLINT(bugprone-use-after-move): checking the moved-from state
  EXPECT_TRUE(lock->release().ok());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(read_lock_file(t.root / kDmc / "governor"), "userspace");
  ASSERT_TRUE(owner.release().ok());
  EXPECT_EQ(read_lock_file(t.root / kDmc / "governor"), "dmc_ondemand");
}

TEST(FrequencyLock, DescribeWritesNothing) {
  const Tree t = tree();
  const auto original = snapshot_tree(t.root);
  auto doc = describe_lock(request_for(t));
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  EXPECT_TRUE((*doc)["dry_run"].get<bool>());
  EXPECT_TRUE((*doc)["leftover_journal"].is_null());
  EXPECT_EQ((*doc)["channels"].size(), 6U);
  EXPECT_EQ(snapshot_tree(t.root), original);
  EXPECT_FALSE(fs::exists(t.journal));
}

// Not root: the lock explains it, before writing anything. As root, the child drops to nobody.
TEST(FrequencyLockPermission, NotRootIsToldToUseSudoAndNothingIsWritten) {
  const Tree t = tree();
  const auto original = snapshot_tree(t.root);
  if (::geteuid() != 0) {
    ::chmod((t.root / kP4 / "scaling_governor").c_str(), 0444);
  }
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(3);
        auto lock = FrequencyLock::acquire(request_for(t));
        if (lock.ok()) ::_exit(4);
        std::cerr << lock.error().message << std::endl;
        ::_exit(lock.error().kind == ErrorKind::kUsage ? 0 : 5);
      },
      ::testing::ExitedWithCode(0), "run as root: sudo tokscope lock");
  EXPECT_EQ(snapshot_tree(t.root), original);
  EXPECT_FALSE(fs::exists(t.journal));
}

}  // namespace
}  // namespace tokscope::platform::lock
