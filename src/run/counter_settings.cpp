#include "run/counter_settings.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "platform/perf/counter_set.hpp"

namespace tokscope::run {

std::vector<std::string> default_counter_events() {
  return {"instructions", "cycles",           "cache-misses",
          "task-clock",   "context-switches", "page-faults"};
}

std::vector<std::string> parse_counter_list(std::vector<std::string> values) {
  if (values.size() == 1 && values.front() == "none") values.clear();
  return values;
}

Expected<void> validate_counter_settings(const std::vector<std::string>& counters,
                                         const std::string& line_fill_event) {
  for (std::size_t i = 0; i < counters.size(); ++i) {
    const std::string& name = counters[i];
    if (name.empty() || name == "none") {
      return make_error(ErrorKind::kUsage,
                        "--counters: give event names separated by commas (e.g. "
                        "instructions,cycles,task-clock), or `--counters none` alone to turn "
                        "counters off");
    }
    if (std::find(counters.begin(), counters.begin() + static_cast<std::ptrdiff_t>(i), name) !=
        counters.begin() + static_cast<std::ptrdiff_t>(i)) {
      return make_error(ErrorKind::kUsage,
                        fmt::format("--counters: {} is listed twice; give each event once", name));
    }
  }
  if (counters.empty() && !line_fill_event.empty()) {
    return make_error(ErrorKind::kUsage,
                      "--counter-line-fill-event needs counters: drop it, or drop `--counters "
                      "none`");
  }
  const std::size_t n = counter_events_to_open(counters, line_fill_event).size();
  if (n > platform::perf::kMaxCounterEvents) {
    return make_error(ErrorKind::kUsage,
                      fmt::format("--counters: {} events (with --counter-line-fill-event); at most "
                                  "{} (and at most 6 hardware events avoid multiplexing)",
                                  n, platform::perf::kMaxCounterEvents));
  }
  return {};
}

std::vector<std::string> counter_events_to_open(const std::vector<std::string>& counters,
                                                const std::string& line_fill_event) {
  std::vector<std::string> events = counters;
  if (!line_fill_event.empty() &&
      std::find(events.begin(), events.end(), line_fill_event) == events.end()) {
    events.push_back(line_fill_event);
  }
  return events;
}

}  // namespace tokscope::run
