#include "platform/lock/lock_plan.hpp"

#include <gtest/gtest.h>

#include "common/test_dir.hpp"
#include "platform/lock_fixture.hpp"

namespace tokscope::platform::lock {
namespace {

namespace fs = std::filesystem;
using testing::make_rk3588_lock_tree;
using testing::snapshot_tree;
using testing::write_lock_file;

const std::string kPolicy4 = "sys/devices/system/cpu/cpufreq/policy4";
const std::string kDmc = "sys/class/devfreq/dmc";

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

const ChannelPlan* channel(const LockPlan& plan, const std::string& name) {
  for (const auto& ch : plan.channels) {
    if (ch.name == name) return &ch;
  }
  return nullptr;
}

LockRequest request_for(const fs::path& root) {
  LockRequest r;
  r.sysfs_root = root;
  return r;
}

TEST(LockPlan, DefaultRk3588PlanReadsAndWritesNothing) {
  const auto root = make_rk3588_lock_tree(testing::fresh_test_dir());
  const auto before = snapshot_tree(root);
  auto plan = plan_lock(request_for(root));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(snapshot_tree(root), before);
  EXPECT_EQ(plan->sysfs_root, fs::canonical(root));
  std::vector<std::string> names;
  for (const auto& ch : plan->channels) names.push_back(ch.name);
  EXPECT_EQ(names, (std::vector<std::string>{"cpufreq.policy0", "cpufreq.policy4",
                                             "cpufreq.policy6", "devfreq.dmc",
                                             "devfreq.fdab0000.npu", "devfreq.fb000000.gpu"}));
  EXPECT_TRUE(plan->notes.empty());

  const ChannelPlan* p4 = channel(*plan, "cpufreq.policy4");
  ASSERT_NE(p4, nullptr);
  EXPECT_EQ(p4->mode, LockMode::kPerformance);
  EXPECT_EQ(p4->previous_governor, "schedutil");
  EXPECT_EQ(p4->target_freq, 2352000U);  // scaling_max_freq
  EXPECT_EQ(p4->unit, "kHz");
  EXPECT_EQ(p4->cur_file, kPolicy4 + "/scaling_cur_freq");
  ASSERT_EQ(p4->steps.size(), 1U);
  EXPECT_EQ(p4->steps[0].file, kPolicy4 + "/scaling_governor");
  EXPECT_EQ(p4->steps[0].value, "performance");
  EXPECT_TRUE(p4->steps[0].restore);

  // DDR: userspace at its highest frequency, the governor first.
  const ChannelPlan* dmc = channel(*plan, "devfreq.dmc");
  ASSERT_NE(dmc, nullptr);
  EXPECT_EQ(dmc->mode, LockMode::kUserspace);
  EXPECT_EQ(dmc->target_freq, 2112000000U);
  EXPECT_EQ(dmc->unit, "Hz");
  ASSERT_EQ(dmc->steps.size(), 2U);
  EXPECT_EQ(dmc->steps[0].file, kDmc + "/governor");
  EXPECT_EQ(dmc->steps[0].previous, "dmc_ondemand");
  EXPECT_EQ(dmc->steps[0].value, "userspace");
  EXPECT_EQ(dmc->steps[1].file, kDmc + "/userspace/set_freq");
  EXPECT_EQ(dmc->steps[1].value, "2112000000");
  EXPECT_FALSE(dmc->steps[1].restore);  // the governor is restored; set_freq goes with it

  const ChannelPlan* npu = channel(*plan, "devfreq.fdab0000.npu");
  ASSERT_NE(npu, nullptr);
  EXPECT_EQ(npu->mode, LockMode::kPerformance);
  EXPECT_EQ(npu->target_freq, 1000000000U);  // max_freq
  EXPECT_EQ(plan->steps().size(), 7U);       // 3 cpu + 2 dmc + npu + gpu
}

TEST(LockPlan, FixFreqScriptValues) {
  const auto root = make_rk3588_lock_tree(testing::fresh_test_dir());
  LockRequest r = request_for(root);
  r.ddr_freq_hz = 2112000000;
  r.npu_freq_hz = 1000000000;
  r.gpu_freq_hz = 1000000000;
  r.cpu_policy_freq_khz = {{"policy0", 1800000}, {"policy4", 2352000}, {"policy6", 2352000}};
  auto plan = plan_lock(r);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  for (const auto& ch : plan->channels) {
    EXPECT_EQ(ch.mode, LockMode::kUserspace) << ch.name;
    EXPECT_EQ(ch.governor, "userspace") << ch.name;
    ASSERT_EQ(ch.steps.size(), 2U) << ch.name;
  }
  const ChannelPlan* p0 = channel(*plan, "cpufreq.policy0");
  EXPECT_EQ(p0->steps[1].file, "sys/devices/system/cpu/cpufreq/policy0/scaling_setspeed");
  EXPECT_EQ(p0->steps[1].value, "1800000");
  EXPECT_EQ(p0->steps[1].previous, "<unsupported>");
  EXPECT_EQ(channel(*plan, "devfreq.fb000000.gpu")->steps[1].value, "1000000000");
}

TEST(LockPlan, OneCpuValueTheA55DoesNotOfferSuggestsPerPolicyValues) {
  const auto root = make_rk3588_lock_tree(testing::fresh_test_dir());
  LockRequest r = request_for(root);
  r.cpu_freq_khz = 2352000;
  auto plan = plan_lock(r);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().kind, ErrorKind::kUsage);
  const std::string& m = plan.error().message;
  EXPECT_TRUE(has(m, "cpufreq.policy0")) << m;
  EXPECT_TRUE(has(m, "nearest valid: 1800000")) << m;
  EXPECT_TRUE(has(m, "--cpu-freq policy0=1800000,policy4=2352000,policy6=2352000")) << m;
}

TEST(LockPlan, TenTimesTooLowDdrIsRefused) {
  const auto root = make_rk3588_lock_tree(testing::fresh_test_dir());
  LockRequest r = request_for(root);
  r.ddr_freq_hz = 211200000;
  auto plan = plan_lock(r);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().kind, ErrorKind::kUsage);
  EXPECT_TRUE(has(plan.error().message, "ten times too low; did you mean 2112000000?"))
      << plan.error().message;
}

