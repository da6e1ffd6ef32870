// A stand-in for Rockchip's librkllmrt.so, for contract tests of the rkllm engine (no RK3588
// here). Built as a SHARED library once per struct layout (tests/CMakeLists.txt):
//   RKLLM_STUB_LAYOUT_130  → the 1.3.0 structs and rkllm_init(…, RKLLMCallback*)
//   otherwise              → the 1.2.1–1.2.3 structs and rkllm_init(…, LLMResultCallback)
//   RKLLM_STUB_OMIT_ABORT  → rkllm_abort is not exported (missing-symbol test)
//   RKLLM_STUB_PRE_121     → rkllm_get_kv_cache_size is not exported (a pre-1.2.1 library)
// It exports the same C symbols as the real runtime, with the layouts of
// src/engines/rkllm/rkllm_abi.hpp (so it checks the engine's use of them, not their truth).
//
// The "model" path is a script, a flat JSON object of numbers:
//   {"prefill_ms": 50, "itl_ms": 10, "n_tokens": 8, "fail_at": -1, "init_rc": 0,
//    "waiting_every": 0, "memory_mb": 321.5}
// n_tokens: tokens generated before FINISH (the EOS point), also capped by max_new_tokens
// (init value, or 1.3.0's per-run value when > 0); fail_at >= 0: an RKLLM_RUN_ERROR callback
// instead of token fail_at; init_rc != 0: rkllm_init fails with it; waiting_every k > 0: every
// k-th token comes as RKLLM_RUN_WAITING.
//
// Like the real runtime, rkllm_run blocks and calls the callback from another thread (a worker
// it starts and joins); rkllm_abort stops that worker within ~1 ms, with no further callback;
// a callback returning 1 pauses (no FINISH). What it received is kept in a process-wide record
// (test-only state) read through rkllm_stub_record_json().
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engines/rkllm/rkllm_abi.hpp"

namespace rk = tokscope::engines::rkllm;
#if defined(RKLLM_STUB_LAYOUT_130)
namespace L = tokscope::engines::rkllm::v130;
#else
namespace L = tokscope::engines::rkllm::v121;
#endif

namespace {

struct Script {
  double prefill_ms = 0;
  double itl_ms = 0;
  long n_tokens = 0;
  long fail_at = -1;
  long init_rc = 0;
  long waiting_every = 0;
  double memory_mb = 0;
};

// The number after "key": in a flat JSON object, or the fallback.
double number_of(const std::string& text, const char* key, double fallback) {
  const std::string quoted = std::string("\"") + key + "\"";
  const std::size_t at = text.find(quoted);
  if (at == std::string::npos) return fallback;
  const std::size_t colon = text.find(':', at + quoted.size());
  if (colon == std::string::npos) return fallback;
  return std::strtod(text.c_str() + colon + 1, nullptr);
}

bool read_script(const char* path, Script& s) {
  if (path == nullptr) return false;
  std::ifstream in(path);
  if (!in) return false;
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string t = buf.str();
  s.prefill_ms = number_of(t, "prefill_ms", 0);
  s.itl_ms = number_of(t, "itl_ms", 0);
  s.n_tokens = static_cast<long>(number_of(t, "n_tokens", 0));
  s.fail_at = static_cast<long>(number_of(t, "fail_at", -1));
  s.init_rc = static_cast<long>(number_of(t, "init_rc", 0));
  s.waiting_every = static_cast<long>(number_of(t, "waiting_every", 0));
  s.memory_mb = number_of(t, "memory_mb", 0);
  return true;
}

// What the stub received; test-only process-wide state, guarded by mu.
struct Record {
  std::mutex mu;
  std::string json_init = "null";
  std::vector<std::string> json_runs;
  int aborts = 0;
  int clear_kv = 0;
  int destroyed = 0;
  std::string out;  // the last rkllm_stub_record_json() text
};
Record& record() {
  static Record r;
  return r;
}

struct Handle {
  Script script;
  rk::LLMResultCallback callback = nullptr;
  void* init_userdata = nullptr;
  long init_max_new_tokens = 0;
  std::atomic<bool> abort{false};
};

// Sleeps for ms, in 1 ms slices; false when aborted.
bool sleep_ms(const Handle& h, double ms) {
  const auto end = std::chrono::steady_clock::now() +
                   std::chrono::microseconds(static_cast<long long>(ms * 1000.0));
  while (std::chrono::steady_clock::now() < end) {
    if (h.abort.load()) return false;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        end - std::chrono::steady_clock::now(), std::chrono::milliseconds(1)));
  }
  return !h.abort.load();
}

