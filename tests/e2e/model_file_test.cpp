// synth-model -> inspect -> roofline --model through the real binary.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "process.hpp"

namespace tokscope::testing {
namespace {

using nlohmann::json;

TEST(ModelFile, SynthesizeInspectAndTakeTheCeiling) {
  const auto dir = fresh_dir();
  const Finished synth = run_tokscope({"synth-model", "--shape", "gemma-3-270m", "--quant", "q4_0",
                                       "--out", "g.gguf", "-o", "json"},
                                      dir);
  ASSERT_EQ(synth.exit_code, 0) << synth.err;
  EXPECT_EQ(json::parse(synth.out)["synthetic_weights"], true);

  const Finished inspect = run_tokscope({"inspect", "g.gguf", "-o", "json"}, dir);
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  const json facts = json::parse(inspect.out);
  EXPECT_EQ(facts["architecture"]["arch"], "gemma3");
  EXPECT_EQ(facts["architecture"]["n_layer"], 18);
  EXPECT_EQ(facts["model"]["synthetic_weights"], true);
  const auto& match = facts["catalog_match"];
  EXPECT_NE(std::find(match.begin(), match.end(), "Gemma-3-270M"), match.end()) << match;
  const double w = facts["decode"]["weight_bytes_per_token"].get<double>();

  const Finished md = run_tokscope({"inspect", "g.gguf"}, dir);
  EXPECT_NE(md.out.find("SYNTHETIC WEIGHTS"), std::string::npos);

  const Finished roof = run_tokscope(
      {"roofline", "--model", "g.gguf", "--bandwidth-gbps", "10", "--context", "0", "-o", "json"},
      dir);
  ASSERT_EQ(roof.exit_code, 0) << roof.err;
  EXPECT_NEAR(json::parse(roof.out)["decode"][0]["ceiling_tps"].get<double>(), 10e9 / w, 1e-6);

  // bench takes W and K from the file: a 500 tok/s "decode" on 0.1 GB/s is flagged.
  const Finished bench = run_tokscope({"bench",
                                       "--sim-prefill-tps",
                                       "5000",
                                       "--sim-itl-ms",
                                       "2",
                                       "-p",
                                       "16",
                                       "-n",
                                       "4",
                                       "-r",
                                       "2",
                                       "--warmup",
                                       "0",
                                       "-q",
                                       "--model-file",
                                       "g.gguf",
                                       "--bandwidth-gbps",
                                       "0.1",
                                       "-o",
                                       "json"},
                                      dir);
  EXPECT_EQ(bench.exit_code, 1) << bench.err;
  const json r = json::parse(bench.out);
  EXPECT_EQ(r["model"]["synthetic_weights"], true);
  EXPECT_NEAR(r["strata"][0]["ceiling"]["decode_tps"].get<double>(),
              0.1e9 / (w + facts["decode"]["kv_bytes_per_context_token"].get<double>() * 18.0),
              1e-9);
  const auto& flags = r["strata"][0]["flags"];
  EXPECT_NE(std::find(flags.begin(), flags.end(), "exceeds_physical_ceiling"), flags.end());
  std::filesystem::remove(dir / "g.gguf");
}

TEST(ModelFile, BadFilesExit2AndNameTheFile) {
  const auto dir = fresh_dir();
  std::ofstream(dir / "junk.gguf") << "GGUF\x03\x00\x00\x00 truncated";
  const Finished f = run_tokscope({"inspect", "junk.gguf"}, dir);
  EXPECT_EQ(f.exit_code, 2);
  EXPECT_NE(f.err.find("junk.gguf"), std::string::npos) << f.err;
  EXPECT_NE(f.err.find("offset"), std::string::npos) << f.err;
  std::ofstream(dir / "m.rkllm") << "not documented";
  const Finished rk =
      run_tokscope({"roofline", "--model", "m.rkllm", "--bandwidth-gbps", "33.8"}, dir);
  EXPECT_EQ(rk.exit_code, 2);
  EXPECT_NE(rk.err.find("--model-shape"), std::string::npos) << rk.err;
  const Finished rk_inspect = run_tokscope({"inspect", "m.rkllm", "-o", "json"}, dir);
  EXPECT_EQ(rk_inspect.exit_code, 0) << rk_inspect.err;
  EXPECT_EQ(json::parse(rk_inspect.out)["ceiling_estimated"], true);
  const Finished rk_bench = run_tokscope({"bench", "--sim-prefill-tps", "100", "--sim-itl-ms", "1",
                                          "--model-file", "m.rkllm", "--bandwidth-gbps", "33.8"},
                                         dir);
  EXPECT_EQ(rk_bench.exit_code, 2);
  EXPECT_NE(rk_bench.err.find("--model-shape"), std::string::npos) << rk_bench.err;
  const Finished dev = run_tokscope({"bench", "--device", "rk3588-npu", "--model-shape",
                                     "qwen2.5-1.5b", "--quant", "w8a8", "--model-file", "m.rkllm"},
                                    dir);
  EXPECT_EQ(dev.exit_code, 2);
  EXPECT_NE(dev.err.find("--model-file"), std::string::npos) << dev.err;
  const Finished bad_synth =
      run_tokscope({"synth-model", "--shape", "nope", "--out", "x.gguf"}, dir);
  EXPECT_EQ(bad_synth.exit_code, 2);
  EXPECT_NE(bad_synth.err.find("Qwen2.5-1.5B"), std::string::npos) << bad_synth.err;
}

}  // namespace
}  // namespace tokscope::testing
