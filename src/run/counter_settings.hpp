// The counter part of the bench settings (`--counters`, `--counter-line-fill-event`): defaults,
// checks, and the list of events to open.
#pragma once

#include <string>
#include <vector>

#include "core/expected.hpp"

namespace tokscope::run {

// Counted when --counters is not given. Software events (task-clock, context-switches,
// page-faults) count everywhere, also in a VM without a virtual PMU.
std::vector<std::string> default_counter_events();

// Checks the event list and the line-fill event (not their names: the resolver does that at
// open); errors name the flag and the fix. An empty list means counters are off
// (`--counters none`); then no line-fill event may be given.
Expected<void> validate_counter_settings(const std::vector<std::string>& counters,
                                         const std::string& line_fill_event);

// The events to open: the list, plus the line-fill event when it is not in it.
std::vector<std::string> counter_events_to_open(const std::vector<std::string>& counters,
                                                const std::string& line_fill_event);

// `--counters none` → empty list; other lists unchanged.
std::vector<std::string> parse_counter_list(std::vector<std::string> values);

}  // namespace tokscope::run
