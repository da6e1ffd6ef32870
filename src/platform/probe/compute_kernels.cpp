#include "platform/probe/compute_kernels.hpp"

#include <algorithm>
#include <array>
#include <barrier>
#include <chrono>
#include <cstring>
#include <numeric>

#include "platform/probe/pinned_threads.hpp"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#include <sys/auxv.h>
#endif

// Makes the compiler forget what a vector register holds, at no run-time cost (an empty asm that
// claims to modify it). Without it a product of two loop-invariant registers would be hoisted out
// of the timed loop and only the additions would be measured.
#if defined(__x86_64__)
#define TOKSCOPE_OPAQUE_YMM(v) __asm__ volatile("" : "+x"(v))
#elif defined(__aarch64__)
#define TOKSCOPE_OPAQUE_NEON(v) __asm__ volatile("" : "+w"(v))
// GCC accepts a function-level target for the dot-product intrinsics; clang 14's arm_neon.h only
// declares them when the whole file targets +dotprod, so under clang without that flag the SDOT
// path is not compiled in (and the int8 probe runs the NEON path).
#if defined(__ARM_FEATURE_DOTPROD)
#define TOKSCOPE_HAVE_DOTPROD 1
#define TOKSCOPE_DOTPROD_TARGET
#elif !defined(__clang__)
#define TOKSCOPE_HAVE_DOTPROD 1
#define TOKSCOPE_DOTPROD_TARGET __attribute__((target("arch=armv8.2-a+dotprod")))
#endif
#endif

namespace tokscope::platform::probe {
namespace {

// 2^27 iterations keep every int32 lane below 2^31 (each gains at most 8 per iteration).
constexpr std::uint64_t kMaxIterations = std::uint64_t{1} << 27;

// A value the compiler cannot see through: acc * 1 + 1 must not become acc + 1 (an add, not an
// FMA), nor the int8 inputs constants it could fold.
template <class T>
T opaque_value(T v) {
  volatile T hidden = v;
  return hidden;
}

// The lanes of an array of vector registers added up; Lane is float or std::int32_t. Vector
// types go in C arrays: std::array<__m256> would drop their alignment attributes.
template <class Lane>
double add_lanes(const void* vectors, std::size_t bytes) {
  double sum = 0;
  for (std::size_t off = 0; off < bytes; off += sizeof(Lane)) {
    Lane lane{};
    std::memcpy(&lane, static_cast<const char*>(vectors) + off, sizeof(Lane));
    sum += static_cast<double>(lane);
  }
  return sum;
}

// ---- portable: what the compiler makes of plain C++ for the baseline target ----

ChainRun fp32_portable(std::uint64_t iterations) {
  constexpr std::size_t kLanes = 32;  // 8 SSE registers of independent chains
  const float x = opaque_value(1.0F);
  const float y = opaque_value(1.0F);
  std::array<float, kLanes> acc{};
  for (std::uint64_t i = 0; i < iterations; ++i) {
    for (auto& a : acc) a = a * x + y;
  }
  const double sum = std::accumulate(acc.begin(), acc.end(), 0.0);
  return {2.0 * kLanes * static_cast<double>(iterations), sum};
}

ChainRun int8_portable(std::uint64_t iterations) {
  constexpr std::size_t kLanes = 32;
  std::array<std::int8_t, kLanes> a{};
  std::array<std::int8_t, kLanes> b{};
  a.fill(opaque_value(std::int8_t{1}));
  b.fill(opaque_value(std::int8_t{2}));
  std::array<std::int32_t, kLanes> acc{};
  for (std::uint64_t i = 0; i < iterations; ++i) {
    // a and b may have changed: reload them, so the products are not hoisted out of the loop.
    __asm__ volatile("" : : "r"(a.data()), "r"(b.data()) : "memory");
    for (std::size_t j = 0; j < kLanes; ++j) {
      acc[j] += static_cast<std::int32_t>(a[j]) * static_cast<std::int32_t>(b[j]);
    }
  }
  const double sum = std::accumulate(acc.begin(), acc.end(), 0.0);
  return {2.0 * kLanes * static_cast<double>(iterations), sum};
}

#if defined(__x86_64__)

// ---- x86-64: AVX2+FMA, AVX-512F, AVX-VNNI, AVX-512 VNNI ----

bool cpu_has_avx2_fma() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
bool cpu_has_avx512f() {
  __builtin_cpu_init();  // the runtime also checks the OS saves the zmm state (XCR0)
  return __builtin_cpu_supports("avx512f");
}
bool cpu_has_avx512vnni() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vnni");
}
// clang 14 has no "avxvnni" for __builtin_cpu_supports, so CPUID leaf 7 subleaf 1 EAX bit 4 is
// read directly; the ymm state it needs is the one AVX2 needs, checked by cpu_has_avx2_fma.
bool cpu_has_avxvnni() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) == 0) return false;
  return cpu_has_avx2_fma() && (eax & (1U << 4)) != 0;
}

