#include "report/result_builder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <string>

#include "core/request_metrics.hpp"
#include "core/stats.hpp"
#include "model/roofline.hpp"
#include "report/counter_stats.hpp"
#include "report/energy_attribution.hpp"
#include "report/metric_stats.hpp"
#include "report/telemetry_series.hpp"

namespace tokscope::report {
namespace {

using nlohmann::json;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kCeilingTolerance = 1.05;  // spec: above 1.05 x ceiling is flagged
constexpr double kOutlierMinRelativeDeviation = 0.02;

double get_num(const json& o, const char* key) {
  if (!o.is_object()) return kNaN;
  const auto it = o.find(key);
  return it != o.end() && it->is_number() ? it->get<double>() : kNaN;
}

std::vector<core::Chunk> chunks_of(const json& r) {
  std::vector<core::Chunk> chunks;
  const json& t = r.at("chunk_t_ns");
  const json* tokens = r.contains("chunk_tokens") ? &r.at("chunk_tokens") : nullptr;
  chunks.reserve(t.size());
  for (std::size_t i = 0; i < t.size(); ++i) {
    chunks.push_back(core::Chunk{t[i].get<std::int64_t>(),
                                 tokens != nullptr ? (*tokens)[i].get<std::uint32_t>() : 1U});
  }
  return chunks;
}

json ceiling_for(const json& inputs, std::uint32_t prompt_tokens, std::uint32_t output_tokens) {
  const double bw_gbps = get_num(inputs, "bandwidth_gbps");
  const double w = get_num(inputs, "weight_bytes_per_token");
  const double k = get_num(inputs, "kv_bytes_per_context_token");
  const double peak = get_num(inputs, "peak_ops_per_s");
  const double ops = get_num(inputs, "ops_per_token");
  // Decode reads the KV cache at the context of each step: use the mean context of the stratum.
  const double context = prompt_tokens + output_tokens / 2.0;
  json c = {
      {"decode_tps", nullptr},
      {"prefill_tps", nullptr},
      {"bandwidth_gbps", num(bw_gbps)},
      {"context_tokens", context},
      {"source", inputs.is_object() ? inputs.value("source", "unknown")
                                    : "unknown: no model shape/quant and no bandwidth given"}};
  if (!std::isfinite(bw_gbps) || !std::isfinite(w) || w <= 0) return c;
  const double bw = bw_gbps * 1e9;
  c["decode_tps"] = num(model::decode_ceiling_tps(
      bw, w, std::isfinite(k) ? k : 0.0, static_cast<std::uint32_t>(std::lround(context))));
  if (std::isfinite(peak) && std::isfinite(ops) && peak > 0 && ops > 0) {
    c["prefill_tps"] = num(model::prefill_ceiling_tps(peak, ops, bw, w, prompt_tokens));
  }
  return c;
}

std::string fmt_tps(double v) {
  return std::isfinite(v) ? fmt::format("{:.1f}", v) : "n/a";
}

// The runner stamps each request with telemetry (run/telemetry_stamper.hpp).
bool request_throttled(const json& r) {
  const auto it = r.find("telemetry");
  if (it == r.end() || !it->is_object()) return false;
  const auto t = it->find("throttled");
  return t != it->end() && t->is_boolean() && t->get<bool>();
}

}  // namespace

bool is_blocking_flag(const std::string& flag) {
  return flag == "exceeds_physical_ceiling" || flag == "failed_requests" ||
         flag == "short_requests" || flag == "no_measured_requests";
}

bool has_blocking_flags(const json& result) {
  for (const auto& s : result.value("strata", json::array())) {
    for (const auto& f : s.value("flags", json::array())) {
      if (f.is_string() && is_blocking_flag(f.get<std::string>())) return true;
    }
  }
  return false;
}

json build_result(const json& header, const std::vector<json>& requests,
                  const BuildOptions& options) {
  const json settings = header.value("settings", json::object());
  const auto seed = settings.value("seed", std::uint64_t{42});
  const int resamples = settings.value("bootstrap_resamples", 1000);
  const json engine = header.value("engine", json::object());
  const bool simulated = engine.value("simulated", false);

  json result = {
      {"schema", kResultSchema},
      {"tool", header.value("tool", json::object())},
      {"created_utc", header.value("created_utc", "")},
      {"simulated", simulated},
      {"complete", options.complete},
      {"interrupted", options.interrupted},
      {"engine", engine},
      {"model", header.value("model", json::object())},
      {"environment", header.value("environment", json::object())},
      {"plan", settings},
      {"statistics",
       {{"percentile_method", "Hyndman-Fan type 7 (linear interpolation; numpy default)"},
        {"bootstrap_resamples", resamples},
        {"bootstrap_seed", seed},
        {"confidence_level", 0.95},
        {"bootstrap_unit", "request"},
        {"outlier_rule",
         "modified z-score (MAD) > 3.5 and more than 2% from the median; flagged, never "
         "dropped"}}},
  };
  const json ceiling_inputs = header.value("ceiling_inputs", json(nullptr));
  const bool discard_throttled = settings.value("discard_throttled", false);
  const json environment = header.value("environment", json::object());
  const json telemetry_channels =
      environment.value("telemetry", json::object()).value("channels", json::array());

  // Energy per phase needs the telemetry rows around each request (whole-chip energy source).
  const std::optional<EnergySeries> energy =
      options.power_log != nullptr   ? std::optional<EnergySeries>(*options.power_log)
      : options.telemetry == nullptr ? std::nullopt
                                     : energy_series(telemetry_channels, *options.telemetry);
  // The idle baseline (bench --idle-baseline-s): mean power over the idle window before the run,
  // subtracted from each phase's energy when the plan asks for it (--subtract-idle).
  json energy_summary = {
      {"source", energy ? json(energy->channel) : json(nullptr)},
      {"power_log", options.power_log_info.is_null() ? json(nullptr) : options.power_log_info},
      {"idle_baseline", nullptr},
      {"subtract_idle", settings.value("subtract_idle", false)}};
  std::optional<double> baseline_mw;
  if (const json idle = environment.value("idle_baseline", json(nullptr));
      energy && idle.is_object() && idle.value("t0_ns", json(nullptr)).is_number_integer() &&
      idle.value("t1_ns", json(nullptr)).is_number_integer()) {
    energy_summary["idle_baseline"] = idle_baseline(*energy, idle["t0_ns"].get<std::int64_t>(),
                                                    idle["t1_ns"].get<std::int64_t>());
    const json& mw = energy_summary["idle_baseline"]["power_mw"];
    if (settings.value("subtract_idle", false) && mw.is_number()) baseline_mw = mw.get<double>();
  }

  // Per-request metrics, computed from the raw chunk times (the journal keeps only raw data).
  std::vector<json> out_requests;
  std::vector<core::RequestMetrics> metrics(requests.size());
  out_requests.reserve(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    json r = requests[i];
    r.erase("type");
    const std::vector<core::Chunk> chunks = chunks_of(r);
    core::TimelineView tl;
    tl.t_request_ns = r.value("t_request_ns", std::int64_t{0});
    tl.t_tokenized_ns = r.value("t_tokenized_ns", std::int64_t{0});
    tl.t_submit_ns = r.value("t_submit_ns", std::int64_t{0});
    tl.t_done_ns = r.value("t_done_ns", std::int64_t{0});
    tl.prompt_tokens = r.value("prompt_tokens", 0U);
    tl.chunks = chunks;
    core::compute_request_metrics(tl, metrics[i]);
    const auto& m = metrics[i];
    r["t_first_token_ns"] = chunks.empty() ? json(nullptr) : json(chunks.front().t_ns);
    r["t_last_token_ns"] = chunks.empty() ? json(nullptr) : json(chunks.back().t_ns);
    r["multi_token_chunks"] = m.multi_token_chunks;
    r["tokenize_ms"] = num(m.tokenize_ms);
    r["ttft_ms"] = num(m.ttft_ms);
    r["ttft_e2e_ms"] = num(m.ttft_e2e_ms);
    r["prefill_tps"] = num(m.prefill_tps);
    r["tpot_ms"] = num(m.tpot_ms);
    r["e2e_ms"] = num(m.e2e_ms);
    r["blended_tps"] = num(m.blended_tps);
    if (energy) {
      r["energy"] = request_energy(*energy, tl, r.value("output_tokens", 0U), baseline_mw);
    }
    r["outlier"] = json::array();
    out_requests.push_back(std::move(r));
  }

  json strata_out = json::array();
  json notes = json::array();
  std::vector<double> decode_by_stratum, blended_by_stratum;
  for (const auto& st : header.value("strata", json::array())) {
    const auto id = st.value("id", 0U);
    const auto prompt_tokens = st.value("prompt_tokens", 0U);
    const auto output_tokens = st.value("output_tokens", 0U);
    MetricSamples ttft, ttft_e2e, tokenize, prefill, tpot, e2e, blended, itl;
    MetricSamples prefill_mj_tok, decode_mj_tok, prefill_net_mj_tok, decode_net_mj_tok;
    std::vector<std::size_t> members;  // indices into out_requests of measured ok requests
    std::uint32_t n_warmup = 0, n_failed = 0, n_short = 0, n_multi = 0, n_first_multi = 0;
    std::uint32_t n_overflow = 0, n_throttled = 0, n_discarded_throttled = 0;
    std::int64_t window_t0 = 0, window_t1 = 0;  // the stratum's time span, warm-ups included
    for (std::size_t i = 0; i < out_requests.size(); ++i) {
      const json& r = out_requests[i];
      if (r.value("stratum", 0U) != id) continue;
      const auto t_request = r.value("t_request_ns", std::int64_t{0});
      const auto t_done = std::max(r.value("t_done_ns", std::int64_t{0}), t_request);
      if (window_t0 == 0 || t_request < window_t0) window_t0 = t_request;
      window_t1 = std::max(window_t1, t_done);
      if (r.value("warmup", false)) {  // recorded, excluded from every aggregate
        ++n_warmup;
        continue;
      }
      if (!r.value("ok", false)) {
        ++n_failed;
        continue;
      }
      if (request_throttled(r)) {
        ++n_throttled;
        if (discard_throttled) {  // --discard-throttled: raw data keeps it, statistics do not
          ++n_discarded_throttled;
          continue;
        }
      }
      if (r.value("short", false)) ++n_short;
      if (r.value("overflow_chunks", 0U) > 0) ++n_overflow;
      const auto& m = metrics[i];
      members.push_back(i);
      n_multi += m.multi_token_chunks;
      if (m.first_chunk_multi_token) ++n_first_multi;
      ttft.add(m.ttft_ms);
      ttft_e2e.add(m.ttft_e2e_ms);
      tokenize.add(m.tokenize_ms);
      prefill.add(m.prefill_tps);
      tpot.add(m.tpot_ms);
      e2e.add(m.e2e_ms);
      blended.add(m.blended_tps);
      itl.add_group(m.itl_ms);
      if (const auto e = r.find("energy"); e != r.end()) {
        prefill_mj_tok.add(get_num(*e, "prefill_mj_per_token"));
        decode_mj_tok.add(get_num(*e, "decode_mj_per_token"));
        if (baseline_mw) {
          prefill_net_mj_tok.add(get_num(*e, "prefill_net_mj_per_token"));
          decode_net_mj_tok.add(get_num(*e, "decode_net_mj_per_token"));
        }
      }
    }
    const std::uint64_t stratum_seed = seed ^ (0x51ed270b27a1f5ULL * (id + 1));
    json s = {{"id", id},
              {"prompt_tokens", prompt_tokens},
              {"output_tokens", output_tokens},
              {"concurrency", st.value("concurrency", 1U)},
              {"measured", members.size()},
              {"warmup", n_warmup},
              {"failed", n_failed},
              {"short", n_short},
              {"throttled", n_throttled},
              {"discarded_throttled", n_discarded_throttled},
              {"ttft_ms", stat_object(ttft, stratum_seed + 1, resamples)},
              {"itl_ms", stat_object(itl, stratum_seed + 2, resamples)},
              {"tpot_ms", stat_object(tpot, stratum_seed + 3, resamples)},
              {"e2e_ms", stat_object(e2e, stratum_seed + 4, resamples)},
              {"tokenize_ms", stat_object(tokenize, stratum_seed + 5, resamples)},
              {"ttft_e2e_ms", stat_object(ttft_e2e, stratum_seed + 6, resamples)},
              {"prefill_tps", stat_object(prefill, stratum_seed + 7, resamples)},
              {"blended_tps", stat_object(blended, stratum_seed + 8, resamples)}};
    const double itl_p50 = get_num(s["itl_ms"], "p50");
    const double decode_tps = itl_p50 > 0 ? 1000.0 / itl_p50 : kNaN;
    s["decode_tps_p50"] = num(decode_tps);
    const json& itl_ci = s["itl_ms"]["ci95_p50"];
    if (itl_ci.is_array() && itl_ci[0].is_number() && itl_ci[1].is_number() &&
        itl_ci[0].get<double>() > 0) {
      s["decode_tps_ci95"] =
          json::array({1000.0 / itl_ci[1].get<double>(), 1000.0 / itl_ci[0].get<double>()});
    } else {
      s["decode_tps_ci95"] = nullptr;
    }
    const double prefill_p50 = get_num(s["prefill_tps"], "p50");
    s["prefill_tps_p50"] = num(prefill_p50);
    if (energy) {
      s["energy_source"] = energy->channel;
      s["prefill_mj_per_token"] = stat_object(prefill_mj_tok, stratum_seed + 9, resamples);
      s["decode_mj_per_token"] = stat_object(decode_mj_tok, stratum_seed + 10, resamples);
      if (baseline_mw) {
        s["prefill_net_mj_per_token"] =
            stat_object(prefill_net_mj_tok, stratum_seed + 11, resamples);
        s["decode_net_mj_per_token"] = stat_object(decode_net_mj_tok, stratum_seed + 12, resamples);
      }
    } else {
      s["energy_source"] = nullptr;
      s["prefill_mj_per_token"] = nullptr;
      s["decode_mj_per_token"] = nullptr;
    }
    s["multi_token_chunks"] = n_multi;
    s["first_chunk_multi_token_requests"] = n_first_multi;

    // Outliers: flagged on the request and listed here; never removed from the statistics.
    json outliers = json::object();
    bool any_outlier = false;
    for (const char* key : {"ttft_ms", "tpot_ms", "e2e_ms"}) {
      std::vector<double> values;
      std::vector<std::size_t> owners;
      for (const auto i : members) {
        const double v = get_num(out_requests[i], key);
        if (std::isfinite(v)) {
          values.push_back(v);
          owners.push_back(i);
        }
      }
      std::vector<bool> flagged = core::mad_outliers(values);
      // A near-perfectly stable series has a MAD of microseconds, and the z-score alone would
      // flag harmless sub-percent wobble; an outlier must also be materially off the median.
      const double median = core::percentile(values, 0.5);
      for (std::size_t k = 0; k < flagged.size(); ++k) {
        if (std::abs(values[k] - median) <= kOutlierMinRelativeDeviation * std::abs(median)) {
          flagged[k] = false;
        }
      }
      json list = json::array();
      for (std::size_t k = 0; k < flagged.size(); ++k) {
        if (!flagged[k]) continue;
        json& r = out_requests[owners[k]];
        list.push_back(r.value("index", 0U));
        r["outlier"].push_back(key);
        any_outlier = true;
      }
      outliers[key] = std::move(list);
    }
    s["outliers"] = std::move(outliers);

    // Physical ceilings and efficiency.
    json ceiling = ceiling_for(ceiling_inputs, prompt_tokens, output_tokens);
    const double ceil_decode = get_num(ceiling, "decode_tps");
    const double ceil_prefill = get_num(ceiling, "prefill_tps");
    const double eff_decode = ceil_decode > 0 ? decode_tps / ceil_decode : kNaN;
    const double eff_prefill = ceil_prefill > 0 ? prefill_p50 / ceil_prefill : kNaN;
    s["ceiling"] = std::move(ceiling);
    s["efficiency"] = {{"decode", num(eff_decode)}, {"prefill", num(eff_prefill)}};
    s["counters"] = stratum_counters(out_requests, members, s, settings, stratum_seed, resamples);

    json flags = json::array();
    if (std::isfinite(eff_decode) && eff_decode > kCeilingTolerance) {
      flags.push_back("exceeds_physical_ceiling");
      notes.push_back(fmt::format(
          "Stratum p={} n={}: decode {} tok/s is {:.2f}x the physical ceiling of {} tok/s "
          "({}). It is not a decode measurement, or the bandwidth or weight bytes are wrong.",
          prompt_tokens, output_tokens, fmt_tps(decode_tps), eff_decode, fmt_tps(ceil_decode),
          s["ceiling"].value("source", "unknown")));
    }
    if (std::isfinite(eff_prefill) && eff_prefill > kCeilingTolerance) {
      flags.push_back("prefill_exceeds_ceiling");
    }
    if (members.empty()) flags.push_back("no_measured_requests");
    if (n_failed > 0) flags.push_back("failed_requests");
    if (n_short > 0) flags.push_back("short_requests");
    if (n_multi > 0) flags.push_back("multi_token_chunks");
    if (n_overflow > 0) flags.push_back("chunk_buffer_overflow");
    if (any_outlier) flags.push_back("outliers");
    if (n_throttled > n_discarded_throttled) {
      flags.push_back("throttled");
      notes.push_back(fmt::format(
          "Stratum p={} n={}: {} measured requests ran while the platform throttled (a "
          "temperature over its passive trip point or a locked frequency that fell); they are in "
          "the statistics. Cool the board, or rerun with --discard-throttled to exclude them.",
          prompt_tokens, output_tokens, n_throttled - n_discarded_throttled));
    }
    s["flags"] = std::move(flags);
    s["telemetry"] =
        options.telemetry == nullptr
            ? json(nullptr)
            : stratum_series(telemetry_channels, *options.telemetry, window_t0, window_t1);

    // The explanation line: decode speed vs the confounded blended figure.
    const double blended_p50 = get_num(s["blended_tps"], "p50");
    if (std::isfinite(decode_tps) && std::isfinite(blended_p50) && decode_tps > 0 &&
        std::abs(blended_p50 - decode_tps) / decode_tps > 0.20) {
      notes.push_back(fmt::format(
          "Stratum p={} n={}: blended {} tok/s is {:.0f}% below the decode speed of {} tok/s "
          "because it folds the {}-token prefill (TTFT P50 {:.1f} ms) into one average over "
          "{} output tokens. Decode speed comes from inter-token latency only; blended tok/s is "
          "not a decode metric.",
          prompt_tokens, output_tokens, fmt_tps(blended_p50),
          100.0 * (decode_tps - blended_p50) / decode_tps, fmt_tps(decode_tps), prompt_tokens,
          get_num(s["ttft_ms"], "p50"), output_tokens));
    }
    if (std::isfinite(decode_tps) && std::isfinite(blended_p50)) {
      decode_by_stratum.push_back(decode_tps);
      blended_by_stratum.push_back(blended_p50);
    }
    strata_out.push_back(std::move(s));
  }

  if (decode_by_stratum.size() >= 2) {
    const auto [dmin, dmax] =
        std::minmax_element(decode_by_stratum.begin(), decode_by_stratum.end());
    const auto [bmin, bmax] =
        std::minmax_element(blended_by_stratum.begin(), blended_by_stratum.end());
    const double decode_spread = (*dmax - *dmin) / *dmax;
    const double blended_spread = (*bmax - *bmin) / *bmax;
    if (blended_spread > 0.20 && blended_spread > 2 * decode_spread) {
      notes.push_back(fmt::format(
          "Across strata, decode speed stays within {:.0f}% ({}-{} tok/s) while blended tok/s "
          "ranges {}-{}: a single \"tokens/s\" averaged over different prompt lengths measures "
          "the prompt length, not the device.",
          100.0 * decode_spread, fmt_tps(*dmin), fmt_tps(*dmax), fmt_tps(*bmin), fmt_tps(*bmax)));
    }
  }
  if (simulated) {
    notes.push_back(
        "SIMULATED: these numbers come from the sim engine's schedule, not from a "
        "real runtime.");
  }
  if (!options.complete) {
    notes.push_back(options.interrupted
                        ? "Interrupted: the run was stopped early; strata may be incomplete."
                        : "Incomplete: rebuilt from a journal without an end record (the run "
                          "crashed or is still going); continue it with --resume.");
  }
  if (!options.sampler_cost.is_null()) result["environment"]["sampler_cost"] = options.sampler_cost;
  result["energy"] = std::move(energy_summary);
  result["strata"] = std::move(strata_out);
  result["notes"] = std::move(notes);
  result["requests"] = std::move(out_requests);
  return result;
}

}  // namespace tokscope::report
