#include "platform/lock/lock_journal.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include "common/test_dir.hpp"
#include "platform/lock/sysfs_access.hpp"
#include "platform/lock_fixture.hpp"

namespace tokscope::platform::lock {
namespace {

namespace fs = std::filesystem;
using testing::make_rk3588_lock_tree;
using testing::read_lock_file;
using testing::snapshot_tree;
using testing::write_lock_file;

constexpr std::int64_t kDeadPid = 99999999;  // above any pid_max: never a live process
const std::string kP4Gov = "sys/devices/system/cpu/cpufreq/policy4/scaling_governor";
const std::string kDmcGov = "sys/class/devfreq/dmc/governor";
const std::string kDmcSet = "sys/class/devfreq/dmc/userspace/set_freq";

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

// A journal as a killed `tokscope lock` leaves it: policy4 → performance, dmc → userspace.
LockJournal crashed_journal(const fs::path& root) {
  LockJournal j;
  j.sysfs_root = fs::canonical(root).string();
  j.pid = kDeadPid;
  j.boot_id = current_boot_id();
  j.started_unix_s = 1700000000;
  j.command = "tokscope lock";
  j.steps = {LockStep{kP4Gov, "schedutil", "performance", true},
             LockStep{kDmcGov, "dmc_ondemand", "userspace", true},
             LockStep{kDmcSet, "0", "2112000000", false}};
  return j;
}

// Applies the journal's writes to the fixture, as the killed process had.
void apply(const fs::path& root, const LockJournal& j) {
  auto sysfs = SysfsRoot::open(root);
  ASSERT_TRUE(sysfs.ok());
  for (const auto& s : j.steps) {
    if (s.value) {
      ASSERT_TRUE(sysfs->write(s.file, *s.value, "t").ok());
    }
  }
}

TEST(LockJournal, StateDirFollowsXdgThenHome) {
  EXPECT_EQ(state_dir_from("/x/state", "/home/u"), fs::path("/x/state/tokscope"));
  EXPECT_EQ(state_dir_from("", "/home/u"), fs::path("/home/u/.local/state/tokscope"));
  EXPECT_EQ(state_dir_from(nullptr, "/root"), fs::path("/root/.local/state/tokscope"));
  EXPECT_FALSE(state_dir_from(nullptr, "").has_value());
}

TEST(LockJournal, AtomicWriteRoundTrips) {
  const auto dir = testing::fresh_test_dir();
  const auto root = make_rk3588_lock_tree(dir);
  const auto file = dir / "state" / "deep" / "lock-journal.json";
  const LockJournal j = crashed_journal(root);
  ASSERT_TRUE(write_journal(file, j).ok());
  // Only the journal itself: the temporary file was renamed away.
  std::size_t entries = 0;
  for (const auto& e : fs::directory_iterator(file.parent_path())) {
    ++entries;
    EXPECT_EQ(e.path().filename(), "lock-journal.json");
  }
  EXPECT_EQ(entries, 1U);
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600U);

  auto back = read_journal(file);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_TRUE(back->has_value());
  const LockJournal& r = **back;
  EXPECT_EQ(r.sysfs_root, j.sysfs_root);
  EXPECT_EQ(r.pid, kDeadPid);
  EXPECT_EQ(r.started_unix_s, 1700000000);
  EXPECT_EQ(r.command, "tokscope lock");
  ASSERT_EQ(r.steps.size(), 3U);
  EXPECT_EQ(r.steps[1].file, kDmcGov);
  EXPECT_EQ(r.steps[1].previous, "dmc_ondemand");
  EXPECT_EQ(r.steps[1].value, "userspace");
  EXPECT_FALSE(r.steps[2].restore);

  // Replacing it is atomic too.
  LockJournal other = j;
  other.pid = 42;
  ASSERT_TRUE(write_journal(file, other).ok());
  EXPECT_EQ((*read_journal(file))->pid, 42);
}

TEST(LockJournal, AbsentAndMalformedJournals) {
  const auto dir = testing::fresh_test_dir();
  auto absent = read_journal(dir / "none.json");
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent->has_value());

  for (const char* bad : {"{not json", "[]", R"({"schema":"other"})",
                          R"({"schema":"tokscope.lock-journal/1","pid":"x"})",
                          R"({"schema":"tokscope.lock-journal/1","sysfs_root":"/","pid":1,
                              "steps":[{"file":"a"}]})"}) {
    write_lock_file(dir / "bad.json", bad);
    auto r = read_journal(dir / "bad.json");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().kind, ErrorKind::kInput);
    EXPECT_TRUE(has(r.error().message, "bad.json")) << r.error().message;
  }
}

