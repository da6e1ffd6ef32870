#include "report/counter_stats.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "core/counters_derived.hpp"
#include "report/metric_stats.hpp"

namespace tokscope::report {
namespace {

using nlohmann::json;
constexpr double kNsPerS = 1e9;
constexpr std::uint64_t kEventSeedOffset = 100;    // after the other metrics' seeds
constexpr std::uint64_t kDerivedSeedOffset = 200;  // after the events'

const char* const kPhases[] = {"prefill", "decode"};

// The counter window of one phase of a request record, or nullptr.
const json* window_of(const json& request, const char* phase) {
  const auto c = request.find("counters");
  if (c == request.end() || !c->is_object()) return nullptr;
  const auto w = c->find(phase);
  return w != c->end() && w->is_object() ? &*w : nullptr;
}

// The value of one event in a window; nullopt when absent, null or unavailable.
std::optional<double> event_value(const json* window, const std::string& name) {
  if (window == nullptr) return std::nullopt;
  const auto e = window->find(name);
  if (e == window->end() || !e->is_object()) return std::nullopt;
  const auto v = e->find("value");
  if (v == e->end() || !v->is_number()) return std::nullopt;
  return v->get<double>();
}

std::optional<std::int64_t> integer(const json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<std::int64_t>();
}

// Seconds and tokens of a request's phase window (see the header).
struct PhaseSpan {
  double seconds = std::numeric_limits<double>::quiet_NaN();
  std::uint64_t tokens = 0;
};

PhaseSpan phase_span(const json& r, const char* phase) {
  PhaseSpan span;
  const auto submit = integer(r, "t_submit_ns");
  const auto done = integer(r, "t_done_ns");
  const json& t = r.value("chunk_t_ns", json::array());
  if (!t.is_array() || t.empty() || !t[0].is_number_integer()) return span;
  const auto first = t[0].get<std::int64_t>();
  const json& tokens = r.value("chunk_tokens", json(nullptr));
  const std::uint64_t first_tokens =
      tokens.is_array() && !tokens.empty() && tokens[0].is_number_unsigned()
          ? tokens[0].get<std::uint64_t>()
          : 1;
  if (std::string(phase) == "prefill") {
    if (submit) span.seconds = static_cast<double>(first - *submit) / kNsPerS;
    span.tokens = r.value("prompt_tokens", std::uint64_t{0});
  } else {
    if (done) span.seconds = static_cast<double>(*done - first) / kNsPerS;
    const auto out = r.value("output_tokens", std::uint64_t{0});
    span.tokens = out > first_tokens ? out - first_tokens : 0;
  }
  return span;
}

std::optional<std::string> choose_line_fill(const std::vector<json>& requests,
                                            const std::vector<std::size_t>& members,
                                            const json& settings) {
  const std::string named = settings.value("counter_line_fill_event", std::string());
  if (!named.empty()) return named;
  for (const auto& candidate : default_line_fill_events()) {
    for (const auto i : members) {
      if (event_value(window_of(requests[i], "decode"), candidate)) return candidate;
    }
  }
  return std::nullopt;
}

double value_or_nan(std::optional<double> x) {
  return x ? *x : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

const std::vector<std::string>& default_line_fill_events() {
  static const std::vector<std::string> kEvents = {
      "l3d_cache_refill", "ll_cache_miss_rd", "bus_access_rd", "LLC-load-misses", "cache-misses"};
  return kEvents;
}

json stratum_counters(const std::vector<json>& requests, const std::vector<std::size_t>& members,
                      const json& stratum, const json& settings, std::uint64_t seed,
                      int resamples) {
  bool any = false;
  for (const auto i : members) any = any || requests[i].contains("counters");
  if (!any) return nullptr;

  const bool overlapping = stratum.value("concurrency", 1U) > 1;
  const json& ceiling = stratum.value("ceiling", json::object());
  const json& peak =
      ceiling.is_object() ? ceiling.value("bandwidth_gbps", json(nullptr)) : json(nullptr);
  const std::optional<double> peak_gbps = peak.is_number() && peak.get<double>() > 0
                                              ? std::optional<double>(peak.get<double>())
                                              : std::nullopt;
  const std::optional<std::string> line_fill = choose_line_fill(requests, members, settings);

  json out = {{"scope", "process"},
              {"overlapping", overlapping},
              {"note", overlapping ? json("concurrency > 1: counters count the whole process, so "
                                          "each request's windows include the overlapping "
                                          "requests' work; per-token, DRAM and bandwidth figures "
                                          "are left out, IPC is kept")
                                   : json(nullptr)}};
  json derived = {{"line_fill_event", line_fill ? json(*line_fill) : json(nullptr)},
                  {"line_bytes", core::kDefaultCacheLineBytes},
                  {"peak_gbps", peak_gbps ? json(*peak_gbps) : json(nullptr)},
                  {"estimate",
                   "DRAM bytes = line-fill event count x 64 B: ignores write-backs and counts "
                   "prefetches only when the event does; compare runs on one machine"}};
  std::uint64_t event_seed = seed + kEventSeedOffset;
  std::uint64_t derived_seed = seed + kDerivedSeedOffset;
  for (const char* phase : kPhases) {
    // Events, in name order; the reason of the first request that could not count one.
    struct EventSamples {
      MetricSamples samples;
      std::string unavailable;
      std::uint32_t scaled = 0;
    };
    std::map<std::string, EventSamples> events;
    MetricSamples ipc, instr_tok, cycles_tok, dram_tok, dram_gbps, utilization;
    for (const auto i : members) {
      const json* window = window_of(requests[i], phase);
      if (window == nullptr) continue;
      for (const auto& [name, e] : window->items()) {
        EventSamples& es = events[name];
        if (!e.is_object()) continue;
        const auto v = e.find("value");
        if (v != e.end() && v->is_number()) {
          es.samples.add(v->get<double>());
          if (e.value("scaled", false)) ++es.scaled;
        } else if (es.unavailable.empty()) {
          es.unavailable = e.value("unavailable", std::string("unavailable: no value"));
        }
      }
      const PhaseSpan span = phase_span(requests[i], phase);
      core::CounterWindowCounts counts;
      counts.instructions = event_value(window, "instructions");
      counts.cycles = event_value(window, "cycles");
      if (line_fill) counts.dram_line_fills = event_value(window, *line_fill);
      counts.seconds = std::isfinite(span.seconds) ? span.seconds : 0;
      counts.tokens = span.tokens;
      counts.peak_gbps = peak_gbps;
      const core::CounterDerived d = core::derive_counter_metrics(counts);
      ipc.add(value_or_nan(d.ipc));
      if (overlapping) continue;
      instr_tok.add(value_or_nan(d.instructions_per_token));
      cycles_tok.add(value_or_nan(d.cycles_per_token));
      dram_tok.add(value_or_nan(d.dram_bytes_per_token));
      dram_gbps.add(value_or_nan(d.dram_gbps));
      utilization.add(value_or_nan(d.bandwidth_utilization));
    }
    json phase_events = json::object();
    for (auto& [name, es] : events) {
      json o = stat_object(es.samples, event_seed++, resamples);
      if (!es.unavailable.empty()) o["unavailable"] = es.unavailable;
      if (es.scaled > 0) o["scaled_requests"] = es.scaled;
      phase_events[name] = std::move(o);
    }
    out[phase] = std::move(phase_events);
    const auto figure = [&](const MetricSamples& m) {
      return overlapping && &m != &ipc ? json(nullptr) : stat_object(m, derived_seed++, resamples);
    };
    derived[phase] = {{"ipc", figure(ipc)},
                      {"instructions_per_token", figure(instr_tok)},
                      {"cycles_per_token", figure(cycles_tok)},
                      {"dram_bytes_per_token_estimate", figure(dram_tok)},
                      {"dram_gbps_estimate", figure(dram_gbps)},
                      {"bandwidth_utilization", figure(utilization)}};
  }
  out["derived"] = std::move(derived);
  return out;
}

}  // namespace tokscope::report
