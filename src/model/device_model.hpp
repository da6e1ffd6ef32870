// The device model: a deterministic schedule (decode ITL, prefill time) for one model shape in one
// quantization on one device profile. The simulated engine plays it back; the roofline gives the
// ceiling it must stay under.
//
// Model (all times in ms; B bandwidth, P peak ops/s, e_bw and e_c the profile's efficiencies,
// o_* and f_* its overheads, s_d and s_p the quant's time scales on that device):
//
//   decode_itl(c, n) = s_d * ( max( (W + n*K*c) / (B*e_bw),  n*F_d / (P*e_c) )
//                              + n_layer*o_decode + f_decode )
//   prefill(L, n)    = s_p * ( max( n*F_p(L) / (P*e_c),  W / (B*e_bw) )
//                              + n_layer*o_prefill + f_prefill )
//
// What varies physically, and why each term is there:
//  * W (weights) is read once per step whatever the batch n; the KV cache K*c is read per sequence
//    and grows with the context c.
//  * Decode compute F_d = 2 * (matmul + head params) per sequence: negligible at n = 1, it bounds
//    decode once a batch is large enough.
//  * Prefill compute F_p(L) = 2 * matmul params * L (projections for every prompt token)
//    + 4 * n_layer * n_head * head_dim * L(L+1)/2 (causal attention scores and values)
//    + 2 * head params (logits only for the last prompt position). This refines the spec's
//    F = 2 * params per token, which charges the head and the embedding lookup to every prompt
//    token and ignores attention; the ceiling (roofline.hpp) keeps the spec's F.
//  * Prefill cannot beat reading the weights once: the memory floor W / (B*e_bw).
//  * Per-layer overheads stand for the per-layer dispatch/synchronization of NPU runtimes (RKLLM
//    and ax-llm run one job per layer) and thread barriers on the CPU; the fixed terms for
//    per-step host work. They are assumed independent of prompt length, which the calibration rows
//    (all at a 128-token prompt) cannot test.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "core/expected.hpp"
#include "model/decode_bytes.hpp"
#include "model/device_profile.hpp"
#include "model/quant.hpp"
#include "model/roofline.hpp"
#include "model/shapes.hpp"

namespace tokscope::model {

class DeviceModel {
 public:
  // Use make_device_model(); this constructor does not check that the device runs the quant.
  DeviceModel(DeviceProfile profile, ModelShape shape, QuantPreset quant, QuantSupport support);

  // Time between two output tokens of one sequence when `batch` sequences decode together and
  // each holds `context_tokens` tokens of KV cache. batch 0 is treated as 1.
  [[nodiscard]] double decode_itl_ms(std::uint32_t context_tokens, std::uint32_t batch) const;

  // Time from submitting `batch` prompts of `prompt_tokens` tokens each to their first output
  // token (the TTFT of the spec, tokenization excluded). 0 is treated as 1 for both.
  [[nodiscard]] double prefill_ms(std::uint32_t prompt_tokens, std::uint32_t batch) const;

  // Operations of one prefill of `prompt_tokens` tokens for one sequence: F_p(L) above.
  [[nodiscard]] double prefill_ops(std::uint32_t prompt_tokens) const;

  // Physical ceilings from the profile's declared bandwidth and peak compute: prefill at
  // `prompt_tokens`, decode at `context_tokens`.
  [[nodiscard]] Ceiling ceiling(std::uint32_t prompt_tokens, std::uint32_t context_tokens) const;

  // Everything the schedule depends on, with sources: device, shape, quant, W, K, F, factors.
  [[nodiscard]] nlohmann::json describe() const;

  [[nodiscard]] const DeviceProfile& profile() const { return profile_; }
  [[nodiscard]] const ModelShape& shape() const { return shape_; }
  [[nodiscard]] const QuantPreset& quant() const { return quant_; }
  [[nodiscard]] const DecodeBytes& bytes() const { return bytes_; }

 private:
  [[nodiscard]] double effective_bandwidth_bytes_per_ms() const;
  [[nodiscard]] double effective_ops_per_ms() const;

  DeviceProfile profile_;
  ModelShape shape_;
  QuantPreset quant_;
  QuantSupport support_;
  DecodeBytes bytes_;
};

// Refuses (ErrorKind::kUsage) a quant the device does not run, with the profile's reason.
Expected<DeviceModel> make_device_model(const DeviceProfile& profile, const ModelShape& shape,
                                        const QuantPreset& quant);

}  // namespace tokscope::model