__attribute__((target("avx2,fma"))) ChainRun fp32_avx2(std::uint64_t iterations) {
  // 12 chains cover an FMA latency of 4-6 cycles on 2 ports; 12 + x + y fit in 16 ymm registers.
  constexpr std::size_t kChains = 12;
  const __m256 x = _mm256_set1_ps(opaque_value(1.0F));
  const __m256 y = _mm256_set1_ps(opaque_value(1.0F));
  __m256 acc[kChains];
  for (auto& a : acc) a = _mm256_setzero_ps();
  for (std::uint64_t i = 0; i < iterations; ++i) {
    for (auto& a : acc) a = _mm256_fmadd_ps(a, x, y);
  }
  return {2.0 * 8 * kChains * static_cast<double>(iterations), add_lanes<float>(acc, sizeof(acc))};
}

__attribute__((target("avx512f"))) ChainRun fp32_avx512(std::uint64_t iterations) {
  constexpr std::size_t kChains = 16;  // of 32 zmm registers
  const __m512 x = _mm512_set1_ps(opaque_value(1.0F));
  const __m512 y = _mm512_set1_ps(opaque_value(1.0F));
  __m512 acc[kChains];
  for (auto& a : acc) a = _mm512_setzero_ps();
  for (std::uint64_t i = 0; i < iterations; ++i) {
    for (auto& a : acc) a = _mm512_fmadd_ps(a, x, y);
  }
  return {2.0 * 16 * kChains * static_cast<double>(iterations), add_lanes<float>(acc, sizeof(acc))};
}

__attribute__((target("avx2,fma"))) ChainRun int8_avx2(std::uint64_t iterations) {
  // u8 x s8 pairs summed to int16 (vpmaddubsw), then to int32 (vpmaddwd by 1), then added: 32
  // multiply-adds per chain step. 6 chains: 6 inputs + 6 accumulators + b + ones = 14 registers.
  // Named variables, not arrays: an asm operand on an array element keeps the array in memory.
  const __m256i ones = _mm256_set1_epi16(1);
  const __m256i b = _mm256_set1_epi8(opaque_value(std::int8_t{2}));
  const __m256i one = _mm256_set1_epi8(opaque_value(std::int8_t{1}));
  __m256i a0 = one, a1 = one, a2 = one, a3 = one, a4 = one, a5 = one;
  __m256i c0 = _mm256_setzero_si256(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0;
  const auto step = [&](__m256i & a, __m256i & acc) __attribute__((target("avx2,fma"))) {
    TOKSCOPE_OPAQUE_YMM(a);
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(a, b), ones));
  };
  for (std::uint64_t i = 0; i < iterations; ++i) {
    step(a0, c0);
    step(a1, c1);
    step(a2, c2);
    step(a3, c3);
    step(a4, c4);
    step(a5, c5);
  }
  const __m256i acc[] = {c0, c1, c2, c3, c4, c5};
  return {2.0 * 32 * 6 * static_cast<double>(iterations),
          add_lanes<std::int32_t>(acc, sizeof(acc))};
}

__attribute__((target("avx2,avxvnni"))) ChainRun int8_avxvnni(std::uint64_t iterations) {
  constexpr std::size_t kChains = 12;  // vpdpbusd latency 5 on 2 ports
  const __m256i a = _mm256_set1_epi8(opaque_value(std::int8_t{1}));
  const __m256i b = _mm256_set1_epi8(opaque_value(std::int8_t{2}));
  __m256i acc[kChains];
  for (auto& v : acc) v = _mm256_setzero_si256();
  for (std::uint64_t i = 0; i < iterations; ++i) {
    for (auto& v : acc) v = _mm256_dpbusd_avx_epi32(v, a, b);
  }
  return {2.0 * 32 * kChains * static_cast<double>(iterations),
          add_lanes<std::int32_t>(acc, sizeof(acc))};
}

