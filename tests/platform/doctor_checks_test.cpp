// `tokscope doctor` checks on hand-built inputs: each check fires and stays quiet, the CPU usage
// of two /proc snapshots, skips and ordering.
#include <gtest/gtest.h>

#include <algorithm>

#include "platform/doctor/checks.hpp"
#include "platform/doctor/gather.hpp"

namespace tokscope::platform::doctor {
namespace {

// Inputs of a machine where every check passes.
DoctorInputs healthy() {
  DoctorInputs in;
  in.root = "/";
  in.build_type = "Release";
  CpufreqPolicy p;
  p.policy = 0;
  p.dir = "/sys/devices/system/cpu/cpufreq/policy0";
  p.governor = "performance";
  in.cpufreq.policies.push_back(p);
  DevfreqDevice dmc;
  dmc.name = "dmc";
  dmc.dir = "/sys/class/devfreq/dmc";
  dmc.governor = "userspace";
  dmc.available_hz = {528000000, 2112000000};
  dmc.cur_hz = 2112000000;
  DevfreqDevice npu;
  npu.name = "fdab0000.npu";
  npu.dir = "/sys/class/devfreq/fdab0000.npu";
  npu.governor = "performance";
  in.devfreq.devices = {dmc, npu};
  ThermalZone z;
  z.zone = 0;
  z.dir = "/sys/class/thermal/thermal_zone0";
  z.type = "soc-thermal";
  z.temp_c = 45.0;
  z.trips = {{0, "passive", 75.0}, {1, "critical", 115.0}};
  in.thermal.zones.push_back(z);
  in.memory.swaps_known = true;
  in.memory.swappiness = 60;  // no swap on: swappiness does not matter
  in.memlock_unlimited = true;
  in.memlock_source = "/proc/self/limits";
  in.cpu_usage = std::vector<ProcessCpuUsage>{{42, "sshd", 0.5}};
  in.interval_s = 1.0;
  in.cpuidle = {{0, 0, "WFI", 0, false}, {0, 1, "cpu-sleep", 120, true}};
  in.counters = {{"cycles", ""}, {"instructions", ""}};
  in.perf_event_paranoid = 1;
  return in;
}

const Finding& find(const std::vector<Finding>& findings, const std::string& id) {
  auto it =
      std::find_if(findings.begin(), findings.end(), [&](const Finding& f) { return f.id == id; });
  if (it == findings.end()) throw std::runtime_error("no finding " + id);
  return *it;
}

Severity severity_of(const DoctorInputs& in, const std::string& id) {
  return find(run_checks(in), id).severity;
}

bool any_fix_contains(const Finding& f, const std::string& needle) {
  return std::any_of(f.fix.begin(), f.fix.end(),
                     [&](const std::string& c) { return c.find(needle) != std::string::npos; });
}

TEST(DoctorChecks, HealthyMachineIsAllOkAndEveryCheckIsListed) {
  const auto findings = run_checks(healthy());
  ASSERT_EQ(findings.size(), std::size(kCheckIds));
  for (std::size_t i = 0; i < findings.size(); ++i) {
    EXPECT_EQ(findings[i].id, kCheckIds[i]);
    EXPECT_EQ(findings[i].severity, Severity::kOk) << findings[i].id << ": " << findings[i].title;
    EXPECT_TRUE(findings[i].fix.empty()) << findings[i].id;
  }
}

TEST(DoctorChecks, DebugOrSanitizerBuildIsBlocking) {
  auto in = healthy();
  in.build_type = "Debug";
  EXPECT_EQ(severity_of(in, "build"), Severity::kBlocking);
  in.build_type = "";
  EXPECT_EQ(severity_of(in, "build"), Severity::kBlocking);
  in.build_type = "RelWithDebInfo";
  EXPECT_EQ(severity_of(in, "build"), Severity::kOk);
  in.sanitizer = "address,undefined";
  const auto f = find(run_checks(in), "build");
  EXPECT_EQ(f.severity, Severity::kBlocking);
  EXPECT_TRUE(any_fix_contains(f, "-DCMAKE_BUILD_TYPE=Release -DTOKSCOPE_SANITIZE="));
}

TEST(DoctorChecks, ThermalHeadroomWarnsBelow15AndBlocksAtTheTrip) {
  auto in = healthy();
  in.thermal.zones[0].temp_c = 61.0;  // 14 °C below 75
  auto f = find(run_checks(in), "thermal");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_NE(f.detail.find("headroom 14.0 °C"), std::string::npos) << f.detail;
  EXPECT_TRUE(any_fix_contains(f, "/sys/class/thermal/thermal_zone0/temp) -gt 60000"));
  in.thermal.zones[0].temp_c = 75.0;
  EXPECT_EQ(severity_of(in, "thermal"), Severity::kBlocking);
  in.thermal.zones[0].temp_c = 60.0;  // exactly 15 °C: enough
  EXPECT_EQ(severity_of(in, "thermal"), Severity::kOk);
}

TEST(DoctorChecks, ThermalWithoutZonesOrPassiveTripsIsUnavailableInfo) {
  auto in = healthy();
  in.thermal.zones[0].trips = {{0, "passive", 0.0}, {1, "critical", 105.0}};  // unset trip
  auto f = find(run_checks(in), "thermal");
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_EQ(f.title.rfind("unavailable: ", 0), 0U) << f.title;
  in.thermal.zones.clear();
  in.thermal.unavailable = {"unavailable: /x/sys/class/thermal: No such file or directory"};
  f = find(run_checks(in), "thermal");
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_EQ(f.title, "unavailable: /x/sys/class/thermal: No such file or directory");
}

TEST(DoctorChecks, OtherProcessesWarnAbove5PctAndBlockAbove50PctInTotal) {
  auto in = healthy();
  in.cpu_usage = std::vector<ProcessCpuUsage>{{7, "stress", 30.0}, {9, "idle", 1.0}};
  auto f = find(run_checks(in), "cpu-load");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_TRUE(any_fix_contains(f, "kill 7"));
  EXPECT_FALSE(any_fix_contains(f, "kill 9"));
  in.cpu_usage = std::vector<ProcessCpuUsage>{{7, "stress", 45.0}, {8, "cc1plus", 10.0}};
  EXPECT_EQ(severity_of(in, "cpu-load"), Severity::kBlocking);
  in.cpu_usage.reset();
  in.cpu_usage_unavailable = "not measured (--interval-s 0 takes a single snapshot)";
  EXPECT_EQ(severity_of(in, "cpu-load"), Severity::kInfo);
}

TEST(DoctorChecks, GovernorsNotPerformanceWarnWithTheLockCommand) {
  auto in = healthy();
  in.cpufreq.policies[0].governor = "schedutil";
  in.lock_writes["cpufreq.policy0"] = {
      "echo performance | sudo tee /sys/devices/system/cpu/cpufreq/policy0/scaling_governor"};
  auto f = find(run_checks(in), "governors");
  EXPECT_EQ(f.severity, Severity::kWarning);
  ASSERT_GE(f.fix.size(), 2U);
  EXPECT_EQ(f.fix[0], "sudo tokscope lock --keep");
  EXPECT_EQ(f.fix[1], in.lock_writes["cpufreq.policy0"][0]);
  in.cpufreq.policies[0].governor = "userspace";  // a frequency set by `tokscope lock`
  EXPECT_EQ(severity_of(in, "governors"), Severity::kOk);
  in.cpufreq.policies.clear();
  EXPECT_EQ(severity_of(in, "governors"), Severity::kInfo);
}

TEST(DoctorChecks, DdrMustBeAtItsHighestAndNpuLocked) {
  auto in = healthy();
  in.devfreq.devices[0].governor = "dmc_ondemand";
  auto f = find(run_checks(in), "ddr");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_TRUE(
      any_fix_contains(f, "echo 2112000000 | sudo tee /sys/class/devfreq/dmc/userspace/set_freq"))
      << f.fix.size();
  in.devfreq.devices[0].governor = "userspace";
  in.devfreq.devices[0].cur_hz = 1560000000;  // userspace, but below the top
  EXPECT_EQ(severity_of(in, "ddr"), Severity::kWarning);
  in.devfreq.devices[1].governor = "simple_ondemand";
  EXPECT_EQ(severity_of(in, "npu"), Severity::kWarning);
  in.devfreq.devices.erase(in.devfreq.devices.begin());  // firmware without DMC devfreq
  EXPECT_EQ(severity_of(in, "ddr"), Severity::kInfo);
}

TEST(DoctorChecks, ZramOrHighSwappinessWithSwapWarn) {
  auto in = healthy();
  SwapEntry zram;
  zram.filename = "/dev/zram0";
  zram.zram = true;
  in.memory.swaps = {zram};
  auto f = find(run_checks(in), "swap");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_TRUE(any_fix_contains(f, "sudo swapoff /dev/zram0"));
  EXPECT_TRUE(any_fix_contains(f, "sudo sysctl vm.swappiness=10"));
  in.memory.swaps[0].zram = false;
  in.memory.swaps[0].filename = "/swapfile";
  in.memory.swappiness = 10;
  EXPECT_EQ(severity_of(in, "swap"), Severity::kOk);
  in.memory.swappiness = 11;
  EXPECT_EQ(severity_of(in, "swap"), Severity::kWarning);
}

TEST(DoctorChecks, EnabledDeepIdleStatesWarnWithOneDisablePerState) {
  auto in = healthy();
  in.cpuidle = {{0, 0, "WFI", 0, false},
                {0, 1, "cpu-sleep", 120, false},
                {4, 1, "cpu-sleep", 150, false},
                {5, 1, "cpu-sleep", 150, true}};
  auto f = find(run_checks(in), "cpuidle");
  EXPECT_EQ(f.severity, Severity::kWarning);
  ASSERT_EQ(f.fix.size(), 2U);
  EXPECT_EQ(f.fix[0], "echo 1 | sudo tee /sys/devices/system/cpu/cpu0/cpuidle/state1/disable");
  EXPECT_EQ(f.fix[1], "echo 1 | sudo tee /sys/devices/system/cpu/cpu4/cpuidle/state1/disable");
  in.cpuidle.clear();
  in.cpuidle_unavailable = "unavailable: no cpuidle state";
  EXPECT_EQ(severity_of(in, "cpuidle"), Severity::kInfo);
}

TEST(DoctorChecks, UnavailableCountersWarnAndNameParanoidWhenThatIsTheReason) {
  auto in = healthy();
  in.counters = {{"cycles", "unavailable: permission denied (EACCES)"}, {"instructions", ""}};
  in.perf_event_paranoid = 3;
  auto f = find(run_checks(in), "counters");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_NE(f.detail.find("perf_event_paranoid 3"), std::string::npos) << f.detail;
  EXPECT_TRUE(any_fix_contains(f, "sudo sysctl kernel.perf_event_paranoid=1"));
  in.counters = {{"cycles", "unavailable: no such event (ENOENT)"}};
  in.perf_event_paranoid = 2;
  f = find(run_checks(in), "counters");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_FALSE(any_fix_contains(f, "perf_event_paranoid"));
  in.counters.clear();
  in.counters_unavailable = "not checked under --sysfs-root";
  EXPECT_EQ(severity_of(in, "counters"), Severity::kInfo);
}

TEST(DoctorChecks, MemlockBelowOneGibOrTheModelWarns) {
  auto in = healthy();
  in.memlock_unlimited = false;
  in.memlock_bytes = 8ULL << 20;
  auto f = find(run_checks(in), "memlock");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_TRUE(any_fix_contains(f, "ulimit -l unlimited"));
  EXPECT_TRUE(any_fix_contains(f, "memlock unlimited\" | sudo tee -a /etc/security/limits.conf"));
  in.memlock_privileged = true;  // root: CAP_IPC_LOCK, the limit does not apply
  f = find(run_checks(in), "memlock");
  EXPECT_EQ(f.severity, Severity::kOk);
  EXPECT_NE(f.title.find("CAP_IPC_LOCK"), std::string::npos) << f.title;
  in.memlock_privileged = false;
  in.memlock_bytes = 2ULL << 30;
  EXPECT_EQ(severity_of(in, "memlock"), Severity::kOk);
  in.model_file_bytes = 3ULL << 30;
  in.model_file = "big.gguf";
  f = find(run_checks(in), "memlock");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_NE(f.title.find("big.gguf"), std::string::npos) << f.title;
  in.memlock_bytes.reset();
  in.memlock_unavailable = "unavailable: /x/proc/self/limits: No such file or directory";
  EXPECT_EQ(severity_of(in, "memlock"), Severity::kInfo);
}

TEST(DoctorChecks, SkipsBecomeInfoAndUnknownIdsAreUsageErrors) {
  auto in = healthy();
  in.build_type = "Debug";
  auto skipped = apply_skips(run_checks(in), {"build"});
  ASSERT_TRUE(skipped.ok());
  const auto& f = find(*skipped, "build");
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_NE(f.detail.find("was blocking"), std::string::npos) << f.detail;
  auto bad = apply_skips(run_checks(in), {"nope"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::kUsage);
  EXPECT_NE(bad.error().message.find("--skip nope"), std::string::npos);
}

TEST(DoctorChecks, SortPutsBlockingFirstAndOkLast) {
  auto in = healthy();
  in.build_type = "Debug";
  in.memlock_unlimited = false;
  in.memlock_bytes = 1;
  in.cpu_usage.reset();
  auto findings = run_checks(in);
  sort_by_severity(findings);
  EXPECT_EQ(findings.front().id, "build");
  EXPECT_EQ(findings[1].id, "memlock");
  EXPECT_EQ(findings[2].id, "cpu-load");
  EXPECT_EQ(findings.back().severity, Severity::kOk);
  EXPECT_EQ(count(findings, Severity::kOk), findings.size() - 3);
}

TEST(DoctorCpuUsage, TwoSnapshotsGivePercentOfACoreExcludingSelf) {
  const std::vector<ProcStat> before{{1, "init", 100}, {50, "busy", 1000}, {99, "tokscope", 5}};
  const std::vector<ProcStat> after{
      {1, "init", 101}, {50, "busy", 1150}, {99, "tokscope", 500}, {77, "new", 20}};
  // 2 s at 100 ticks/s: 150 ticks = 75% of a core.
  const auto usage = cpu_usage_between(before, after, 2.0, 100.0, 99);
  ASSERT_EQ(usage.size(), 3U);
  EXPECT_EQ(usage[0].pid, 50);
  EXPECT_DOUBLE_EQ(usage[0].cpu_pct, 75.0);
  EXPECT_EQ(usage[1].pid, 77);  // started during the interval: all its ticks
  EXPECT_DOUBLE_EQ(usage[1].cpu_pct, 10.0);
  EXPECT_EQ(usage[2].comm, "init");
  EXPECT_DOUBLE_EQ(usage[2].cpu_pct, 0.5);
  EXPECT_TRUE(cpu_usage_between(before, after, 0.0, 100.0, 99).empty());
}

TEST(DoctorCpuUsage, ParsesProcStatWithSpacesAndParenthesesInComm) {
  const auto s = parse_proc_stat(
      "1234 (my (odd) proc) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 100 0 0\n");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->pid, 1234);
  EXPECT_EQ(s->comm, "my (odd) proc");
  EXPECT_EQ(s->cpu_ticks, 300U);
  EXPECT_FALSE(parse_proc_stat("1234 (x) S 1 2").ok());
  EXPECT_FALSE(parse_proc_stat("garbage").ok());
}

TEST(DoctorMemlock, ParsesSoftLimitAndUnlimited) {
  const auto limited = parse_memlock_limit(
      "Limit                     Soft Limit           Hard Limit           Units\n"
      "Max locked memory         8388608              8388608              bytes\n");
  ASSERT_TRUE(limited.ok());
  ASSERT_TRUE(limited->has_value());
  EXPECT_EQ(**limited, 8388608U);
  const auto unlimited =
      parse_memlock_limit("Max locked memory         unlimited            unlimited  bytes\n");
  ASSERT_TRUE(unlimited.ok());
  EXPECT_FALSE(unlimited->has_value());
  EXPECT_FALSE(parse_memlock_limit("Max open files 1024 1024 files\n").ok());
}

}  // namespace
}  // namespace tokscope::platform::doctor
