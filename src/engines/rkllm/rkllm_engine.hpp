// The `rkllm` engine: Rockchip's RKLLM runtime (RK3588/RK3576 NPU) through librkllmrt.so, loaded
// with dlopen (rkllm_library.hpp) and driven through the struct set of the declared release
// (rkllm_abi.hpp). Written from the documented C API (edge-facts.md §1) and checked only against
// the stand-in library tests/engines/rkllm_stub: it AWAITS VALIDATION ON AN RK3588.
//
// What it measures and how:
// - The prompt goes in as token ids (RKLLM_INPUT_TOKEN), so TTFT excludes tokenization;
//   on_submit is called right before rkllm_run.
// - Every NORMAL or WAITING callback is one token (one callback per token, issue #51; whether
//   WAITING callbacks are tokens is UNCONFIRMED, so the runtime's own generate_tokens is kept
//   beside the callback count in RuntimeStats for the harness to compare).
// - FINISH → on_done; ERROR → on_error(kEngine) and an Error; should_stop() → rkllm_abort.
// - Forced output length: 1.3.0 has RKLLMParam.ignore_eos_token (set at load) and a per-run
//   max_new_tokens; 1.2.x has neither, so a request ending at EOS is short and the harness flags
//   it, and a request asking fewer tokens than the load-time max_new_tokens is cut by pausing
//   the run (callback returns 1) and clearing the KV cache; asking more is refused.
//
// Threading: RKLLM runs one request at a time per handle, so run() serializes (a mutex held for
// the whole request; info() says so). The runtime calls the callback during rkllm_run from a
// thread it chooses (not documented; the stub uses its own worker). Sink calls stay one thread
// at a time: until the first callback a per-request watcher thread polls should_stop(); the
// first callback takes the sink over (an atomic handshake, once per request, no lock), and from
// then on only the callback thread calls the sink. rkllm_abort is always called by the watcher.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engines/engine.hpp"
#include "engines/rkllm/rkllm_abi.hpp"
#include "engines/rkllm/rkllm_library.hpp"

namespace tokscope::engines::rkllm {

struct RkllmConfig {
  std::string lib_path;                 // --rkllm-lib: librkllmrt.so
  Abi abi = Abi::k1_3_0;                // --rkllm-abi (parse_abi); the library cannot tell us
  std::string model_path;               // --rkllm-model: the .rkllm file
  std::int32_t max_context_len = 4096;  // --max-context
  // RKLLMParam.max_new_tokens at init: the largest output length of the run. Per request,
  // 1.3.0 overrides it (RKLLMInferParam.max_new_tokens); 1.2.x cannot exceed it.
  std::uint32_t max_new_tokens = 128;
  std::string cpus;        // --rkllm-cpus "4-7" → enabled_cpus_mask; "" = the runtime default
  bool ignore_eos = true;  // 1.3.0 only (RKLLMParam.ignore_eos_token)
};

// The runtime's own view of the last request (RKLLMPerfStat of its FINISH callback, §1.5): a
// per-request side channel the harness reads after run() returns, beside its own timestamps.
struct RuntimeStats {
  bool have_perf = false;  // false when no FINISH came (aborted, error, paused on 1.2.x)
  double prefill_time_ms = 0;
  std::int64_t prefill_tokens = 0;
  double generate_time_ms = 0;
  std::int64_t generate_tokens = 0;
  double memory_usage_mb = 0;           // VmHWM of the process (peak RSS), MB
  std::uint32_t callback_tokens = 0;    // tokens reported to the sink
  std::uint32_t waiting_callbacks = 0;  // of which RKLLM_RUN_WAITING
  bool paused_at_budget = false;        // 1.2.x: the run was cut at max_new_tokens
};
nlohmann::json to_json(const RuntimeStats& stats);

class RkllmEngine final : public Engine {
 public:
  explicit RkllmEngine(RkllmConfig config);
  ~RkllmEngine() override;  // rkllm_destroy, then the library is closed
  RkllmEngine(const RkllmEngine&) = delete;
  RkllmEngine& operator=(const RkllmEngine&) = delete;

  [[nodiscard]] EngineInfo info() const override;
  [[nodiscard]] nlohmann::json model_info() const override;
  // dlopen + symbol check, createDefaultParam, model path / context / max_new_tokens / cpu mask,
  // rkllm_init with the callback. Errors name the flag (--rkllm-lib, --rkllm-model, --rkllm-cpus).
  Expected<void> load() override;
  Expected<void> run(const Request& request, EventSink& sink) override;

  // Stats of the last finished run() (engine-specific side channel; see RuntimeStats).
  [[nodiscard]] RuntimeStats last_runtime_stats() const;

 private:
  Expected<void> init_v121(std::uint32_t cpu_mask);
  Expected<void> init_v130(std::uint32_t cpu_mask);
  Expected<void> init_result(int rc);

  RkllmConfig config_;
  std::unique_ptr<RkllmLibrary> lib_;
  LLMHandle handle_ = nullptr;
  // Kept alive for the handle's lifetime: whether the runtime keeps pointers into them after
  // rkllm_init is not documented.
  v121::RKLLMParam param121_{};
  v130::RKLLMParam param130_{};
  v130::RKLLMCallback callbacks130_{};
  std::uint32_t cpu_mask_ = 0;

  std::mutex run_mutex_;              // one request at a time (RKLLM serializes)
  std::vector<std::int32_t> prompt_;  // the ids handed to the runtime (it takes int32_t*)
  mutable std::mutex stats_mutex_;
  RuntimeStats last_stats_;
};

}  // namespace tokscope::engines::rkllm
