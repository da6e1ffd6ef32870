// `tokscope roofline`: the seed's figure, the device path, and bad input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "process.hpp"

namespace tokscope::testing {
namespace {

using nlohmann::json;

TEST(Roofline, SeedFigureIs15Point45TokensPerSecond) {
  const auto dir = fresh_dir();
  const Finished f = run_tokscope(
      {"roofline", "--bandwidth-gbps", "17", "--weights-gb", "1.1", "-o", "json"}, dir);
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const json t = json::parse(f.out);
  EXPECT_NEAR(t["decode"][0]["ceiling_tps"].get<double>(), 17.0 / 1.1, 1e-9);
  const Finished md =
      run_tokscope({"roofline", "--bandwidth-gbps", "17", "--weights-gb", "1.1"}, dir);
  EXPECT_NE(md.out.find("| 15.45 |"), std::string::npos) << md.out;
  // The seed's remembered 17 GB/s is half of LPDDR4x-4224: at 33.8 GB/s the ceiling is ~30.7.
  const Finished lp4x = run_tokscope(
      {"roofline", "--bandwidth-gbps", "33.8", "--weights-gb", "1.1", "-o", "json"}, dir);
  EXPECT_NEAR(json::parse(lp4x.out)["decode"][0]["ceiling_tps"].get<double>(), 30.727, 1e-3);
}

TEST(Roofline, CatalogShapeOnADeviceProfile) {
  const auto dir = fresh_dir();
  const Finished f =
      run_tokscope({"roofline", "--model-shape", "deepseek-r1-distill-qwen-1.5b", "--quant", "w8a8",
                    "--device", "rk3588-npu", "--context", "0,4096", "-o", "json"},
                   dir);
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const json t = json::parse(f.out);
  const double c0 = t["decode"][0]["ceiling_tps"].get<double>();
  const double c4k = t["decode"][1]["ceiling_tps"].get<double>();
  EXPECT_GT(c0, c4k);  // the KV cache adds bytes per step
  EXPECT_NEAR(t["inputs"]["bandwidth_gbps"].get<double>(), 33.8, 1e-9);
  EXPECT_TRUE(t["prefill"][0]["compute_bound_tps"].is_number());
}

TEST(Roofline, BadInputIsAnErrorNotADivision) {
  const auto dir = fresh_dir();
  struct Case {
    std::vector<std::string> args;
    std::string needle;
  };
  const std::vector<Case> cases = {
      {{"roofline", "--bandwidth-gbps", "0", "--weights-gb", "1.1"}, "--bandwidth-gbps"},
      {{"roofline", "--bandwidth-gbps", "-3", "--weights-gb", "1.1"}, "--bandwidth-gbps"},
      {{"roofline", "--bandwidth-gbps", "17", "--weights-gb", "0"}, "--weights-gb"},
      {{"roofline", "--weights-gb", "1.1"}, "--bandwidth-gbps"},
      {{"roofline", "--bandwidth-gbps", "17"}, "--model-shape"},
      {{"roofline", "--model-shape", "nope", "--quant", "w8a8", "--bandwidth-gbps", "17"},
       "Qwen2.5-1.5B"},  // lists the known shapes
      {{"roofline", "--model-shape", "qwen2.5-1.5b", "--quant", "w5a5", "--bandwidth-gbps", "17"},
       "q4_k_m"},  // lists the known quants
      {{"roofline", "--model-shape", "qwen2.5-1.5b", "--quant", "q4_0", "--device", "nope"},
       "rk3588-npu"},
  };
  for (const auto& c : cases) {
    const Finished f = run_tokscope(c.args, dir);
    EXPECT_EQ(f.exit_code, 2) << c.args.back() << "\n" << f.err;
    EXPECT_NE(f.err.find(c.needle), std::string::npos) << f.err;
  }
}

}  // namespace
}  // namespace tokscope::testing
