// What `bench` does on the machine before the first request, each on request:
//  - an idle window (`--idle-baseline-s S`): the harness sleeps while the sampler keeps reading
//    power, so the board's idle power can be measured and subtracted from each phase's energy;
//  - a marker pulse (`--marker-pulse`): idle, every cpu busy for a fixed time, idle again, so an
//    external power meter's log can be aligned with tokscope's timeline (platform/power_log.hpp);
//  - a clock sync point: tokscope's monotonic clock and CLOCK_REALTIME read together, so a meter
//    that logs Unix time on this machine can be aligned without a pulse.
// Every wait polls the stop flag (Ctrl-C) at least every 50 ms and then returns kCancelled.
#pragma once

#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/expected.hpp"
#include "platform/clock.hpp"
#include "platform/power_log.hpp"

namespace tokscope::platform {

struct IdleWindow {
  std::int64_t t0_ns = 0;  // tokscope's timeline
  std::int64_t t1_ns = 0;
};

// Sleeps for seconds (> 0), returning the window actually spent idle.
Expected<IdleWindow> idle_for(const Clock& clock, const std::atomic<bool>& stop, double seconds);

// Runs `shape` (its idle_before_ns, duration_ns, idle_after_ns; start_ns is ignored): idle, one
// spinning thread per cpu in `cpus` (each pinned to its cpu; a cpu that refuses pinning still
// spins, unpinned) for duration_ns, idle. Returns the shape with start_ns = the instant the
// busy part began, on `clock`.
Expected<MarkerPulse> run_marker_pulse(const Clock& clock, const std::atomic<bool>& stop,
                                       const std::vector<int>& cpus, MarkerPulse shape);

// {"monotonic_ns": t on clock, "realtime_ns": Unix time ns, "uncertainty_ns": half the time
// the two reads took}: log time (Unix, ns) + (monotonic_ns − realtime_ns) = tokscope time.
nlohmann::json clock_sync_point(const Clock& clock);

// The JSON of a pulse as the journal header keeps it, and back (nullopt when absent/malformed).
nlohmann::json marker_pulse_json(const MarkerPulse& pulse);
std::optional<MarkerPulse> marker_pulse_from_json(const nlohmann::json& j);

}  // namespace tokscope::platform
