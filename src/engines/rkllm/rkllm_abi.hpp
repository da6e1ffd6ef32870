// The binary interface of Rockchip's RKLLM runtime (librkllmrt.so, airockchip/rknn-llm), one
// struct set per release, because 1.2.1 and 1.3.0 are binary-incompatible and the library
// exports no version symbol (the ABI must be named: --rkllm-abi).
//
// Where the layouts come from: /work/shared/reference/edge-facts.md §1 (the v1.3.0 header
// rkllm-runtime/Linux/librkllm_api/include/rkllm.h @878f936, the CN SDK 1.3.0 PDF tables, and
// the header diffs between release commits with the sizeof table of §1.7). Field ORDER is the
// documented one; field TYPES not spelled out there (enums, keep_history, the multimodal
// member) are chosen so the sizes equal the documented sizeof table, which the static_asserts
// below check. We include no vendor header (it is C++-only and differs per release).
//
// NOT VALIDATED ON HARDWARE: there is no RK3588 here; these layouts are checked only against the
// documented sizes and against the stand-in library tests/engines/rkllm_stub, which is built
// from this same header (so it cannot catch an order mistake that keeps the sizes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/expected.hpp"

namespace tokscope::engines::rkllm {

// The releases tokscope can drive. 1.2.1, 1.2.2 and 1.2.3 share one layout (1.2.2 changed an
// include, 1.2.3 renamed RKLLMMultiModelInput; §1.7); 1.3.0 has its own.
enum class Abi { k1_2_1, k1_2_2, k1_2_3, k1_3_0 };
enum class Layout { kV121, kV130 };

[[nodiscard]] constexpr Layout layout_of(Abi abi) noexcept {
  return abi == Abi::k1_3_0 ? Layout::kV130 : Layout::kV121;
}
[[nodiscard]] std::string_view to_string(Abi abi) noexcept;
// "1.3.0" → Abi::k1_3_0 (a leading "v" is accepted). Anything else is a kUsage error naming
// --rkllm-abi and why (1.0.x–1.2.0 differ in struct layout and callback signature: unsupported).
Expected<Abi> parse_abi(std::string_view text);

// ---- common to 1.2.1–1.3.0 (unchanged between them per §1.7) ----------------------------

using LLMHandle = void*;

enum LLMCallState {  // §1.2 (1.2.0+: GET_LAST_HIDDEN_LAYER=4 removed)
  RKLLM_RUN_NORMAL = 0,
  RKLLM_RUN_WAITING = 1,  // waiting for a complete UTF-8 character
  RKLLM_RUN_FINISH = 2,
  RKLLM_RUN_ERROR = 3,
};

enum RKLLMInputType {  // §1.3
  RKLLM_INPUT_PROMPT = 0,
  RKLLM_INPUT_TOKEN = 1,
  RKLLM_INPUT_EMBED = 2,
  RKLLM_INPUT_MULTIMODAL = 3,
};

enum RKLLMInferMode {  // §1.3 RKLLMInferParam.mode
  RKLLM_INFER_GENERATE = 0,
  RKLLM_INFER_GET_LAST_HIDDEN_LAYER = 1,
  RKLLM_INFER_GET_LOGITS = 2,
};

// §1.4: {int32 base_domain_id, int8 embed_flash, int8 enabled_cpus_num, uint32
// enabled_cpus_mask, uint8 n_batch (1.2.1), int8 use_cross_attn (1.2.1), uint8 reserved[104]}.
struct RKLLMExtendParam {
  std::int32_t base_domain_id;
  std::int8_t embed_flash;
  std::int8_t enabled_cpus_num;     // 1–8 on RK3588
  std::uint32_t enabled_cpus_mask;  // bit i = CPUi (the header's CPU0…CPU7 macros)
  std::uint8_t n_batch;
  std::int8_t use_cross_attn;
  std::uint8_t reserved[104];
};

// §1.3: RKLLMTokenInput {int32_t* input_ids, size_t n_tokens}; embed {float*, size_t}.
struct RKLLMTokenInput {
  std::int32_t* input_ids;  // borrowed: must stay valid for the whole rkllm_run call
  std::size_t n_tokens;
};
struct RKLLMEmbedInput {
  float* embed;
  std::size_t n_tokens;
};

// §1.5: RKLLMPerfStat, filled only in the RKLLM_RUN_FINISH callback (CN SDK 1.3.0 §3.2.16).
struct RKLLMPerfStat {
  float prefill_time_ms;
  int prefill_tokens;
  float generate_time_ms;
  int generate_tokens;
  float memory_usage_mb;  // process VmHWM (peak RSS) in MB, per the header and the CN doc
};
struct RKLLMResultLastHiddenLayer {
  const float* hidden_states;
  int embd_size;
  int num_tokens;
};
struct RKLLMResultLogits {
  const float* logits;
  int vocab_size;
  int num_tokens;
};
// §1.5: {text, int32 token_id, last_hidden_layer, logits (1.2.0), perf (1.2.1)}. The runtime owns
// every buffer it points to; they are valid only during the callback.
struct RKLLMResult {
  const char* text;
  std::int32_t token_id;
  RKLLMResultLastHiddenLayer last_hidden_layer;
  RKLLMResultLogits logits;
  RKLLMPerfStat perf;
};

// §1.2 (1.2.1+): return 0 to continue, 1 to pause (KV cache kept), 2 to release the output
// buffer now (1.3.0). The runtime calls it during rkllm_run; from which thread is not documented.
using LLMResultCallback = int (*)(RKLLMResult* result, void* userdata, LLMCallState state);

using AbortFn = int (*)(LLMHandle);
using DestroyFn = int (*)(LLMHandle);
using IsRunningFn = int (*)(LLMHandle);  // polarity differs between 1.2.x and 1.3.0: unused
// 1.2.1+: (handle, keep_system_prompt, start_pos, end_pos); NULL/NULL clears everything.
using ClearKvCacheFn = int (*)(LLMHandle, int, int*, int*);

// ---- 1.2.1 / 1.2.2 / 1.2.3 ---------------------------------------------------------------
namespace v121 {

// §1.4 order as of 1.3.0 minus ignore_eos_token, plus img_start/img_end/img_content (1.1.0–1.2.x,
// removed in 1.3.0). The position of the three img_* pointers (after is_async) is NOT stated in
// the facts; it gives the documented 208 bytes, but so would other positions (UNCONFIRMED).
struct RKLLMParam {
  const char* model_path;
  std::int32_t max_context_len;
  std::int32_t max_new_tokens;
  std::int32_t top_k;
  std::int32_t n_keep;
  float top_p;
  float temperature;
  float repeat_penalty;
  float frequency_penalty;
  float presence_penalty;
  std::int32_t mirostat;
  float mirostat_tau;
  float mirostat_eta;
  bool skip_special_token;
  bool is_async;
  const char* img_start;
  const char* img_end;
  const char* img_content;
  RKLLMExtendParam extend_param;
};

// §1.3: {role, enable_thinking (1.2.1), input_type, union}. The multimodal member
// {prompt, image_embed, n_image_tokens, n_image, image_width, image_height} is kept opaque and
// sized so that sizeof == 64 (§1.7).
struct RKLLMInput {
  const char* role;  // "user" or "tool"
  bool enable_thinking;
  RKLLMInputType input_type;
  union {
    const char* prompt_input;
    RKLLMEmbedInput embed_input;
    RKLLMTokenInput token_input;
    alignas(8) unsigned char multimodal_input[48];
  };
};

// §1.3 (1.2.x has no sampling_params / max_new_tokens).
struct RKLLMInferParam {
  RKLLMInferMode mode;
  void* lora_params;
  void* prompt_cache_params;
  int keep_history;
};

using CreateDefaultParamFn = RKLLMParam (*)();
using InitFn = int (*)(LLMHandle*, RKLLMParam*, LLMResultCallback);
using RunFn = int (*)(LLMHandle, RKLLMInput*, RKLLMInferParam*, void* userdata);

}  // namespace v121

// ---- 1.3.0 ---------------------------------------------------------------------------------
namespace v130 {

// §1.4 field order, exactly.
struct RKLLMParam {
  const char* model_path;
  std::int32_t max_context_len;
  std::int32_t max_new_tokens;
  std::int32_t top_k;
  std::int32_t n_keep;
  float top_p;
  float temperature;
  float repeat_penalty;
  float frequency_penalty;
  float presence_penalty;
  std::int32_t mirostat;
  float mirostat_tau;
  float mirostat_eta;
  bool skip_special_token;
  bool ignore_eos_token;  // 1.3.0
  bool is_async;
  RKLLMExtendParam extend_param;
};

// §1.3; the multimodal member (prompt + image{8 fields} + video{9 fields}) is opaque, sized so
// that sizeof == 160 (§1.7).
struct RKLLMInput {
  const char* role;
  bool enable_thinking;
  RKLLMInputType input_type;
  union {
    const char* prompt_input;
    RKLLMEmbedInput embed_input;
    RKLLMTokenInput token_input;
    alignas(8) unsigned char multimodal_input[144];
  };
};

// §1.3: {mode, lora_params*, prompt_cache_params*, sampling_params* (1.3.0), keep_history,
// max_new_tokens (1.3.0; <= 0 means the init value)}.
struct RKLLMInferParam {
  RKLLMInferMode mode;
  void* lora_params;
  void* prompt_cache_params;
  void* sampling_params;
  int keep_history;
  int max_new_tokens;
};

// §1.2: v1.3.0 wraps the callbacks. tokenizer/embed callbacks are optional (NULL here: the
// models tokscope drives have an internal tokenizer); their signatures are not in the facts.
struct RKLLMCallback {
  LLMResultCallback result_callback;
  void* result_userdata;
  void* tokenizer_callback;
  void* tokenizer_userdata;
  void* embed_callback;
  void* embed_userdata;
};

using CreateDefaultParamFn = RKLLMParam (*)();
using InitFn = int (*)(LLMHandle*, RKLLMParam*, RKLLMCallback*);
using RunFn = int (*)(LLMHandle, RKLLMInput*, RKLLMInferParam*, void* userdata);

}  // namespace v130

// The documented sizes (§1.7: "computed with an LP64 g++ on x86-64; aarch64 LP64 should be
// identical", not run on aarch64). Param / ExtendParam / Input / InferParam / Result.
#if defined(__LP64__)
static_assert(sizeof(RKLLMExtendParam) == 120);
static_assert(sizeof(RKLLMResult) == 72);
static_assert(sizeof(v121::RKLLMParam) == 208);
static_assert(sizeof(v121::RKLLMInput) == 64);
static_assert(sizeof(v121::RKLLMInferParam) == 32);
static_assert(sizeof(v130::RKLLMParam) == 184);
static_assert(sizeof(v130::RKLLMInput) == 160);
static_assert(sizeof(v130::RKLLMInferParam) == 40);
#endif

}  // namespace tokscope::engines::rkllm
