// Choosing and applying the cpus of `bench --cpus` / `--core-type`: big and little from the
// RK3588 fixture's cpu_capacity, refusals that name the flag, and a real pin of one thread.
#include "platform/affinity.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <thread>

#include "common/sysfs_fixture.hpp"
#include "platform/memory_lock.hpp"

namespace tokscope::platform {
namespace {

using testing::sysfs_fixture;

TEST(Affinity, CoreTypesOfTheRk3588FixtureAreItsClusters) {
  const Topology topo = read_topology(sysfs_fixture("rk3588"));
  auto big = plan_affinity("", "big", topo);
  ASSERT_TRUE(big.ok()) << big.error().message;
  EXPECT_EQ(big->cpus, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_NE(big->source.find("--core-type big"), std::string::npos) << big->source;
  auto little = plan_affinity("", "little", topo);
  ASSERT_TRUE(little.ok());
  EXPECT_EQ(little->cpus, (std::vector<int>{0, 1, 2, 3}));
}

TEST(Affinity, ACpuListIsCheckedAgainstTheOnlineCpus) {
  const Topology topo = read_topology(sysfs_fixture("rk3588"));
  auto ok = plan_affinity("4-5,7", "", topo);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->cpus, (std::vector<int>{4, 5, 7}));
  auto offline = plan_affinity("6-9", "", topo);
  ASSERT_FALSE(offline.ok());
  EXPECT_NE(offline.error().message.find("cpu 8 is not online"), std::string::npos)
      << offline.error().message;
  auto bad = plan_affinity("3-1", "", topo);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("--cpus '3-1'"), std::string::npos);
}

TEST(Affinity, RefusalsNameTheFlag) {
  Topology uniform;
  uniform.online_cpus = {0, 1};
  uniform.core_types.types = {CoreType{"Some x86", "uniform", {0, 1}, std::nullopt, ""}};
  uniform.core_types.basis = "uniform: no cpu_capacity";
  auto one = plan_affinity("", "big", uniform);
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.error().kind, ErrorKind::kUsage);
  EXPECT_NE(one.error().message.find("one core type"), std::string::npos);
  EXPECT_NE(one.error().message.find("--cpus"), std::string::npos);
  EXPECT_FALSE(plan_affinity("0", "big", uniform).ok());  // both flags
  EXPECT_FALSE(plan_affinity("", "", uniform).ok());      // neither
  auto medium = plan_affinity("", "medium", uniform);
  ASSERT_FALSE(medium.ok());
  EXPECT_NE(medium.error().message.find("big or little"), std::string::npos);
}

TEST(Affinity, PinsTheCallingThreadAndReadsTheMaskBack) {
  std::vector<int> applied;
  std::string error;
  std::vector<int> inherited;
  std::thread t([&] {
    AffinityPlan plan{{0}, "--cpus 0"};
    auto r = pin_calling_thread(plan);
    if (r) {
      applied = *r;
      std::thread child([&] { inherited = current_affinity(); });  // threads inherit the mask
      child.join();
    } else {
      error = r.error().message;
    }
  });
  t.join();
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_EQ(applied, std::vector<int>{0});
  EXPECT_EQ(inherited, std::vector<int>{0});
  const auto json = affinity_json(AffinityPlan{{0}, "--cpus 0"}, applied);
  EXPECT_EQ(json["applied"], "0");
}

TEST(MemoryLock, FailureReasonsSayTheFix) {
  const std::string nomem = mlock_failure_reason(ENOMEM, 65536);
  EXPECT_NE(nomem.find("64 KiB"), std::string::npos) << nomem;
  EXPECT_NE(nomem.find("ulimit -l unlimited"), std::string::npos) << nomem;
  EXPECT_NE(nomem.find("--mlock"), std::string::npos);
  const std::string perm = mlock_failure_reason(EPERM, std::nullopt);
  EXPECT_NE(perm.find("CAP_IPC_LOCK"), std::string::npos) << perm;
  EXPECT_NE(perm.find("unlimited"), std::string::npos) << perm;
}

}  // namespace
}  // namespace tokscope::platform
