#include "platform/perf/counter_json.hpp"

#include <fmt/format.h>

namespace tokscope::platform::perf {
namespace {

nlohmann::json optional_number(const std::optional<double>& x) {
  return x ? nlohmann::json(*x) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json to_json(const CounterSet& set) {
  nlohmann::json events = nlohmann::json::array();
  for (const auto& info : set.events()) {
    nlohmann::json parts = nlohmann::json::array();
    for (const auto& part : info.parts) {
      nlohmann::json p{{"pmu", part.pmu},
                       {"type", part.encoding.type},
                       {"config", fmt::format("{:#x}", part.encoding.words.config)},
                       {"per_cluster", part.encoding.per_cluster},
                       {"kernel_counted", part.kernel_counted},
                       {"fds", part.fds}};
      if (part.encoding.words.config1 != 0) {
        p["config1"] = fmt::format("{:#x}", part.encoding.words.config1);
      }
      if (part.encoding.words.config2 != 0) {
        p["config2"] = fmt::format("{:#x}", part.encoding.words.config2);
      }
      if (!part.unavailable.empty()) p["unavailable"] = part.unavailable;
      parts.push_back(std::move(p));
    }
    nlohmann::json e{{"name", info.name},
                     {"source", info.source},
                     {"software", info.software},
                     {"parts", std::move(parts)}};
    if (!info.note.empty()) e["note"] = info.note;
    if (!info.unavailable.empty()) e["unavailable"] = info.unavailable;
    events.push_back(std::move(e));
  }
  return nlohmann::json{
      {"target", set.pid() ? "pid " + std::to_string(*set.pid())
                           : std::string("own process: the opening thread and threads it creates")},
      {"perf_event_paranoid", set.perf_event_paranoid() ? nlohmann::json(*set.perf_event_paranoid())
                                                        : nlohmann::json(nullptr)},
      {"threads_attached", set.threads_attached()},
      {"open_fds", set.open_fds()},
      {"notes", set.notes()},
      {"events", std::move(events)}};
}

nlohmann::json to_json(const CounterWindow& window) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& value : window.events) {
    if (!value.unavailable.empty()) {
      out[value.name] = {{"value", nullptr}, {"unavailable", value.unavailable}};
      continue;
    }
    nlohmann::json v{{"value", optional_number(value.value)},
                     {"count", value.count},
                     {"scaled", value.scaled},
                     {"time_enabled_ns", value.time_enabled_ns},
                     {"time_running_ns", value.time_running_ns}};
    if (value.parts.size() > 1 || (value.parts.size() == 1 && !value.parts.front().pmu.empty())) {
      nlohmann::json parts = nlohmann::json::array();
      for (const auto& part : value.parts) {
        parts.push_back({{"pmu", part.pmu},
                         {"count", part.count},
                         {"time_enabled_ns", part.time_enabled_ns},
                         {"time_running_ns", part.time_running_ns}});
      }
      v["parts"] = std::move(parts);
    }
    out[value.name] = std::move(v);
  }
  return out;
}

nlohmann::json to_json(const core::CounterDerived& derived) {
  return nlohmann::json{
      {"ipc", optional_number(derived.ipc)},
      {"instructions_per_token", optional_number(derived.instructions_per_token)},
      {"cycles_per_token", optional_number(derived.cycles_per_token)},
      {"dram_bytes_estimate", optional_number(derived.dram_bytes)},
      {"dram_bytes_per_token_estimate", optional_number(derived.dram_bytes_per_token)},
      {"dram_line_bytes", derived.line_bytes},
      {"dram_gbps_estimate", optional_number(derived.dram_gbps)},
      {"bandwidth_utilization", optional_number(derived.bandwidth_utilization)}};
}

}  // namespace tokscope::platform::perf