__attribute__((target("avx512f,avx512vnni"))) ChainRun int8_avx512vnni(std::uint64_t iterations) {
  constexpr std::size_t kChains = 16;
  const __m512i a = _mm512_set1_epi8(opaque_value(std::int8_t{1}));
  const __m512i b = _mm512_set1_epi8(opaque_value(std::int8_t{2}));
  __m512i acc[kChains];
  for (auto& v : acc) v = _mm512_setzero_si512();
  for (std::uint64_t i = 0; i < iterations; ++i) {
    for (auto& v : acc) v = _mm512_dpbusd_epi32(v, a, b);
  }
  return {2.0 * 64 * kChains * static_cast<double>(iterations),
          add_lanes<std::int32_t>(acc, sizeof(acc))};
}

#elif defined(__aarch64__)

// ---- aarch64: NEON (always present) and the ARMv8.2 dot product ----

bool cpu_has_dotprod() {
  return (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0;
}

ChainRun fp32_neon(std::uint64_t iterations) {
  // 16 chains of 32 v registers cover FMLA latency 4 on up to 2 pipes. Named variables, not an
  // array: FMLA may trap as far as GCC knows, so it will not sink an array's stores out of the
  // loop, and the loop would store every accumulator on every iteration.
  const float32x4_t x = vdupq_n_f32(opaque_value(1.0F));
  const float32x4_t y = vdupq_n_f32(opaque_value(1.0F));
  float32x4_t c0 = vdupq_n_f32(0.0F), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0,
              c8 = c0, c9 = c0, c10 = c0, c11 = c0, c12 = c0, c13 = c0, c14 = c0, c15 = c0;
  const auto step = [&](float32x4_t& acc) { acc = vfmaq_f32(acc, x, y); };  // acc + x * y
  for (std::uint64_t i = 0; i < iterations; ++i) {
    step(c0), step(c1), step(c2), step(c3), step(c4), step(c5), step(c6), step(c7);
    step(c8), step(c9), step(c10), step(c11), step(c12), step(c13), step(c14), step(c15);
  }
  const float32x4_t acc[] = {c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15};
  return {2.0 * 4 * 16 * static_cast<double>(iterations), add_lanes<float>(acc, sizeof(acc))};
}

ChainRun int8_neon(std::uint64_t iterations) {
  // s8 x s8 → int16 (SMULL, SMULL2), pairwise added into int32 (SADALP): 16 multiply-adds per
  // chain step. 8 chains: 8 inputs + 8 accumulators + b = 17 of 32 registers. Named variables,
  // not arrays: an asm operand on an array element keeps the array in memory.
  const int8x16_t b = vdupq_n_s8(opaque_value(std::int8_t{2}));
  const int8x16_t one = vdupq_n_s8(opaque_value(std::int8_t{1}));
  int8x16_t a0 = one, a1 = one, a2 = one, a3 = one, a4 = one, a5 = one, a6 = one, a7 = one;
  int32x4_t c0 = vdupq_n_s32(0), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0;
  const auto step = [&](int8x16_t& a, int32x4_t& acc) {
    TOKSCOPE_OPAQUE_NEON(a);
    acc = vpadalq_s16(acc, vmull_s8(vget_low_s8(a), vget_low_s8(b)));
    acc = vpadalq_s16(acc, vmull_high_s8(a, b));
  };
  for (std::uint64_t i = 0; i < iterations; ++i) {
    step(a0, c0);
    step(a1, c1);
    step(a2, c2);
    step(a3, c3);
    step(a4, c4);
    step(a5, c5);
    step(a6, c6);
    step(a7, c7);
  }
  const int32x4_t acc[] = {c0, c1, c2, c3, c4, c5, c6, c7};
  return {2.0 * 16 * 8 * static_cast<double>(iterations),
          add_lanes<std::int32_t>(acc, sizeof(acc))};
}

#if defined(TOKSCOPE_HAVE_DOTPROD)
TOKSCOPE_DOTPROD_TARGET ChainRun int8_dotprod(std::uint64_t iterations) {
  constexpr std::size_t kChains = 16;  // SDOT: 16 multiply-adds into 4 int32 lanes per step
  const int8x16_t a = vdupq_n_s8(opaque_value(std::int8_t{1}));
  const int8x16_t b = vdupq_n_s8(opaque_value(std::int8_t{2}));
  int32x4_t acc[kChains];
  for (auto& v : acc) v = vdupq_n_s32(0);
  for (std::uint64_t i = 0; i < iterations; ++i) {
    for (auto& v : acc) v = vdotq_s32(v, a, b);
  }
  return {2.0 * 16 * kChains * static_cast<double>(iterations),
          add_lanes<std::int32_t>(acc, sizeof(acc))};
}
#endif

#endif

bool isa_available(ComputeKind kind, ComputeIsa isa) {
  const auto isas = available_isas(kind);
  return std::find(isas.begin(), isas.end(), isa) != isas.end();
}

}  // namespace

