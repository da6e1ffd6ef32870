#include "platform/probe/compute_kernels.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace tokscope::platform::probe {
namespace {

constexpr ComputeKind kKinds[] = {ComputeKind::kFp32Fma, ComputeKind::kInt8Dot};

TEST(ComputeKernels, BestIsaIsTheLastAvailable) {
  for (const ComputeKind kind : kKinds) {
    const auto isas = available_isas(kind);
    ASSERT_FALSE(isas.empty());
    EXPECT_EQ(best_isa(kind), isas.back());
#if defined(__x86_64__)
    EXPECT_EQ(isas.front(), ComputeIsa::kPortable);
#elif defined(__aarch64__)
    EXPECT_EQ(isas.front(), ComputeIsa::kNeon);
#endif
  }
  // fp32-only and int8-only paths never show up for the other kind.
  const auto fp32 = available_isas(ComputeKind::kFp32Fma);
  EXPECT_EQ(std::count(fp32.begin(), fp32.end(), ComputeIsa::kAvx512Vnni), 0);
  const auto int8 = available_isas(ComputeKind::kInt8Dot);
  EXPECT_EQ(std::count(int8.begin(), int8.end(), ComputeIsa::kAvx512), 0);
}

// Every path this machine can run returns the checksum its operation count implies: the kernels
// do the work they claim (no hoisted or dropped multiply-adds) and count it right.
TEST(ComputeKernels, EveryAvailablePathIsCorrect) {
  const std::uint64_t iterations = 1000;
  for (const ComputeKind kind : kKinds) {
    for (const ComputeIsa isa : available_isas(kind)) {
      const ChainRun run = run_chain(kind, isa, iterations);
      SCOPED_TRACE(std::string(to_string(kind)) + "/" + to_string(isa));
      EXPECT_GT(run.ops, 0.0);
      EXPECT_EQ(run.checksum, expected_checksum(kind, run, iterations));
      EXPECT_EQ(run_chain(kind, isa, 2 * iterations).ops, 2 * run.ops);  // ops scale linearly
    }
  }
}

TEST(ComputeKernels, OpsAccounting) {
  // Portable fp32 runs 32 lanes of multiply+add: 2 flops per lane per iteration. int8: 32 lanes
  // of one multiply-add = 2 ops each.
#if defined(__x86_64__)
  EXPECT_EQ(run_chain(ComputeKind::kFp32Fma, ComputeIsa::kPortable, 10).ops, 2.0 * 32 * 10);
  EXPECT_EQ(run_chain(ComputeKind::kInt8Dot, ComputeIsa::kPortable, 10).ops, 2.0 * 32 * 10);
#endif
  // fp32 checksums saturate at 2^24 per lane (acc + 1 rounds back to acc there).
  const std::uint64_t big = std::uint64_t{1} << 25;
  const ChainRun saturated{2.0 * 8 * static_cast<double>(big), 0};
  EXPECT_EQ(expected_checksum(ComputeKind::kFp32Fma, saturated, big), 8.0 * (1 << 24));
  EXPECT_EQ(expected_checksum(ComputeKind::kInt8Dot, ChainRun{640, 0}, 10), 640);
}

TEST(ComputeKernels, UnavailablePathRunsNothing) {
#if defined(__x86_64__)
  const ComputeIsa foreign = ComputeIsa::kNeonDotprod;
#else
  const ComputeIsa foreign = ComputeIsa::kAvx512Vnni;
#endif
  EXPECT_EQ(run_chain(ComputeKind::kInt8Dot, foreign, 100).ops, 0.0);
  EXPECT_EQ(run_chain(ComputeKind::kFp32Fma, ComputeIsa::kAvxVnni, 100).ops, 0.0);  // int8 only
}

TEST(ComputeKernels, TeamRunReportsSpread) {
  for (const ComputeKind kind : kKinds) {
    ComputeRunOptions o;
    o.cpus = {0};
    o.kind = kind;
    o.isa = best_isa(kind);
    o.target_seconds = 0.002;
    o.repetitions = 2;
    auto r = run_compute_kernel(o);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->isa, o.isa);
    EXPECT_EQ(r->threads, 1U);
    EXPECT_GE(r->iterations, 1024U);
    EXPECT_EQ(r->seconds.size(), 2U);
    EXPECT_GT(r->ops_per_pass, 0.0);
    EXPECT_GT(r->min_gops, 0.0);
    EXPECT_LE(r->min_gops, r->avg_gops);
    EXPECT_LE(r->avg_gops, r->best_gops);
    EXPECT_EQ(r->per_core_best_gops, r->best_gops);
  }
}

TEST(ComputeKernels, BadOptionsAreUsageErrors) {
  ComputeRunOptions o;
  EXPECT_EQ(run_compute_kernel(o).error().kind, ErrorKind::kUsage);  // no cpus
  o.cpus = {0};
  o.kind = ComputeKind::kFp32Fma;
  o.isa = ComputeIsa::kAvxVnni;  // int8 only
  EXPECT_EQ(run_compute_kernel(o).error().kind, ErrorKind::kUsage);
  o.isa = best_isa(o.kind);
  o.target_seconds = 0;
  EXPECT_EQ(run_compute_kernel(o).error().kind, ErrorKind::kUsage);
}

}  // namespace
}  // namespace tokscope::platform::probe
