// Pinning the harness (and in-process engines) to a set of cpus: `bench --cpus LIST` or
// `--core-type big|little`. The calling thread is pinned with sched_setaffinity(2); every thread
// it creates afterwards (runner workers, an in-process engine's pool, the sampler) inherits the
// mask, so pin before any of them starts. An engine server in another process is not affected:
// pin it with `taskset` when starting it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "platform/topology.hpp"

namespace tokscope::platform {

struct AffinityPlan {
  std::vector<int> cpus;  // sorted, non-empty
  std::string source;     // "--cpus 4-7", "--core-type big: Cortex-A76 (cpu_capacity 1024)"
};

// The cpus to pin to. cpus_flag: a sysfs-style list ("4-7", "0,2"); core_type: "big" (the most
// capable group of topology.core_types) or "little" (the least capable). Exactly one of them is
// non-empty. kUsage errors name the flag and the fix: a malformed list, a cpu that is not online
// under the sysfs root, an unknown core type, or a machine with a single core type. Pure.
Expected<AffinityPlan> plan_affinity(std::string_view cpus_flag, std::string_view core_type,
                                     const Topology& topology);

// Pins the calling thread to plan.cpus and reads the mask back. Returns the applied cpu list
// (the kernel keeps only the cpus that exist and are allowed here). kUsage error when the kernel
// refuses (no cpu of the list is usable here, or a cpuset forbids them), naming the flag.
Expected<std::vector<int>> pin_calling_thread(const AffinityPlan& plan);

// The cpus the calling thread may run on now (sched_getaffinity); empty when unreadable.
std::vector<int> current_affinity();

// {"requested": "4-7", "applied": "4-7", "source": ...} for the result's environment.
nlohmann::json affinity_json(const AffinityPlan& plan, const std::vector<int>& applied);

}  // namespace tokscope::platform
