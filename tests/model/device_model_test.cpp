// The device model: refusals, physical monotonicity, ceilings and the description.
#include "model/device_model.hpp"

#include <gtest/gtest.h>

#include <string>

namespace tokscope::model {
namespace {

DeviceProfile device(std::string_view name) {
  auto d = builtin_device(name);
  EXPECT_TRUE(d.ok()) << name;
  return d.ok() ? *d : DeviceProfile{};
}

DeviceModel model(std::string_view dev, std::string_view shape, std::string_view quant) {
  auto m = make_device_model(device(dev), *find_shape(shape), *find_quant(quant));
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  return std::move(m).value();
}

TEST(DeviceModel, UnsupportedQuantIsRefusedWithTheProfileReason) {
  const auto m =
      make_device_model(device("rk3588-npu"), *find_shape("Qwen2.5-1.5B"), *find_quant("w4a16"));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, ErrorKind::kUsage);
  EXPECT_NE(m.error().message.find("RKLLM runs only w8a8 (w8a8, _g128, _g256, _g512) on RK3588's "
                                   "NPU; w4a16 is for RK3576/RV1126B (RKLLM SDK doc)"),
            std::string::npos)
      << m.error().message;
  EXPECT_NE(m.error().message.find("w4a16_g128"), std::string::npos);

  const auto cpu =
      make_device_model(device("rk3588-cpu"), *find_shape("Qwen2.5-1.5B"), *find_quant("w8a8"));
  ASSERT_FALSE(cpu.ok());
  EXPECT_NE(cpu.error().message.find("llama.cpp"), std::string::npos);

  const auto ax =
      make_device_model(device("ax650n"), *find_shape("Qwen2.5-1.5B"), *find_quant("q4_0"));
  ASSERT_FALSE(ax.ok());
  EXPECT_TRUE(
      make_device_model(device("ax650n"), *find_shape("Qwen2.5-1.5B"), *find_quant("w4a16")).ok());
}

TEST(DeviceModel, DecodeSlowsWithContextAndBatchButStaysUnderTheCeiling) {
  const DeviceModel m = model("rk3588-npu", "Qwen3-0.6B", "w8a8");
  EXPECT_LT(m.decode_itl_ms(128, 1), m.decode_itl_ms(4096, 1));  // KV grows
  EXPECT_LT(m.decode_itl_ms(512, 1), m.decode_itl_ms(512, 4));   // more KV per step
  EXPECT_DOUBLE_EQ(m.decode_itl_ms(512, 0), m.decode_itl_ms(512, 1));
  for (const std::uint32_t ctx : {1u, 160u, 1024u, 8192u}) {
    const Ceiling c = m.ceiling(128, ctx);
    EXPECT_LE(1000.0 / m.decode_itl_ms(ctx, 1), c.decode_tps) << ctx;
  }
}

TEST(DeviceModel, BatchedDecodeBecomesComputeBound) {
  // Per-step time grows far slower than the batch while memory-bound, then linearly.
  const DeviceModel m = model("rk3588-npu", "Qwen2.5-1.5B", "w8a8");
  EXPECT_LT(m.decode_itl_ms(160, 2), 1.2 * m.decode_itl_ms(160, 1));
  const double step_256 = m.decode_itl_ms(160, 256);
  const double step_512 = m.decode_itl_ms(160, 512);
  EXPECT_GT(step_512 / step_256, 1.9);
}

TEST(DeviceModel, PrefillGrowsWithPromptAndStaysUnderTheCeiling) {
  const DeviceModel m = model("ax650n", "Qwen2.5-1.5B", "w8a16");
  EXPECT_LT(m.prefill_ms(128, 1), m.prefill_ms(512, 1));
  EXPECT_LT(m.prefill_ms(512, 1), m.prefill_ms(1024, 1));
  EXPECT_DOUBLE_EQ(m.prefill_ms(0, 1), m.prefill_ms(1, 1));
  for (const std::uint32_t prompt : {1u, 8u, 128u, 1024u}) {
    const double tps = prompt / (m.prefill_ms(prompt, 1) / 1000.0);
    EXPECT_LE(tps, m.ceiling(prompt, prompt).prefill_tps) << prompt;
  }
}

TEST(DeviceModel, PrefillOpsChargeTheHeadOnceAndAddAttention) {
  const DeviceModel m = model("rk3588-npu", "Qwen2.5-1.5B", "w8a8");
  const ModelShape& s = m.shape();
  const double projections = 2.0 * static_cast<double>(matmul_parameter_count(s)) * 128.0;
  const double head = 2.0 * 151936.0 * 1536.0;
  const double attention = 4.0 * 28 * 12 * 128 * 128.0 * 129.0 / 2.0;
  EXPECT_DOUBLE_EQ(m.prefill_ops(128), projections + attention + head);
}

TEST(DeviceModel, GroupedW8A8IsSlowerThanItsBytesSuggest) {
  // RKLLM v1.2.0 published w8a8_g128 at well under half the w8a8 decode speed.
  const DeviceModel plain = model("rk3588-npu", "Qwen2-1.5B", "w8a8");
  const DeviceModel grouped = model("rk3588-npu", "Qwen2-1.5B", "w8a8_g128");
  EXPECT_NEAR(grouped.decode_itl_ms(192, 1) / plain.decode_itl_ms(192, 1), 16.46 / 7.00, 0.01);
  EXPECT_NEAR(grouped.prefill_ms(64, 1) / plain.prefill_ms(64, 1), 725.0 / 206.0, 0.01);
}

TEST(DeviceModel, CeilingNamesItsFigures) {
  const DeviceModel m = model("ax650n", "Qwen2.5-0.5B", "w8a16");
  const Ceiling c = m.ceiling(128, 192);
  EXPECT_DOUBLE_EQ(c.bandwidth_gbps, 34.1);
  EXPECT_EQ(c.context_tokens, 192u);
  EXPECT_NE(c.source.find("ax650n"), std::string::npos) << c.source;
  EXPECT_NE(c.source.find("uncertain"), std::string::npos) << c.source;
}

TEST(DeviceModel, DescribeCarriesInputsAndSources) {
  const DeviceModel m = model("rk3588-cpu", "TinyLlama-1.1B", "q4_0");
  const nlohmann::json d = m.describe();
  EXPECT_EQ(d["device"]["name"], "rk3588-cpu");
  EXPECT_EQ(d["shape"]["name"], "TinyLlama-1.1B");
  EXPECT_EQ(d["quant"]["name"], "q4_0");
  EXPECT_EQ(d["quant"]["act_bits"], "unknown");
  EXPECT_DOUBLE_EQ(d["weight_bytes_per_token"].get<double>(), m.bytes().weight_bytes_per_token);
  EXPECT_DOUBLE_EQ(d["kv_bytes_per_context_token"].get<double>(),
                   m.bytes().kv_bytes_per_context_token);
  EXPECT_NE(d["factors"]["fitted_to"].get<std::string>().find("uncalibrated guess"),
            std::string::npos);
  EXPECT_TRUE(d["factors"]["bandwidth_efficiency"]["uncertain"].get<bool>());
  EXPECT_TRUE(d["formula"].contains("decode_itl_ms"));
}

}  // namespace
}  // namespace tokscope::model
