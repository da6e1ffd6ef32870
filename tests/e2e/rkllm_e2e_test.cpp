// `bench --engine rkllm` through the real binary, against the stand-in RKLLM runtime
// (tests/engines/rkllm_stub): the run is real (not simulated), the schedule the stand-in plays is
// what the harness measures, the runtime's own perf figures sit beside ours on every request,
// and missing or wrong flags are refused with the fix. The adapter awaits validation on an
// RK3588: this checks tokscope's side of the documented API only.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "process.hpp"

namespace tokscope::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path script(const fs::path& dir, const std::string& text) {
  const fs::path p = dir / "model.rkllm.json";
  std::ofstream(p) << text;
  return p;
}

std::vector<std::string> rkllm_args(const char* lib, const char* abi, const fs::path& model,
                                    std::vector<std::string> extra) {
  std::vector<std::string> a = {"bench",
                                "-q",
                                "--engine",
                                "rkllm",
                                "--rkllm-lib",
                                lib,
                                "--rkllm-abi",
                                abi,
                                "--rkllm-model",
                                model.string(),
                                "-p",
                                "16",
                                "-n",
                                "8",
                                "-r",
                                "4",
                                "--warmup",
                                "1"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

void expect_measured_schedule(const Finished& f) {
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const json r = json::parse(f.out);
  EXPECT_FALSE(r["simulated"].get<bool>());
  EXPECT_EQ(r["engine"]["name"], "rkllm");
  const json& s = r["strata"][0];
  EXPECT_EQ(s["measured"], 4);
  // The stand-in plays ITL 10 ms: decode speed from ITL near 100 tok/s (loaded VM: loose).
  EXPECT_NEAR(s["decode_tps_p50"].get<double>(), 100.0, 15.0) << s["itl_ms"].dump();
  EXPECT_GE(s["ttft_ms"]["p50"].get<double>(), 30.0);
  const json& req = r["requests"][1];
  ASSERT_TRUE(req.contains("engine_stats")) << req.dump();
  EXPECT_EQ(req["engine_stats"]["callback_tokens"], 8);
}

TEST(RkllmE2e, BenchMeasuresTheStandInRuntimeV130) {
  const fs::path dir = fresh_dir();
  const fs::path model = script(dir, R"({"prefill_ms": 30, "itl_ms": 10, "n_tokens": 8})");
  expect_measured_schedule(
      run_tokscope(rkllm_args(RKLLM_STUB_V130, "1.3.0", model, {"-o", "json"}), dir));
}

TEST(RkllmE2e, BenchMeasuresTheStandInRuntimeV121) {
  const fs::path dir = fresh_dir();
  const fs::path model = script(dir, R"({"prefill_ms": 30, "itl_ms": 10, "n_tokens": 8})");
  expect_measured_schedule(
      run_tokscope(rkllm_args(RKLLM_STUB_V121, "1.2.1", model, {"-o", "json"}), dir));
}

TEST(RkllmE2e, MissingOrWrongFlagsAreRefusedWithTheFix) {
  const fs::path dir = fresh_dir();
  const fs::path model = script(dir, R"({"n_tokens": 8})");
  const Finished no_abi = run_tokscope({"bench", "--engine", "rkllm", "--rkllm-lib",
                                        RKLLM_STUB_V130, "--rkllm-model", model.string()},
                                       dir);
  EXPECT_EQ(no_abi.exit_code, 2);
  EXPECT_NE(no_abi.err.find("--rkllm-abi"), std::string::npos) << no_abi.err;
  const Finished bad_abi = run_tokscope(rkllm_args(RKLLM_STUB_V130, "1.1.0", model, {}), dir);
  EXPECT_EQ(bad_abi.exit_code, 2);
  EXPECT_NE(bad_abi.err.find("--rkllm-abi"), std::string::npos) << bad_abi.err;
  const Finished no_lib =
      run_tokscope(rkllm_args("/nonexistent/librkllmrt.so", "1.3.0", model, {}), dir);
  EXPECT_NE(no_lib.exit_code, 0);
  EXPECT_NE(no_lib.err.find("--rkllm-lib"), std::string::npos) << no_lib.err;
}

}  // namespace
}  // namespace tokscope::testing