TEST(LockJournal, RestoreAfterCrashBringsBackTheOriginalsAndRemovesIt) {
  const auto dir = testing::fresh_test_dir();
  const auto root = make_rk3588_lock_tree(dir);
  const auto original = snapshot_tree(root, false);
  const auto file = dir / "lock-journal.json";
  const LockJournal j = crashed_journal(root);
  ASSERT_TRUE(write_journal(file, j).ok());
  apply(root, j);
  ASSERT_EQ(read_lock_file(root / kDmcGov), "userspace");

  auto report = restore_from_journal(file, root);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(snapshot_tree(root, false), original);
  EXPECT_FALSE(fs::exists(file));
  EXPECT_TRUE((*report)["found"].get<bool>());
  EXPECT_EQ((*report)["pid"], kDeadPid);
  ASSERT_EQ((*report)["restored"].size(), 2U);
  // Reverse order of the writes: dmc first, then policy4.
  EXPECT_EQ((*report)["restored"][0]["file"], kDmcGov);
  EXPECT_EQ((*report)["restored"][0]["from"], "userspace");
  EXPECT_EQ((*report)["restored"][1]["file"], kP4Gov);

  // Nothing left: a second restore finds nothing and is fine.
  auto again = restore_from_journal(file, root);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE((*again)["found"].get<bool>());
}

TEST(LockJournal, RestoreSkipsValuesAlreadyBack) {
  const auto dir = testing::fresh_test_dir();
  const auto root = make_rk3588_lock_tree(dir);
  const auto file = dir / "j.json";
  ASSERT_TRUE(write_journal(file, crashed_journal(root)).ok());  // killed before any write
  auto report = restore_from_journal(file, root);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE((*report)["restored"].empty());
  EXPECT_EQ((*report)["unchanged"], 2);
}

TEST(LockJournal, RefusesAJournalOfAnotherRoot) {
  const auto dir = testing::fresh_test_dir();
  const auto root = make_rk3588_lock_tree(dir);
  fs::create_directories(dir / "other");
  const auto file = dir / "j.json";
  ASSERT_TRUE(write_journal(file, crashed_journal(root)).ok());
  auto r = restore_from_journal(file, dir / "other");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kUsage);
  EXPECT_TRUE(has(r.error().message, "was written for --sysfs-root")) << r.error().message;
  EXPECT_TRUE(fs::exists(file));
}

TEST(LockJournal, RefusesWhileTheLockingProcessRunsUnlessForced) {
  const auto dir = testing::fresh_test_dir();
  const auto root = make_rk3588_lock_tree(dir);
  const auto file = dir / "j.json";
  LockJournal j = crashed_journal(root);
  j.pid = ::getpid();
  ASSERT_TRUE(write_journal(file, j).ok());
  apply(root, j);
  auto refused = restore_from_journal(file, root);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, ErrorKind::kUsage);
  EXPECT_TRUE(has(refused.error().message, "held by a running tokscope"))
      << refused.error().message;
  EXPECT_EQ(read_lock_file(root / kDmcGov), "userspace");

  RestoreOptions force;
  force.force = true;
  auto forced = restore_from_journal(file, root, force);
  ASSERT_TRUE(forced.ok()) << forced.error().message;
  EXPECT_EQ(read_lock_file(root / kDmcGov), "dmc_ondemand");
}

TEST(LockJournal, TamperedStepsAreRefusedOthersStillRestored) {
  const auto dir = testing::fresh_test_dir();
  const auto root = make_rk3588_lock_tree(dir);
  write_lock_file(dir / "victim", "keep\n");
  const auto file = dir / "j.json";
  LockJournal j = crashed_journal(root);
  apply(root, j);
  j.steps.push_back(LockStep{"../victim", "x", "y", true});                       // leaves root
  j.steps.push_back(LockStep{"sys/class/devfreq/dmc/cur_freq", "1", "2", true});  // not a lock file
  j.steps.push_back(LockStep{kP4Gov, "a; rm -rf /", "performance", true});        // odd value
  ASSERT_TRUE(write_journal(file, j).ok());
  auto r = restore_from_journal(file, root);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(read_lock_file(dir / "victim"), "keep");
  EXPECT_NE(read_lock_file(root / "sys/class/devfreq/dmc/cur_freq"), "1");
  EXPECT_TRUE(fs::exists(file));  // kept: not everything was restored
  // The honest steps were restored all the same.
  EXPECT_EQ(read_lock_file(root / kDmcGov), "dmc_ondemand");
}

TEST(LockJournal, HolderAliveRules) {
  LockJournal j;
  j.boot_id = current_boot_id();
  j.pid = 0;
  EXPECT_FALSE(holder_alive(j));
  j.pid = ::getpid();
  EXPECT_TRUE(holder_alive(j));  // this process
  j.pid = kDeadPid;
  EXPECT_FALSE(holder_alive(j));

  // A live process that is not tokscope (pid reused) does not hold the lock.
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  j.pid = child;
  EXPECT_FALSE(holder_alive(j));
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);

  // Another boot: whatever runs under that pid now is not the lock's holder.
  j.pid = ::getppid();
  j.boot_id = "another-boot";
  if (!current_boot_id().empty()) {
    EXPECT_FALSE(holder_alive(j));
  }
}

}  // namespace
}  // namespace tokscope::platform::lock
