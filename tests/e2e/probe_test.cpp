// `tokscope probe` through the real binary: quick mode (correctness, not a figure), its JSON,
// and --cached / --probe when nothing is cached.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <nlohmann/json.hpp>

#include "process.hpp"

namespace tokscope::testing {
namespace {

using nlohmann::json;

TEST(Probe, QuickRunGivesTheDocumentedFieldsAndIsNeverCached) {
  const auto dir = fresh_dir();
  const Finished f =
      run_tokscope({"probe", "--quick", "--no-compute", "--cpus", "0", "-o", "json"}, dir);
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const json d = json::parse(f.out);
  EXPECT_EQ(d["schema"], "tokscope.probe/1");
  EXPECT_TRUE(d["quick"].get<bool>());
  EXPECT_GT(d["peak_read_bandwidth_gbps"].get<double>(), 0.0);
  for (const char* k : {"sum", "copy", "scale", "add", "triad"}) {
    EXPECT_GT(d["memory"]["groups"][0]["kernels"][k]["best_gbps"].get<double>(), 0.0) << k;
  }
  EXPECT_EQ(f.err.find("cached as"), std::string::npos);  // quick probes are not figures
}

TEST(Probe, BadCpuListExits2) {
  const auto dir = fresh_dir();
  const Finished f = run_tokscope({"probe", "--quick", "--cpus", "7-x"}, dir);
  EXPECT_EQ(f.exit_code, 2);
  EXPECT_NE(f.err.find("--cpus"), std::string::npos) << f.err;
}

}  // namespace
}  // namespace tokscope::testing
