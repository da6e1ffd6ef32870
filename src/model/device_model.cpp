#include "model/device_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "model/shape_json.hpp"

namespace tokscope::model {
namespace {

constexpr double kBytesPerGb = 1e9;
constexpr double kOpsPerTera = 1e12;
constexpr double kMsPerS = 1e3;

double as_double(std::uint64_t v) {
  return static_cast<double>(v);
}

nlohmann::json to_json(const SourcedValue& v) {
  return {{"value", v.value}, {"source", v.source}, {"uncertain", v.uncertain}};
}

}  // namespace

DeviceModel::DeviceModel(DeviceProfile profile, ModelShape shape, QuantPreset quant,
                         QuantSupport support)
    : profile_(std::move(profile)),
      shape_(std::move(shape)),
      quant_(std::move(quant)),
      support_(std::move(support)),
      bytes_(decode_bytes(shape_, quant_)) {}

double DeviceModel::effective_bandwidth_bytes_per_ms() const {
  return profile_.memory_bandwidth_gbps.value * kBytesPerGb *
         profile_.factors.bandwidth_efficiency.value / kMsPerS;
}

double DeviceModel::effective_ops_per_ms() const {
  return profile_.peak_tops.value * kOpsPerTera * profile_.factors.compute_efficiency.value /
         kMsPerS;
}

double DeviceModel::decode_itl_ms(std::uint32_t context_tokens, std::uint32_t batch) const {
  const double n = static_cast<double>(std::max<std::uint32_t>(batch, 1));
  const double read_bytes = bytes_.weight_bytes_per_token + n * bytes_.kv_bytes_per_context_token *
                                                                static_cast<double>(context_tokens);
  const double memory_ms = read_bytes / effective_bandwidth_bytes_per_ms();
  const double ops_per_sequence = 2.0 * (as_double(matmul_parameter_count(shape_)) +
                                         as_double(output_head_parameter_count(shape_)));
  const double compute_ms = n * ops_per_sequence / effective_ops_per_ms();
  const auto& f = profile_.factors;
  const double overhead_ms =
      static_cast<double>(shape_.n_layer) * f.decode_layer_overhead_ms.value +
      f.decode_fixed_ms.value;
  return support_.decode_time_scale.value * (std::max(memory_ms, compute_ms) + overhead_ms);
}

double DeviceModel::prefill_ops(std::uint32_t prompt_tokens) const {
  const double tokens = static_cast<double>(std::max<std::uint32_t>(prompt_tokens, 1));
  const double projections = 2.0 * as_double(matmul_parameter_count(shape_)) * tokens;
  // Causal attention: position i attends to i positions; q.k and p.v are 2 ops per MAC each.
  const double attention = 4.0 * static_cast<double>(shape_.n_layer) *
                           static_cast<double>(shape_.n_head) *
                           static_cast<double>(shape_.head_dim) * tokens * (tokens + 1.0) / 2.0;
  const double head = 2.0 * as_double(output_head_parameter_count(shape_));  // last position only
  return projections + attention + head;
}

double DeviceModel::prefill_ms(std::uint32_t prompt_tokens, std::uint32_t batch) const {
  const double n = static_cast<double>(std::max<std::uint32_t>(batch, 1));
  const double compute_ms = n * prefill_ops(prompt_tokens) / effective_ops_per_ms();
  const double weights_once_ms = bytes_.weight_bytes_per_token / effective_bandwidth_bytes_per_ms();
  const auto& f = profile_.factors;
  const double overhead_ms =
      static_cast<double>(shape_.n_layer) * f.prefill_layer_overhead_ms.value +
      f.prefill_fixed_ms.value;
  return support_.prefill_time_scale.value * (std::max(compute_ms, weights_once_ms) + overhead_ms);
}

Ceiling DeviceModel::ceiling(std::uint32_t prompt_tokens, std::uint32_t context_tokens) const {
  const auto& bw = profile_.memory_bandwidth_gbps;
  const auto& peak = profile_.peak_tops;
  std::string source =
      fmt::format("declared by device profile {}: bandwidth {} GB/s{} ({}); peak {} TOPS{} ({})",
                  profile_.name, bw.value, bw.uncertain ? ", uncertain" : "", bw.source, peak.value,
                  peak.uncertain ? ", uncertain" : "", peak.source);
  return make_ceiling(bw.value, peak.value * kOpsPerTera, bytes_, prompt_tokens, context_tokens,
                      std::move(source));
}

nlohmann::json DeviceModel::describe() const {
  const auto& f = profile_.factors;
  return {
      {"device",
       {{"name", profile_.name},
        {"unit", profile_.unit},
        {"description", profile_.description},
        {"memory_bandwidth_gbps", to_json(profile_.memory_bandwidth_gbps)},
        {"peak_tops", to_json(profile_.peak_tops)}}},
      {"shape", shape_json(shape_)},
      {"quant",
       {{"name", quant_.name},
        {"weight_bits", quant_.weight_bits},
        {"act_bits",
         quant_.act_bits == 0 ? nlohmann::json("unknown") : nlohmann::json(quant_.act_bits)},
        {"group_size", quant_.group_size},
        {"weight_bits_effective", quant_.weight_bits_effective},
        {"output_head_bits", quant_.output_head_bits},
        {"kv_bytes_per_element", quant_.kv_bytes_per_element},
        {"description", quant_.description}}},
      {"weight_bytes_per_token", bytes_.weight_bytes_per_token},
      {"kv_bytes_per_context_token", bytes_.kv_bytes_per_context_token},
      {"flops_per_token", bytes_.flops_per_token},
      {"factors",
       {{"fitted_to", f.fitted_to},
        {"bandwidth_efficiency", to_json(f.bandwidth_efficiency)},
        {"decode_layer_overhead_ms", to_json(f.decode_layer_overhead_ms)},
        {"decode_fixed_ms", to_json(f.decode_fixed_ms)},
        {"compute_efficiency", to_json(f.compute_efficiency)},
        {"prefill_layer_overhead_ms", to_json(f.prefill_layer_overhead_ms)},
        {"prefill_fixed_ms", to_json(f.prefill_fixed_ms)},
        {"decode_time_scale", to_json(support_.decode_time_scale)},
        {"prefill_time_scale", to_json(support_.prefill_time_scale)}}},
      {"formula",
       {{"decode_itl_ms",
         "s_d * (max((W + n*K*c) / (B*e_bw), n*F_d / (P*e_c)) + n_layer*o_decode + f_decode)"},
        {"prefill_ms",
         "s_p * (max(n*F_p(L) / (P*e_c), W / (B*e_bw)) + n_layer*o_prefill + f_prefill)"}}},
  };
}

Expected<DeviceModel> make_device_model(const DeviceProfile& profile, const ModelShape& shape,
                                        const QuantPreset& quant) {
  const QuantSupport* support = profile.find_support(quant.name);
  if (support == nullptr) {
    return make_error(ErrorKind::kUsage,
                      fmt::format("device {} cannot run quantization {} (--quant): {}",
                                  profile.name, quant.name, profile.unsupported_quant_reason));
  }
  return DeviceModel(profile, shape, quant, *support);
}

}  // namespace tokscope::model
