#include "engines/rkllm/rkllm_engine.hpp"

#include <fmt/format.h>

#include <atomic>
#include <bit>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <thread>

#include "platform/topology.hpp"

namespace tokscope::engines::rkllm {
namespace {

constexpr auto kWatchPeriod = std::chrono::milliseconds(2);  // should_stop poll before token 1

// One request, shared by the run() thread, the watcher and the runtime's callback thread.
// Plain fields are owned by the thread named beside them; cross-thread hand-offs are atomics.
struct RunContext {
  EventSink* sink = nullptr;
  std::uint32_t budget = 0;

  // callback thread only; read by run() after rkllm_run returns (acquire on `callbacks`)
  std::uint32_t tokens = 0;
  std::uint32_t waiting = 0;
  bool done_reported = false;
  bool over_budget = false;
  bool stopping = false;
  bool finished = false;
  bool errored = false;
  int unknown_state = -1;
  RKLLMPerfStat perf{};
  std::atomic<std::uint64_t> callbacks{0};  // release at the end of every callback

  // sink hand-over: the watcher owns the sink until the first callback (Dekker handshake)
  std::atomic<bool> armed{false};  // on_submit done: the watcher may call should_stop
  std::atomic<bool> callback_seen{false};
  std::atomic<bool> watcher_in_sink{false};

  std::atomic<bool> stop_requested{false};  // → the watcher calls rkllm_abort
  std::atomic<bool> aborted{false};

