// A team of worker threads, one per cpu, each pinned to its cpu before it does anything else, so
// that the pages a worker first touches and the time it measures belong to that cpu. Used by the
// memory and compute kernels of the probe.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/expected.hpp"

namespace tokscope::platform::probe {

// Pins the calling thread to one cpu. Returns "" on success, else why not ("cpu 9: Invalid
// argument"): containers, cgroups and some VMs forbid or ignore affinity, so callers record the
// reason and carry on unpinned rather than fail.
std::string pin_current_thread(int cpu);

// Runs work(i) on cpus.size() new threads, thread i pinned to cpus[i], and returns when all have
// returned. No work starts until every thread exists and has tried to pin, so work may wait on a
// std::barrier sized cpus.size(). work must be safe to call concurrently for distinct i and must
// not throw. Returns the pinning failures ("" for each pinned thread, one per cpu), or kInternal
// when a thread cannot be created (then no work ran).
Expected<std::vector<std::string>> run_pinned(const std::vector<int>& cpus,
                                              const std::function<void(std::size_t)>& work);

// The non-empty entries of run_pinned's result.
std::vector<std::string> failures_only(const std::vector<std::string>& pin_results);

}  // namespace tokscope::platform::probe