const char* to_string(ComputeKind kind) noexcept {
  switch (kind) {
    case ComputeKind::kFp32Fma:
      return "fp32_fma";
    case ComputeKind::kInt8Dot:
      return "int8_dot";
  }
  return "unknown";
}

const char* to_string(ComputeIsa isa) noexcept {
  switch (isa) {
    case ComputeIsa::kPortable:
      return "portable";
    case ComputeIsa::kAvx2:
      return "avx2";
    case ComputeIsa::kAvx512:
      return "avx512";
    case ComputeIsa::kAvxVnni:
      return "avx-vnni";
    case ComputeIsa::kAvx512Vnni:
      return "avx512-vnni";
    case ComputeIsa::kNeon:
      return "neon";
    case ComputeIsa::kNeonDotprod:
      return "neon-dotprod";
  }
  return "unknown";
}

std::vector<ComputeIsa> available_isas(ComputeKind kind) {
  std::vector<ComputeIsa> out;
#if defined(__x86_64__)
  out.push_back(ComputeIsa::kPortable);
  if (cpu_has_avx2_fma()) out.push_back(ComputeIsa::kAvx2);
  if (kind == ComputeKind::kFp32Fma && cpu_has_avx512f()) out.push_back(ComputeIsa::kAvx512);
  if (kind == ComputeKind::kInt8Dot && cpu_has_avxvnni()) out.push_back(ComputeIsa::kAvxVnni);
  if (kind == ComputeKind::kInt8Dot && cpu_has_avx512vnni()) {
    out.push_back(ComputeIsa::kAvx512Vnni);
  }
#elif defined(__aarch64__)
  out.push_back(ComputeIsa::kNeon);
#if defined(TOKSCOPE_HAVE_DOTPROD)
  if (kind == ComputeKind::kInt8Dot && cpu_has_dotprod()) out.push_back(ComputeIsa::kNeonDotprod);
#endif
#else
  (void)kind;
  out.push_back(ComputeIsa::kPortable);
#endif
  return out;
}

ComputeIsa best_isa(ComputeKind kind) {
  return available_isas(kind).back();
}

ChainRun run_chain(ComputeKind kind, ComputeIsa isa, std::uint64_t iterations) {
  iterations = std::clamp<std::uint64_t>(iterations, 1, kMaxIterations);
  const bool fp32 = kind == ComputeKind::kFp32Fma;
  switch (isa) {
    case ComputeIsa::kPortable:
      return fp32 ? fp32_portable(iterations) : int8_portable(iterations);
#if defined(__x86_64__)
    case ComputeIsa::kAvx2:
      if (!cpu_has_avx2_fma()) break;
      return fp32 ? fp32_avx2(iterations) : int8_avx2(iterations);
    case ComputeIsa::kAvx512:
      if (!fp32 || !cpu_has_avx512f()) break;
      return fp32_avx512(iterations);
    case ComputeIsa::kAvxVnni:
      if (fp32 || !cpu_has_avxvnni()) break;
      return int8_avxvnni(iterations);
    case ComputeIsa::kAvx512Vnni:
      if (fp32 || !cpu_has_avx512vnni()) break;
      return int8_avx512vnni(iterations);
#elif defined(__aarch64__)
    case ComputeIsa::kNeon:
      return fp32 ? fp32_neon(iterations) : int8_neon(iterations);
#if defined(TOKSCOPE_HAVE_DOTPROD)
    case ComputeIsa::kNeonDotprod:
      if (fp32 || !cpu_has_dotprod()) break;
      return int8_dotprod(iterations);
#endif
#endif
    default:
      break;
  }
  return {};
}

double expected_checksum(ComputeKind kind, const ChainRun& run, std::uint64_t iterations) {
  iterations = std::clamp<std::uint64_t>(iterations, 1, kMaxIterations);
  if (kind == ComputeKind::kInt8Dot) return run.ops;  // every multiply-add adds 1 * 2
  // fp32: acc = acc * 1 + 1 counts up to 2^24, where acc + 1 rounds back to acc.
  const double lanes = run.ops / (2.0 * static_cast<double>(iterations));
  return lanes * static_cast<double>(std::min<std::uint64_t>(iterations, 1U << 24));
}

