// Contract tests of the rkllm engine against the stand-in runtime tests/engines/rkllm_stub (one
// build per struct layout; paths from tests/CMakeLists.txt). They check the engine's use of the
// documented API, not the API's truth on an RK3588 (that awaits hardware).
#include "engines/rkllm/rkllm_engine.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <thread>

#include "engines/rkllm/rkllm_abi.hpp"
#include "platform/clock.hpp"

namespace tokscope::engines::rkllm {
namespace {

namespace fs = std::filesystem;

// Offsets that follow from the documented field order and sizes (edge-facts.md §1.3–1.5, §1.7);
// the sizes themselves are asserted in rkllm_abi.hpp. LP64 only, as the documented sizes.
#if defined(__LP64__)
static_assert(offsetof(RKLLMExtendParam, enabled_cpus_mask) == 8);
static_assert(offsetof(RKLLMExtendParam, n_batch) == 12);
static_assert(offsetof(RKLLMResult, token_id) == 8);
static_assert(offsetof(RKLLMResult, perf) == 48);
static_assert(offsetof(v121::RKLLMParam, extend_param) == 88);
static_assert(offsetof(v121::RKLLMInput, input_type) == 12);
static_assert(offsetof(v121::RKLLMInput, token_input) == 16);
static_assert(offsetof(v121::RKLLMInferParam, keep_history) == 24);
static_assert(offsetof(v130::RKLLMParam, ignore_eos_token) == 57);
static_assert(offsetof(v130::RKLLMParam, extend_param) == 60);
static_assert(offsetof(v130::RKLLMInput, token_input) == 16);
static_assert(offsetof(v130::RKLLMInferParam, keep_history) == 32);
static_assert(offsetof(v130::RKLLMInferParam, max_new_tokens) == 36);
static_assert(sizeof(v130::RKLLMCallback) == 48);
#endif

// Stamps events with the monotonic clock into fixed storage (no allocation in on_tokens).
class TimedSink final : public EventSink {
 public:
  void on_submit() noexcept override { t_submit = platform::monotonic_now_ns(); }
  void on_tokens(std::uint32_t n) noexcept override {
    const std::int64_t t = platform::monotonic_now_ns();
    if (chunks < t_tokens.size()) t_tokens[chunks] = t;
    ++chunks;
    tokens += n;
    if (std::this_thread::get_id() != test_thread) tokens_off_thread += n;
  }
  void on_done() noexcept override {
    t_done = platform::monotonic_now_ns();
    ++done;
  }
  void on_error(ErrorKind k, std::string_view) noexcept override {
    ++errors;
    kind = k;
  }
  bool should_stop() const noexcept override {
    if (stop_after_tokens > 0 && tokens >= stop_after_tokens) return true;
    return stop_after_ms > 0 && t_submit > 0 &&
           platform::monotonic_now_ns() - t_submit >= stop_after_ms * 1'000'000;
  }
  double ms(std::int64_t a, std::int64_t b) const { return static_cast<double>(b - a) / 1e6; }

  std::thread::id test_thread = std::this_thread::get_id();
  std::int64_t t_submit = 0, t_done = 0;
  std::array<std::int64_t, 4096> t_tokens{};
  std::size_t chunks = 0;
  std::uint32_t tokens = 0, tokens_off_thread = 0, done = 0, errors = 0;
  std::uint32_t stop_after_tokens = 0;
  std::int64_t stop_after_ms = 0;
  ErrorKind kind = ErrorKind::kInternal;
};

// The stub's test-only record, read through its own dlopen of the same path (which keeps the
// library, and so its record, alive across the engine's dlclose).
class Stub {
 public:
  explicit Stub(const char* path) : handle_(dlopen(path, RTLD_NOW | RTLD_LOCAL)) {
    if (handle_ == nullptr) return;
    record_ = reinterpret_cast<const char* (*)()>(dlsym(handle_, "rkllm_stub_record_json"));
    reinterpret_cast<void (*)()>(dlsym(handle_, "rkllm_stub_reset"))();
  }
  ~Stub() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  Stub(const Stub&) = delete;
  Stub& operator=(const Stub&) = delete;
  [[nodiscard]] bool ok() const { return handle_ != nullptr && record_ != nullptr; }
  [[nodiscard]] nlohmann::json record() const { return nlohmann::json::parse(record_()); }

