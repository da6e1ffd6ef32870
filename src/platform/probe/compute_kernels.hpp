// Compute-throughput kernels of the probe: the peak P of the prefill ceiling min(P/F, B/(W/L)).
//   fp32 FMA   many independent chains acc = acc * x + y in vector registers, enough chains to
//              cover the FMA latency times the FMA ports, so the result is throughput-bound.
//              2 flops per lane per FMA.
//   int8 dot   independent int8 multiply-accumulate chains into int32 (x86 VNNI vpdpbusd or
//              AVX2 vpmaddubsw+vpmaddwd, aarch64 SDOT or SMULL+SADALP). 2 ops per int8 multiply-
//              add, the convention of vendor TOPS figures.
// The inputs stay in registers: this is the arithmetic peak, not a memory measurement.
//
// Instruction-set paths are compiled in per target architecture (guarded by __x86_64__ /
// __aarch64__, function-level target attributes, so the build needs no -march flag) and chosen
// at run time from what the cpu reports (x86 __builtin_cpu_supports/cpuid, aarch64
// getauxval(AT_HWCAP)). The best available path is what the probe reports; every available path
// can be run by the tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/expected.hpp"

namespace tokscope::platform::probe {

enum class ComputeKind { kFp32Fma, kInt8Dot };
const char* to_string(ComputeKind kind) noexcept;  // "fp32_fma", "int8_dot"

enum class ComputeIsa {
  kPortable,     // plain C++ the compiler vectorizes for the baseline target (x86-64: SSE2)
  kAvx2,         // x86 AVX2+FMA: vfmadd231ps ymm; int8 vpmaddubsw + vpmaddwd + vpaddd
  kAvx512,       // x86 AVX-512F: vfmadd231ps zmm (fp32 only)
  kAvxVnni,      // x86 AVX-VNNI: vpdpbusd ymm (int8 only; Alder Lake and later)
  kAvx512Vnni,   // x86 AVX-512 VNNI: vpdpbusd zmm (int8 only)
  kNeon,         // aarch64 NEON: fmla v.4s; int8 smull + sadalp
  kNeonDotprod,  // aarch64 SDOT v.4s (int8 only; ARMv8.2 dot product, e.g. Cortex-A55/A76)
};
const char* to_string(ComputeIsa isa) noexcept;  // "portable", "avx2", ..., "neon-dotprod"

// Paths for a kind that are compiled in and that this cpu supports, fastest last. Never empty.
std::vector<ComputeIsa> available_isas(ComputeKind kind);

// The last (fastest) entry of available_isas(kind).
ComputeIsa best_isa(ComputeKind kind);

// What one call of a kernel did.
struct ChainRun {
  double ops = 0;  // flops (fp32) or int8 ops (2 per multiply-add)
  // The accumulators added up: returned so no work is elided, and checkable: for int8 it equals
  // ops (every product is 1 * 2), for fp32 it is lanes * min(iterations, 2^24) (acc = acc*1 + 1
  // stops growing at 2^24 in fp32).
  double checksum = 0;
};

// Runs `iterations` (1..2^27, so int32 lanes cannot overflow) of a kernel on the calling thread.
// isa must be one of available_isas(kind); otherwise nothing runs and ops is 0.
ChainRun run_chain(ComputeKind kind, ComputeIsa isa, std::uint64_t iterations);

// The checksum run_chain must return for that kind and run (see ChainRun).
double expected_checksum(ComputeKind kind, const ChainRun& run, std::uint64_t iterations);

struct ComputeRunOptions {
  std::vector<int> cpus;  // one pinned worker per cpu; must not be empty
  ComputeKind kind = ComputeKind::kFp32Fma;
  ComputeIsa isa = ComputeIsa::kPortable;  // one of available_isas(kind)
  double target_seconds = 0.2;             // length of one timed pass, set by a calibration pass
  int repetitions = 3;                     // timed passes, 1..100
};

struct ComputeRunResult {
  ComputeKind kind = ComputeKind::kFp32Fma;
  ComputeIsa isa = ComputeIsa::kPortable;
  std::size_t threads = 0;
  std::uint64_t iterations = 0;  // per worker per pass
  double ops_per_pass = 0;       // all workers
  std::vector<double> seconds;   // one per timed pass
  double best_gops = 0;          // 1e9 ops (or flops) per second, fastest pass, all workers
  double avg_gops = 0;
  double min_gops = 0;
  double max_gops = 0;
  double per_core_best_gops = 0;  // best_gops / threads
  std::vector<std::string> pin_failures;
};

// Calibrates the iteration count on all workers, then runs `repetitions` timed passes, every
// worker pinned and started together. Errors: kUsage for bad options or an isa this cpu lacks,
// kInternal when a thread cannot start or a checksum is wrong. Blocks the caller.
Expected<ComputeRunResult> run_compute_kernel(const ComputeRunOptions& options);

}  // namespace tokscope::platform::probe
