#include "cli/bench_counters.hpp"

#include <fmt/format.h>

#include "platform/perf/counter_json.hpp"

namespace tokscope::cli {

Expected<std::optional<platform::perf::CounterSet>> open_bench_counters(
    const run::Settings& settings) {
  if (settings.counters.empty()) return std::optional<platform::perf::CounterSet>();
  platform::perf::CounterRequest request;
  request.events = run::counter_events_to_open(settings.counters, settings.counter_line_fill_event);
  request.root = "/";
  auto set = platform::perf::CounterSet::open(request);
  if (!set) {
    const std::string& line_fill = settings.counter_line_fill_event;
    const bool about_line_fill =
        !line_fill.empty() && set.error().message.find('"' + line_fill + '"') != std::string::npos;
    return make_error(set.error().kind,
                      fmt::format("{}: {} (`--counters none` turns counters off)",
                                  about_line_fill ? "--counter-line-fill-event" : "--counters",
                                  set.error().message));
  }
  return std::optional<platform::perf::CounterSet>(std::move(*set));
}

nlohmann::json counters_environment(const std::optional<platform::perf::CounterSet>& set,
                                    const run::Settings& settings) {
  if (!set) return nullptr;
  nlohmann::json full = platform::perf::to_json(*set);
  nlohmann::json events = nlohmann::json::array();
  for (const auto& info : set->events()) {
    nlohmann::json e{{"name", info.name}, {"source", info.source}, {"software", info.software}};
    if (!info.unavailable.empty()) e["unavailable"] = info.unavailable;
    if (!info.note.empty()) e["note"] = info.note;
    events.push_back(std::move(e));
  }
  return {{"scope", "process"},
          {"target", full["target"]},
          {"perf_event_paranoid", full["perf_event_paranoid"]},
          {"open_fds", set->open_fds()},
          {"notes", set->notes()},
          {"line_fill_event", settings.counter_line_fill_event.empty()
                                  ? nlohmann::json(nullptr)
                                  : nlohmann::json(settings.counter_line_fill_event)},
          {"events", std::move(events)}};
}

nlohmann::json counters_available(const std::optional<platform::perf::CounterSet>& set) {
  if (!set) return "unavailable: turned off (--counters none)";
  std::string first_reason;
  for (const auto& info : set->events()) {
    if (info.unavailable.empty()) return true;
    if (first_reason.empty()) first_reason = info.name + ": " + info.unavailable;
  }
  return "unavailable: no requested event can be counted here (" + first_reason + ")";
}

}  // namespace tokscope::cli
