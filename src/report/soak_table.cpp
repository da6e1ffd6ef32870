#include "report/soak_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/stats.hpp"

namespace tokscope::report {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kBandLowestC = 60;
constexpr double kBandHighestC = 85;
constexpr double kBandWidthC = 5;

double seconds_between(std::int64_t a_ns, std::int64_t b_ns) {
  return static_cast<double>(b_ns - a_ns) / 1e9;
}

bool in_window(std::int64_t t, std::int64_t start_ns, std::int64_t end_ns) {
  return t >= start_ns && t < end_ns;
}

// The channels the junction is taken over: thermal zones, or every temperature channel when
// there is no thermal zone (hwmon-only machines).
std::vector<std::size_t> junction_channels(std::span<const SoakChannel> channels) {
  std::vector<std::size_t> zones, temps;
  for (std::size_t i = 0; i < channels.size(); ++i) {
    if (channels[i].kind != SoakChannelKind::kTemperature) continue;
    temps.push_back(i);
    if (channels[i].name.rfind("thermal.", 0) == 0) zones.push_back(i);
  }
  return zones.empty() ? temps : zones;
}

struct Accumulator {
  double sum = 0, max = -kInf;
  std::uint64_t n = 0;
  void add(double v) {
    if (!std::isfinite(v)) return;
    sum += v;
    max = std::max(max, v);
    ++n;
  }
  [[nodiscard]] double mean() const { return n > 0 ? sum / static_cast<double>(n) : kNaN; }
  [[nodiscard]] double maximum() const { return n > 0 ? max : kNaN; }
};

// Preference: a package energy counter, any energy counter, then a power input (as
// report/energy_attribution.hpp picks the whole-chip channel).
std::optional<std::size_t> power_channel(std::span<const SoakChannel> channels) {
  std::optional<std::size_t> energy, package, power;
  for (std::size_t i = 0; i < channels.size(); ++i) {
    const auto& c = channels[i];
    if (c.kind == SoakChannelKind::kEnergy) {
      if (!energy) energy = i;
      if (!package && c.name.find("package") != std::string::npos) package = i;
    } else if (c.kind == SoakChannelKind::kPower && !power) {
      power = i;
    }
  }
  if (package) return package;
  if (energy) return energy;
  return power;
}

// Mean power in W over the window's rows: from a cumulative µJ counter (first to last valid
// reading, one wrap allowed per step) or the mean of µW samples.
double window_power_w(const SoakChannel& channel, std::size_t c, std::span<const SoakRow> rows) {
  if (channel.kind == SoakChannelKind::kPower) {
    Accumulator a;
    for (const auto& r : rows) a.add(c < r.values.size() ? r.values[c] : kNaN);
    return a.mean() / 1e6;
  }
  double energy_uj = 0;
  const SoakRow* first = nullptr;
  const SoakRow* previous = nullptr;
  for (const auto& r : rows) {
    const double v = c < r.values.size() ? r.values[c] : kNaN;
    if (!std::isfinite(v)) continue;
    if (previous != nullptr) {
      double step = v - previous->values[c];
      if (step < 0 && channel.wrap_at) step += *channel.wrap_at;
      if (step < 0) return kNaN;  // a counter that went back without a known wrap
      energy_uj += step;
    } else {
      first = &r;
    }
    previous = &r;
  }
  if (first == nullptr || previous == first) return kNaN;
  return energy_uj / 1e6 / seconds_between(first->t_ns, previous->t_ns);
}

}  // namespace

void append_decode_intervals(std::span<const core::Chunk> chunks,
                             std::vector<DecodeInterval>& out) {
  const core::Chunk* previous = nullptr;
  for (const core::Chunk& chunk : chunks) {
    if (chunk.tokens == 0) continue;
    if (previous == nullptr) {
      out.insert(out.end(), chunk.tokens - 1, DecodeInterval{chunk.t_ns, 0.0});
    } else {
      const double share_ms = static_cast<double>(chunk.t_ns - previous->t_ns) / 1e6 /
                              static_cast<double>(chunk.tokens);
      out.insert(out.end(), chunk.tokens, DecodeInterval{chunk.t_ns, share_ms});
    }
    previous = &chunk;
  }
}

