#include "run/counter_record.hpp"

#include "platform/perf/counter_json.hpp"

namespace tokscope::run {

nlohmann::json counter_record(const Recorder& recorder) {
  const platform::perf::CounterSet* set = recorder.counters();
  if (set == nullptr) return nullptr;
  const auto window = [set](const platform::perf::CounterSnapshot* begin,
                            const platform::perf::CounterSnapshot* end) -> nlohmann::json {
    if (begin == nullptr || end == nullptr) return nullptr;
    return platform::perf::to_json(set->window(*begin, *end));
  };
  return {{"scope", kCounterScopeProcess},
          {"prefill", window(recorder.counters_at_submit(), recorder.counters_at_first_token())},
          {"decode", window(recorder.counters_at_first_token(), recorder.counters_at_done())}};
}

}  // namespace tokscope::run
