// Frequency locks through the real binary on a generated RK3588-shaped tree: a lock held by
// `tokscope lock --hold` is restored on SIGINT/SIGTERM, and after kill -9 by the next
// `tokscope lock` or `tokscope unlock`; bad frequencies and paths outside the root are refused
// with exit 2 and nothing written.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "platform/lock_fixture.hpp"
#include "process.hpp"

namespace tokscope::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kDmcGov = "sys/devices/platform/dmc/devfreq/dmc/governor";
const std::string kDmcSet = "sys/devices/platform/dmc/devfreq/dmc/userspace/set_freq";
const std::string kP0Gov = "sys/devices/system/cpu/cpufreq/policy0/scaling_governor";
const std::string kP4Set = "sys/devices/system/cpu/cpufreq/policy4/scaling_setspeed";
const std::string kNpuGov = "sys/devices/platform/fdab0000.npu/devfreq/fdab0000.npu/governor";

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

struct Board {
  fs::path dir;
  fs::path root;
  fs::path journal;
  std::map<std::string, std::string> original;  // without the userspace set files
};

Board board() {
  Board b;
  b.dir = fresh_dir();
  b.root = make_rk3588_lock_tree(b.dir);
  b.journal = b.dir / "state" / "lock-journal.json";
  b.original = snapshot_tree(b.root, false);
  return b;
}

std::vector<std::string> args(const Board& b, std::vector<std::string> extra) {
  std::vector<std::string> a = {"--sysfs-root", b.root.string(), "--lock-journal",
                                b.journal.string()};
  extra.insert(extra.end(), a.begin(), a.end());
  return extra;
}

// The fix_freq_rk3588.sh values: every channel under the userspace governor.
std::vector<std::string> hold_args(const Board& b) {
  return args(
      b, {"lock", "--hold", "--ddr-freq", "2112000000", "--npu-freq", "1000000000", "--gpu-freq",
          "1000000000", "--cpu-freq", "policy0=1800000,policy4=2352000,policy6=2352000"});
}

// Waits until the holding process reports it holds (every write done, journal on disk).
bool wait_for_hold(const fs::path& dir) {
  return wait_until([&] { return has(slurp(dir / "stderr"), "holding until"); },
                    std::chrono::seconds(20));
}

void expect_locked(const Board& b) {
  EXPECT_EQ(read_lock_file(b.root / kDmcGov), "userspace");
  EXPECT_EQ(read_lock_file(b.root / kDmcSet), "2112000000");
  EXPECT_EQ(read_lock_file(b.root / kP0Gov), "userspace");
  EXPECT_EQ(read_lock_file(b.root / kP4Set), "2352000");
  EXPECT_EQ(read_lock_file(b.root / kNpuGov), "userspace");
  EXPECT_TRUE(fs::exists(b.journal));
}

TEST(LockE2e, KillNineThenLockRestoresFirst) {
  const Board b = board();
  {
    Process p(hold_args(b), b.dir);
    ASSERT_TRUE(wait_for_hold(b.dir)) << slurp(b.dir / "stderr");
    expect_locked(b);
    p.signal(SIGKILL);
    EXPECT_EQ(p.wait().signal, SIGKILL);
  }
  expect_locked(b);  // kill -9 ran no restore: the journal is what remains

  const Finished again = run_tokscope(args(b, {"lock", "-o", "json"}), b.dir);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(has(again.err, "a lock left behind by pid")) << again.err;
  EXPECT_TRUE(has(again.err, "restored 6 value(s) first")) << again.err;  // the 6 governors
  const json report = json::parse(again.out);
  EXPECT_TRUE(report["recovered"]["found"].get<bool>());
  EXPECT_TRUE(report["held"].get<bool>());
  // Its own previous values are the board's originals, not the killed lock's.
  for (const auto& c : report["channels"]) EXPECT_NE(c["previous_governor"], "userspace");
  EXPECT_TRUE(report["released"].get<bool>());

  EXPECT_EQ(snapshot_tree(b.root, false), b.original);
  EXPECT_FALSE(fs::exists(b.journal));
}

TEST(LockE2e, KillNineThenUnlockRestores) {
  const Board b = board();
  {
    Process p(hold_args(b), b.dir);
    ASSERT_TRUE(wait_for_hold(b.dir)) << slurp(b.dir / "stderr");
    p.signal(SIGKILL);
    p.wait();
  }
  expect_locked(b);
  const Finished unlock = run_tokscope(args(b, {"unlock"}), b.dir);
  ASSERT_EQ(unlock.exit_code, 0) << unlock.err;
  EXPECT_TRUE(has(unlock.out, "Restored")) << unlock.out;
  EXPECT_TRUE(has(unlock.out, "journal removed")) << unlock.out;
  EXPECT_EQ(snapshot_tree(b.root, false), b.original);
  EXPECT_FALSE(fs::exists(b.journal));

  const Finished nothing = run_tokscope(args(b, {"unlock"}), b.dir);
  EXPECT_EQ(nothing.exit_code, 0) << nothing.err;
  EXPECT_TRUE(has(nothing.out, "Nothing to restore")) << nothing.out;
}

