#include "report/soak_render.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

namespace tokscope::report {
namespace {

using nlohmann::json;

json number(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

json stats_json(const std::vector<ChannelStat>& stats) {
  json o = json::object();
  for (const auto& s : stats) o[s.channel] = {{"mean", number(s.mean)}, {"max", number(s.max)}};
  return o;
}

// "thermal.soc-thermal.temp_c" -> "soc-thermal"; "cpufreq.policy4.cur_khz" -> "policy4".
std::string short_name(const std::string& channel) {
  const auto first = channel.find('.');
  const auto last = channel.rfind('.');
  if (first == std::string::npos || last == first) return channel;
  return channel.substr(first + 1, last - first - 1);
}

// A frequency channel's value in MHz from its unit suffix (_khz or _hz).
double to_mhz(const std::string& channel, double value) {
  if (channel.size() >= 4 && channel.compare(channel.size() - 4, 4, "_khz") == 0) {
    return value / 1e3;
  }
  return value / 1e6;
}

double num_or_nan(const json& j) {
  return j.is_number() ? j.get<double>() : std::nan("");
}

std::string cell(const json& j, const char* format_spec = "{:.1f}") {
  const double v = num_or_nan(j);
  if (!std::isfinite(v)) return "—";
  std::string text = fmt::format(fmt::runtime(format_spec), v);
  if (text.rfind("-0", 0) == 0 && text.find_first_not_of("-0.") == std::string::npos) {
    text.erase(0, 1);  // "-0.0": a rounding artefact, not a gain
  }
  return text;
}

void append_row(const std::vector<std::string>& cells, std::string& out) {
  out += '|';
  for (const auto& c : cells) {
    out += ' ';
    for (const char ch : c) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
    out += " |";
  }
  out += '\n';
}

std::string freqs_cell(const json& frequencies) {
  std::string s;
  for (const auto& [name, stat] : frequencies.items()) {
    const double mean = num_or_nan(stat.value("mean", json(nullptr)));
    if (!std::isfinite(mean)) continue;
    if (!s.empty()) s += ", ";
    s += fmt::format("{} {:.0f}", short_name(name), to_mhz(name, mean));
  }
  return s.empty() ? "—" : s;
}

std::string throttle_text(const json& t) {
  if (!t.is_object()) return "no throttling seen";
  const std::string channel = t.value("channel", "");
  if (channel.empty()) {
    return fmt::format("first throttling: {:.1f} s (a locked frequency fell below its lock)",
                       num_or_nan(t["t_s"]));
  }
  return fmt::format("first throttling: {:.1f} s (zone {} at {:.1f} °C)", num_or_nan(t["t_s"]),
                     short_name(channel), num_or_nan(t["value_c"]));
}

}  // namespace

json soak_window_json(const SoakWindow& w) {
  json o = {
      {"index", w.index},
      {"start_s", w.start_s},
      {"duration_s", w.duration_s},
      {"complete", w.complete},
      {"decode_tokens", w.decode_tokens},
      {"requests", w.requests},
      {"decode_tps_p50", number(w.decode_tps_p50)},
      {"decode_tps_mean", number(w.decode_tps_mean)},
      {"drop_pct", number(w.drop_pct)},
      {"rows", w.rows},
      {"throttled", w.throttled_rows > 0},
      {"throttled_rows", w.throttled_rows},
      {"junction_mean_c", number(w.junction_mean_c)},
      {"junction_max_c", number(w.junction_max_c)},
      {"hottest_channel", w.hottest_channel.empty() ? json(nullptr) : json(w.hottest_channel)},
      {"temperatures_c", stats_json(w.temperatures_c)},
      {"frequencies", stats_json(w.frequencies)},
      {"power_mean_w", number(w.power_mean_w)},
      {"power_channel", w.power_channel.empty() ? json(nullptr) : json(w.power_channel)},
      {"first_throttle", throttle_json(w.first_throttle)}};
  return o;
}

json soak_bands_json(const SoakBands& b) {
  json bands = json::array();
  for (const auto& band : b.bands) {
    bands.push_back({{"label", band.label},
                     {"lo_c", number(band.lo_c)},
                     {"hi_c", number(band.hi_c)},
                     {"windows", band.windows},
                     {"decode_tps_p50", number(band.decode_tps_p50)},
                     {"drop_pct", number(band.drop_pct)}});
  }
  return {{"available", b.available ? json(true) : json(b.unavailable)},
          {"banded_by", "window mean junction temperature (max over thermal zones per row)"},
          {"baseline_tps", number(b.baseline_tps)},
          {"bands", std::move(bands)}};
}

json throttle_json(const std::optional<ThrottleEvent>& e) {
  if (!e) return nullptr;
  return {{"t_s", e->t_s},
          {"channel", e->channel.empty() ? json(nullptr) : json(e->channel)},
          {"value_c", number(e->value_c)}};
}

std::string render_soak_md(const json& doc) {
  const bool simulated = doc.value("simulated", false);
  const std::string tag = simulated ? " — SIMULATED" : "";
  const std::string data = simulated ? "SIMULATED" : "measured";
  const double window_s = num_or_nan(doc.value("window_s", json(nullptr)));
  std::string out = fmt::format("# tokscope soak{}\n\n", tag);
  if (simulated) {
    out +=
        "> **SIMULATED: the sim engine's decode speed is a model, not a measurement; "
        "temperatures, frequencies and power are read from --sysfs-root.**\n\n";
  }
  const json& engine = doc.value("engine", json::object());
  out += fmt::format("- **engine:** {}{}\n", engine.value("name", "?"), tag);
  out += fmt::format("- **windows:** {} of {:g} s; ran {:.1f} s of {:g} min planned{}{}\n",
                     doc.value("windows", json::array()).size(), window_s,
                     num_or_nan(doc.value("elapsed_s", json(nullptr))),
                     num_or_nan(doc.value("planned_minutes", json(nullptr))),
                     doc.value("interrupted", false) ? " (interrupted)" : "", tag);
  out += fmt::format("- **requests:** {} ({} failed){}\n\n", doc.value("requests", 0),
                     doc.value("failed_requests", 0), tag);

  out += fmt::format("## Per window{}\n\n", tag);
  const std::string first_col =
      window_s == 60 ? "minute" : fmt::format("window ({:g} s)", window_s);
  append_row({first_col, "decode tok/s p50", "tok/s mean", "drop %", "tokens", "junction mean °C",
              "junction max °C", "hottest zone", "throttled", "mean freq MHz", "power W", "data"},
             out);
  out += "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& w : doc.value("windows", json::array())) {
    std::string index = std::to_string(w.value("index", 0U) + 1);
    if (!w.value("complete", true))
      index += fmt::format(" (partial, {:.1f} s)", w.value("duration_s", 0.0));
    const json hottest = w.value("hottest_channel", json(nullptr));
    append_row({index, cell(w["decode_tps_p50"]), cell(w["decode_tps_mean"]), cell(w["drop_pct"]),
                std::to_string(w.value("decode_tokens", 0U)), cell(w["junction_mean_c"]),
                cell(w["junction_max_c"]),
                hottest.is_string() ? short_name(hottest.get<std::string>()) : "—",
                w.value("throttled", false) ? "yes" : "no",
                freqs_cell(w.value("frequencies", json::object())),
                cell(w["power_mean_w"], "{:.2f}"), data},
               out);
  }
  out += '\n';

  const json& bands = doc.value("bands", json::object());
  out += fmt::format("## Junction temperature bands{}\n\n", tag);
  const json available = bands.value("available", json(false));
  if (!available.is_boolean() || !available.get<bool>()) {
    out += fmt::format("Band table {}{}\n\n",
                       available.is_string() ? available.get<std::string>() : "unavailable", tag);
  } else {
    out += fmt::format(
        "Windows placed by their mean junction temperature; drop vs the first "
        "window ({} tok/s){}.\n\n",
        cell(bands["baseline_tps"]), tag);
    append_row({"junction °C", "windows", "decode tok/s p50", "drop vs first window %", "data"},
               out);
    out += "|---|---|---|---|---|\n";
    for (const auto& b : bands.value("bands", json::array())) {
      append_row({b.value("label", ""), std::to_string(b.value("windows", 0U)),
                  cell(b["decode_tps_p50"]), cell(b["drop_pct"]), data},
                 out);
    }
    out += '\n';
  }
  out += throttle_text(doc.value("first_throttle", json(nullptr))) + tag + "\n";
  return out;
}

}  // namespace tokscope::report