 private:
  void* handle_;
  const char* (*record_)() = nullptr;
};

fs::path write_script(const std::string& name, const std::string& json) {
  const fs::path dir = fs::temp_directory_path() / ("tokscope-rkllm-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string file = name;  // parameterized test names hold a '/'
  for (char& ch : file) {
    if (ch == '/') ch = '_';
  }
  const fs::path p = dir / (file + ".json");
  std::ofstream(p) << json;
  return p;
}

::testing::AssertionResult loaded_ok(RkllmEngine& e) {
  auto loaded = e.load();
  if (loaded.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << loaded.error().message;
}

struct AbiCase {
  Abi abi;
  const char* lib;
};

class RkllmEngineTest : public ::testing::TestWithParam<AbiCase> {
 protected:
  void SetUp() override { ASSERT_TRUE(stub_.ok()) << GetParam().lib; }
  [[nodiscard]] bool v130() const { return layout_of(GetParam().abi) == Layout::kV130; }
  RkllmConfig config(const std::string& script_json, std::uint32_t max_new = 8) {
    RkllmConfig c;
    c.lib_path = GetParam().lib;
    c.abi = GetParam().abi;
    c.model_path =
        write_script(::testing::UnitTest::GetInstance()->current_test_info()->name(), script_json);
    c.max_context_len = 2048;
    c.max_new_tokens = max_new;
    return c;
  }
  static Request request(const std::vector<std::int32_t>& ids, std::uint32_t n) {
    Request r;
    r.prompt_ids = ids;
    r.max_new_tokens = n;
    return r;
  }
  Stub stub_{GetParam().lib};
};

TEST_P(RkllmEngineTest, LoadHandsTheRuntimeTheParamsAndCpuMask) {
  RkllmConfig c = config(R"({"n_tokens": 4})", 16);
  c.cpus = "4-7";
  RkllmEngine e(c);
  ASSERT_TRUE(loaded_ok(e));
  const nlohmann::json init = stub_.record()["init"];
  EXPECT_EQ(init["model_path"], c.model_path);
  EXPECT_EQ(init["max_context_len"], 2048);
  EXPECT_EQ(init["max_new_tokens"], 16);
  EXPECT_EQ(init["enabled_cpus_mask"], 0xf0);
  EXPECT_EQ(init["enabled_cpus_num"], 4);
  EXPECT_EQ(init["is_async"], 0);
  EXPECT_EQ(init["top_k"], 40);  // the runtime's defaults are kept
  EXPECT_EQ(init["n_batch"], 1);
  EXPECT_EQ(init["callback_set"], 1);
  EXPECT_EQ(init["ignore_eos_token"], v130() ? 1 : -1);
  const EngineInfo info = e.info();
  EXPECT_EQ(info.name, "rkllm");
  EXPECT_FALSE(info.simulated);
  EXPECT_EQ(info.extra["abi"], std::string(to_string(GetParam().abi)));
  EXPECT_EQ(info.extra["enabled_cpus_mask"], "0xf0");
  EXPECT_NE(info.extra["concurrency"].get<std::string>().find("one request at a time"),
            std::string::npos);
}

TEST_P(RkllmEngineTest, RunFeedsTokenIdsAndReportsTheScriptedSchedule) {
  RkllmEngine e(config(R"({"prefill_ms": 60, "itl_ms": 10, "n_tokens": 8, "memory_mb": 321.5})"));
  ASSERT_TRUE(loaded_ok(e));
  const std::vector<std::int32_t> ids{11, 22, 33};
  TimedSink sink;
  ASSERT_TRUE(e.run(request(ids, 8), sink).ok());
  EXPECT_GT(sink.t_submit, 0);
  EXPECT_EQ(sink.tokens, 8U);
  EXPECT_EQ(sink.chunks, 8U);
  EXPECT_EQ(sink.tokens_off_thread, 8U);  // the callback came from the stub's worker thread
  EXPECT_EQ(sink.done, 1U);
  EXPECT_EQ(sink.errors, 0U);
  // Loose bounds: this machine is loaded. Never early, and not absurdly late.
  const double ttft = sink.ms(sink.t_submit, sink.t_tokens[0]);
  EXPECT_GE(ttft, 55.0);
  EXPECT_LT(ttft, 5000.0);
  const double decode = sink.ms(sink.t_tokens[0], sink.t_tokens[7]);
  EXPECT_GE(decode, 63.0);  // 7 intervals of 10 ms
  EXPECT_LT(decode, 10000.0);
  EXPECT_GE(sink.t_done, sink.t_tokens[7]);

  const nlohmann::json run = stub_.record()["runs"].at(0);
  EXPECT_EQ(run["input_type"], 1);  // RKLLM_INPUT_TOKEN
  EXPECT_EQ(run["token_ids"], nlohmann::json({11, 22, 33}));
  EXPECT_EQ(run["role"], "user");
  EXPECT_EQ(run["mode"], 0);
  EXPECT_EQ(run["keep_history"], 0);
  EXPECT_EQ(run["run_max_new_tokens"], v130() ? 8 : 0);
  EXPECT_EQ(run["end"], "finished");

  const RuntimeStats s = e.last_runtime_stats();
  EXPECT_TRUE(s.have_perf);
  EXPECT_EQ(s.prefill_tokens, 3);
  EXPECT_EQ(s.generate_tokens, 8);
  EXPECT_EQ(s.callback_tokens, 8U);
  EXPECT_DOUBLE_EQ(s.memory_usage_mb, 321.5);
  EXPECT_GE(s.prefill_time_ms, 55.0);
  EXPECT_EQ(to_json(s)["peak_rss_mb"], 321.5);
}

TEST_P(RkllmEngineTest, ARequestShorterThanTheLoadLimitStopsAtItsLength) {
  RkllmEngine e(config(R"({"itl_ms": 1, "n_tokens": 40})", 32));
  ASSERT_TRUE(loaded_ok(e));
  const std::vector<std::int32_t> ids{1, 2};
  TimedSink sink;
  ASSERT_TRUE(e.run(request(ids, 5), sink).ok());
  EXPECT_EQ(sink.tokens, 5U);
  EXPECT_EQ(sink.done, 1U);
  const nlohmann::json rec = stub_.record();
  if (v130()) {  // per-run max_new_tokens: the runtime stops itself
    EXPECT_EQ(rec["runs"][0]["run_max_new_tokens"], 5);
    EXPECT_EQ(rec["runs"][0]["end"], "finished");
    EXPECT_FALSE(e.last_runtime_stats().paused_at_budget);
  } else {  // 1.2.x: paused by the callback, then the KV cache is cleared
    EXPECT_EQ(rec["runs"][0]["end"], "paused");
    EXPECT_EQ(rec["clear_kv"], 1);
    EXPECT_TRUE(e.last_runtime_stats().paused_at_budget);
  }
  // The next request starts normally.
  TimedSink again;
  ASSERT_TRUE(e.run(request(ids, 3), again).ok());
  EXPECT_EQ(again.tokens, 3U);
}

TEST_P(RkllmEngineTest, EndOfSequenceBeforeTheLengthIsAShortSuccessfulRequest) {
  RkllmEngine e(config(R"({"n_tokens": 3})"));
  ASSERT_TRUE(loaded_ok(e));
  const std::vector<std::int32_t> ids{5};
  TimedSink sink;
  ASSERT_TRUE(e.run(request(ids, 8), sink).ok());
  EXPECT_EQ(sink.tokens, 3U);  // the harness flags it short
  EXPECT_EQ(sink.done, 1U);
}

TEST_P(RkllmEngineTest, WaitingCallbacksCountAsTokensAndAreCounted) {
  RkllmEngine e(config(R"({"n_tokens": 6, "waiting_every": 2})"));
  ASSERT_TRUE(loaded_ok(e));
  const std::vector<std::int32_t> ids{5};
  TimedSink sink;
  ASSERT_TRUE(e.run(request(ids, 6), sink).ok());
  EXPECT_EQ(sink.tokens, 6U);
  EXPECT_EQ(e.last_runtime_stats().waiting_callbacks, 3U);
}

TEST_P(RkllmEngineTest, ShouldStopDuringDecodeAbortsPromptly) {
  RkllmEngine e(config(R"({"itl_ms": 5, "n_tokens": 100000})", 100000));
  ASSERT_TRUE(loaded_ok(e));
  const std::vector<std::int32_t> ids{5};
  TimedSink sink;
  sink.stop_after_tokens = 3;
  const auto t0 = platform::monotonic_now_ns();
  auto result = e.run(request(ids, 100000), sink);
  const double elapsed = static_cast<double>(platform::monotonic_now_ns() - t0) / 1e6;
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, ErrorKind::kTimeout);
  EXPECT_EQ(sink.errors, 1U);
  EXPECT_EQ(sink.done, 0U);
  EXPECT_EQ(sink.tokens, 3U);  // nothing reported after the stop
  EXPECT_LT(elapsed, 3000.0);
  const nlohmann::json rec = stub_.record();
  EXPECT_EQ(rec["aborts"], 1);
  EXPECT_EQ(rec["runs"][0]["end"], "aborted_in_decode");
  EXPECT_FALSE(e.last_runtime_stats().have_perf);
}

TEST_P(RkllmEngineTest, ShouldStopDuringPrefillAbortsPromptly) {
  RkllmEngine e(config(R"({"prefill_ms": 60000, "n_tokens": 4})"));
  ASSERT_TRUE(loaded_ok(e));
  const std::vector<std::int32_t> ids{5};
  TimedSink sink;
  sink.stop_after_ms = 50;
  const auto t0 = platform::monotonic_now_ns();
  auto result = e.run(request(ids, 4), sink);
  const double elapsed = static_cast<double>(platform::monotonic_now_ns() - t0) / 1e6;
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, ErrorKind::kTimeout);
  EXPECT_EQ(sink.tokens, 0U);
  EXPECT_GE(elapsed, 45.0);
  EXPECT_LT(elapsed, 5000.0);
  const nlohmann::json rec = stub_.record();
  EXPECT_EQ(rec["aborts"], 1);
  EXPECT_EQ(rec["runs"][0]["end"], "aborted_in_prefill");
}

TEST_P(RkllmEngineTest, AnErrorStateIsReportedAndReturned) {
  RkllmEngine e(config(R"({"n_tokens": 8, "fail_at": 3})"));
  ASSERT_TRUE(loaded_ok(e));
  const std::vector<std::int32_t> ids{5};
  TimedSink sink;
  auto result = e.run(request(ids, 8), sink);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, ErrorKind::kEngine);
  EXPECT_NE(result.error().message.find("RKLLM_RUN_ERROR"), std::string::npos);
  EXPECT_EQ(sink.errors, 1U);
  EXPECT_EQ(sink.kind, ErrorKind::kEngine);
  EXPECT_EQ(sink.tokens, 3U);
  EXPECT_EQ(sink.done, 0U);
}

TEST_P(RkllmEngineTest, InitFailureNamesTheModelFlag) {
  RkllmEngine e(config(R"({"init_rc": -1})"));
  auto loaded = e.load();
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().kind, ErrorKind::kEngine);
  EXPECT_NE(loaded.error().message.find("rkllm_init returned -1"), std::string::npos);
  EXPECT_NE(loaded.error().message.find("--rkllm-model"), std::string::npos);
}

