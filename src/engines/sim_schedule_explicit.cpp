// The explicit schedule: prefill at a fixed rate, a fixed base ITL that may grow with context.
#include <memory>

#include "engines/sim_schedule.hpp"

namespace tokscope::engines {
namespace {

class ExplicitSchedule final : public SimSchedule {
 public:
  explicit ExplicitSchedule(const ExplicitScheduleParams& p) : p_(p) {}

  double prefill_ms(std::uint32_t prompt_tokens, std::uint32_t /*concurrency*/) const override {
    return 1000.0 * static_cast<double>(prompt_tokens) / p_.prefill_tps;
  }
  double itl_ms(std::uint32_t context_tokens, std::uint32_t /*concurrency*/) const override {
    return p_.itl_ms + p_.itl_growth_ms_per_1k_ctx * static_cast<double>(context_tokens) / 1000.0;
  }
  double jitter_ms() const override { return p_.jitter_ms; }
  nlohmann::json describe() const override {
    return {{"kind", "explicit"},
            {"prefill_tps", p_.prefill_tps},
            {"itl_ms", p_.itl_ms},
            {"jitter_ms", p_.jitter_ms},
            {"itl_growth_ms_per_1k_ctx", p_.itl_growth_ms_per_1k_ctx}};
  }
  nlohmann::json model_info() const override {
    return {{"path", nullptr},
            {"name", "unknown"},
            {"arch", "unknown"},
            {"params", nullptr},
            {"quant",
             {{"weight_bits", nullptr},
              {"act_bits", nullptr},
              {"group_size", "unknown"},
              {"file_type", "unknown"}}},
            {"synthetic_weights", false}};
  }

 private:
  ExplicitScheduleParams p_;
};

}  // namespace

std::unique_ptr<SimSchedule> make_explicit_schedule(const ExplicitScheduleParams& params) {
  return std::make_unique<ExplicitSchedule>(params);
}

}  // namespace tokscope::engines