void generate(Handle& h, void* userdata, long n_input, long max_new, std::string& trace) {
  const auto t0 = std::chrono::steady_clock::now();
  auto ms_since = [](std::chrono::steady_clock::time_point t) {
    return static_cast<float>(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count());
  };
  rk::RKLLMResult result{};
  if (!sleep_ms(h, h.script.prefill_ms)) {
    trace = "aborted_in_prefill";
    return;
  }
  const float prefill_ms = ms_since(t0);
  const auto t1 = std::chrono::steady_clock::now();
  const long n = std::min(h.script.n_tokens, max_new);
  long emitted = 0;
  for (long i = 0; i < n; ++i) {
    if (i > 0 && !sleep_ms(h, h.script.itl_ms)) {
      trace = "aborted_in_decode";
      return;
    }
    if (h.script.fail_at == i) {
      h.callback(nullptr, userdata, rk::RKLLM_RUN_ERROR);
      trace = "error";
      return;
    }
    result.token_id = static_cast<std::int32_t>(1000 + i);
    result.text = "x";
    const bool waiting = h.script.waiting_every > 0 && (i + 1) % h.script.waiting_every == 0;
    ++emitted;
    if (h.callback(&result, userdata, waiting ? rk::RKLLM_RUN_WAITING : rk::RKLLM_RUN_NORMAL) ==
        1) {
      trace = "paused";
      return;
    }
  }
  result = rk::RKLLMResult{};
  result.perf.prefill_time_ms = prefill_ms;
  result.perf.prefill_tokens = static_cast<int>(n_input);
  result.perf.generate_time_ms = ms_since(t1);
  result.perf.generate_tokens = static_cast<int>(emitted);
  result.perf.memory_usage_mb = static_cast<float>(h.script.memory_mb);
  h.callback(&result, userdata, rk::RKLLM_RUN_FINISH);
  trace = "finished";
}

}  // namespace

