// `tokscope soak`: the per-window figures of a sustained decode run, the junction-temperature
// band table and the time of first throttling (docs/soak.md). Pure: no clock, no I/O, no
// globals; every input is passed in, every time is on the harness's monotonic clock (ns).
//
// Windows are [t0 + k·window, t0 + (k+1)·window) from the soak's start t0; the last one may be
// cut short by the time limit or Ctrl-C (complete = false). A decode interval belongs to the
// window in which it ended; a sampler row to the window in which it was taken.
//
// The report layer does not link the platform layer, so channels and rows come in as the small
// mirror types below (the run layer converts platform::ChannelInfo / SampleRow).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/timeline.hpp"

namespace tokscope::report {

enum class SoakChannelKind { kTemperature, kFrequency, kPower, kEnergy, kOther };

struct SoakChannel {
  std::string
      name;  // dotted, unit-suffixed: "thermal.soc-thermal.temp_c", "cpufreq.policy4.cur_khz"
  SoakChannelKind kind = SoakChannelKind::kOther;
  std::optional<double> passive_trip_c;  // temperature channels with a passive trip point
  std::optional<double> wrap_at;         // cumulative energy counters (µJ)
};

// One sampler row: values in channel order, NaN where unreadable.
struct SoakRow {
  std::int64_t t_ns = 0;
  bool throttled = false;
  std::vector<double> values;
};

// One inter-token latency, ending at t_end_ns (core/request_metrics.cpp's rule: the gap before
// a chunk of k tokens is split over its k tokens; the extra tokens of a first chunk get 0 ms).
struct DecodeInterval {
  std::int64_t t_end_ns = 0;
  double itl_ms = 0;
};

// Appends one request's decode intervals (its chunks in arrival order) to out.
void append_decode_intervals(std::span<const core::Chunk> chunks, std::vector<DecodeInterval>& out);

// Mean and max of one channel over a window's rows (NaN when no row had a reading).
struct ChannelStat {
  std::string channel;
  double mean = 0;
  double max = 0;
};

// When and why the platform first throttled: the row's time since t0, and the temperature
// channel at or over its passive trip point (empty when the row was throttled for another
// reason: a locked frequency fell below its lock).
struct ThrottleEvent {
  double t_s = 0;
  std::string channel;
  double value_c = 0;  // NaN when channel is empty
};

struct SoakWindow {
  std::uint32_t index = 0;  // 0-based; minute index+1 with the default one-minute window
  double start_s = 0;       // since t0
  double duration_s = 0;    // window_s, or less for a cut last window
  bool complete = true;
  std::uint64_t decode_tokens = 0;  // decode intervals that ended in the window
  std::uint32_t requests = 0;       // requests that finished in the window
  double decode_tps_p50 = 0;        // 1000 / ITL P50; NaN without intervals
  double decode_tps_mean = 0;       // 1000 / mean ITL; NaN without intervals
  double drop_pct = 0;  // decode_tps_p50 vs the first window with decode data; NaN if unknown
  std::uint64_t rows = 0;
  std::uint64_t throttled_rows = 0;
  // Junction: per row, the max over the thermal zones (all temperature channels when no
  // "thermal." channel exists); NaN when no temperature was read in the window.
  double junction_mean_c = 0;
  double junction_max_c = 0;
  std::string hottest_channel;  // the temperature channel with the highest max
  std::vector<ChannelStat> temperatures_c;
  std::vector<ChannelStat> frequencies;  // in the channel's own unit (kHz or Hz, see its name)
  double power_mean_w = 0;               // NaN when unavailable
  std::string power_channel;             // the channel it came from ("" when unavailable)
  std::optional<ThrottleEvent> first_throttle;  // the window's first throttled row
};

// Summarizes one window from the items that fall in it (the caller has cut them; items outside
// [start, end) are ignored anyway). requests_done_ns: t_done of requests that finished.
SoakWindow summarize_window(std::uint32_t index, std::int64_t t0_ns, std::int64_t start_ns,
                            std::int64_t end_ns, bool complete,
                            std::span<const DecodeInterval> intervals,
                            std::span<const std::int64_t> requests_done_ns,
                            std::span<const SoakRow> rows, std::span<const SoakChannel> channels);

// Every window of a run from t0 to t_end (the last one cut short when the run is not a whole
// number of windows), with drop_pct filled in. Inputs in any order. window_s > 0.
std::vector<SoakWindow> build_windows(std::span<const DecodeInterval> intervals,
                                      std::span<const std::int64_t> requests_done_ns,
                                      std::span<const SoakRow> rows,
                                      std::span<const SoakChannel> channels, std::int64_t t0_ns,
                                      std::int64_t t_end_ns, double window_s);

// 100 · (1 − tps / baseline_tps); NaN when either is not a positive number.
double drop_pct(double tps, double baseline_tps);

// The decode_tps_p50 of the first window with decode data; NaN when none has.
double baseline_tps(std::span<const SoakWindow> windows);

// Junction bands of 5 °C: "<60", "60–65", …, "80–85", "≥85" (°C), always all seven rows, so
// tables of different boards line up. A window is placed by its mean junction temperature.
struct SoakBand {
  std::string label;
  double lo_c = 0;  // -inf for the first band
  double hi_c = 0;  // +inf for the last band
  std::uint32_t windows = 0;
  double decode_tps_p50 = 0;  // median of the windows' decode_tps_p50; NaN when no window
  double drop_pct = 0;        // vs the first window; NaN when no window
};

struct SoakBands {
  bool available = false;
  std::string unavailable;  // "unavailable: …" when !available
  double baseline_tps = 0;  // the first window's decode_tps_p50
  std::vector<SoakBand> bands;
};

SoakBands soak_bands(std::span<const SoakWindow> windows);

// The first throttled row of the run; nullopt when no row was throttled.
std::optional<ThrottleEvent> first_throttle(std::span<const SoakWindow> windows);

}  // namespace tokscope::report
