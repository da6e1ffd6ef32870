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
  const Finished bad_synth =
      run_tokscope({"synth-model", "--shape", "nope", "--out", "x.gguf"}, dir);
  EXPECT_EQ(bad_synth.exit_code, 2);
  EXPECT_NE(bad_synth.err.find("Qwen2.5-1.5B"), std::string::npos) << bad_synth.err;
}

}  // namespace
}  // namespace tokscope::testing