TEST_P(RkllmEngineTest, DestroysTheHandleWithTheEngine) {
  {
    RkllmEngine e(config(R"({"n_tokens": 1})"));
    ASSERT_TRUE(loaded_ok(e));
  }
  EXPECT_EQ(stub_.record()["destroyed"], 1);
}

TEST_P(RkllmEngineTest, ConcurrentCallersAreServedOneAtATime) {
  RkllmEngine e(config(R"({"itl_ms": 2, "n_tokens": 5})"));
  ASSERT_TRUE(loaded_ok(e));
  const std::vector<std::int32_t> ids{5};
  TimedSink a;
  TimedSink b;
  bool ok_a = false;
  bool ok_b = false;
  std::thread ta([&] { ok_a = e.run(request(ids, 5), a).ok(); });
  std::thread tb([&] { ok_b = e.run(request(ids, 5), b).ok(); });
  ta.join();
  tb.join();
  EXPECT_TRUE(ok_a);
  EXPECT_TRUE(ok_b);
  EXPECT_EQ(a.tokens, 5U);
  EXPECT_EQ(b.tokens, 5U);
  // Serialized: one request's window ends before the other's begins.
  EXPECT_TRUE(a.t_done <= b.t_submit || b.t_done <= a.t_submit);
}

INSTANTIATE_TEST_SUITE_P(EveryAbi, RkllmEngineTest,
                         ::testing::Values(AbiCase{Abi::k1_2_1, RKLLM_STUB_V121},
                                           AbiCase{Abi::k1_2_2, RKLLM_STUB_V121},
                                           AbiCase{Abi::k1_2_3, RKLLM_STUB_V121},
                                           AbiCase{Abi::k1_3_0, RKLLM_STUB_V130}),
                         [](const ::testing::TestParamInfo<AbiCase>& p) {
                           std::string name(to_string(p.param.abi));
                           for (char& ch : name) {
                             if (ch == '.') ch = '_';
                           }
                           return "v" + name;
                         });

