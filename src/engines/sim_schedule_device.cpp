#include "engines/sim_schedule_device.hpp"

#include <fmt/format.h>

#include "model/decode_bytes.hpp"
#include "model/shape_json.hpp"

namespace tokscope::engines {
namespace {

class DeviceSchedule final : public SimSchedule {
 public:
  explicit DeviceSchedule(model::DeviceModel m) : model_(std::move(m)) {}
  double prefill_ms(std::uint32_t prompt_tokens, std::uint32_t concurrency) const override {
    return model_.prefill_ms(prompt_tokens, concurrency);
  }
  double itl_ms(std::uint32_t context_tokens, std::uint32_t concurrency) const override {
    return model_.decode_itl_ms(context_tokens, concurrency);
  }
  double jitter_ms() const override { return 0.0; }
  nlohmann::json describe() const override {
    nlohmann::json d = model_.describe();
    d["kind"] = "device-model";
    return d;
  }
  nlohmann::json model_info() const override {
    return catalog_model_info(model_.shape(), model_.quant());
  }

 private:
  model::DeviceModel model_;
};

}  // namespace

std::unique_ptr<SimSchedule> make_device_schedule(model::DeviceModel model) {
  return std::make_unique<DeviceSchedule>(std::move(model));
}

nlohmann::json device_ceiling_inputs(const model::DeviceModel& m) {
  const auto& p = m.profile();
  const auto& b = m.bytes();
  return {{"bandwidth_gbps", p.memory_bandwidth_gbps.value},
          {"weight_bytes_per_token", b.weight_bytes_per_token},
          {"kv_bytes_per_context_token", b.kv_bytes_per_context_token},
          {"peak_ops_per_s", p.peak_tops.value * 1e12},
          {"ops_per_token", b.flops_per_token},
          {"source",
           fmt::format("device profile {}: bandwidth {} GB/s ({}{}), peak {} TOPS ({}{})", p.name,
                       p.memory_bandwidth_gbps.value, p.memory_bandwidth_gbps.source,
                       p.memory_bandwidth_gbps.uncertain ? "; uncertain" : "", p.peak_tops.value,
                       p.peak_tops.source, p.peak_tops.uncertain ? "; uncertain" : "")}};
}

nlohmann::json catalog_model_info(const model::ModelShape& shape, const model::QuantPreset& quant) {
  const model::DecodeBytes b = model::decode_bytes(shape, quant);
  return {{"path", nullptr},
          {"name", shape.name},
          {"arch", shape.arch},
          {"params", b.params},
          {"shape", model::shape_json(shape)},
          {"quant",
           {{"weight_bits", quant.weight_bits},
            {"act_bits",
             quant.act_bits > 0 ? nlohmann::json(quant.act_bits) : nlohmann::json("unknown")},
            {"group_size", quant.group_size},
            {"file_type", quant.name}}},
          {"weight_bytes_per_token", b.weight_bytes_per_token},
          {"kv_bytes_per_context_token", b.kv_bytes_per_context_token},
          {"synthetic_weights", false},
          {"file", "none: a catalog shape (no model file is read by the sim engine)"}};
}

}  // namespace tokscope::engines