SoakWindow summarize_window(std::uint32_t index, std::int64_t t0_ns, std::int64_t start_ns,
                            std::int64_t end_ns, bool complete,
                            std::span<const DecodeInterval> intervals,
                            std::span<const std::int64_t> requests_done_ns,
                            std::span<const SoakRow> rows, std::span<const SoakChannel> channels) {
  SoakWindow w;
  w.index = index;
  w.start_s = seconds_between(t0_ns, start_ns);
  w.duration_s = seconds_between(start_ns, end_ns);
  w.complete = complete;
  w.drop_pct = kNaN;

  std::vector<double> itl_ms;
  itl_ms.reserve(intervals.size());
  for (const auto& i : intervals) {
    if (in_window(i.t_end_ns, start_ns, end_ns)) itl_ms.push_back(i.itl_ms);
  }
  w.decode_tokens = itl_ms.size();
  const core::Summary s = core::summarize(itl_ms);
  w.decode_tps_p50 = s.count > 0 && s.p50 > 0 ? 1000.0 / s.p50 : kNaN;
  w.decode_tps_mean = s.count > 0 && s.mean > 0 ? 1000.0 / s.mean : kNaN;
  for (const auto t : requests_done_ns) w.requests += in_window(t, start_ns, end_ns) ? 1U : 0U;

  std::vector<SoakRow> in;  // the window's rows, in time order
  for (const auto& r : rows) {
    if (in_window(r.t_ns, start_ns, end_ns)) in.push_back(r);
  }
  std::sort(in.begin(), in.end(),
            [](const SoakRow& a, const SoakRow& b) { return a.t_ns < b.t_ns; });
  w.rows = in.size();

  const std::vector<std::size_t> junction = junction_channels(channels);
  std::vector<Accumulator> per_channel(channels.size());
  Accumulator junction_acc;
  for (const auto& r : in) {
    double row_junction = kNaN;
    for (std::size_t c = 0; c < channels.size() && c < r.values.size(); ++c) {
      per_channel[c].add(r.values[c]);
    }
    for (const std::size_t c : junction) {
      if (c < r.values.size() && std::isfinite(r.values[c])) {
        row_junction =
            std::isfinite(row_junction) ? std::max(row_junction, r.values[c]) : r.values[c];
      }
    }
    junction_acc.add(row_junction);
    if (r.throttled) {
      ++w.throttled_rows;
      if (!w.first_throttle) {
        ThrottleEvent e{seconds_between(t0_ns, r.t_ns), "", kNaN};
        for (std::size_t c = 0; c < channels.size() && c < r.values.size(); ++c) {
          const auto& trip = channels[c].passive_trip_c;
          if (trip && r.values[c] >= *trip && (e.channel.empty() || r.values[c] > e.value_c)) {
            e.channel = channels[c].name;
            e.value_c = r.values[c];
          }
        }
        w.first_throttle = std::move(e);
      }
    }
  }
  w.junction_mean_c = junction_acc.mean();
  w.junction_max_c = junction_acc.maximum();
  double hottest = -kInf;
  for (std::size_t c = 0; c < channels.size(); ++c) {
    const ChannelStat stat{channels[c].name, per_channel[c].mean(), per_channel[c].maximum()};
    if (channels[c].kind == SoakChannelKind::kTemperature) {
      if (std::find(junction.begin(), junction.end(), c) != junction.end() &&
          std::isfinite(stat.max) && stat.max > hottest) {
        hottest = stat.max;
        w.hottest_channel = stat.channel;
      }
      w.temperatures_c.push_back(stat);
    } else if (channels[c].kind == SoakChannelKind::kFrequency) {
      w.frequencies.push_back(stat);
    }
  }
  w.power_mean_w = kNaN;
  if (const auto p = power_channel(channels)) {
    w.power_mean_w = window_power_w(channels[*p], *p, in);
    if (std::isfinite(w.power_mean_w)) w.power_channel = channels[*p].name;
  }
  return w;
}