// ---- refusals: each names the flag and the fix ----

RkllmConfig plain_config(const char* lib) {
  RkllmConfig c;
  c.lib_path = lib;
  c.abi = Abi::k1_3_0;
  c.model_path = write_script("plain", R"({"n_tokens": 1})");
  return c;
}

TEST(RkllmLibrary, AMissingLibraryNamesThePathAndTheFlag) {
  RkllmEngine e(plain_config("/nonexistent/librkllmrt.so"));
  auto loaded = e.load();
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().kind, ErrorKind::kUsage);
  EXPECT_NE(loaded.error().message.find("/nonexistent/librkllmrt.so"), std::string::npos);
  EXPECT_NE(loaded.error().message.find("--rkllm-lib PATH"), std::string::npos);
}

TEST(RkllmLibrary, AMissingSymbolNamesTheSymbolThePathAndTheFlag) {
  auto lib = RkllmLibrary::open(RKLLM_STUB_NOABORT);
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.error().kind, ErrorKind::kUsage);
  EXPECT_NE(lib.error().message.find("rkllm_abort"), std::string::npos);
  EXPECT_NE(lib.error().message.find(RKLLM_STUB_NOABORT), std::string::npos);
  EXPECT_NE(lib.error().message.find("--rkllm-lib PATH"), std::string::npos);
}