  std::mutex wake_mutex;  // only to wake the watcher when rkllm_run returns
  std::condition_variable wake;
  bool run_returned = false;  // guarded by wake_mutex
};

// The first callback of a request takes the sink from the watcher: after this, the watcher
// never calls the sink again. Spins at most for one should_stop() call of the watcher.
void take_sink(RunContext& c) noexcept {
  c.callback_seen.store(true, std::memory_order_seq_cst);
  while (c.watcher_in_sink.load(std::memory_order_seq_cst)) std::this_thread::yield();
}

// The result callback (LLMResultCallback). Contract: called by the runtime during rkllm_run,
// from a thread of its choosing, one call at a time; `result` and its buffers belong to the
// runtime and are read only here. Allocates nothing and takes no lock (per-token path).
int on_result(RKLLMResult* result, void* userdata, LLMCallState state) {
  auto& c = *static_cast<RunContext*>(userdata);
  if (!c.callback_seen.load(std::memory_order_relaxed)) take_sink(c);
  int ret = 0;  // continue
  switch (state) {
    case RKLLM_RUN_NORMAL:
    case RKLLM_RUN_WAITING:
      if (state == RKLLM_RUN_WAITING) ++c.waiting;
      if (c.stopping) break;
      if (c.tokens >= c.budget) {  // the runtime goes past the request (1.2.x): cut it here
        if (!c.done_reported) {
          c.sink->on_done();
          c.done_reported = true;
        }
        c.over_budget = true;
        ret = 1;  // pause (documented; the KV cache is cleared by run() afterwards)
        break;
      }
      ++c.tokens;
      c.sink->on_tokens(1);
      if (c.sink->should_stop()) {
        c.stopping = true;
        c.stop_requested.store(true, std::memory_order_release);
      }
      break;
    case RKLLM_RUN_FINISH:
      if (result != nullptr) c.perf = result->perf;  // filled only here (CN SDK §3.2.16)
      c.finished = true;
      if (!c.done_reported && !c.stopping) {
        c.sink->on_done();
        c.done_reported = true;
      }
      break;
    case RKLLM_RUN_ERROR:
      c.errored = true;
      break;
    default:
      c.unknown_state = static_cast<int>(state);
      break;
  }
  c.callbacks.fetch_add(1, std::memory_order_release);
  return ret;
}

// Polls should_stop() while the sink is its own (prefill), and calls rkllm_abort once a stop
// is asked for by either side. Runs from before on_submit until rkllm_run has returned.
void watch(RunContext& c, AbortFn abort_fn, LLMHandle handle) {
  bool sink_mine = true;
  std::unique_lock lock(c.wake_mutex);
  while (!c.run_returned) {
    lock.unlock();
    if (sink_mine && c.armed.load(std::memory_order_acquire)) {
      c.watcher_in_sink.store(true, std::memory_order_seq_cst);
      if (c.callback_seen.load(std::memory_order_seq_cst)) {
        sink_mine = false;
      } else if (c.sink->should_stop()) {
        c.stop_requested.store(true, std::memory_order_release);
      }
      c.watcher_in_sink.store(false, std::memory_order_seq_cst);
    }
    if (c.stop_requested.load(std::memory_order_acquire) &&
        !c.aborted.load(std::memory_order_relaxed)) {
      abort_fn(handle);
      c.aborted.store(true, std::memory_order_release);
    }
    lock.lock();
    c.wake.wait_for(lock, kWatchPeriod, [&] { return c.run_returned; });
  }
}

Expected<std::uint32_t> cpu_mask_of(const std::string& cpus) {
  if (cpus.empty()) return std::uint32_t{0};
  auto ids = platform::parse_cpu_list(cpus);
  if (!ids || ids->empty()) {
    return make_error(ErrorKind::kUsage,
                      fmt::format("--rkllm-cpus {}: not a cpu list (e.g. 4-7 for the RK3588's "
                                  "Cortex-A76 cores)",
                                  cpus));
  }
  std::uint32_t mask = 0;
  for (const int id : *ids) {
    if (id < 0 || id > 7) {
      return make_error(ErrorKind::kUsage,
                        fmt::format("--rkllm-cpus {}: cpu {} is out of range; RKLLM's "
                                    "enabled_cpus_mask has CPU0…CPU7",
                                    cpus, id));
    }
    mask |= 1U << static_cast<unsigned>(id);
  }
  return mask;
}

void set_common_params(auto& p, const RkllmConfig& config, std::uint32_t cpu_mask) {
  p.model_path = config.model_path.c_str();
  p.max_context_len = config.max_context_len;
  p.max_new_tokens = static_cast<std::int32_t>(config.max_new_tokens);
  p.is_async = false;  // rkllm_run blocks and calls the callback during the run
  if (cpu_mask != 0) {
    p.extend_param.enabled_cpus_mask = cpu_mask;
    p.extend_param.enabled_cpus_num = static_cast<std::int8_t>(std::popcount(cpu_mask));
  }
}

template <class Input>
void set_token_input(Input& input, std::vector<std::int32_t>& ids) {
  input.role = "user";
  input.enable_thinking = false;
  input.input_type = RKLLM_INPUT_TOKEN;
  input.token_input.input_ids = ids.data();
  input.token_input.n_tokens = ids.size();
}

}  // namespace

nlohmann::json to_json(const RuntimeStats& s) {
  nlohmann::json j = {{"source", "RKLLMPerfStat of the RKLLM_RUN_FINISH callback"},
                      {"have_perf", s.have_perf},
                      {"callback_tokens", s.callback_tokens},
                      {"waiting_callbacks", s.waiting_callbacks},
                      {"paused_at_budget", s.paused_at_budget}};
  if (s.have_perf) {
    j["prefill_time_ms"] = s.prefill_time_ms;
    j["prefill_tokens"] = s.prefill_tokens;
    j["generate_time_ms"] = s.generate_time_ms;
    j["generate_tokens"] = s.generate_tokens;
    j["peak_rss_mb"] = s.memory_usage_mb;
  }
  return j;
}

RkllmEngine::RkllmEngine(RkllmConfig config) : config_(std::move(config)) {}

RkllmEngine::~RkllmEngine() {
  if (handle_ != nullptr && lib_) {
    RkllmLibrary::as<DestroyFn>(lib_->symbols().destroy)(handle_);
  }
}

EngineInfo RkllmEngine::info() const {
  EngineInfo info;
  info.name = "rkllm";
  info.version = fmt::format("librkllmrt {} (declared with --rkllm-abi)", to_string(config_.abi));
  info.simulated = false;
  const bool v130 = layout_of(config_.abi) == Layout::kV130;
  info.extra = {
      {"library", config_.lib_path},
      {"abi", std::string(to_string(config_.abi))},
      {"abi_source", "declared: librkllmrt.so exports no version symbol"},
      {"concurrency",
       "one request at a time: RKLLM serializes runs on a handle, run() holds a "
       "mutex for the whole request"},
      {"input", "token ids (RKLLM_INPUT_TOKEN): TTFT excludes tokenization"},
      {"token_count",
       "one token per NORMAL or WAITING callback; runtime_stats.generate_tokens "
       "is the runtime's own count"},
      {"forced_output_length",
       v130 ? "ignore_eos_token set at load, per-run max_new_tokens"
            : "not exposed by 1.2.x (EOS ends a request early: the harness flags it short); "
              "shorter requests are cut by pausing the run"},
      {"enabled_cpus_mask",
       cpu_mask_ != 0 ? nlohmann::json(fmt::format("0x{:02x}", cpu_mask_)) : nlohmann::json()},
      {"max_context_len", config_.max_context_len},
      {"runtime_stats", "per request: RkllmEngine::last_runtime_stats()"},
      {"validation", "written from the documented C API; awaits validation on an RK3588"}};
  return info;
}

nlohmann::json RkllmEngine::model_info() const {
  return {{"path", config_.model_path}, {"format", "rkllm"}};
}

Expected<void> RkllmEngine::load() {
  if (handle_ != nullptr) return {};
  auto mask = cpu_mask_of(config_.cpus);
  if (!mask) return mask.error();
  if (config_.model_path.empty() || !std::filesystem::is_regular_file(config_.model_path)) {
    return make_error(ErrorKind::kUsage,
                      fmt::format("--rkllm-model {}: no such file; give the converted .rkllm "
                                  "model",
                                  config_.model_path));
  }
  if (config_.max_new_tokens == 0 || config_.max_context_len <= 0) {
    return make_error(ErrorKind::kUsage, "rkllm: max_new_tokens and --max-context must be > 0");
  }
  auto lib = RkllmLibrary::open(config_.lib_path);
  if (!lib) return lib.error();
  if (auto floor = (*lib)->check_abi_floor(); !floor) return floor.error();
  lib_ = std::move(*lib);
  cpu_mask_ = *mask;
  return layout_of(config_.abi) == Layout::kV130 ? init_v130(cpu_mask_) : init_v121(cpu_mask_);
}

// rkllm_init's return code (and handle) for either ABI: an error that names the flags to check.
Expected<void> RkllmEngine::init_result(int rc) {
  if (rc == 0 && handle_ != nullptr) return {};
  handle_ = nullptr;
  return make_error(ErrorKind::kEngine,
                    fmt::format("rkllm_init returned {} for --rkllm-model {} (library {}, ABI "
                                "{}); run with RKLLM_LOG_LEVEL=1 for the runtime's reason, and "
                                "check that --rkllm-abi matches the library's release",
                                rc, config_.model_path, config_.lib_path, to_string(config_.abi)));
}

Expected<void> RkllmEngine::init_v121(std::uint32_t cpu_mask) {
  param121_ = RkllmLibrary::as<v121::CreateDefaultParamFn>(lib_->symbols().create_default_param)();
  set_common_params(param121_, config_, cpu_mask);
  const int rc =
      RkllmLibrary::as<v121::InitFn>(lib_->symbols().init)(&handle_, &param121_, &on_result);
  return init_result(rc);
}

Expected<void> RkllmEngine::init_v130(std::uint32_t cpu_mask) {
  param130_ = RkllmLibrary::as<v130::CreateDefaultParamFn>(lib_->symbols().create_default_param)();
  set_common_params(param130_, config_, cpu_mask);
  param130_.ignore_eos_token = config_.ignore_eos;
  callbacks130_ = v130::RKLLMCallback{};
  callbacks130_.result_callback = &on_result;  // userdata is given per run (it wins, §1.1)
  const int rc =
      RkllmLibrary::as<v130::InitFn>(lib_->symbols().init)(&handle_, &param130_, &callbacks130_);
  return init_result(rc);
}

RuntimeStats RkllmEngine::last_runtime_stats() const {
  std::lock_guard lock(stats_mutex_);
  return last_stats_;
}

Expected<void> RkllmEngine::run(const Request& request, EventSink& sink) {
  std::lock_guard serial(run_mutex_);
  auto fail = [&sink](ErrorKind kind, const std::string& message) -> Expected<void> {
    sink.on_error(kind, message);
    return make_error(kind, message);
  };
  if (handle_ == nullptr) return fail(ErrorKind::kInternal, "rkllm: run() before load()");
  const bool v130 = layout_of(config_.abi) == Layout::kV130;
  if (request.max_new_tokens == 0 || request.prompt_ids.empty()) {
    return fail(ErrorKind::kUsage, "rkllm: a request needs prompt tokens and max_new_tokens > 0");
  }
  if (!v130 && request.max_new_tokens > config_.max_new_tokens) {
    return fail(
        ErrorKind::kUsage,
        fmt::format("rkllm ABI {}: max_new_tokens is fixed at load ({}) and this request "
                    "asks {}; load with the largest output length of the run",
                    to_string(config_.abi), config_.max_new_tokens, request.max_new_tokens));
  }
  prompt_.assign(request.prompt_ids.begin(), request.prompt_ids.end());

  RunContext ctx;
  ctx.sink = &sink;
  ctx.budget = request.max_new_tokens;
  const RkllmLibrary::Symbols& syms = lib_->symbols();
  std::thread watcher(watch, std::ref(ctx), RkllmLibrary::as<AbortFn>(syms.abort), handle_);

  int rc = 0;
  if (v130) {
    v130::RKLLMInput input{};
    set_token_input(input, prompt_);
    v130::RKLLMInferParam infer{};
    infer.mode = RKLLM_INFER_GENERATE;
    infer.keep_history = 0;  // every request starts from an empty context
    infer.max_new_tokens = static_cast<int>(request.max_new_tokens);
    sink.on_submit();
    ctx.armed.store(true, std::memory_order_release);
    rc = RkllmLibrary::as<v130::RunFn>(syms.run)(handle_, &input, &infer, &ctx);
  } else {
    v121::RKLLMInput input{};
    set_token_input(input, prompt_);
    v121::RKLLMInferParam infer{};
    infer.mode = RKLLM_INFER_GENERATE;
    infer.keep_history = 0;
    sink.on_submit();
    ctx.armed.store(true, std::memory_order_release);
    rc = RkllmLibrary::as<v121::RunFn>(syms.run)(handle_, &input, &infer, &ctx);
  }
  (void)ctx.callbacks.load(std::memory_order_acquire);  // the callback thread's writes
  {
    std::lock_guard lock(ctx.wake_mutex);
    ctx.run_returned = true;
  }
  ctx.wake.notify_one();
  watcher.join();

  const bool stopped = ctx.stop_requested.load(std::memory_order_acquire);
  if (ctx.over_budget || stopped) {
    // A paused or aborted run may leave KV entries behind (pause keeps them, §1.2): clear all.
    RkllmLibrary::as<ClearKvCacheFn>(syms.clear_kv_cache)(handle_, 0, nullptr, nullptr);
  }
  {
    std::lock_guard lock(stats_mutex_);
    last_stats_ = RuntimeStats{};
    last_stats_.have_perf = ctx.finished;
    if (ctx.finished) {
      last_stats_.prefill_time_ms = ctx.perf.prefill_time_ms;
      last_stats_.prefill_tokens = ctx.perf.prefill_tokens;
      last_stats_.generate_time_ms = ctx.perf.generate_time_ms;
      last_stats_.generate_tokens = ctx.perf.generate_tokens;
      last_stats_.memory_usage_mb = ctx.perf.memory_usage_mb;
    }
    last_stats_.callback_tokens = ctx.tokens;
    last_stats_.waiting_callbacks = ctx.waiting;
    last_stats_.paused_at_budget = ctx.over_budget;
    // The callback thread is done with the sink (rkllm_run returned), so this thread may call it.
    sink.on_engine_stats(to_json(last_stats_));
  }

  if (stopped) {
    return fail(ErrorKind::kTimeout,
                fmt::format("stopped by the harness (deadline or interrupt) after {} tokens; "
                            "rkllm_abort called",
                            ctx.tokens));
  }
  if (ctx.errored) {
    return fail(ErrorKind::kEngine,
                fmt::format("the RKLLM runtime reported RKLLM_RUN_ERROR after {} tokens (rkllm_run "
                            "returned {}); RKLLM_LOG_LEVEL=1 prints its reason",
                            ctx.tokens, rc));
  }
  if (ctx.unknown_state >= 0) {
    return fail(ErrorKind::kEngine,
                fmt::format("the RKLLM runtime sent callback state {}, unknown to ABI {}: is "
                            "--rkllm-abi the library's release?",
                            ctx.unknown_state, to_string(config_.abi)));
  }
  if (rc != 0) {
    return fail(ErrorKind::kEngine,
                fmt::format("rkllm_run returned {} after {} tokens", rc, ctx.tokens));
  }
  if (!ctx.done_reported) {
    return fail(
        ErrorKind::kEngine,
        fmt::format("rkllm_run returned without a FINISH callback after {} tokens", ctx.tokens));
  }
  return {};
}

}  // namespace tokscope::engines::rkllm
