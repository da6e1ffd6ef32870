#include "platform/probe/memory_kernels.hpp"

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>

#include "platform/probe/pinned_threads.hpp"

namespace tokscope::platform::probe {
namespace {

// The multiplier of scale and triad. STREAM uses 3; 0.5 keeps every value an exact binary
// fraction (a grows by 1.25 per pass), so the check below can demand exact equality even where
// the compiler contracts triad into an FMA.
constexpr double kQ = 0.5;
constexpr std::size_t kLine = 64;  // bytes; slices start on cache lines
constexpr std::size_t kLineDoubles = kLine / sizeof(double);

struct FreeDeleter {
  void operator()(double* p) const noexcept { std::free(p); }
};
using Array = std::unique_ptr<double[], FreeDeleter>;

// Uninitialized, so no page is touched before its owning worker writes it (first touch).
Array allocate(std::size_t elements) {
  const std::size_t bytes = (elements * sizeof(double) + kLine - 1) / kLine * kLine;
  return Array(static_cast<double*>(std::aligned_alloc(kLine, bytes)));
}

// Per-worker results on their own cache lines, so workers never share a line while timed.
struct alignas(kLine) WorkerTotals {
  double sum = 0;
  std::size_t mismatches = 0;
};

// The values every element holds after `passes` passes, and the sum kernel's total, replayed on
// scalars with the same operations in the same order.
struct Replay {
  double a = 1, b = 2, c = 0;
  double sum_of_a = 0;  // per element, over all passes
};
Replay replay(int passes) {
  Replay r;
  for (int p = 0; p < passes; ++p) {
    r.sum_of_a += r.a;
    r.c = r.a;
    r.b = kQ * r.c;
    r.c = r.a + r.b;
    r.a = r.b + kQ * r.c;
  }
  return r;
}

KernelTiming summarize(MemoryKernel kernel, std::uint64_t bytes, std::vector<double> seconds) {
  KernelTiming t;
  t.kernel = kernel;
  t.bytes_per_pass = bytes;
  // A pass shorter than the clock can resolve still counts, at one nanosecond.
  const auto rate = [bytes](double s) {
    return static_cast<double>(bytes) / std::max(s, 1e-9) / 1e9;
  };
  const auto [fastest, slowest] = std::minmax_element(seconds.begin(), seconds.end());
  const double mean =
      std::accumulate(seconds.begin(), seconds.end(), 0.0) / static_cast<double>(seconds.size());
  t.best_gbps = rate(*fastest);
  t.max_gbps = t.best_gbps;
  t.min_gbps = rate(*slowest);
  t.avg_gbps = rate(mean);
  t.seconds = std::move(seconds);
  return t;
}

}  // namespace

const char* to_string(MemoryKernel kernel) noexcept {
  switch (kernel) {
    case MemoryKernel::kSum:
      return "sum";
    case MemoryKernel::kCopy:
      return "copy";
    case MemoryKernel::kScale:
      return "scale";
    case MemoryKernel::kAdd:
      return "add";
    case MemoryKernel::kTriad:
      return "triad";
  }
  return "unknown";
}

int arrays_touched(MemoryKernel kernel) noexcept {
  switch (kernel) {
    case MemoryKernel::kSum:
      return 1;
    case MemoryKernel::kCopy:
    case MemoryKernel::kScale:
      return 2;
    case MemoryKernel::kAdd:
    case MemoryKernel::kTriad:
      return 3;
  }
  return 0;
}

std::uint64_t bytes_per_pass(MemoryKernel kernel, std::size_t elements) noexcept {
  return static_cast<std::uint64_t>(arrays_touched(kernel)) * sizeof(double) * elements;
}

double sum_kernel(std::span<const double> a) {
  // Four sequential streams over the quarters of the slice, each with four partial sums. One
  // stream per core is limited by the misses its prefetcher keeps in flight: on the x86 VM this
  // was written on one stream read ~25% slower than four, and the roofline needs the peak (a
  // ceiling read low would flag honest decode figures as impossible). The partial sums keep the
  // adds throughput-bound rather than waiting on each other's latency.
  constexpr std::size_t kStreams = 4;
  constexpr std::size_t kLanes = 4;
  std::array<double, kStreams * kLanes> acc{};
  const double* p = a.data();
  const std::size_t n = a.size();
  const std::size_t per_stream = n / (kStreams * kLanes) * kLanes;
  for (std::size_t i = 0; i < per_stream; i += kLanes) {
    for (std::size_t s = 0; s < kStreams; ++s) {
      for (std::size_t k = 0; k < kLanes; ++k) acc[s * kLanes + k] += p[s * per_stream + i + k];
    }
  }
  double tail = 0;
  for (std::size_t i = kStreams * per_stream; i < n; ++i) tail += p[i];
  double total = 0;
  for (const double v : acc) total += v;
  return total + tail;
}

void copy_kernel(std::span<const double> a, std::span<double> c) {
  // memcpy, because that is what gcc -O3 makes of STREAM's copy loop (loop distribution turns it
  // into a call). For large copies glibc's memcpy uses non-temporal stores on x86, which skip the
  // write-allocate read of c, so a plain loop would report ~2/3 of STREAM's copy rate.
  if (!a.empty()) std::memcpy(c.data(), a.data(), a.size() * sizeof(double));
}

void scale_kernel(std::span<const double> c, std::span<double> b, double q) {
  const double* src = c.data();
  double* dst = b.data();
  for (std::size_t i = 0; i < c.size(); ++i) dst[i] = q * src[i];
}

void add_kernel(std::span<const double> a, std::span<const double> b, std::span<double> c) {
  const double* x = a.data();
  const double* y = b.data();
  double* dst = c.data();
  for (std::size_t i = 0; i < a.size(); ++i) dst[i] = x[i] + y[i];
}

void triad_kernel(std::span<const double> b, std::span<const double> c, std::span<double> a,
                  double q) {
  const double* x = b.data();
  const double* y = c.data();
  double* dst = a.data();
  for (std::size_t i = 0; i < b.size(); ++i) dst[i] = x[i] + q * y[i];
}

Expected<MemoryRunResult> run_memory_kernels(const MemoryRunOptions& options) {
  const std::size_t threads = options.cpus.size();
  const std::size_t n = options.elements;
  if (threads == 0) return make_error(ErrorKind::kUsage, "memory probe: no cpu to run on");
  if (options.repetitions < 1 || options.repetitions > 1000) {
    return make_error(ErrorKind::kUsage, "memory probe: repetitions must be 1..1000, got " +
                                             std::to_string(options.repetitions));
  }
  if (n < threads * kLineDoubles) {
    return make_error(ErrorKind::kUsage, "memory probe: " + std::to_string(n) +
                                             " elements per array is too few for " +
                                             std::to_string(threads) + " threads");
  }
  Array a = allocate(n);
  Array b = allocate(n);
  Array c = allocate(n);
  if (!a || !b || !c) {
    return make_error(ErrorKind::kUnavailable, "memory probe: cannot allocate 3 arrays of " +
                                                   std::to_string(n * sizeof(double) >> 20) +
                                                   " MiB; pass a smaller array size");
  }

  // Slice i is [bounds[i], bounds[i+1]), each starting on a cache line.
  std::vector<std::size_t> bounds(threads + 1, n);
  const std::size_t lines = n / kLineDoubles;
  for (std::size_t i = 0; i < threads; ++i) bounds[i] = lines * i / threads * kLineDoubles;

  const int passes = options.repetitions + 1;  // pass 0 is the untimed warm-up
  const Replay expect = replay(passes);
  std::vector<std::vector<double>> seconds(
      kMemoryKernels.size(), std::vector<double>(static_cast<std::size_t>(options.repetitions)));
  std::vector<WorkerTotals> totals(threads);
  std::barrier sync(static_cast<std::ptrdiff_t>(threads));

  const auto work = [&](std::size_t w) {
    const std::size_t begin = bounds[w];
    const std::size_t len = bounds[w + 1] - begin;
    const std::span<double> sa(a.get() + begin, len);
    const std::span<double> sb(b.get() + begin, len);
    const std::span<double> sc(c.get() + begin, len);
    std::fill(sa.begin(), sa.end(), 1.0);  // first touch by the owner
    std::fill(sb.begin(), sb.end(), 2.0);
    std::fill(sc.begin(), sc.end(), 0.0);
    double sum = 0;
    for (int pass = 0; pass < passes; ++pass) {
      for (std::size_t k = 0; k < kMemoryKernels.size(); ++k) {
        sync.arrive_and_wait();
        const auto t0 = std::chrono::steady_clock::now();
        switch (kMemoryKernels[k]) {
          case MemoryKernel::kSum:
            sum += sum_kernel(sa);
            break;
          case MemoryKernel::kCopy:
            copy_kernel(sa, sc);
            break;
          case MemoryKernel::kScale:
            scale_kernel(sc, sb, kQ);
            break;
          case MemoryKernel::kAdd:
            add_kernel(sa, sb, sc);
            break;
          case MemoryKernel::kTriad:
            triad_kernel(sb, sc, sa, kQ);
            break;
        }
        sync.arrive_and_wait();  // the last worker done ends the pass
        if (w == 0 && pass > 0) {
          const std::chrono::duration<double> d = std::chrono::steady_clock::now() - t0;
          seconds[k][static_cast<std::size_t>(pass - 1)] = d.count();
        }
      }
    }
    std::size_t bad = 0;
    for (std::size_t i = 0; i < len; ++i) {
      bad += static_cast<std::size_t>(sa[i] != expect.a || sb[i] != expect.b || sc[i] != expect.c);
    }
    totals[w] = WorkerTotals{sum, bad};
  };
  auto pins = run_pinned(options.cpus, work);
  if (!pins.ok()) return pins.error();

  MemoryRunResult result;
  result.elements = n;
  result.threads = threads;
  result.repetitions = options.repetitions;
  result.pin_failures = failures_only(*pins);
  std::size_t mismatches = 0;
  for (const auto& t : totals) {
    result.checksum += t.sum;
    mismatches += t.mismatches;
  }
  result.expected_checksum = expect.sum_of_a * static_cast<double>(n);
  if (mismatches != 0) {
    return make_error(ErrorKind::kInternal,
                      "memory probe: " + std::to_string(mismatches) +
                          " array elements differ from the scalar replay (a kernel is wrong)");
  }
  // Partial sums are added in a different order than the replay's product: allow rounding.
  if (std::abs(result.checksum - result.expected_checksum) >
      1e-12 * std::abs(result.expected_checksum)) {
    return make_error(ErrorKind::kInternal, "memory probe: sum kernel total " +
                                                std::to_string(result.checksum) + " != expected " +
                                                std::to_string(result.expected_checksum));
  }
  for (std::size_t k = 0; k < kMemoryKernels.size(); ++k) {
    result.kernels.push_back(
        summarize(kMemoryKernels[k], bytes_per_pass(kMemoryKernels[k], n), std::move(seconds[k])));
  }
  return result;
}

}  // namespace tokscope::platform::probe
