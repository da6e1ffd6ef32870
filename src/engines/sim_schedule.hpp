// What the simulated engine executes: the time prefill takes and the time between tokens.
// Two kinds (spec/cli.md): an explicit schedule given on the command line, and a device-model
// schedule derived from a device profile, a model shape and a quantization (see
// model/device_model.hpp). Pure and thread-safe (const).
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>

namespace tokscope::engines {

class SimSchedule {
 public:
  virtual ~SimSchedule() = default;
  // Milliseconds from submit to the first token for a prompt of prompt_tokens tokens.
  [[nodiscard]] virtual double prefill_ms(std::uint32_t prompt_tokens,
                                          std::uint32_t concurrency) const = 0;
  // Milliseconds between token i and i + 1 when the KV cache holds context_tokens tokens.
  [[nodiscard]] virtual double itl_ms(std::uint32_t context_tokens,
                                      std::uint32_t concurrency) const = 0;
  // Standard deviation of Gaussian jitter added to every interval, in ms (0 = none).
  [[nodiscard]] virtual double jitter_ms() const = 0;
  // Facts for the result's engine.schedule object ("kind": "explicit" | "device-model").
  [[nodiscard]] virtual nlohmann::json describe() const = 0;
  // Model facts for the result's "model" object (shape, quant, bytes per token) when known.
  [[nodiscard]] virtual nlohmann::json model_info() const = 0;
};

struct ExplicitScheduleParams {
  double prefill_tps = 0;               // prompt tokens per second (> 0)
  double itl_ms = 0;                    // base inter-token latency (> 0)
  double jitter_ms = 0;                 // Gaussian sd (>= 0)
  double itl_growth_ms_per_1k_ctx = 0;  // added per 1000 tokens of context (>= 0)
};

std::unique_ptr<SimSchedule> make_explicit_schedule(const ExplicitScheduleParams& params);

}  // namespace tokscope::engines