extern "C" {

L::RKLLMParam rkllm_createDefaultParam() {
  L::RKLLMParam p{};  // defaults of the SDK doc (§1.4)
  p.max_context_len = 512;
  p.max_new_tokens = -1;
  p.top_k = 40;
  p.top_p = 0.9F;
  p.temperature = 0.8F;
  p.repeat_penalty = 1.1F;
  p.mirostat_tau = 5.0F;
  p.mirostat_eta = 0.1F;
  p.extend_param.enabled_cpus_num = 4;
  p.extend_param.n_batch = 1;
  return p;
}

#if defined(RKLLM_STUB_LAYOUT_130)
int rkllm_init(rk::LLMHandle* handle, L::RKLLMParam* param, L::RKLLMCallback* callbacks) {
  const rk::LLMResultCallback cb = callbacks != nullptr ? callbacks->result_callback : nullptr;
  void* init_userdata = callbacks != nullptr ? callbacks->result_userdata : nullptr;
  const int ignore_eos = param->ignore_eos_token ? 1 : 0;
#else
int rkllm_init(rk::LLMHandle* handle, L::RKLLMParam* param, rk::LLMResultCallback cb) {
  void* init_userdata = nullptr;
  const int ignore_eos = -1;  // no such field before 1.3.0
#endif
  auto h = std::make_unique<Handle>();
  {
    Record& r = record();
    std::lock_guard lock(r.mu);
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "{\"model_path\":\"%s\",\"max_context_len\":%d,\"max_new_tokens\":%d,"
                  "\"top_k\":%d,\"is_async\":%d,\"ignore_eos_token\":%d,"
                  "\"enabled_cpus_num\":%d,\"enabled_cpus_mask\":%u,\"n_batch\":%d,"
                  "\"callback_set\":%d}",
                  param->model_path != nullptr ? param->model_path : "", param->max_context_len,
                  param->max_new_tokens, param->top_k, param->is_async ? 1 : 0, ignore_eos,
                  param->extend_param.enabled_cpus_num, param->extend_param.enabled_cpus_mask,
                  param->extend_param.n_batch, cb != nullptr ? 1 : 0);
    r.json_init = buf;
  }
  if (cb == nullptr || !read_script(param->model_path, h->script)) return -1;
  if (h->script.init_rc != 0) return static_cast<int>(h->script.init_rc);
  h->callback = cb;
  h->init_userdata = init_userdata;
  h->init_max_new_tokens = param->max_new_tokens;
  *handle = h.release();
  return 0;
}

int rkllm_run(rk::LLMHandle handle, L::RKLLMInput* input, L::RKLLMInferParam* infer,
              void* userdata) {
  auto& h = *static_cast<Handle*>(handle);
  h.abort.store(false);
  long max_new = h.init_max_new_tokens > 0 ? h.init_max_new_tokens : 1L << 30;
  int run_max_new = 0;
#if defined(RKLLM_STUB_LAYOUT_130)
  run_max_new = infer->max_new_tokens;
  if (run_max_new > 0) max_new = run_max_new;
#endif
  std::string ids;
  long n_input = 0;
  if (input->input_type == rk::RKLLM_INPUT_TOKEN) {
    n_input = static_cast<long>(input->token_input.n_tokens);
    for (long i = 0; i < n_input; ++i) {
      if (i > 0) ids += ',';
      ids += std::to_string(input->token_input.input_ids[i]);
    }
  }
  std::string trace;
  std::thread worker(generate, std::ref(h), userdata != nullptr ? userdata : h.init_userdata,
                     n_input, max_new, std::ref(trace));
  worker.join();
  Record& r = record();
  std::lock_guard lock(r.mu);
  r.json_runs.push_back(
      "{\"input_type\":" + std::to_string(static_cast<int>(input->input_type)) + ",\"role\":\"" +
      (input->role != nullptr ? input->role : "") + "\",\"token_ids\":[" + ids +
      "],\"mode\":" + std::to_string(static_cast<int>(infer->mode)) +
      ",\"keep_history\":" + std::to_string(infer->keep_history) +
      ",\"run_max_new_tokens\":" + std::to_string(run_max_new) + ",\"end\":\"" + trace + "\"}");
  return 0;
}

int rkllm_run_async(rk::LLMHandle handle, L::RKLLMInput* input, L::RKLLMInferParam* infer,
                    void* userdata) {
  return rkllm_run(handle, input, infer, userdata);  // not used by the engine
}

#if !defined(RKLLM_STUB_OMIT_ABORT)
int rkllm_abort(rk::LLMHandle handle) {
  static_cast<Handle*>(handle)->abort.store(true);
  Record& r = record();
  std::lock_guard lock(r.mu);
  ++r.aborts;
  return 0;
}
#endif

int rkllm_destroy(rk::LLMHandle handle) {
  delete static_cast<Handle*>(handle);
  Record& r = record();
  std::lock_guard lock(r.mu);
  ++r.destroyed;
  return 0;
}

int rkllm_is_running(rk::LLMHandle /*handle*/) {
  return 0;
}

int rkllm_clear_kv_cache(rk::LLMHandle /*handle*/, int /*keep_system_prompt*/, int* /*start*/,
                         int* /*end*/) {
  Record& r = record();
  std::lock_guard lock(r.mu);
  ++r.clear_kv;
  return 0;
}

#if !defined(RKLLM_STUB_PRE_121)
int rkllm_get_kv_cache_size(rk::LLMHandle /*handle*/, int* sizes) {
  if (sizes != nullptr) sizes[0] = 0;
  return 0;
}
#endif

// ---- test-only ----
// {"init": {...} | null, "runs": [{...}], "aborts": n, "clear_kv": n, "destroyed": n}. The
// returned text stays valid until the next call.
const char* rkllm_stub_record_json() {
  Record& r = record();
  std::lock_guard lock(r.mu);
  r.out = "{\"init\":" + r.json_init + ",\"runs\":[";
  for (std::size_t i = 0; i < r.json_runs.size(); ++i) {
    if (i > 0) r.out += ',';
    r.out += r.json_runs[i];
  }
  r.out += "],\"aborts\":" + std::to_string(r.aborts) +
           ",\"clear_kv\":" + std::to_string(r.clear_kv) +
           ",\"destroyed\":" + std::to_string(r.destroyed) + "}";
  return r.out.c_str();
}

void rkllm_stub_reset() {
  Record& r = record();
  std::lock_guard lock(r.mu);
  r.json_init = "null";
  r.json_runs.clear();
  r.aborts = r.clear_kv = r.destroyed = 0;
}

}  // extern "C"