std::vector<SoakWindow> build_windows(std::span<const DecodeInterval> intervals,
                                      std::span<const std::int64_t> requests_done_ns,
                                      std::span<const SoakRow> rows,
                                      std::span<const SoakChannel> channels, std::int64_t t0_ns,
                                      std::int64_t t_end_ns, double window_s) {
  std::vector<SoakWindow> windows;
  if (!(window_s > 0) || t_end_ns <= t0_ns) return windows;
  const auto window_ns = static_cast<std::int64_t>(std::llround(window_s * 1e9));
  for (std::int64_t start = t0_ns; start < t_end_ns; start += window_ns) {
    const std::int64_t end = std::min(start + window_ns, t_end_ns);
    windows.push_back(summarize_window(static_cast<std::uint32_t>(windows.size()), t0_ns, start,
                                       end, end - start == window_ns, intervals, requests_done_ns,
                                       rows, channels));
  }
  const double baseline = baseline_tps(windows);
  for (auto& w : windows) w.drop_pct = drop_pct(w.decode_tps_p50, baseline);
  return windows;
}

double drop_pct(double tps, double baseline) {
  if (!(tps > 0) || !(baseline > 0) || !std::isfinite(tps) || !std::isfinite(baseline)) {
    return kNaN;
  }
  return 100.0 * (1.0 - tps / baseline);
}

double baseline_tps(std::span<const SoakWindow> windows) {
  for (const auto& w : windows) {
    if (std::isfinite(w.decode_tps_p50) && w.decode_tps_p50 > 0) return w.decode_tps_p50;
  }
  return kNaN;
}

SoakBands soak_bands(std::span<const SoakWindow> windows) {
  SoakBands out;
  out.baseline_tps = baseline_tps(windows);
  out.bands.push_back({fmt::format("<{:.0f}", kBandLowestC), -kInf, kBandLowestC, 0, kNaN, kNaN});
  for (double lo = kBandLowestC; lo < kBandHighestC; lo += kBandWidthC) {
    out.bands.push_back(
        {fmt::format("{:.0f}–{:.0f}", lo, lo + kBandWidthC), lo, lo + kBandWidthC, 0, kNaN, kNaN});
  }
  out.bands.push_back({fmt::format("≥{:.0f}", kBandHighestC), kBandHighestC, kInf, 0, kNaN, kNaN});

  bool any_temperature = false;
  for (auto& band : out.bands) {
    std::vector<double> tps;
    for (const auto& w : windows) {
      if (!std::isfinite(w.junction_mean_c)) continue;
      any_temperature = true;
      if (w.junction_mean_c < band.lo_c || w.junction_mean_c >= band.hi_c) continue;
      ++band.windows;
      if (std::isfinite(w.decode_tps_p50)) tps.push_back(w.decode_tps_p50);
    }
    if (!tps.empty()) {
      band.decode_tps_p50 = core::percentile(tps, 0.5);
      band.drop_pct = drop_pct(band.decode_tps_p50, out.baseline_tps);
    }
  }
  out.available = any_temperature;
  if (!any_temperature) {
    out.unavailable = windows.empty()
                          ? "unavailable: no complete window was measured"
                          : "unavailable: no temperature was sampled (no thermal zone or hwmon "
                            "temperature under --sysfs-root, or --sample-ms 0)";
  }
  return out;
}

std::optional<ThrottleEvent> first_throttle(std::span<const SoakWindow> windows) {
  for (const auto& w : windows) {
    if (w.first_throttle) return w.first_throttle;
  }
  return std::nullopt;
}

}  // namespace tokscope::report
