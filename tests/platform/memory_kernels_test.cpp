#include "platform/probe/memory_kernels.hpp"

#include <gtest/gtest.h>
#include <sched.h>

#include <numeric>

namespace tokscope::platform::probe {
namespace {

// The first n cpus this process may run on (fewer if it has fewer), so pinning succeeds.
std::vector<int> allowed_cpus(std::size_t n) {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE && cpus.size() < n; ++c) {
      if (CPU_ISSET(static_cast<std::size_t>(c), &set)) cpus.push_back(c);
    }
  }
  if (cpus.empty()) cpus.push_back(0);
  return cpus;
}

std::vector<double> ramp(std::size_t n, double start) {
  std::vector<double> v(n);
  std::iota(v.begin(), v.end(), start);
  return v;
}

TEST(MemoryKernels, EachKernelComputesItsFormula) {
  const std::size_t n = 37;  // not a multiple of the sum kernel's 8 partial sums: the tail counts
  const std::vector<double> a = ramp(n, 1.0);
  const std::vector<double> b = ramp(n, 100.0);
  std::vector<double> out(n);
  copy_kernel(a, out);
  EXPECT_EQ(out, a);
  scale_kernel(a, out, 3.0);
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(out[i], 3.0 * a[i]);
  add_kernel(a, b, out);
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(out[i], a[i] + b[i]);
  triad_kernel(b, a, out, 0.5);
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(out[i], b[i] + 0.5 * a[i]);
  EXPECT_EQ(sum_kernel(a), static_cast<double>(n * (n + 1) / 2));  // integers: exact
  EXPECT_EQ(sum_kernel(std::span<const double>()), 0.0);
}

TEST(MemoryKernels, BytesCountedAsStream) {
  const std::size_t n = 1000;
  EXPECT_EQ(bytes_per_pass(MemoryKernel::kSum, n), 8U * n);
  EXPECT_EQ(bytes_per_pass(MemoryKernel::kCopy, n), 16U * n);
  EXPECT_EQ(bytes_per_pass(MemoryKernel::kScale, n), 16U * n);
  EXPECT_EQ(bytes_per_pass(MemoryKernel::kAdd, n), 24U * n);
  EXPECT_EQ(bytes_per_pass(MemoryKernel::kTriad, n), 24U * n);
  EXPECT_STREQ(to_string(MemoryKernel::kTriad), "triad");
  EXPECT_EQ(arrays_touched(MemoryKernel::kSum), 1);
}

TEST(MemoryKernels, TeamRunIsVerifiedAndSummarized) {
  MemoryRunOptions o;
  o.cpus = allowed_cpus(2);
  o.elements = 3 * 1000 + 5;  // uneven slices
  o.repetitions = 2;
  auto r = run_memory_kernels(o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->threads, o.cpus.size());
  EXPECT_EQ(r->elements, o.elements);
  EXPECT_EQ(r->repetitions, 2);
  EXPECT_TRUE(r->pin_failures.empty()) << r->pin_failures.front();
  // Three passes (warm-up + 2) of the sum kernel over a = 1, 1.25, 1.5625.
  EXPECT_DOUBLE_EQ(r->checksum, (1.0 + 1.25 + 1.5625) * static_cast<double>(o.elements));
  EXPECT_EQ(r->checksum, r->expected_checksum);
  ASSERT_EQ(r->kernels.size(), kMemoryKernels.size());
  for (std::size_t k = 0; k < kMemoryKernels.size(); ++k) {
    const KernelTiming& t = r->kernels[k];
    EXPECT_EQ(t.kernel, kMemoryKernels[k]);
    EXPECT_EQ(t.bytes_per_pass, bytes_per_pass(t.kernel, o.elements));
    ASSERT_EQ(t.seconds.size(), 2U);
    EXPECT_GT(t.min_gbps, 0.0);
    EXPECT_LE(t.min_gbps, t.avg_gbps);
    EXPECT_LE(t.avg_gbps, t.best_gbps);
    EXPECT_EQ(t.best_gbps, t.max_gbps);
  }
}

TEST(MemoryKernels, PinningFailureIsReportedNotFatal) {
  MemoryRunOptions o;
  o.cpus = {allowed_cpus(1).front(), 1023};  // no machine here has cpu 1023 online
  o.elements = 1024;
  o.repetitions = 1;
  auto r = run_memory_kernels(o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->pin_failures.size(), 1U);
  EXPECT_EQ(r->pin_failures[0].rfind("cpu 1023: ", 0), 0U) << r->pin_failures[0];
}

TEST(MemoryKernels, BadOptionsAreUsageErrors) {
  MemoryRunOptions o;
  o.elements = 1024;
  EXPECT_EQ(run_memory_kernels(o).error().kind, ErrorKind::kUsage);  // no cpus
  o.cpus = {0};
  o.repetitions = 0;
  EXPECT_EQ(run_memory_kernels(o).error().kind, ErrorKind::kUsage);
  o.repetitions = 1;
  o.elements = 7;  // fewer than one cache line per worker
  EXPECT_EQ(run_memory_kernels(o).error().kind, ErrorKind::kUsage);
}

}  // namespace
}  // namespace tokscope::platform::probe
