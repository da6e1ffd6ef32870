// `tokscope doctor` through the real binary: on a copy of the RK3588 fixture tree (JSON schema,
// expected findings, exit 1 only with a blocking finding) and on this machine's real root, where
// most sources are missing and must be reported as "unavailable" rather than abort.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/sysfs_fixture.hpp"
#include "process.hpp"

namespace tokscope::testing {
namespace {

using nlohmann::json;

const json& finding(const json& doc, const std::string& id) {
  for (const auto& f : doc["findings"]) {
    if (f["id"] == id) return f;
  }
  throw std::runtime_error("no finding " + id + " in " + doc.dump());
}

// Doctor on a fixture copy, skipping the build check: whether this test binary's tokscope is a
// debug build is not what these tests are about (DoctorE2E.BuildCheckFollowsTheBinary is).
Finished doctor_on(const std::filesystem::path& root, const std::filesystem::path& dir) {
  return run_tokscope({"doctor", "--sysfs-root", root.string(), "--interval-s", "0", "--skip",
                       "build", "-o", "json"},
                      dir);
}

TEST(DoctorE2E, BoardTreeJsonHasEveryCheckAndExitsZeroWithoutBlockingFindings) {
  const auto dir = fresh_dir();
  const auto root = copy_sysfs_fixture("rk3588");
  const Finished f = doctor_on(root, dir);
  ASSERT_EQ(f.exit_code, 0) << f.out << f.err;
  const json doc = json::parse(f.out);
  EXPECT_EQ(doc["schema"], "tokscope.doctor/1");
  EXPECT_EQ(doc["root"], root.string());
  EXPECT_EQ(doc["findings"].size(), 10U);
  EXPECT_EQ(doc["blocking"], 0);
  EXPECT_GE(doc["warnings"].get<int>(), 4);
  for (const char* id : {"governors", "ddr", "npu", "swap"}) {
    EXPECT_EQ(finding(doc, id)["severity"], "warning") << id;
    EXPECT_FALSE(finding(doc, id)["fix"].empty()) << id;
  }
  EXPECT_EQ(finding(doc, "governors")["fix"][0], "sudo tokscope lock --keep");
  EXPECT_EQ(finding(doc, "thermal")["severity"], "ok");
  EXPECT_EQ(finding(doc, "build")["severity"], "info");  // skipped
  // Sorted: no warning after an info or ok.
  bool seen_lower = false;
  for (const auto& item : doc["findings"]) {
    const bool lower = item["severity"] == "info" || item["severity"] == "ok";
    EXPECT_FALSE(seen_lower && item["severity"] == "warning") << doc.dump(2);
    seen_lower = seen_lower || lower;
  }
}

TEST(DoctorE2E, AZoneOverItsPassiveTripIsBlockingAndExitsOne) {
  const auto dir = fresh_dir();
  const auto root = copy_sysfs_fixture("rk3588");
  write_file(root / "sys/class/thermal/thermal_zone0/temp", "76000\n");  // passive trip 75 °C
  const Finished f = doctor_on(root, dir);
  ASSERT_EQ(f.exit_code, 1) << f.out << f.err;
  const json doc = json::parse(f.out);
  EXPECT_EQ(doc["blocking"], 1);
  EXPECT_EQ(doc["findings"][0]["id"], "thermal");
  EXPECT_EQ(doc["findings"][0]["severity"], "blocking");
  EXPECT_NE(doc["findings"][0]["title"].get<std::string>().find("soc-thermal"), std::string::npos);

  // The markdown checklist says the same, blocking first, with a summary line.
  const Finished md = run_tokscope(
      {"doctor", "--sysfs-root", root.string(), "--interval-s", "0", "--skip", "build"}, dir);
  EXPECT_EQ(md.exit_code, 1) << md.err;
  EXPECT_NE(md.out.find("| severity | check | finding | fix |"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("| **BLOCKING** | thermal |"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("1 blocking"), std::string::npos) << md.out;
}

TEST(DoctorE2E, BuildCheckFollowsTheBinary) {
  const auto dir = fresh_dir();
  const auto root = copy_sysfs_fixture("x86-laptop");
  const Finished f = run_tokscope(
      {"doctor", "--sysfs-root", root.string(), "--interval-s", "0", "-o", "json"}, dir);
  const json doc = json::parse(f.out);
  const json& build = finding(doc, "build");
  const bool blocking = build["severity"] == "blocking";
  EXPECT_TRUE(blocking || build["severity"] == "ok") << build;
  EXPECT_EQ(f.exit_code, blocking ? 1 : 0) << f.err;
  EXPECT_EQ(doc["blocking"], blocking ? 1 : 0);
}

TEST(DoctorE2E, BadUsageExitsTwo) {
  const auto dir = fresh_dir();
  EXPECT_EQ(run_tokscope({"doctor", "--skip", "nope", "--interval-s", "0"}, dir).exit_code, 2);
  EXPECT_EQ(run_tokscope({"doctor", "--interval-s", "-1"}, dir).exit_code, 2);
  EXPECT_EQ(run_tokscope({"doctor", "-o", "csv"}, dir).exit_code, 2);
  const Finished help = run_tokscope({"doctor", "--help"}, dir);
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("blocking  measurements taken now would be wrong"), std::string::npos)
      << help.out;
}

TEST(DoctorE2E, RealRootRunsAndReportsWhatIsMissingAsUnavailable) {
  const auto dir = fresh_dir();
  const Finished f =
      run_tokscope({"doctor", "--interval-s", "0.2", "-o", "json", "--out", "doctor.json"}, dir);
  EXPECT_EQ(f.signal, 0) << f.err;
  EXPECT_TRUE(f.exit_code == 0 || f.exit_code == 1) << f.exit_code << f.err;
  const json doc = json::parse(slurp(dir / "doctor.json"));
  EXPECT_EQ(doc["findings"].size(), 10U);
  EXPECT_EQ(f.exit_code, doc["blocking"].get<int>() > 0 ? 1 : 0);
  // Whatever this machine lacks (a VM: cpufreq, thermal, devfreq, PMU) is info, not an abort.
  int unavailable = 0;
  for (const auto& item : doc["findings"]) {
    const std::string title = item["title"];
    if (title.rfind("unavailable", 0) == 0) {
      ++unavailable;
      EXPECT_EQ(item["severity"], "info") << item;
    }
  }
  if (!std::filesystem::exists("/sys/devices/system/cpu/cpufreq/policy0")) {
    EXPECT_GE(unavailable, 1) << doc.dump(2);
  }
}

}  // namespace
}  // namespace tokscope::testing
