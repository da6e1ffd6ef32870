// What the user asked for in `tokscope bench`, flat, with the documented defaults (spec/cli.md).
// Serialized into the journal header so `--resume` and `report` rebuild the same run.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/expected.hpp"
#include "run/counter_settings.hpp"

namespace tokscope::run {

inline constexpr std::uint32_t kMaxPromptTokens = 1U << 20;
inline constexpr std::uint32_t kMaxOutputTokens = 1U << 20;
inline constexpr std::uint32_t kMaxConcurrency = 1024;

struct Settings {
  std::string engine = "sim";
  std::vector<std::uint32_t> prompt_tokens{128, 512, 1024};
  std::vector<std::uint32_t> output_tokens{128};
  std::vector<std::uint32_t> concurrency{1};
  std::uint32_t repetitions = 10;  // measured requests per stratum (minimum with min_duration_s)
  std::uint32_t warmup = 3;        // discarded requests per stratum
  double min_duration_s = 0;       // 0 = no time criterion
  std::uint32_t max_requests = 10000;  // per stratum, cap for min_duration_s
  std::uint64_t seed = 42;
  double timeout_s = 300;  // per request
  std::string dataset;     // text prompts; empty = synthetic token ids
  int bootstrap_resamples = 1000;

  // sim engine, explicit schedule
  double sim_prefill_tps = 0;
  double sim_itl_ms = 0;
  double sim_jitter_ms = 0;
  double sim_itl_growth_ms_per_1k_ctx = 0;
  // sim engine, device-model schedule; model identity for ceilings
  std::string device;
  std::string model_shape;
  std::string quant;
  // a model file whose tensors give W, K and F for the ceiling (GGUF; .rkllm/.axmodel need
  // model_shape + quant as well, and the ceiling is then estimated)
  std::string model_file;
  // declared memory bandwidth for the ceiling when no device profile gives one (0 = none)
  double bandwidth_gbps = 0;
  bool probe = false;    // take the bandwidth from this machine's cached `tokscope probe`
  double peak_tops = 0;  // declared peak compute (tera-ops/s) for the prefill ceiling

  // telemetry: sampler period (0 = no sampler), and whether requests that ran while the
  // platform throttled are excluded from statistics (they stay in the raw data, flagged)
  double sample_ms = 100;
  bool discard_throttled = false;

  // performance counters over each request's prefill and decode (run/counter_settings.hpp):
  // event names (empty = off), and the event whose count × 64 B estimates DRAM bytes ("" = the
  // first counted of l3d_cache_refill, ll_cache_miss_rd, bus_access_rd, LLC-load-misses,
  // cache-misses)
  std::vector<std::string> counters = default_counter_events();
  std::string counter_line_fill_event;

  // platform control for the run (docs/telemetry.md): frequency lock (`--lock`, with the lock
  // flags' text as given, "" = the default for that unit), mlockall, cpu pinning, an idle window
  // for the energy baseline and whether to subtract it, a marker pulse for power-meter
  // alignment, and an external power log read at the end of the run.
  bool lock = false;
  std::string lock_ddr_freq_hz;
  std::string lock_npu_freq_hz;
  std::string lock_gpu_freq_hz;
  std::string lock_cpu_freq_khz;
  bool mlock = false;
  std::string cpus;            // "4-7"; "" = not pinned
  std::string core_type;       // "big" | "little" | ""
  double idle_baseline_s = 0;  // 0 = no idle window
  bool subtract_idle = false;
  bool marker_pulse = false;
  std::string power_log;  // CSV file; "" = none
  double power_log_offset_s = 0;
  bool power_log_offset_given = false;

  // rkllm engine (Rockchip RKLLM runtime through dlopen; awaits validation on an RK3588)
  std::string rkllm_lib;    // librkllmrt.so
  std::string rkllm_abi;    // "1.2.1" | "1.2.2" | "1.2.3" | "1.3.0": the library cannot say
  std::string rkllm_model;  // the converted .rkllm file
  std::string rkllm_cpus;   // enabled_cpus_mask as a cpu list ("4-7"); "" = the runtime default
  std::uint32_t max_context = 4096;  // RKLLMParam.max_context_len
};

nlohmann::json to_json(const Settings& settings);
// Errors name the field; used on journal headers (which may come from another version).
Expected<Settings> settings_from_json(const nlohmann::json& json);

// Checks values and combinations; errors name the flag and the fix.
Expected<void> validate(const Settings& settings);

}  // namespace tokscope::run
