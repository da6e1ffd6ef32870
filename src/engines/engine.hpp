// The one small interface between the harness and a runtime. The harness owns the clock: an
// engine only reports *that* something happened (submit, a chunk of tokens, done, error) to an
// EventSink, and the harness stamps it. Engines never compute metrics.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"

namespace tokscope::engines {

struct EngineInfo {
  std::string name;     // "sim", "openai", ...
  std::string version;  // engine/runtime version as far as known
  bool simulated = false;
  nlohmann::json extra = nlohmann::json::object();  // engine-specific facts for the result
};

// One request as the harness hands it over. prompt_ids is owned by the harness and outlives
// run(). The engine must produce max_new_tokens tokens when ignore_eos is set and it can.
struct Request {
  std::span<const std::int32_t> prompt_ids;
  std::uint32_t max_new_tokens = 0;
  bool ignore_eos = true;
  std::uint32_t concurrency = 1;  // the stratum's concurrency (what-if models use it)
  std::uint64_t seed = 0;         // per-request seed for any engine-side randomness
};

// Receives one request's events. Implemented by the harness, which stamps every call with its
// own clock. Contract: calls for one sink come from one thread at a time; on_tokens is the
// per-token path and must not allocate or lock (the harness's implementation sizes its buffers
// before the request starts). count >= 1: a chunk carrying no token is not reported at all.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void on_submit() noexcept = 0;                     // token ids handed to the engine
  virtual void on_tokens(std::uint32_t count) noexcept = 0;  // a chunk became visible
  virtual void on_done() noexcept = 0;                       // end of generation
  virtual void on_error(ErrorKind kind, std::string_view message) noexcept = 0;
  // True once the request's deadline has passed or the run is being interrupted; engines poll
  // it between tokens (and while waiting) and then return an Error of kind kTimeout/kCancelled.
  [[nodiscard]] virtual bool should_stop() const noexcept = 0;
  // The runtime's own figures for this request (RKLLM's perf stats, a server's timings), kept
  // beside the harness's measurements, never instead of them. Called at most once, after the
  // last token (never on the per-token path), from the thread that calls run(). Default: ignored.
  virtual void on_engine_stats(const nlohmann::json& stats) { (void)stats; }
};

class Engine {
 public:
  virtual ~Engine() = default;
  [[nodiscard]] virtual EngineInfo info() const = 0;
  // Model facts for the result ("model" object of the result schema).
  [[nodiscard]] virtual nlohmann::json model_info() const = 0;
  // Loads the model (or connects). Called once before any run().
  virtual Expected<void> load() = 0;
  [[nodiscard]] virtual bool can_tokenize() const { return false; }
  virtual Expected<std::vector<std::int32_t>> tokenize(std::string_view text);
  // Runs one request to the end, reporting to sink. Blocking. Safe to call from several
  // threads at once (an engine that cannot serve in parallel serializes and says so in info()).
  // Returns an Error when the request failed; it has then also called sink.on_error.
  virtual Expected<void> run(const Request& request, EventSink& sink) = 0;
};

}  // namespace tokscope::engines
