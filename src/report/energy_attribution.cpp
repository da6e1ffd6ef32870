#include "report/energy_attribution.hpp"

#include <cmath>
#include <limits>

#include "core/energy.hpp"

namespace tokscope::report {
namespace {

using nlohmann::json;

json num_or_null(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

// Rank of a channel as a whole-chip energy source; lower is better, -1 = not an energy source.
int rank(const std::string& name) {
  const bool rapl = name.rfind("rapl.", 0) == 0;
  const bool hwmon = name.rfind("hwmon.", 0) == 0;
  const auto ends = [&](const char* suffix) {
    const std::string s(suffix);
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  if (rapl && name.find(".package") != std::string::npos && ends("_uj")) return 0;
  if (rapl && ends("_uj")) return 1;
  if (hwmon && name.find(".energy") != std::string::npos && ends("_uj")) return 2;
  if (hwmon && name.find(".power") != std::string::npos && ends("_uw")) return 3;
  return -1;
}

std::string status_text(const core::WindowEnergy& w) {
  if (w.status == core::EnergyStatus::kComplete) return "complete";
  return std::string(core::to_string(w.status)) + ": " + w.reason;
}

}  // namespace

std::optional<EnergySeries> energy_series(const json& channels, const std::vector<json>& lines) {
  if (!channels.is_array()) return std::nullopt;
  int best = -1;
  std::size_t best_index = 0;
  for (std::size_t i = 0; i < channels.size(); ++i) {
    const int r = rank(channels[i].value("name", ""));
    if (r >= 0 && (best < 0 || r < best)) {
      best = r;
      best_index = i;
    }
  }
  if (best < 0) return std::nullopt;
  EnergySeries s;
  s.channel = channels[best_index].value("name", "");
  s.cumulative = best <= 2;
  if (channels[best_index].contains("wrap_at") && channels[best_index]["wrap_at"].is_number()) {
    s.wrap_at = channels[best_index]["wrap_at"].get<double>();
  }
  for (const auto& line : lines) {
    const json& ts = line.at("t_ns");
    const json& values = line.at("values");
    for (std::size_t r = 0; r < ts.size(); ++r) {
      s.t_ns.push_back(ts[r].get<std::int64_t>());
      const json& row = values[r];
      s.values.push_back(best_index < row.size() && row[best_index].is_number()
                             ? row[best_index].get<double>()
                             : std::numeric_limits<double>::quiet_NaN());
    }
  }
  return s;
}

namespace {

core::WindowEnergy window_energy(const EnergySeries& series, std::int64_t t0_ns,
                                 std::int64_t t1_ns) {
  return series.cumulative
             ? core::energy_from_counter(series.t_ns, series.values, series.wrap_at, t0_ns, t1_ns)
             : core::energy_from_power(series.t_ns, series.values, core::PowerUnit::kMicrowatt,
                                       t0_ns, t1_ns);
}

}  // namespace

json idle_baseline(const EnergySeries& series, std::int64_t t0_ns, std::int64_t t1_ns) {
  json out = {{"source", series.channel},
              {"t0_ns", t0_ns},
              {"t1_ns", t1_ns},
              {"window_s", static_cast<double>(t1_ns - t0_ns) / 1e9}};
  const core::WindowEnergy e = window_energy(series, t0_ns, t1_ns);
  const auto mw = core::mean_power_mw(e);
  out["power_mw"] = mw ? json(*mw) : json(nullptr);
  out["status"] = mw || e.status != core::EnergyStatus::kComplete
                      ? status_text(e)
                      : "unavailable: " + mw.error().message;
  return out;
}

json request_energy(const EnergySeries& series, const core::TimelineView& timeline,
                    std::uint32_t output_tokens, std::optional<double> idle_baseline_mw) {
  std::vector<core::WindowEnergy> windows;  // prefill, decode (complete ones), for net energy
  std::vector<std::string> window_names;
  const auto energy_of = [&](const core::TimeWindow& w, const char* name) {
    core::WindowEnergy e = window_energy(series, w.t0_ns, w.t1_ns);
    windows.push_back(e);
    window_names.emplace_back(name);
    return e;
  };
  json out = {{"source", series.channel}};
  json status = json::object();
  double prefill_mj = std::numeric_limits<double>::quiet_NaN();
  double decode_mj = std::numeric_limits<double>::quiet_NaN();
  if (const auto w = core::prefill_window(timeline)) {
    const core::WindowEnergy e = energy_of(*w, "prefill");
    prefill_mj = e.energy_mj;
    status["prefill"] = status_text(e);
  } else {
    status["prefill"] = "unavailable: no token";
  }
  if (const auto w = core::decode_window(timeline)) {
    const core::WindowEnergy e = energy_of(*w, "decode");
    decode_mj = e.energy_mj;
    status["decode"] = status_text(e);
  } else {
    status["decode"] = "unavailable: fewer than two tokens";
  }
  out["prefill_mj"] = num_or_null(prefill_mj);
  out["decode_mj"] = num_or_null(decode_mj);
  out["prefill_mj_per_token"] =
      num_or_null(core::prefill_mj_per_token(prefill_mj, timeline.prompt_tokens));
  out["decode_mj_per_token"] = num_or_null(core::decode_mj_per_token(decode_mj, output_tokens));
  out["status"] = std::move(status);
  if (idle_baseline_mw) {
    double net[2] = {std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::quiet_NaN()};
    json clamped = json::array();
    for (std::size_t i = 0; i < windows.size(); ++i) {
      const auto n = core::subtract_baseline(windows[i], *idle_baseline_mw, false);
      if (!n) continue;  // the gross energy is not complete: no net either
      net[window_names[i] == "prefill" ? 0 : 1] = n->energy_mj;
      if (n->clamped) clamped.push_back(window_names[i]);
    }
    out["prefill_net_mj"] = num_or_null(net[0]);
    out["decode_net_mj"] = num_or_null(net[1]);
    out["prefill_net_mj_per_token"] =
        num_or_null(core::prefill_mj_per_token(net[0], timeline.prompt_tokens));
    out["decode_net_mj_per_token"] = num_or_null(core::decode_mj_per_token(net[1], output_tokens));
    out["net_clamped"] = std::move(clamped);
  }
  return out;
}

}  // namespace tokscope::report
