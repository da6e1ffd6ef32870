#include "run/settings.hpp"

#include <fmt/format.h>

#include <cmath>
#include <utility>

#include "engines/rkllm/rkllm_abi.hpp"

namespace tokscope::run {

// One field table drives both directions, so the journal header and the reader cannot drift.
// clang-format off
#define TOKSCOPE_SETTINGS_FIELDS(X)                                                   \
  X(engine) X(prompt_tokens) X(output_tokens) X(concurrency) X(repetitions)           \
  X(warmup) X(min_duration_s) X(max_requests) X(seed) X(timeout_s) X(dataset)         \
  X(bootstrap_resamples) X(sim_prefill_tps) X(sim_itl_ms) X(sim_jitter_ms)            \
  X(sim_itl_growth_ms_per_1k_ctx) X(device) X(model_shape) X(quant) X(bandwidth_gbps) \
  X(peak_tops) X(model_file) X(probe) X(sample_ms) X(discard_throttled) \
  X(counters) X(counter_line_fill_event)                                              \
  X(lock) X(lock_ddr_freq_hz) X(lock_npu_freq_hz) X(lock_gpu_freq_hz) X(lock_cpu_freq_khz) \
  X(mlock) X(cpus) X(core_type) X(idle_baseline_s) X(subtract_idle) X(marker_pulse)   \
  X(power_log) X(power_log_offset_s) X(power_log_offset_given)                      \
  X(rkllm_lib) X(rkllm_abi) X(rkllm_model) X(rkllm_cpus) X(max_context)
// clang-format on

nlohmann::json to_json(const Settings& s) {
  nlohmann::json j;
#define TOKSCOPE_TO_JSON(name) j[#name] = s.name;
  TOKSCOPE_SETTINGS_FIELDS(TOKSCOPE_TO_JSON)
#undef TOKSCOPE_TO_JSON
  return j;
}

Expected<Settings> settings_from_json(const nlohmann::json& j) {
  Settings s;
  if (!j.is_object()) return make_error(ErrorKind::kInput, "settings: expected a JSON object");
  try {
#define TOKSCOPE_FROM_JSON(name) \
  if (j.contains(#name)) j.at(#name).get_to(s.name);
    TOKSCOPE_SETTINGS_FIELDS(TOKSCOPE_FROM_JSON)
#undef TOKSCOPE_FROM_JSON
  } catch (const nlohmann::json::exception& e) {
    return make_error(ErrorKind::kInput, fmt::format("settings: {}", e.what()));
  }
  return s;
}

#undef TOKSCOPE_SETTINGS_FIELDS

namespace {

Expected<void> positive_list(const std::vector<std::uint32_t>& values, const char* flag) {
  if (values.empty())
    return make_error(ErrorKind::kUsage, fmt::format("{} needs at least one value", flag));
  for (const auto v : values) {
    if (v == 0) {
      return make_error(ErrorKind::kUsage,
                        fmt::format("{} values must be positive whole numbers (got 0)", flag));
    }
  }
  return {};
}

Expected<void> at_most(const std::vector<std::uint32_t>& values, std::uint32_t limit,
                       const char* flag, const char* why) {
  for (const auto v : values) {
    if (v > limit) {
      return make_error(ErrorKind::kUsage,
                        fmt::format("{} {}: at most {} ({})", flag, v, limit, why));
    }
  }
  return {};
}

}  // namespace

namespace {

// --engine rkllm: the library, its release and the model are required (the ABI cannot be
// detected: edge-facts §1.7, engines/rkllm/rkllm_abi.hpp).
Expected<void> validate_rkllm(const Settings& s) {
  if (s.rkllm_lib.empty() || s.rkllm_model.empty() || s.rkllm_abi.empty()) {
    return make_error(ErrorKind::kUsage,
                      "--engine rkllm needs --rkllm-lib PATH (librkllmrt.so), --rkllm-model FILE "
                      "(.rkllm) and --rkllm-abi 1.2.1|1.2.2|1.2.3|1.3.0 (the release the library "
                      "comes from)");
  }
  if (auto abi = engines::rkllm::parse_abi(s.rkllm_abi); !abi) return abi.error();
  if (s.max_context == 0 || s.max_context > 1'000'000) {
    return make_error(ErrorKind::kUsage, "--max-context must be from 1 to 1000000 tokens");
  }
  if (s.sim_prefill_tps > 0 || s.sim_itl_ms > 0 || !s.device.empty()) {
    return make_error(ErrorKind::kUsage,
                      "--sim-* and --device describe the sim engine; drop them with --engine "
                      "rkllm");
  }
  return {};
}

// The flags of docs/telemetry.md "Controlling the platform during bench".
Expected<void> validate_platform_control(const Settings& s) {
  if (!s.lock) {
    for (const auto& [text, flag] : {std::pair{&s.lock_ddr_freq_hz, "--ddr-freq"},
                                     std::pair{&s.lock_npu_freq_hz, "--npu-freq"},
                                     std::pair{&s.lock_gpu_freq_hz, "--gpu-freq"},
                                     std::pair{&s.lock_cpu_freq_khz, "--cpu-freq"}}) {
      if (!text->empty()) {
        return make_error(ErrorKind::kUsage,
                          fmt::format("{} sets a frequency to lock: add --lock (bench writes to "
                                      "sysfs only when asked)",
                                      flag));
      }
    }
  }
  if (!s.cpus.empty() && !s.core_type.empty()) {
    return make_error(ErrorKind::kUsage,
                      "--cpus and --core-type both choose the cpus; give one of them");
  }
  if (!s.core_type.empty() && s.core_type != "big" && s.core_type != "little") {
    return make_error(ErrorKind::kUsage,
                      fmt::format("--core-type '{}': use big or little", s.core_type));
  }
  if (!(s.idle_baseline_s >= 0 && s.idle_baseline_s <= 600)) {
    return make_error(ErrorKind::kUsage,
                      fmt::format("--idle-baseline-s {}: give 0 (off) to 600 seconds; 10 to 30 s "
                                  "gives a stable idle power",
                                  s.idle_baseline_s));
  }
  if (s.subtract_idle && s.idle_baseline_s <= 0) {
    return make_error(ErrorKind::kUsage,
                      "--subtract-idle needs an idle window to measure: add --idle-baseline-s S "
                      "(e.g. 10)");
  }
  if (s.power_log_offset_given && s.power_log.empty()) {
    return make_error(ErrorKind::kUsage,
                      "--power-log-offset-s aligns a power log: add --power-log FILE");
  }
  if (s.power_log_offset_given && !std::isfinite(s.power_log_offset_s)) {
    return make_error(ErrorKind::kUsage, "--power-log-offset-s must be a finite number of seconds");
  }
  return {};
}

}  // namespace

Expected<void> validate(const Settings& s) {
  if (auto r = positive_list(s.prompt_tokens, "--prompt-tokens"); !r) return r;
  if (auto r = positive_list(s.output_tokens, "--output-tokens"); !r) return r;
  if (auto r = positive_list(s.concurrency, "--concurrency"); !r) return r;
  // Limits that keep a typo from allocating gigabytes or spawning a thread per request.
  if (auto r = at_most(s.prompt_tokens, kMaxPromptTokens, "--prompt-tokens",
                       "longer than any edge model's context");
      !r) {
    return r;
  }
  if (auto r = at_most(s.output_tokens, kMaxOutputTokens, "--output-tokens",
                       "longer than any edge model's context");
      !r) {
    return r;
  }
  if (auto r = at_most(s.concurrency, kMaxConcurrency, "--concurrency",
                       "one harness thread per request in flight");
      !r) {
    return r;
  }
  if (s.repetitions == 0 && s.min_duration_s <= 0) {
    return make_error(ErrorKind::kUsage,
                      "--repetitions must be at least 1 (or give --min-duration-s)");
  }
  if (s.timeout_s <= 0) return make_error(ErrorKind::kUsage, "--timeout-s must be positive");
  if (s.bootstrap_resamples < 1) {
    return make_error(ErrorKind::kUsage, "--bootstrap-resamples must be at least 1");
  }
  if (s.engine == "rkllm") {
    if (auto r = validate_rkllm(s); !r) return r;
    if (auto r = validate_platform_control(s); !r) return r;
    return validate_counter_settings(s.counters, s.counter_line_fill_event);
  }
  if (s.engine != "sim") {
    return make_error(ErrorKind::kUsage,
                      fmt::format("--engine {}: not available in this build; available: sim, "
                                  "rkllm (the openai adapter is in progress)",
                                  s.engine));
  }
  const bool explicit_schedule = s.sim_prefill_tps > 0 || s.sim_itl_ms > 0;
  const bool device_schedule = !s.device.empty();
  if (explicit_schedule && device_schedule) {
    return make_error(ErrorKind::kUsage,
                      "--device cannot be combined with --sim-prefill-tps/--sim-itl-ms: pick the "
                      "device-model schedule or the explicit one");
  }
  if (!explicit_schedule && !device_schedule) {
    return make_error(ErrorKind::kUsage,
                      "--engine sim needs a schedule: --sim-prefill-tps X --sim-itl-ms Y, or "
                      "--device NAME --model-shape NAME --quant NAME");
  }
  if (explicit_schedule && (s.sim_prefill_tps <= 0 || s.sim_itl_ms <= 0)) {
    return make_error(ErrorKind::kUsage,
                      "the explicit sim schedule needs both --sim-prefill-tps and --sim-itl-ms "
                      "greater than 0");
  }
  if (s.sim_jitter_ms < 0 || s.sim_itl_growth_ms_per_1k_ctx < 0) {
    return make_error(ErrorKind::kUsage,
                      "--sim-jitter-ms and --sim-itl-growth-ms-per-1k-ctx cannot be negative");
  }
  if (device_schedule && (s.model_shape.empty() || s.quant.empty())) {
    return make_error(ErrorKind::kUsage,
                      "--device needs --model-shape NAME and --quant NAME (see `tokscope bench "
                      "--list-shapes` and `--list-devices`)");
  }
  if (device_schedule && (!s.model_file.empty() || s.probe)) {
    return make_error(ErrorKind::kUsage,
                      "--device simulates a catalog shape on a profiled device; --model-file and "
                      "--probe describe a real model and this machine: use them with the explicit "
                      "schedule or a real engine");
  }
  if (!(s.sample_ms == 0 || (s.sample_ms >= 1 && s.sample_ms <= 60'000))) {
    return make_error(ErrorKind::kUsage,
                      fmt::format("--sample-ms {}: give a period from 1 to 60000 ms, or 0 to turn "
                                  "the telemetry sampler off",
                                  s.sample_ms));
  }
  if (s.bandwidth_gbps < 0 || s.peak_tops < 0) {
    return make_error(ErrorKind::kUsage, "--bandwidth-gbps and --peak-tops cannot be negative");
  }
  if (auto r = validate_counter_settings(s.counters, s.counter_line_fill_event); !r) return r;
  if (auto r = validate_platform_control(s); !r) return r;
  return {};
}

}  // namespace tokscope::run