TEST(LockPlan, UnknownPolicyAndMissingDeviceAreUsageErrors) {
  const auto dir = testing::fresh_test_dir();
  const auto root = make_rk3588_lock_tree(dir);
  LockRequest r = request_for(root);
  r.cpu_policy_freq_khz = {{"policy2", 1800000}};
  auto plan = plan_lock(r);
  ASSERT_FALSE(plan.ok());
  EXPECT_TRUE(has(plan.error().message, "found: policy0 policy4 policy6")) << plan.error().message;

  fs::remove(root / "sys/class/devfreq/dmc");  // some UEFI/ATF builds have no dmc
  LockRequest ddr = request_for(root);
  ddr.ddr_freq_hz = 2112000000;
  auto no_dmc = plan_lock(ddr);
  ASSERT_FALSE(no_dmc.ok());
  EXPECT_EQ(no_dmc.error().kind, ErrorKind::kUsage);
  EXPECT_TRUE(has(no_dmc.error().message, "--ddr-freq 2112000000: no DDR"))
      << no_dmc.error().message;

  auto without_flag = plan_lock(request_for(root));  // not asked for: a note, not an error
  ASSERT_TRUE(without_flag.ok());
  ASSERT_EQ(without_flag->notes.size(), 1U);
  EXPECT_TRUE(has(without_flag->notes[0], "DDR (devfreq dmc) not locked"))
      << without_flag->notes[0];
}

TEST(LockPlan, PinsMinAndMaxWhenNoUserspaceGovernor) {
  const auto root = make_rk3588_lock_tree(testing::fresh_test_dir());
  write_lock_file(root / kPolicy4 / "scaling_available_governors", "performance schedutil\n");
  LockRequest r = request_for(root);
  r.cpu_policy_freq_khz = {{"policy4", 1800000}};  // lower than max 2352000: min first
  auto plan = plan_lock(r);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const ChannelPlan* p4 = channel(*plan, "cpufreq.policy4");
  EXPECT_EQ(p4->mode, LockMode::kPin);
  ASSERT_EQ(p4->steps.size(), 3U);
  EXPECT_EQ(p4->steps[0].value, "performance");
  EXPECT_EQ(p4->steps[1].file, kPolicy4 + "/scaling_min_freq");
  EXPECT_EQ(p4->steps[1].previous, "408000");
  EXPECT_EQ(p4->steps[2].file, kPolicy4 + "/scaling_max_freq");
  EXPECT_EQ(p4->steps[2].previous, "2352000");
  EXPECT_TRUE(p4->steps[1].restore && p4->steps[2].restore);

  // Raising above the current max: max first, so min <= max holds after every write.
  write_lock_file(root / kPolicy4 / "scaling_max_freq", "1608000\n");
  LockRequest up = request_for(root);
  up.cpu_policy_freq_khz = {{"policy4", 2352000}};
  auto raised = plan_lock(up);
  ASSERT_TRUE(raised.ok()) << raised.error().message;
  const ChannelPlan* p4up = channel(*raised, "cpufreq.policy4");
  EXPECT_EQ(p4up->steps[1].file, kPolicy4 + "/scaling_max_freq");
  EXPECT_EQ(p4up->steps[2].file, kPolicy4 + "/scaling_min_freq");
}