Expected<ComputeRunResult> run_compute_kernel(const ComputeRunOptions& options) {
  const std::size_t threads = options.cpus.size();
  if (threads == 0) return make_error(ErrorKind::kUsage, "compute probe: no cpu to run on");
  if (options.repetitions < 1 || options.repetitions > 100) {
    return make_error(ErrorKind::kUsage, "compute probe: repetitions must be 1..100");
  }
  if (!(options.target_seconds > 0 && options.target_seconds <= 60)) {
    return make_error(ErrorKind::kUsage, "compute probe: target_seconds must be in (0, 60]");
  }
  if (!isa_available(options.kind, options.isa)) {
    return make_error(ErrorKind::kUsage, std::string("compute probe: ") + to_string(options.isa) +
                                             " is not available for " + to_string(options.kind) +
                                             " on this cpu or build");
  }

  // Shared state. iterations and calibrating are written by worker 0 only, between two barrier
  // phases, and read by the others after the next barrier, which orders the accesses.
  std::uint64_t iterations = 1024;
  bool calibrating = true;
  std::vector<double> seconds(static_cast<std::size_t>(options.repetitions));
  std::vector<std::size_t> bad_checksums(threads);  // slot w written by worker w only
  double ops_per_worker = 0;
  std::barrier sync(static_cast<std::ptrdiff_t>(threads));

  const auto timed_pass = [&](std::size_t w) {
    sync.arrive_and_wait();
    // Read once, before this pass's second barrier: worker 0 may change it right after that.
    const std::uint64_t n = iterations;
    const auto t0 = std::chrono::steady_clock::now();
    const ChainRun run = run_chain(options.kind, options.isa, n);
    sync.arrive_and_wait();  // the last worker done ends the pass
    const std::chrono::duration<double> d = std::chrono::steady_clock::now() - t0;
    if (run.checksum != expected_checksum(options.kind, run, n) || run.ops <= 0) {
      ++bad_checksums[w];
    }
    if (w == 0) ops_per_worker = run.ops;
    return d.count();
  };

  const auto work = [&](std::size_t w) {
    while (true) {  // grow the pass until it is long enough to time, then scale it to the target
      const double s = timed_pass(w);
      if (w == 0) {
        const bool long_enough = s >= options.target_seconds / 16 || iterations >= kMaxIterations;
        if (long_enough) {
          const double scaled =
              static_cast<double>(iterations) * options.target_seconds / std::max(s, 1e-9);
          iterations =
              std::clamp<std::uint64_t>(static_cast<std::uint64_t>(scaled), 1024, kMaxIterations);
          calibrating = false;
        } else {
          iterations = std::min(iterations * 16, kMaxIterations);
        }
      }
      sync.arrive_and_wait();  // publish worker 0's decision
      if (!calibrating) break;
    }
    for (std::size_t r = 0; r < seconds.size(); ++r) {
      const double s = timed_pass(w);
      if (w == 0) seconds[r] = s;
    }
  };
  auto pins = run_pinned(options.cpus, work);
  if (!pins.ok()) return pins.error();
  if (std::any_of(bad_checksums.begin(), bad_checksums.end(), [](std::size_t n) { return n; })) {
    return make_error(ErrorKind::kInternal, std::string("compute probe: ") +
                                                to_string(options.kind) + "/" +
                                                to_string(options.isa) +
                                                " returned a wrong checksum (the kernel is wrong)");
  }

  ComputeRunResult result;
  result.kind = options.kind;
  result.isa = options.isa;
  result.threads = threads;
  result.iterations = iterations;
  result.ops_per_pass = ops_per_worker * static_cast<double>(threads);
  result.pin_failures = failures_only(*pins);
  const auto rate = [&](double s) { return result.ops_per_pass / std::max(s, 1e-9) / 1e9; };
  const auto [fastest, slowest] = std::minmax_element(seconds.begin(), seconds.end());
  result.best_gops = rate(*fastest);
  result.max_gops = result.best_gops;
  result.min_gops = rate(*slowest);
  result.avg_gops = rate(std::accumulate(seconds.begin(), seconds.end(), 0.0) /
                         static_cast<double>(seconds.size()));
  result.per_core_best_gops = result.best_gops / static_cast<double>(threads);
  result.seconds = std::move(seconds);
  return result;
}

}  // namespace tokscope::platform::probe