TEST(LockE2e, SigintAndSigtermRestore) {
  for (const int sig : {SIGINT, SIGTERM}) {
    const Board b = board();
    Process p(hold_args(b), b.dir);
    ASSERT_TRUE(wait_for_hold(b.dir)) << slurp(b.dir / "stderr");
    expect_locked(b);
    // While it holds, a second lock or an unlock is refused: two locks would fight.
    const fs::path other = b.dir / "other";
    fs::create_directories(other);
    const Finished second = run_tokscope(args(b, {"unlock"}), other);
    EXPECT_EQ(second.exit_code, 2) << second.err;
    EXPECT_TRUE(has(second.err, "held by a running tokscope")) << second.err;
    expect_locked(b);

    p.signal(sig);
    const Finished f = p.wait();
    EXPECT_EQ(f.exit_code, 0) << f.err;
    EXPECT_TRUE(has(f.err, "journal removed")) << f.err;
    EXPECT_EQ(snapshot_tree(b.root, false), b.original) << "signal " << sig;
    EXPECT_FALSE(fs::exists(b.journal));
  }
}

TEST(LockE2e, TenTimesTooLowDdrIsRefusedWithExit2) {
  const Board b = board();
  const auto everything = snapshot_tree(b.root);
  const Finished f = run_tokscope(args(b, {"lock", "--ddr-freq", "211200000"}), b.dir);
  EXPECT_EQ(f.exit_code, 2);
  EXPECT_TRUE(has(f.err, "--ddr-freq 211200000")) << f.err;
  EXPECT_TRUE(has(f.err, "ten times too low; did you mean 2112000000?")) << f.err;
  EXPECT_TRUE(has(f.err, "available: 528000000 1068000000 1560000000 2112000000 Hz")) << f.err;
  EXPECT_EQ(snapshot_tree(b.root), everything);
  EXPECT_FALSE(fs::exists(b.journal));
}

TEST(LockE2e, SymlinkOutOfTheRootIsRefusedWithExit2) {
  const Board b = board();
  write_lock_file(b.dir / "outside/gpu/governor", "simple_ondemand\n");
  write_lock_file(b.dir / "outside/gpu/max_freq", "1000000000\n");
  fs::remove(b.root / "sys/class/devfreq/fb000000.gpu");
  fs::create_directory_symlink("../../../../outside/gpu",
                               b.root / "sys/class/devfreq/fb000000.gpu");
  const auto everything = snapshot_tree(b.root);
  const Finished f = run_tokscope(args(b, {"lock"}), b.dir);
  EXPECT_EQ(f.exit_code, 2);
  EXPECT_TRUE(has(f.err, "outside the sysfs root")) << f.err;
  EXPECT_TRUE(has(f.err, "nothing written")) << f.err;
  EXPECT_EQ(read_lock_file(b.dir / "outside/gpu/governor"), "simple_ondemand");
  EXPECT_EQ(snapshot_tree(b.root), everything);
  EXPECT_FALSE(fs::exists(b.journal));
}

TEST(LockE2e, DryRunWritesNothing) {
  const Board b = board();
  const auto everything = snapshot_tree(b.root);
  const Finished f =
      run_tokscope(args(b, {"lock", "--dry-run", "--ddr-freq", "1560000000"}), b.dir);
  ASSERT_EQ(f.exit_code, 0) << f.err;
  EXPECT_TRUE(has(f.out, "dry run (nothing written)")) << f.out;
  EXPECT_TRUE(has(f.out, "sys/class/devfreq/dmc/userspace/set_freq: '0' → '1560000000'")) << f.out;
  EXPECT_EQ(snapshot_tree(b.root), everything);
  EXPECT_FALSE(fs::exists(b.journal));
}

TEST(LockE2e, LockChecksAndRestoresKeepLeavesItForUnlock) {
  const Board b = board();
  const Finished check = run_tokscope(args(b, {"lock", "-o", "json"}), b.dir);
  ASSERT_EQ(check.exit_code, 0) << check.err;
  const json report = json::parse(check.out);
  EXPECT_TRUE(report["held"].get<bool>());
  EXPECT_EQ(report["channels"].size(), 6U);
  EXPECT_TRUE(report["release"]["journal_removed"].get<bool>());
  EXPECT_EQ(snapshot_tree(b.root, false), b.original);

  const Finished keep = run_tokscope(args(b, {"lock", "--keep"}), b.dir);
  ASSERT_EQ(keep.exit_code, 0) << keep.err;
  EXPECT_TRUE(has(keep.err, "tokscope unlock")) << keep.err;
  EXPECT_EQ(read_lock_file(b.root / kDmcGov), "userspace");
  ASSERT_TRUE(fs::exists(b.journal));
  ASSERT_EQ(run_tokscope(args(b, {"unlock"}), b.dir).exit_code, 0);
  EXPECT_EQ(snapshot_tree(b.root, false), b.original);
}

TEST(LockE2e, MalformedFlagIsExit2) {
  const Board b = board();
  const Finished f = run_tokscope(args(b, {"lock", "--cpu-freq", "2.3GHz"}), b.dir);
  EXPECT_EQ(f.exit_code, 2);
  EXPECT_TRUE(has(f.err, "--cpu-freq 2.3GHz")) << f.err;
}

}  // namespace
}  // namespace tokscope::testing