TEST(LockPlan, DevfreqPinWithoutUserspace) {
  const auto root = make_rk3588_lock_tree(testing::fresh_test_dir());
  write_lock_file(root /
                      "sys/devices/platform/fb000000.gpu/devfreq/fb000000.gpu/"
                      "available_governors",
                  "powersave performance simple_ondemand\n");
  LockRequest r = request_for(root);
  r.gpu_freq_hz = 800000000;
  auto plan = plan_lock(r);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const ChannelPlan* gpu = channel(*plan, "devfreq.fb000000.gpu");
  EXPECT_EQ(gpu->mode, LockMode::kPin);
  ASSERT_EQ(gpu->steps.size(), 3U);
  EXPECT_EQ(gpu->steps[1].file, "sys/class/devfreq/fb000000.gpu/min_freq");
  EXPECT_EQ(gpu->steps[2].file, "sys/class/devfreq/fb000000.gpu/max_freq");
  EXPECT_EQ(gpu->steps[2].value, "800000000");
}

TEST(LockPlan, AlreadyUserspaceKeepsItsFrequencyForTheRestore) {
  const auto root = make_rk3588_lock_tree(testing::fresh_test_dir());
  const auto dmc_dir = root / "sys/devices/platform/dmc/devfreq/dmc";
  write_lock_file(dmc_dir / "governor", "userspace\n");
  write_lock_file(dmc_dir / "userspace/set_freq", "1560000000\n");
  auto plan = plan_lock(request_for(root));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const ChannelPlan* dmc = channel(*plan, "devfreq.dmc");
  ASSERT_EQ(dmc->steps.size(), 3U);
  EXPECT_EQ(dmc->steps[0].file, kDmc + "/userspace/set_freq");  // restored last
  EXPECT_FALSE(dmc->steps[0].value.has_value());
  EXPECT_EQ(dmc->steps[0].previous, "1560000000");
  EXPECT_TRUE(dmc->steps[0].restore);
}

TEST(LockPlan, ClampByMaxFreqIsNoted) {
  const auto root = make_rk3588_lock_tree(testing::fresh_test_dir());
  write_lock_file(root / "sys/devices/platform/dmc/devfreq/dmc/max_freq", "1560000000\n");
  auto plan = plan_lock(request_for(root));
  ASSERT_TRUE(plan.ok());
  const ChannelPlan* dmc = channel(*plan, "devfreq.dmc");
  ASSERT_EQ(dmc->notes.size(), 1U);
  EXPECT_TRUE(has(dmc->notes[0], "will be clamped")) << dmc->notes[0];
}

TEST(LockPlan, NothingToLockAndEscapingSymlinks) {
  const auto dir = testing::fresh_test_dir();
  fs::create_directories(dir / "empty");
  auto none = plan_lock(request_for(dir / "empty"));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().kind, ErrorKind::kUnavailable);

  const auto root = make_rk3588_lock_tree(dir);
  write_lock_file(dir / "outside/gpu/governor", "simple_ondemand\n");
  fs::remove(root / "sys/class/devfreq/fb000000.gpu");
  fs::create_directory_symlink("../../../../outside/gpu", root / "sys/class/devfreq/fb000000.gpu");
  auto escaped = plan_lock(request_for(root));
  ASSERT_FALSE(escaped.ok());
  EXPECT_EQ(escaped.error().kind, ErrorKind::kUsage);
  EXPECT_TRUE(has(escaped.error().message, "outside the sysfs root")) << escaped.error().message;
}

TEST(LockPlan, JsonListsStepsWithSnapshotsAsNull) {
  const auto root = make_rk3588_lock_tree(testing::fresh_test_dir());
  auto plan = plan_lock(request_for(root));
  ASSERT_TRUE(plan.ok());
  const nlohmann::json j = to_json(*plan);
  EXPECT_EQ(j["channels"].size(), 6U);
  EXPECT_EQ(j["channels"][3]["name"], "devfreq.dmc");
  EXPECT_EQ(j["channels"][3]["target_freq"], 2112000000U);
  EXPECT_EQ(j["channels"][3]["steps"][1]["value"], "2112000000");
  const nlohmann::json snap = to_json(LockStep{"f", "1", std::nullopt, true});
  EXPECT_TRUE(snap["value"].is_null());
}

}  // namespace
}  // namespace tokscope::platform::lock
