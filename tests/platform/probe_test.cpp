#include "platform/probe/probe.hpp"

#include <gtest/gtest.h>

#include "platform/probe/memory_kernels.hpp"

namespace tokscope::platform::probe {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::uint64_t kMiB = 1 << 20;

fs::path fixture(const std::string& name) {
  return fs::path(TOKSCOPE_TEST_DATA_DIR).parent_path() / "fixtures" / "sysfs" / name;
}

// Small and fast: correctness of the document only, no timing claims.
ProbeOptions small(const std::string& machine) {
  ProbeOptions o;
  o.root = fixture(machine);
  o.quick = true;
  o.array_bytes = 64 * 1024;
  o.compute_seconds = 0.002;
  return o;
}

bool contains(const std::string& s, const std::string& needle) {
  return s.find(needle) != std::string::npos;
}

TEST(ChooseArrayBytes, Rules) {
  EXPECT_EQ(choose_array_bytes(3 * kMiB, 5 * kMiB, false, {}).bytes, 5 * kMiB);
  EXPECT_EQ(choose_array_bytes(3 * kMiB, 5 * kMiB, false, {}).reason, "requested");
  EXPECT_EQ(choose_array_bytes(3 * kMiB, 0, true, {}).bytes, 2 * kMiB);
  EXPECT_TRUE(contains(choose_array_bytes(3 * kMiB, 0, true, {}).reason, "quick"));
  // RK3588: 4 x 3 MiB is below the 64 MiB floor.
  EXPECT_EQ(choose_array_bytes(3 * kMiB, 0, false, {}).bytes, 64 * kMiB);
  EXPECT_TRUE(contains(choose_array_bytes(3 * kMiB, 0, false, {}).reason, "64 MiB floor"));
  EXPECT_EQ(choose_array_bytes(std::nullopt, 0, false, {}).bytes, 64 * kMiB);
  EXPECT_TRUE(contains(choose_array_bytes(std::nullopt, 0, false, {}).reason, "unknown"));
  // A server LLC: 4 x 480 MiB.
  EXPECT_EQ(choose_array_bytes(480 * kMiB, 0, false, 24000 * kMiB).bytes, 1920 * kMiB);
  EXPECT_TRUE(contains(choose_array_bytes(480 * kMiB, 0, false, {}).reason, "4 x last-level"));
}

TEST(ChooseArrayBytes, CappedToHalfOfAvailableMemory) {
  const ArraySize s = choose_array_bytes(480 * kMiB, 0, false, 1200 * kMiB);
  EXPECT_EQ(s.bytes, 200 * kMiB);  // 3 arrays in 600 MiB
  EXPECT_TRUE(contains(s.reason, "capped"));
  EXPECT_TRUE(contains(s.reason, "below 4 x last-level cache"));
  EXPECT_EQ(choose_array_bytes(3 * kMiB, 0, false, 1200 * kMiB).bytes, 64 * kMiB);  // fits
}

TEST(ParseMemAvailable, FromMeminfo) {
  const std::string meminfo =
      "MemTotal:       24683748 kB\nMemFree:        23520012 kB\nMemAvailable:   24337536 kB\n";
  EXPECT_EQ(parse_mem_available(meminfo), 24337536ULL * 1024);
  EXPECT_FALSE(parse_mem_available("MemTotal: 1 kB\n"));
  EXPECT_FALSE(parse_mem_available("MemAvailable: x kB\n"));
}

TEST(RunProbe, DocumentHasTheDocumentedFields) {
  auto r = run_probe(small("rk3588"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  const json& d = *r;
  EXPECT_EQ(d["schema"], kProbeSchema);
  EXPECT_TRUE(d["tokscope_version"].is_string());
  EXPECT_TRUE(d["git_commit"].is_string());
  EXPECT_TRUE(d["started_at"].get<std::string>().ends_with("Z"));
  EXPECT_TRUE(d["finished_at"].is_string());
  EXPECT_GE(d["duration_s"].get<double>(), 0.0);
  EXPECT_EQ(d["quick"], true);
  for (const char* k : {"kernel_release", "cpu", "logical_cpus"}) {
    EXPECT_TRUE(d["identity"].contains(k)) << k;
  }
  EXPECT_EQ(d["identity"]["cpu"], "4x Cortex-A55 + 4x Cortex-A76");
  for (const char* k : {"hostname", "kernel_release", "arch", "cpu", "logical_cpus"}) {
    EXPECT_TRUE(d["machine"].contains(k)) << k;
  }

  const json& topo = d["topology"];
  EXPECT_EQ(topo["online_cpus"], "0-7");
  EXPECT_EQ(topo["grouping"], "cpu_capacity");
  EXPECT_EQ(topo["llc"]["bytes"], 3072 * 1024);
  ASSERT_EQ(topo["core_types"].size(), 2U);
  EXPECT_EQ(topo["core_types"][0]["name"], "Cortex-A55");
  EXPECT_EQ(topo["core_types"][0]["cpus"], "0-3");
  EXPECT_EQ(topo["core_types"][1]["max_freq_khz"], 2352000);

  const json& mem = d["memory"];
  EXPECT_EQ(mem["array_bytes"], 64 * 1024);
  EXPECT_EQ(mem["elements"], 8 * 1024);
  EXPECT_EQ(mem["array_size_reason"], "requested");
  EXPECT_EQ(mem["repetitions"], 3);
  ASSERT_EQ(mem["groups"].size(), 3U);  // all, Cortex-A55, Cortex-A76
  EXPECT_EQ(mem["groups"][0]["name"], "all");
  EXPECT_EQ(mem["groups"][0]["core_type"], "mixed");
  EXPECT_EQ(mem["groups"][0]["cpus"], "0-7");
  EXPECT_EQ(mem["groups"][1]["name"], "Cortex-A55");
  EXPECT_EQ(mem["groups"][2]["cpus"], "4-7");
  for (const json& g : mem["groups"]) {
    EXPECT_TRUE(g["pin_failures"].is_array());  // cpus 2-7 do not exist on a 2-cpu CI machine
    for (const MemoryKernel k : kMemoryKernels) {
      const json& kj = g["kernels"][to_string(k)];
      for (const char* f : {"best_gbps", "avg_gbps", "min_gbps", "max_gbps"}) {
        EXPECT_GT(kj[f].get<double>(), 0.0) << to_string(k) << " " << f;
      }
      EXPECT_EQ(kj["bytes_per_pass"], bytes_per_pass(k, 8 * 1024));
      EXPECT_EQ(kj["seconds"].size(), 3U);
    }
  }
  EXPECT_EQ(mem["groups"][0]["kernels"]["copy"]["bytes_per_pass"], 2 * 8 * 8 * 1024);
  EXPECT_EQ(d["peak_read_bandwidth_gbps"], mem["groups"][0]["kernels"]["sum"]["best_gbps"]);

  const json& compute = d["compute"];
  ASSERT_EQ(compute["groups"].size(), 3U);
  for (const json& g : compute["groups"]) {
    EXPECT_GT(g["fp32_fma"]["best_gflops"].get<double>(), 0.0);
    EXPECT_GT(g["int8_dot"]["best_gops"].get<double>(), 0.0);
    EXPECT_TRUE(g["fp32_fma"]["isa"].is_string());
    EXPECT_TRUE(g["int8_dot"].contains("per_core_best_gops"));
  }
  EXPECT_EQ(compute["groups"][1]["fp32_fma"]["threads"], 4);
  EXPECT_FALSE(compute["isas_available"]["int8_dot"].empty());
  EXPECT_EQ(d["peak_fp32_gflops"], compute["groups"][0]["fp32_fma"]["best_gflops"]);
  EXPECT_EQ(d["peak_int8_gops"], compute["groups"][0]["int8_dot"]["best_gops"]);
  EXPECT_TRUE(d["notes"].is_array());
}

TEST(RunProbe, OneCoreTypeMeansOneGroup) {
  ProbeOptions o = small("x86-laptop");
  o.compute = false;
  auto r = run_probe(o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const json& groups = (*r)["memory"]["groups"];
  ASSERT_EQ(groups.size(), 1U);
  EXPECT_EQ(groups[0]["core_type"], "11th Gen Intel(R) Core(TM) i5-1135G7 @ 2.40GHz");
  EXPECT_TRUE((*r)["compute"].contains("skipped"));
  EXPECT_FALSE(r->contains("peak_fp32_gflops"));
}

TEST(RunProbe, CpuSelection) {
  ProbeOptions o = small("rk3588");
  o.compute = false;
  o.cpus = {4, 5, 6, 7};
  auto r = run_probe(o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const json& groups = (*r)["memory"]["groups"];
  ASSERT_EQ(groups.size(), 1U);  // the A76 group would repeat "all"
  EXPECT_EQ(groups[0]["cpus"], "4-7");

  o.cpus = {0, 99};
  auto bad = run_probe(o);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::kUsage);
  EXPECT_TRUE(contains(bad.error().message, "cpu 99 is not online (online: 0-7)"));
}

}  // namespace
}  // namespace tokscope::platform::probe
