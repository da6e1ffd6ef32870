// The `sim` engine: executes a SimSchedule in real time (kernel sleep plus a short spin for
// sub-millisecond accuracy), so what gets tested is the harness's own measurement of it. Ground
// truth and what-if only: every EngineInfo it returns says simulated = true.
// Thread-safe: run() may be called from several threads at once (requests are independent).
#pragma once

#include <memory>

#include "engines/engine.hpp"
#include "engines/sim_schedule.hpp"

namespace tokscope::engines {

class SimEngine final : public Engine {
 public:
  // model_info: the result's "model" object when the caller knows more than the schedule does
  // (an explicit schedule given with --model-shape/--quant); null = the schedule's own.
  explicit SimEngine(std::unique_ptr<SimSchedule> schedule,
                     nlohmann::json model_info = nlohmann::json());
  [[nodiscard]] EngineInfo info() const override;
  [[nodiscard]] nlohmann::json model_info() const override;
  Expected<void> load() override { return {}; }
  // A deterministic word-level tokenizer (words and punctuation marks are tokens, ids from a
  // hash), so text datasets can be exercised without a real model.
  [[nodiscard]] bool can_tokenize() const override { return true; }
  Expected<std::vector<std::int32_t>> tokenize(std::string_view text) override;
  Expected<void> run(const Request& request, EventSink& sink) override;

 private:
  std::unique_ptr<SimSchedule> schedule_;
  nlohmann::json model_info_;
};

}  // namespace tokscope::engines
