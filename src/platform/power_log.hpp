// External power-meter logs (`--power-log FILE`): a timestamped CSV as USB-C PD meters, bench
// supplies and logging scripts write it, read into a power series on the log's own clock, then
// placed on tokscope's timeline (CLOCK_MONOTONIC-based ns) by a user-given offset or by finding
// a marker pulse tokscope ran. The format is defined in docs/power-log.md; in short:
//
//   - The first line that is neither blank nor a `#` comment is the header; later blank lines
//     and `#` comment lines are skipped. Delimiter: `;` when the header holds one, else `,`.
//     With `;` a decimal comma is accepted in numbers ("1,25"). Fields may be "quoted". A UTF-8
//     byte-order mark and CRLF line ends are accepted.
//   - Column names are matched case-insensitively as <name><unit>, the unit written `name_unit`,
//     `name(unit)` or `name [unit]`:
//       time:    t, time, timestamp, elapsed   with unit s, ms or us; without a unit a number is
//                seconds and anything else is an ISO-8601 date-time
//                ("2024-05-01T12:00:00.250Z", "2024-05-01 12:00:00.25+02:00"; no zone = UTC)
//       power:   p, power                      W, mW, uW (µW)
//       voltage: v, voltage, vbus              V, mV
//       current: i, current, ibus              A, mA, uA (µA)
//     Power comes from the power column when there is one, else from voltage × current.
//     `t_s,power_w` is the canonical form; headers with the unit in parentheses or brackets
//     (`Timestamp(ms),Voltage(V),Current(A),Power(W)`, `Current [mA]`) are the style many
//     logging scripts and spreadsheet exports write, and are accepted as such; no particular
//     meter's export file has been checked against this parser. Other columns are ignored
//     (listed in notes).
//   - Times must increase strictly from row to row.
// Every error names source:line:column, what is wrong and the fix. Nothing is global; parsing
// and the pulse search are pure (text/samples in, values out).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"

namespace tokscope::platform {

// What the log's time column counts from.
enum class LogClock {
  kRelative,    // numbers below 1e9 s: seconds since the logger started (or any origin)
  kEpoch,       // numbers >= 1e9 s (after 2001-09-09), or ISO-8601 with a zone: Unix time
  kWallNoZone,  // ISO-8601 without a zone, read as if UTC (the true zone is unknown)
};

const char* to_string(LogClock clock) noexcept;

struct PowerLog {
  std::string source;                  // the file name as given, for messages
  std::vector<std::int64_t> t_log_ns;  // the log's own clock, ns; strictly increasing
  std::vector<double> power_mw;        // one per time, milliwatts
  std::string time_column;             // header name of the time column used
  std::string power_from;              // "Power(W)" or "voltage_v × current_a"
  LogClock clock = LogClock::kRelative;
  std::int64_t median_period_ns = 0;  // median interval between rows; 0 for one row
  std::vector<std::string> notes;     // ignored columns, a dropped truncated last row, …
};

// Parses the CSV text of a power log. `source` names it in messages ("meter.csv"). kInput
// errors: "source:line:column: problem; fix". Pure.
Expected<PowerLog> parse_power_log(std::string_view text, std::string_view source);

// Reads and parses the file given to --power-log. kInput error when it cannot be read.
Expected<PowerLog> read_power_log(const std::filesystem::path& path);

// A power series on tokscope's timeline, ready for core::energy_from_power (kMilliwatt).
struct AlignedPower {
  std::vector<std::int64_t> t_ns;  // tokscope timeline = log time + offset_ns
  std::vector<double> power_mw;
  std::int64_t offset_ns = 0;
  std::string method;  // "offset given by --power-log-offset-s" or "marker pulse (snr …)"
};

// --power-log-offset-s (seconds added to the log's times to give tokscope's timeline, may be
// negative) → ns. kUsage error naming the flag for a value that is not finite or beyond ±292
// years.
Expected<std::int64_t> offset_ns_from_s(double offset_s);

// Shifts the log by offset_ns. kInput error when a shifted time would overflow int64 ns.
Expected<AlignedPower> align_power_log(const PowerLog& log, std::int64_t offset_ns,
                                       std::string method);

// The marker pulse tokscope runs before a benchmark: idle for idle_before_ns, every core busy
// for duration_ns starting at start_ns (tokscope's timeline), idle for idle_after_ns.
struct MarkerPulse {
  std::int64_t start_ns = 0;
  std::int64_t duration_ns = 2'000'000'000;
  std::int64_t idle_before_ns = 3'000'000'000;
  std::int64_t idle_after_ns = 3'000'000'000;
};

// When a pulse counts as found.
struct PulseSearch {
  double min_snr = 3;  // (pulse − idle power) / noise sd must reach this
  // The best other place, at least one pulse length away, must score below this share of the
  // best (else two pulses look alike: e.g. two runs in one log).
  double max_runner_up_ratio = 0.8;
  std::size_t min_pulse_samples = 3;  // log rows inside the pulse
  std::size_t min_idle_samples = 3;   // log rows inside the idle parts (before + after)
};

struct PulseMatch {
  std::int64_t offset_ns = 0;    // add to a log time to get tokscope's time: start_ns − edge
  std::int64_t edge_log_ns = 0;  // the pulse's rising edge on the log's clock
  // Half the width of the interval of edge positions that put the same rows inside the pulse:
  // the edge lies within edge_log_ns ± uncertainty_ns (at most one sampling interval).
  std::int64_t uncertainty_ns = 0;
  double snr = 0;              // (pulse_mw − idle_mw) / noise_sd_mw: the confidence measure
  double runner_up_ratio = 0;  // best non-overlapping other candidate's contrast / the best's
  double pulse_mw = 0;         // mean power of the rows inside the pulse
  double idle_mw = 0;          // mean power of the rows in the idle parts around it
  // Pooled standard deviation of the rows around their part's mean (pulse and idle), floored
  // at 0.001 mW so that a noiseless series gives a finite snr.
  double noise_sd_mw = 0;
  std::size_t pulse_samples = 0;
  std::size_t idle_samples = 0;
};

// Finds the marker pulse in a power series on the log's clock (t_log_ns strictly increasing,
// no NaN) by scoring every placement of the idle–busy–idle template: score = mean power inside
// the busy part − mean power of the idle parts (a matched filter for a rectangular pulse of
// known length and unknown height). kInput error, saying what was seen and the fix (give
// --power-log-offset-s, or log through the pulse), when: no placement has enough rows, the best
// contrast is below min_snr noise sd, or another placement scores nearly as well. Pure.
Expected<PulseMatch> find_marker_pulse(std::span<const std::int64_t> t_log_ns,
                                       std::span<const double> power_mw, const MarkerPulse& pulse,
                                       const PulseSearch& search = {});

}  // namespace tokscope::platform