TEST(RkllmLibrary, ALibraryOlderThan121IsRefused) {
  RkllmEngine e(plain_config(RKLLM_STUB_PRE121));
  auto loaded = e.load();
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().message.find("rkllm_get_kv_cache_size"), std::string::npos);
  EXPECT_NE(loaded.error().message.find("older than 1.2.1"), std::string::npos);
}

TEST(RkllmAbi, ParsesTheSupportedReleasesAndRefusesOthersWithTheReason) {
  for (const char* v : {"1.2.1", "1.2.2", "1.2.3", "1.3.0"}) {
    auto abi = parse_abi(v);
    ASSERT_TRUE(abi.ok()) << v;
    EXPECT_EQ(to_string(*abi), v);
  }
  ASSERT_TRUE(parse_abi("v1.3.0").ok());
  EXPECT_EQ(layout_of(*parse_abi("1.2.3")), Layout::kV121);
  EXPECT_EQ(layout_of(*parse_abi("1.3.0")), Layout::kV130);
  auto old = parse_abi("1.2.0");
  ASSERT_FALSE(old.ok());
  EXPECT_EQ(old.error().kind, ErrorKind::kUsage);
  EXPECT_NE(old.error().message.find("--rkllm-abi 1.2.0"), std::string::npos);
  EXPECT_NE(old.error().message.find("not supported"), std::string::npos);
  auto unknown = parse_abi("1.4.0");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("unknown"), std::string::npos);
  auto none = parse_abi("");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no version symbol"), std::string::npos);
}

TEST(RkllmEngine, BadCpuListAndMissingModelNameTheirFlags) {
  RkllmConfig c = plain_config(RKLLM_STUB_V130);
  c.cpus = "4-9";
  auto cpus = RkllmEngine(c).load();
  ASSERT_FALSE(cpus.ok());
  EXPECT_NE(cpus.error().message.find("--rkllm-cpus 4-9"), std::string::npos);
  c.cpus = "";
  c.model_path = "/nonexistent/model.rkllm";
  auto model = RkllmEngine(c).load();
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.error().message.find("--rkllm-model /nonexistent/model.rkllm"),
            std::string::npos);
}

TEST(RkllmEngine, Abi12xRefusesARequestLongerThanTheLoadLimit) {
  Stub stub(RKLLM_STUB_V121);
  ASSERT_TRUE(stub.ok());
  RkllmConfig c = plain_config(RKLLM_STUB_V121);
  c.abi = Abi::k1_2_3;
  c.max_new_tokens = 4;
  RkllmEngine e(c);
  ASSERT_TRUE(loaded_ok(e));
  const std::vector<std::int32_t> ids{5};
  Request r;
  r.prompt_ids = ids;
  r.max_new_tokens = 5;
  TimedSink sink;
  auto result = e.run(r, sink);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, ErrorKind::kUsage);
  EXPECT_EQ(sink.errors, 1U);
  EXPECT_TRUE(stub.record()["runs"].empty());
}

}  // namespace
}  // namespace tokscope::engines::rkllm
