// Memory bandwidth kernels of the probe, in the manner of STREAM (McCalpin): three arrays of
// doubles a, b, c far larger than the last-level cache, one pinned thread per cpu owning one
// contiguous slice of each array (first-touched by that thread so its pages are local to it), and
// five kernels timed as a team:
//   sum    s += a[i]          read-only streaming, what decode does to the weights (four
//                             sequential streams per thread: see sum_kernel)
//   copy   c[i] = a[i]
//   scale  b[i] = q * c[i]
//   add    c[i] = a[i] + b[i]
//   triad  a[i] = b[i] + q * c[i]
// Bytes are counted as STREAM counts them: 8 bytes per element of each array named in the kernel
// (sum 1, copy/scale 2, add/triad 3), without the write-allocate reads a cache may add. GB/s is
// 1e9 bytes per second. A pass is timed from the moment every thread may start to the moment the
// last one is done, as STREAM's OpenMP region is.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/expected.hpp"

namespace tokscope::platform::probe {

enum class MemoryKernel { kSum, kCopy, kScale, kAdd, kTriad };
inline constexpr std::array<MemoryKernel, 5> kMemoryKernels = {
    MemoryKernel::kSum, MemoryKernel::kCopy, MemoryKernel::kScale, MemoryKernel::kAdd,
    MemoryKernel::kTriad};

const char* to_string(MemoryKernel kernel) noexcept;  // "sum", "copy", "scale", "add", "triad"

// Arrays a kernel reads or writes (sum 1, copy/scale 2, add/triad 3).
int arrays_touched(MemoryKernel kernel) noexcept;

// Bytes one pass moves over arrays of `elements` doubles, counted as STREAM counts them.
std::uint64_t bytes_per_pass(MemoryKernel kernel, std::size_t elements) noexcept;

// The kernels over one slice; all spans of a call have the same length and do not overlap.
// Plain loops the compiler vectorizes for the build target, except copy, which is memcpy as gcc
// makes it of STREAM's loop. Exposed for the correctness tests.
double sum_kernel(std::span<const double> a);  // 4 streams x 4 partial sums
void copy_kernel(std::span<const double> a, std::span<double> c);
void scale_kernel(std::span<const double> c, std::span<double> b, double q);
void add_kernel(std::span<const double> a, std::span<const double> b, std::span<double> c);
void triad_kernel(std::span<const double> b, std::span<const double> c, std::span<double> a,
                  double q);

struct MemoryRunOptions {
  std::vector<int> cpus;     // one pinned worker per cpu; must not be empty
  std::size_t elements = 0;  // doubles per array (8 bytes each), at least 8 per worker
  int repetitions = 10;      // timed passes, 1..1000, after one untimed warm-up pass
};

struct KernelTiming {
  MemoryKernel kernel = MemoryKernel::kSum;
  std::uint64_t bytes_per_pass = 0;
  std::vector<double> seconds;  // one per timed pass
  double best_gbps = 0;         // bytes / fastest pass (the STREAM "Best Rate")
  double avg_gbps = 0;          // bytes / mean pass time
  double min_gbps = 0;          // bytes / slowest pass
  double max_gbps = 0;          // = best_gbps; kept so the spread reads min..max
};

struct MemoryRunResult {
  std::size_t elements = 0;
  std::size_t threads = 0;
  int repetitions = 0;
  std::vector<KernelTiming> kernels;      // in kMemoryKernels order
  std::vector<std::string> pin_failures;  // one line per cpu that could not be pinned
  // The sum kernel's results added over all passes and threads: returned so the compiler cannot
  // drop the reads, and checked against the value the kernels must produce.
  double checksum = 0;
  double expected_checksum = 0;
};

// Allocates the three arrays, runs every kernel `repetitions` times (plus the warm-up pass) on
// one pinned thread per cpu, then checks every element and the sums against a scalar replay of
// the same passes. Errors: kUsage for bad options, kUnavailable when the arrays cannot be
// allocated, kInternal when a thread cannot start or a result is wrong. Blocks the caller; not
// to be run twice at once (the runs would share the memory bus and both be wrong).
Expected<MemoryRunResult> run_memory_kernels(const MemoryRunOptions& options);

}  // namespace tokscope::platform::probe
