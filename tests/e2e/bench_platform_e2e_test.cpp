// `bench` controlling the platform, through the real binary: a frequency lock held for the run
// and restored after it (and after kill -9, by `tokscope unlock`), a locked frequency that falls
// during the run marking requests throttled, cpu pinning, mlock, the idle baseline, an external
// power log aligned by the run's clock sync point, and the resume guard on telemetry channels.
#include <gtest/gtest.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/sysfs_fixture.hpp"
#include "platform/lock_fixture.hpp"
#include "process.hpp"

namespace tokscope::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kP4Cur = "sys/devices/system/cpu/cpufreq/policy4/scaling_cur_freq";
const std::string kDmcGov = "sys/devices/platform/dmc/devfreq/dmc/governor";

std::string fmt_time(double t) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", t);
  return buf;
}

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

std::vector<std::string> sim(std::vector<std::string> extra) {
  std::vector<std::string> a = {"bench",
                                "-q",
                                "--engine",
                                "sim",
                                "--sim-prefill-tps",
                                "20000",
                                "--sim-itl-ms",
                                "2",
                                "-p",
                                "8",
                                "-n",
                                "8",
                                "-r",
                                "3",
                                "--warmup",
                                "1"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

std::vector<json> journal_lines(const fs::path& p) {
  std::vector<json> out;
  std::istringstream in(slurp(p));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(json::parse(line));
  }
  return out;
}

TEST(BenchPlatformE2e, LockIsHeldForTheRunRecordedAndRestored) {
  const fs::path dir = fresh_dir();
  const fs::path root = make_rk3588_lock_tree(dir);
  const auto original = snapshot_tree(root, false);
  const Finished f = run_tokscope(
      sim({"--lock", "--ddr-freq", "2112000000", "--sysfs-root", root.string(), "--lock-journal",
           (dir / "lock.json").string(), "--journal", (dir / "j.jsonl").string(), "-o", "json"}),
      dir);
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const json r = json::parse(f.out);
  const json& env = r["environment"];
  ASSERT_FALSE(env["locks"].empty()) << env.dump();
  EXPECT_TRUE(env["lock"]["held"].get<bool>());
  bool ddr = false;
  for (const auto& c : env["locks"]) {
    if (c["name"] == "devfreq.dmc") {
      ddr = true;
      EXPECT_EQ(c["locked_freq"], 2112000000);
    }
  }
  EXPECT_TRUE(ddr) << env["locks"].dump();
  // The sampler knows the locked values (a fall below them flags throttling).
  bool locked_channel = false;
  for (const auto& c : env["telemetry"]["channels"]) locked_channel |= c.contains("locked");
  EXPECT_TRUE(locked_channel) << env["telemetry"].dump();
  // Restored at the end, and the journal's end line says so.
  EXPECT_EQ(snapshot_tree(root, false), original);
  EXPECT_FALSE(fs::exists(dir / "lock.json"));
  const auto lines = journal_lines(dir / "j.jsonl");
  ASSERT_EQ(lines.back()["type"], "end");
  EXPECT_TRUE(lines.back()["lock_release"]["restored"].get<bool>()) << lines.back().dump();
}

TEST(BenchPlatformE2e, ALockedFrequencyThatFallsMarksRequestsThrottled) {
  const fs::path dir = fresh_dir();
  const fs::path root = make_rk3588_lock_tree(dir);
  Process p({"bench",
             "--engine",
             "sim",
             "--sim-prefill-tps",
             "20000",
             "--sim-itl-ms",
             "5",
             "-p",
             "8",
             "-n",
             "8",
             "-r",
             "40",
             "--warmup",
             "0",
             "--sample-ms",
             "5",
             "--lock",
             "--sysfs-root",
             root.string(),
             "--lock-journal",
             (dir / "lock.json").string(),
             "--journal",
             (dir / "j.jsonl").string(),
             "-o",
             "json",
             "--out",
             (dir / "r.json").string()},
            dir);
  ASSERT_TRUE(
      wait_until([&] { return complete_lines(dir / "j.jsonl") >= 5; }, std::chrono::seconds(30)));
  write_lock_file(root / kP4Cur, "1200000\n");  // the firmware pulled the big cores down
  const Finished f = p.wait();
  ASSERT_TRUE(f.exit_code == 0 || f.exit_code == 1) << f.err;
  const json r = json::parse(slurp(dir / "r.json"));
  const json& s = r["strata"][0];
  EXPECT_GT(s["throttled"].get<int>(), 0) << s.dump();
  EXPECT_LT(s["throttled"].get<int>(), 40);  // the early ones ran at the locked frequency
  bool flagged = false;
  for (const auto& fl : s["flags"]) flagged |= fl == "throttled";
  EXPECT_TRUE(flagged) << s["flags"].dump();
  EXPECT_EQ(read_lock_file(root / kDmcGov), "dmc_ondemand");  // restored anyway
}

TEST(BenchPlatformE2e, KillNineDuringALockedRunThenUnlockRestores) {
  const fs::path dir = fresh_dir();
  const fs::path root = make_rk3588_lock_tree(dir);
  const auto original = snapshot_tree(root, false);
  {
    Process p({"bench",
               "-q",
               "--engine",
               "sim",
               "--sim-prefill-tps",
               "20000",
               "--sim-itl-ms",
               "20",
               "-p",
               "8",
               "-n",
               "50",
               "-r",
               "100",
               "--lock",
               "--sysfs-root",
               root.string(),
               "--lock-journal",
               (dir / "lock.json").string(),
               "--journal",
               (dir / "j.jsonl").string()},
              dir);
    ASSERT_TRUE(
        wait_until([&] { return complete_lines(dir / "j.jsonl") >= 2; }, std::chrono::seconds(30)));
    EXPECT_EQ(read_lock_file(root / kDmcGov), "userspace");
    p.signal(SIGKILL);
    p.wait();
  }
  EXPECT_EQ(read_lock_file(root / kDmcGov), "userspace");  // nothing ran at kill -9
  const Finished u = run_tokscope(
      {"unlock", "--sysfs-root", root.string(), "--lock-journal", (dir / "lock.json").string()},
      dir);
  ASSERT_EQ(u.exit_code, 0) << u.err;
  EXPECT_EQ(snapshot_tree(root, false), original);
}

TEST(BenchPlatformE2e, LockFlagsWithoutLockAreRefused) {
  const fs::path dir = fresh_dir();
  const Finished f = run_tokscope(sim({"--ddr-freq", "2112000000"}), dir);
  EXPECT_EQ(f.exit_code, 2);
  EXPECT_TRUE(has(f.err, "--ddr-freq")) << f.err;
  EXPECT_TRUE(has(f.err, "add --lock")) << f.err;
}

TEST(BenchPlatformE2e, CpusPinTheRunAndBadCpusAreRefused) {
  const fs::path dir = fresh_dir();
  const Finished f = run_tokscope(sim({"--cpus", "0", "-o", "json"}), dir);
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const json r = json::parse(f.out);
  EXPECT_EQ(r["environment"]["affinity"]["applied"], "0");
  EXPECT_EQ(r["environment"]["affinity"]["source"], "--cpus 0");

  const Finished bad = run_tokscope(sim({"--cpus", "64"}), dir);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(has(bad.err, "--cpus 64: cpu 64 is not online")) << bad.err;

  // The RK3588 fixture's big cores (4-7) do not exist on a machine with fewer cpus; on one
  // that has them, the run is pinned to them.
  const Finished big = run_tokscope(
      sim({"--core-type", "big", "--sysfs-root", sysfs_fixture("rk3588").string(), "-o", "json"}),
      dir);
  if (big.exit_code == 0) {
    EXPECT_EQ(json::parse(big.out)["environment"]["affinity"]["requested"], "4-7");
  } else {
    EXPECT_EQ(big.exit_code, 2);
    EXPECT_TRUE(has(big.err, "--core-type big")) << big.err;
  }
}

TEST(BenchPlatformE2e, MlockLocksOrSaysWhyNot) {
  const fs::path dir = fresh_dir();
  const Finished f = run_tokscope(sim({"--mlock", "-o", "json"}), dir);
  if (f.exit_code == 0) {
    EXPECT_TRUE(json::parse(f.out)["environment"]["mlock"]["locked"].get<bool>());
  } else {
    EXPECT_EQ(f.exit_code, 2);
    EXPECT_TRUE(has(f.err, "--mlock")) << f.err;
    EXPECT_TRUE(has(f.err, "ulimit -l")) << f.err;
  }
}

TEST(BenchPlatformE2e, IdleBaselineIsMeasuredFromTheSampledEnergyCounter) {
  const fs::path dir = fresh_dir();
  const Finished f =
      run_tokscope(sim({"--idle-baseline-s", "0.3", "--subtract-idle", "--sample-ms", "20",
                        "--sysfs-root", sysfs_fixture("x86-laptop").string(), "-o", "json"}),
                   dir);
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const json r = json::parse(f.out);
  const json& idle = r["environment"]["idle_baseline"];
  EXPECT_GE(idle["window_s"].get<double>(), 0.3);
  const json& b = r["energy"]["idle_baseline"];
  EXPECT_EQ(b["status"], "complete") << b.dump();
  EXPECT_EQ(b["source"], "rapl.package-0.energy_uj");
  EXPECT_EQ(b["power_mw"].get<double>(), 0.0);  // a fixture's counter does not move
  EXPECT_TRUE(r["energy"]["subtract_idle"].get<bool>());
  EXPECT_TRUE(r["requests"][1]["energy"].contains("decode_net_mj")) << r["requests"][1].dump();

  const Finished no_window = run_tokscope(sim({"--subtract-idle"}), dir);
  EXPECT_EQ(no_window.exit_code, 2);
  EXPECT_TRUE(has(no_window.err, "--idle-baseline-s")) << no_window.err;
}

// A meter logging Unix time at 100 Hz, 5 W throughout: decode energy per token = 5 W × ITL.
TEST(BenchPlatformE2e, AUnixTimePowerLogGivesEnergyPerPhase) {
  const fs::path dir = fresh_dir();
  {
    std::ofstream csv(dir / "meter.csv");
    csv << "t_s,power_w\n";
    const double now = static_cast<double>(std::time(nullptr));
    for (int i = 0; i < 12000; ++i) csv << fmt_time(now - 10 + i * 0.01) << ",5.0\n";
  }
  const Finished f = run_tokscope({"bench",
                                   "-q",
                                   "--engine",
                                   "sim",
                                   "--sim-prefill-tps",
                                   "2000",
                                   "--sim-itl-ms",
                                   "5",
                                   "-p",
                                   "8",
                                   "-n",
                                   "16",
                                   "-r",
                                   "3",
                                   "--warmup",
                                   "1",
                                   "--power-log",
                                   (dir / "meter.csv").string(),
                                   "--journal",
                                   (dir / "j.jsonl").string(),
                                   "-o",
                                   "json"},
                                  dir);
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const json r = json::parse(f.out);
  EXPECT_EQ(r["energy"]["source"], "power-log:" + (dir / "meter.csv").string());
  EXPECT_EQ(r["energy"]["power_log"]["clock"], "epoch");
  const json& s = r["strata"][0];
  const double itl_ms = s["itl_ms"]["p50"].get<double>();
  EXPECT_NEAR(s["decode_mj_per_token"]["p50"].get<double>(), 5.0 * itl_ms, 0.05 * 5.0 * itl_ms);
  // `report` of the journal reads the same log again: the same figures.
  const Finished again = run_tokscope({"report", (dir / "j.jsonl").string(), "-o", "json"}, dir);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(json::parse(again.out)["strata"][0]["decode_mj_per_token"], s["decode_mj_per_token"]);

  // A log relative to the meter's start cannot be placed without an offset or a pulse.
  {
    std::ofstream csv(dir / "relative.csv");
    csv << "t_s,power_w\n0,5\n0.1,5\n0.2,5\n";
  }
  const Finished rel = run_tokscope(sim({"--power-log", (dir / "relative.csv").string(),
                                         "--journal", (dir / "j2.jsonl").string()}),
                                    dir);
  EXPECT_EQ(rel.exit_code, 2);
  EXPECT_TRUE(has(rel.err, "--power-log-offset-s")) << rel.err;
  EXPECT_TRUE(has(rel.err, "the run is saved in")) << rel.err;
  EXPECT_TRUE(fs::exists(dir / "j2.jsonl"));
}

TEST(BenchPlatformE2e, ResumeRefusesDifferentTelemetryChannels) {
  const fs::path dir = fresh_dir();
  const fs::path journal = dir / "j.jsonl";
  const Finished f = run_tokscope(
      sim({"--sysfs-root", sysfs_fixture("rk3588").string(), "--journal", journal.string()}), dir);
  ASSERT_EQ(f.exit_code, 0) << f.err;
  // Drop the end line and the last request: an interrupted run.
  auto lines = journal_lines(journal);
  while (!lines.empty() && lines.back()["type"] != "request") lines.pop_back();
  lines.pop_back();
  {
    std::ofstream out(journal, std::ios::trunc);
    for (const auto& l : lines) out << l.dump() << "\n";
  }
  const Finished other = run_tokscope({"bench", "-q", "--resume", journal.string(), "--sysfs-root",
                                       sysfs_fixture("x86-laptop").string()},
                                      dir);
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_TRUE(has(other.err, "telemetry channels differ")) << other.err;
  // Without --sysfs-root the journal's own root is used: it resumes.
  const Finished same = run_tokscope({"bench", "-q", "--resume", journal.string()}, dir);
  EXPECT_EQ(same.exit_code, 0) << same.err;
}

}  // namespace
}  // namespace tokscope::testing
