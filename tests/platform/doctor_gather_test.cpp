// `tokscope doctor` inputs gathered from copies of the fixture trees (rk3588, x86-laptop), with
// the extra files doctor reads (cpuidle states, proc/<pid>/stat, proc/self/limits) written into
// the copy only: the shared trees stay as they are.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/sysfs_fixture.hpp"
#include "platform/doctor/checks.hpp"
#include "platform/doctor/gather.hpp"

namespace tokscope::platform::doctor {
namespace {

using testing::copy_sysfs_fixture;
using testing::write_file;

const Finding& find(const std::vector<Finding>& findings, const std::string& id) {
  auto it =
      std::find_if(findings.begin(), findings.end(), [&](const Finding& f) { return f.id == id; });
  if (it == findings.end()) throw std::runtime_error("no finding " + id);
  return *it;
}

bool any_fix_is(const Finding& f, const std::string& command) {
  return std::find(f.fix.begin(), f.fix.end(), command) != f.fix.end();
}

DoctorInputs gather_ok(const GatherOptions& o) {
  auto in = gather_inputs(o);
  if (!in.ok()) throw std::runtime_error(in.error().message);
  return std::move(*in);
}

GatherOptions options(const std::filesystem::path& root) {
  GatherOptions o;
  o.root = root;
  o.interval_s = 0;
  return o;
}

void add_cpuidle(const std::filesystem::path& root, int cpu, int state, const std::string& name,
                 int latency_us, int disable) {
  const auto dir = root / "sys/devices/system/cpu" / ("cpu" + std::to_string(cpu)) / "cpuidle" /
                   ("state" + std::to_string(state));
  write_file(dir / "name", name + "\n");
  write_file(dir / "latency", std::to_string(latency_us) + "\n");
  write_file(dir / "disable", std::to_string(disable) + "\n");
}

TEST(DoctorGather, Rk3588TreeWarnsAboutEveryUnlockedChannelWithTheLockWrites) {
  const auto root = copy_sysfs_fixture("rk3588");
  const auto findings = run_checks(gather_ok(options(root)));
  const auto& gov = find(findings, "governors");
  EXPECT_EQ(gov.severity, Severity::kWarning) << gov.title;
  EXPECT_NE(gov.title.find("3 of 3"), std::string::npos) << gov.title;
  EXPECT_EQ(gov.fix.front(), "sudo tokscope lock --keep");
  EXPECT_TRUE(any_fix_is(
      gov, "echo performance | sudo tee /sys/devices/system/cpu/cpufreq/policy4/scaling_governor"))
      << testing::joined(gov.fix);
  const auto& ddr = find(findings, "ddr");
  EXPECT_EQ(ddr.severity, Severity::kWarning) << ddr.title;
  EXPECT_TRUE(
      any_fix_is(ddr, "echo 2112000000 | sudo tee /sys/class/devfreq/dmc/userspace/set_freq"))
      << testing::joined(ddr.fix);
  EXPECT_EQ(find(findings, "npu").severity, Severity::kWarning);
  const auto& swap = find(findings, "swap");
  EXPECT_EQ(swap.severity, Severity::kWarning);
  EXPECT_TRUE(any_fix_is(swap, "sudo swapoff /dev/zram0")) << testing::joined(swap.fix);
  const auto& thermal = find(findings, "thermal");
  EXPECT_EQ(thermal.severity, Severity::kOk) << thermal.title;
  EXPECT_NE(thermal.detail.find("soc-thermal"), std::string::npos) << thermal.detail;
  // Not in the tree, or not measured: info, never an error.
  EXPECT_EQ(find(findings, "cpuidle").severity, Severity::kInfo);
  EXPECT_EQ(find(findings, "memlock").severity, Severity::kInfo);
  EXPECT_EQ(find(findings, "counters").severity, Severity::kInfo);
  EXPECT_EQ(find(findings, "cpu-load").severity, Severity::kInfo);
}

TEST(DoctorGather, CapIpcLockInProcSelfStatusLiftsTheMemlockLimit) {
  const auto root = copy_sysfs_fixture("rk3588");
  write_file(root / "proc/self/limits",
             "Max locked memory         65536                65536                bytes\n");
  write_file(root / "proc/self/status", "Name:\ttokscope\nCapEff:\t000001ffffffffff\n");
  auto in = gather_ok(options(root));
  EXPECT_TRUE(in.memlock_privileged);
  EXPECT_EQ(find(run_checks(in), "memlock").severity, Severity::kOk);
  write_file(root / "proc/self/status", "Name:\ttokscope\nCapEff:\t0000000000000000\n");
  in = gather_ok(options(root));
  EXPECT_FALSE(in.memlock_privileged);
  EXPECT_EQ(find(run_checks(in), "memlock").severity, Severity::kWarning);
}

TEST(DoctorGather, CpuidleAndLimitsWrittenIntoTheCopyAreRead) {
  const auto root = copy_sysfs_fixture("rk3588");
  for (int cpu = 0; cpu < 8; ++cpu) {
    add_cpuidle(root, cpu, 0, "WFI", 0, 0);
    add_cpuidle(root, cpu, 1, "cpu-sleep", cpu < 4 ? 120 : 150, cpu == 7 ? 1 : 0);
  }
  write_file(root / "proc/self/limits",
             "Limit                     Soft Limit           Hard Limit           Units\n"
             "Max locked memory         65536                65536                bytes\n");
  const auto in = gather_ok(options(root));
  ASSERT_EQ(in.cpuidle.size(), 16U);
  EXPECT_EQ(in.cpuidle[3].cpu, 1);
  EXPECT_EQ(in.cpuidle[3].state, 1);
  EXPECT_EQ(in.cpuidle[3].name, "cpu-sleep");
  EXPECT_EQ(in.cpuidle[3].latency_us, 120U);
  EXPECT_EQ(in.cpuidle[15].disabled, true);
  ASSERT_TRUE(in.memlock_bytes.has_value());
  EXPECT_EQ(*in.memlock_bytes, 65536U);
  EXPECT_FALSE(in.memlock_privileged);  // no proc/self/status in the copy
  const auto findings = run_checks(in);
  const auto& idle = find(findings, "cpuidle");
  EXPECT_EQ(idle.severity, Severity::kWarning);
  EXPECT_EQ(idle.fix.size(), 7U);  // cpu7's state1 is already disabled
  EXPECT_TRUE(
      any_fix_is(idle, "echo 1 | sudo tee /sys/devices/system/cpu/cpu6/cpuidle/state1/disable"));
  EXPECT_EQ(find(findings, "memlock").severity, Severity::kWarning);
}

TEST(DoctorGather, ProcStatsOfTheTreeAreSampledAndSelfExcluded) {
  const auto root = copy_sysfs_fixture("rk3588");
  write_file(root / "proc/100/stat", "100 (llama-server) R 1 100 100 0 -1 0 0 0 0 0 700 50 0 0\n");
  write_file(root / "proc/200/stat", "200 (tokscope) R 1 200 200 0 -1 0 0 0 0 0 9 1 0 0\n");
  write_file(root / "proc/300/stat", "not a stat line\n");
  write_file(root / "proc/self/stat", "1 (self) R 1 1 1 0 -1 0 0 0 0 0 5 5 0 0\n");
  auto stats = read_proc_stats(root);
  std::sort(stats.begin(), stats.end(),
            [](const ProcStat& a, const ProcStat& b) { return a.pid < b.pid; });
  ASSERT_EQ(stats.size(), 2U);
  EXPECT_EQ(stats[0].comm, "llama-server");
  EXPECT_EQ(stats[0].cpu_ticks, 750U);
  // A static tree: nothing moves between the snapshots, so nobody uses CPU.
  auto o = options(root);
  o.interval_s = 0.05;
  o.self_pid = 200;
  const auto in = gather_ok(o);
  ASSERT_TRUE(in.cpu_usage.has_value()) << in.cpu_usage_unavailable;
  EXPECT_TRUE(in.cpu_usage->empty());
  EXPECT_GE(in.interval_s, 0.05);
  EXPECT_EQ(find(run_checks(in), "cpu-load").severity, Severity::kOk);
}

TEST(DoctorGather, X86LaptopHasNoDevfreqAndANonZramSwap) {
  const auto root = copy_sysfs_fixture("x86-laptop");
  const auto findings = run_checks(gather_ok(options(root)));
  EXPECT_EQ(find(findings, "governors").severity, Severity::kWarning);
  const auto& ddr = find(findings, "ddr");
  EXPECT_EQ(ddr.severity, Severity::kInfo);
  EXPECT_EQ(ddr.title.rfind("unavailable: ", 0), 0U) << ddr.title;
  EXPECT_EQ(find(findings, "npu").severity, Severity::kInfo);
  const auto& swap = find(findings, "swap");
  EXPECT_EQ(swap.severity, Severity::kWarning);  // /swapfile on, swappiness 60
  EXPECT_TRUE(any_fix_is(swap, "sudo sysctl vm.swappiness=10"));
  EXPECT_FALSE(any_fix_is(swap, "sudo swapoff /swapfile"));
  // acpitz 27.8 °C vs passive 97 °C; x86_pkg_temp's unset (0) trips are not throttling points.
  EXPECT_EQ(find(findings, "thermal").severity, Severity::kOk);
}

TEST(DoctorGather, EmptyTreeGivesOnlyInfoAndBadOptionsAreTypedErrors) {
  const auto root = testing::fresh_test_dir() / "empty";
  std::filesystem::create_directories(root);
  const auto findings = run_checks(gather_ok(options(root)));
  for (const auto& f : findings) {
    if (f.id == "build") continue;  // this binary's own build type
    EXPECT_EQ(f.severity, Severity::kInfo) << f.id << ": " << f.title;
    EXPECT_EQ(f.title.rfind("unavailable", 0), 0U) << f.id << ": " << f.title;
  }
  auto o = options(root);
  o.interval_s = -1;
  auto bad = gather_inputs(o);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::kUsage);
  o = options(root);
  o.model_file = root / "missing.gguf";
  bad = gather_inputs(o);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::kInput);
}

TEST(DoctorGather, ModelFileSizeRaisesTheMlockNeed) {
  const auto root = copy_sysfs_fixture("x86-laptop");
  write_file(root / "proc/self/limits", "Max locked memory   unlimited   unlimited   bytes\n");
  write_file(root / "model.gguf", std::string(1000, 'x'));
  auto o = options(root);
  o.model_file = root / "model.gguf";
  const auto in = gather_ok(o);
  EXPECT_EQ(in.model_file_bytes, 1000U);
  EXPECT_TRUE(in.memlock_unlimited);
  EXPECT_EQ(find(run_checks(in), "memlock").severity, Severity::kOk);
}

}  // namespace
}  // namespace tokscope::platform::doctor
