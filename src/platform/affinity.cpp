#include "platform/affinity.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace tokscope::platform {

namespace {

std::string describe(const CoreType& type) {
  std::string s = type.name;
  if (type.capacity) s += fmt::format(" (cpu_capacity {})", *type.capacity);
  return s;
}

}  // namespace

Expected<AffinityPlan> plan_affinity(std::string_view cpus_flag, std::string_view core_type,
                                     const Topology& topology) {
  if (!cpus_flag.empty() && !core_type.empty()) {
    return make_error(ErrorKind::kUsage,
                      "--cpus and --core-type both choose the cpus; give one of them");
  }
  if (cpus_flag.empty() && core_type.empty()) {
    return make_error(ErrorKind::kUsage, "no cpus to pin to: give --cpus LIST or --core-type");
  }
  AffinityPlan plan;
  if (!cpus_flag.empty()) {
    auto cpus = parse_cpu_list(cpus_flag);
    if (!cpus || cpus->empty()) {
      return make_error(ErrorKind::kUsage,
                        fmt::format("--cpus '{}': not a cpu list; write it as sysfs does, e.g. "
                                    "4-7 or 0,2",
                                    cpus_flag));
    }
    for (int c : *cpus) {
      if (!topology.online_cpus.empty() &&
          !std::binary_search(topology.online_cpus.begin(), topology.online_cpus.end(), c)) {
        return make_error(ErrorKind::kUsage,
                          fmt::format("--cpus {}: cpu {} is not online here (online: {})",
                                      cpus_flag, c, format_cpu_list(topology.online_cpus)));
      }
    }
    plan.cpus = std::move(*cpus);
    plan.source = fmt::format("--cpus {}", cpus_flag);
    return plan;
  }
  if (core_type != "big" && core_type != "little") {
    return make_error(ErrorKind::kUsage,
                      fmt::format("--core-type '{}': use big or little", core_type));
  }
  const auto& types = topology.core_types.types;
  if (types.size() < 2) {
    return make_error(
        ErrorKind::kUsage,
        fmt::format(
            "--core-type {}: this machine has one core type ({}); pin with --cpus LIST "
            "instead",
            core_type,
            topology.core_types.basis.empty() ? "no split found" : topology.core_types.basis));
  }
  const CoreType& chosen = core_type == "big" ? types.back() : types.front();
  plan.cpus = chosen.cpus;
  std::sort(plan.cpus.begin(), plan.cpus.end());
  plan.source = fmt::format("--core-type {}: {} by {}", core_type, describe(chosen),
                            topology.core_types.basis);
  return plan;
}

std::vector<int> current_affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

Expected<std::vector<int>> pin_calling_thread(const AffinityPlan& plan) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : plan.cpus) {
    if (c < 0 || c >= CPU_SETSIZE) {
      return make_error(ErrorKind::kUsage,
                        fmt::format("{}: cpu {} is beyond the {} cpus a mask can hold", plan.source,
                                    c, CPU_SETSIZE));
    }
    CPU_SET(c, &set);
  }
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    const int e = errno;
    return make_error(ErrorKind::kUsage,
                      fmt::format("{}: the kernel refused to pin to cpus {} ({}); check that "
                                  "they exist on this machine and that no cpuset (container, "
                                  "taskset) excludes them",
                                  plan.source, format_cpu_list(plan.cpus), std::strerror(e)));
  }
  return current_affinity();
}

nlohmann::json affinity_json(const AffinityPlan& plan, const std::vector<int>& applied) {
  return {{"requested", format_cpu_list(plan.cpus)},
          {"applied", format_cpu_list(applied)},
          {"source", plan.source}};
}

}  // namespace tokscope::platform
