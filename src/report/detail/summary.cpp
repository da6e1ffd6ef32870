#include "report/detail/summary.hpp"

#include <fmt/format.h>

#include <cmath>

#include "report/detail/json_access.hpp"

namespace tokscope::report::detail {
namespace {

using nlohmann::json;

// Text of a scalar field, treating the schema's "unknown" marker like an absent field.
std::optional<std::string> known_text(const json* j) {
  std::optional<std::string> value = text(j);
  if (value && (value->empty() || *value == "unknown")) return std::nullopt;
  return value;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const std::string& part : parts) {
    if (!out.empty()) out += separator;
    out += part;
  }
  return out;
}

// A confidence interval [lo, hi] when `ci` is an array of two finite numbers.
std::optional<std::pair<double, double>> interval(const json* ci) {
  const std::optional<double> lo = number(element(ci, 0));
  const std::optional<double> hi = number(element(ci, 1));
  if (!lo || !hi) return std::nullopt;
  return std::pair{*lo, *hi};
}

// "3.20 [3.19, 3.21]", or "3.20" without an interval, or kMissing without a value.
std::string with_ci(const json* value, const json* ci) {
  const std::optional<double> v = number(value);
  if (!v) return std::string(kMissing);
  std::string out = format_number(v);
  if (const auto range = interval(ci)) {
    out += fmt::format(" [{}, {}]", format_number(range->first), format_number(range->second));
  }
  return out;
}

// 1777088000 -> "1.78B": parameter counts read better with an SI suffix.
std::string format_magnitude(double value) {
  if (std::fabs(value) >= 1e9) return format_number(value / 1e9) + "B";
  if (std::fabs(value) >= 1e6) return format_number(value / 1e6) + "M";
  if (std::fabs(value) >= 1e3) return format_number(value / 1e3) + "k";
  return format_number(value);
}

// "[128/128/1]": the stratum's (prompt, output, concurrency) triple, used to key notes.
std::string stratum_label(const json& stratum) {
  return fmt::format("[{}/{}/{}]", format_count(number(child(stratum, "prompt_tokens"))),
                     format_count(number(child(stratum, "output_tokens"))),
                     format_count(number(child(stratum, "concurrency"))));
}

std::vector<std::string> string_list(const json* list) {
  std::vector<std::string> out;
  if (list == nullptr || !list->is_array()) return out;
  for (const json& item : *list) {
    if (std::optional<std::string> value = text(&item)) out.push_back(std::move(*value));
  }
  return out;
}

bool has_flag(const json& stratum, std::string_view flag) {
  for (const std::string& value : string_list(child(stratum, "flags"))) {
    if (value == flag) return true;
  }
  return false;
}

std::string engine_fact(const json& result) {
  const json* engine = child(result, "engine");
  std::vector<std::string> parts;
  parts.push_back(known_text(child(engine, "name")).value_or("unknown engine"));
  if (auto version = known_text(child(engine, "version"))) parts.push_back(*version);
  std::string out = join(parts, " ");
  std::vector<std::string> extras;
  if (is_simulated(result)) extras.emplace_back("SIMULATED");
  if (auto kind = known_text(child(child(engine, "schedule"), "kind"))) {
    extras.push_back("schedule: " + *kind);
  }
  if (!extras.empty()) out += " (" + join(extras, ", ") + ")";
  return out;
}

std::string quant_text(const json* quant) {
  const auto weight_bits = known_text(child(quant, "weight_bits"));
  const auto act_bits = known_text(child(quant, "act_bits"));
  std::vector<std::string> parts;
  if (weight_bits || act_bits) {
    parts.push_back(fmt::format("W{}A{}", weight_bits.value_or("?"), act_bits.value_or("?")));
  }
  if (auto group = known_text(child(quant, "group_size"))) parts.push_back("group " + *group);
  if (auto type = known_text(child(quant, "file_type"))) parts.push_back("file type " + *type);
  return parts.empty() ? "unknown" : join(parts, ", ");
}

std::string model_fact(const json& result) {
  const json* model = child(result, "model");
  std::vector<std::string> parts;
  parts.push_back(known_text(child(model, "name"))
                      .value_or(known_text(child(model, "path")).value_or("unknown model")));
  if (auto arch = known_text(child(model, "arch"))) parts.push_back("arch " + *arch);
  if (auto params = number(child(model, "params"))) {
    parts.push_back(format_magnitude(*params) + " params");
  }
  parts.push_back("quant " + quant_text(child(model, "quant")));
  if (auto bytes = number(child(model, "weight_bytes_per_token"))) {
    parts.push_back(format_number(*bytes / 1e9) + " GB of weights read per decode token");
  }
  if (is_true(child(model, "synthetic_weights"))) parts.push_back("synthetic (random) weights");
  return join(parts, ", ");
}

std::string device_fact(const json& result) {
  const json* environment = child(result, "environment");
  std::vector<std::string> parts;
  if (auto device = known_text(child(child(child(result, "engine"), "schedule"), "device"))) {
    parts.push_back("simulated device " + *device);
  }
  if (auto host = known_text(child(environment, "host"))) parts.push_back("host " + *host);
  if (auto cpu = known_text(child(environment, "cpu"))) parts.push_back("CPU " + *cpu);
  if (auto kernel = known_text(child(environment, "kernel"))) parts.push_back("kernel " + *kernel);
  return parts.empty() ? "unknown" : join(parts, ", ");
}

std::string tool_fact(const json& result) {
  const json* tool = child(result, "tool");
  std::string out = known_text(child(tool, "name")).value_or("tokscope");
  if (auto version = known_text(child(tool, "version"))) out += " " + *version;
  std::vector<std::string> build;
  if (auto commit = known_text(child(tool, "git_commit"))) build.push_back("commit " + *commit);
  if (auto type = known_text(child(tool, "build_type"))) build.push_back(*type + " build");
  if (auto sanitizer = known_text(child(tool, "sanitizer"))) build.push_back(*sanitizer);
  if (!build.empty()) out += " (" + join(build, ", ") + ")";
  if (auto created = known_text(child(result, "created_utc"))) out += ", created " + *created;
  return out;
}

std::optional<std::string> plan_fact(const json& result) {
  const json* plan = child(result, "plan");
  std::vector<std::string> parts;
  if (auto reps = number(child(plan, "repetitions"))) {
    parts.push_back(format_count(reps) + " measured requests per stratum");
  }
  if (auto warmup = number(child(plan, "warmup"))) {
    parts.push_back(format_count(warmup) + " warm-up");
  }
  if (auto seed = known_text(child(plan, "seed"))) parts.push_back("seed " + *seed);
  if (auto timeout = number(child(plan, "timeout_s"))) {
    parts.push_back("timeout " + format_number(timeout) + " s");
  }
  if (parts.empty()) return std::nullopt;
  return join(parts, ", ");
}

std::vector<std::string> warnings_of(const json& result) {
  std::vector<std::string> out;
  if (is_true(child(result, "interrupted"))) {
    out.push_back(
        "INCOMPLETE: the run was interrupted; strata after the interruption are missing or "
        "have fewer requests than planned.");
  } else if (const json* complete = child(result, "complete");
             complete != nullptr && complete->is_boolean() && !complete->get<bool>()) {
    out.push_back(
        "INCOMPLETE: this result does not cover the whole plan (rebuilt from an unfinished "
        "journal?).");
  }
  const json* tool = child(result, "tool");
  if (auto type = known_text(child(tool, "build_type"));
      type && *type != "Release" && *type != "RelWithDebInfo") {
    out.push_back(fmt::format(
        "tokscope was built as {}: harness overhead may be higher than in a Release build.",
        *type));
  }
  if (auto sanitizer = known_text(child(tool, "sanitizer"))) {
    out.push_back(fmt::format(
        "tokscope was built with sanitizer '{}': timings include its overhead.", *sanitizer));
  }
  return out;
}

// Whether any stratum has a decode ceiling: the ceiling and efficiency columns appear only then.
bool any_ceiling(const json* strata) {
  if (strata == nullptr || !strata->is_array()) return false;
  for (const json& stratum : *strata) {
    if (number(child(child(stratum, "ceiling"), "decode_tps"))) return true;
  }
  return false;
}

// Whether any stratum has energy per token (an energy channel or a power log) / throttled rows:
// their columns are shown only then, so a run without them keeps the table narrow.
bool any_energy(const json* strata) {
  if (strata == nullptr || !strata->is_array()) return false;
  for (const json& stratum : *strata) {
    if (number(child(child(stratum, "decode_mj_per_token"), "p50"))) return true;
  }
  return false;
}

bool any_throttled(const json* strata) {
  if (strata == nullptr || !strata->is_array()) return false;
  for (const json& stratum : *strata) {
    if (auto n = number(child(stratum, "throttled")); n && *n > 0) return true;
  }
  return false;
}

Table strata_table(const json* strata, bool with_ceiling) {
  const bool with_energy = any_energy(strata);
  const bool with_throttled = any_throttled(strata);
  Table table;
  table.header = {"prompt",
                  "output",
                  "conc",
                  "n",
                  "decode tok/s P50 [95% CI]",
                  "ITL P50 ms",
                  "ITL P99 ms",
                  "TTFT P50 ms",
                  "TTFT P99 ms",
                  "prefill tok/s P50",
                  "TPOT P50 ms",
                  "E2E P50 ms",
                  fmt::format("blended tok/s P50 {}", kBlendedMarker)};
  if (with_ceiling) {
    table.header.emplace_back("ceiling decode tok/s");
    table.header.emplace_back("decode efficiency");
  }
  if (with_energy) {
    table.header.emplace_back("prefill mJ/token P50");
    table.header.emplace_back("decode mJ/token P50");
  }
  if (with_throttled) table.header.emplace_back("throttled");
  table.header.emplace_back("flags");
  if (strata == nullptr || !strata->is_array()) return table;

  for (const json& stratum : *strata) {
    const json* itl = child(stratum, "itl_ms");
    const json* ttft = child(stratum, "ttft_ms");
    std::vector<std::string> row;
    row.push_back(format_count(number(child(stratum, "prompt_tokens"))));
    row.push_back(format_count(number(child(stratum, "output_tokens"))));
    row.push_back(format_count(number(child(stratum, "concurrency"))));
    std::string n = format_count(number(child(stratum, "measured")));
    if (auto failed = number(child(stratum, "failed")); failed && *failed > 0) {
      n += fmt::format(" (+{} failed)", format_count(failed));
    }
    row.push_back(std::move(n));
    row.push_back(with_ci(child(stratum, "decode_tps_p50"), child(stratum, "decode_tps_ci95")));
    row.push_back(with_ci(child(itl, "p50"), child(itl, "ci95_p50")));
    row.push_back(with_ci(child(itl, "p99"), child(itl, "ci95_p99")));
    row.push_back(with_ci(child(ttft, "p50"), child(ttft, "ci95_p50")));
    row.push_back(with_ci(child(ttft, "p99"), child(ttft, "ci95_p99")));
    row.push_back(format_number(number(child(stratum, "prefill_tps_p50"))));
    row.push_back(format_number(number(child(child(stratum, "tpot_ms"), "p50"))));
    row.push_back(format_number(number(child(child(stratum, "e2e_ms"), "p50"))));
    row.push_back(format_number(number(child(child(stratum, "blended_tps"), "p50"))));
    if (with_ceiling) {
      row.push_back(format_number(number(child(child(stratum, "ceiling"), "decode_tps"))));
      const auto efficiency = number(child(child(stratum, "efficiency"), "decode"));
      row.push_back(efficiency ? format_number(*efficiency * 100) + "%" : std::string(kMissing));
    }
    if (with_energy) {
      row.push_back(format_number(number(child(child(stratum, "prefill_mj_per_token"), "p50"))));
      row.push_back(format_number(number(child(child(stratum, "decode_mj_per_token"), "p50"))));
    }
    if (with_throttled) {
      std::string t = format_count(number(child(stratum, "throttled")));
      if (auto d = number(child(stratum, "discarded_throttled")); d && *d > 0) {
        t += fmt::format(" ({} discarded)", format_count(d));
      }
      row.push_back(std::move(t));
    }
    const std::vector<std::string> flags = string_list(child(stratum, "flags"));
    row.push_back(flags.empty() ? std::string(kMissing) : join(flags, ", "));
    table.rows.push_back(std::move(row));
  }
  return table;
}

// What a reader needs to trust or distrust one row: the ceiling's inputs (and, when the decode
// figure exceeds it, what that means), multi-token chunks, flagged outliers.
// shared_source: every stratum's ceiling has this source, printed once above the stratum notes.
std::vector<std::string> notes_of_stratum(const json& stratum,
                                          const std::optional<std::string>& shared_source) {
  std::vector<std::string> out;
  const std::string label = stratum_label(stratum);

  const json* ceiling = child(stratum, "ceiling");
  const auto ceiling_decode = number(child(ceiling, "decode_tps"));
  const auto bandwidth = number(child(ceiling, "bandwidth_gbps"));
  const auto source = known_text(child(ceiling, "source"));
  if (ceiling_decode) {
    std::string line =
        fmt::format("{} decode ceiling {} tok/s", label, format_number(ceiling_decode));
    if (bandwidth)
      line += fmt::format(" from {} GB/s of memory bandwidth", format_number(bandwidth));
    if (auto context = number(child(ceiling, "context_tokens"))) {
      line += fmt::format(" at a context of {} tokens", format_count(context));
    }
    if (source && !shared_source) line += fmt::format("; source: {}", *source);
    out.push_back(line + ".");
  } else if (source && !shared_source) {
    out.push_back(fmt::format("{} no physical ceiling: {}.", label, *source));
  }
  if (has_flag(stratum, "exceeds_physical_ceiling")) {
    out.push_back(fmt::format(
        "{} decode {} tok/s exceeds the physical ceiling of {} tok/s: it is not a decode "
        "measurement, or the bandwidth or the weight bytes used for the ceiling are wrong.",
        label, format_number(number(child(stratum, "decode_tps_p50"))),
        format_number(ceiling_decode)));
  }

  if (auto chunks = number(child(stratum, "multi_token_chunks")); chunks && *chunks > 0) {
    out.push_back(fmt::format(
        "{} {} chunks carried more than one token; the interval before each was split evenly "
        "over its tokens for ITL.",
        label, format_count(chunks)));
  }
  if (auto first = number(child(stratum, "first_chunk_multi_token_requests"));
      first && *first > 0) {
    out.push_back(fmt::format(
        "{} {} requests got several tokens in their first chunk: TTFT stops at that chunk and "
        "its extra tokens count as ITL 0.",
        label, format_count(first)));
  }

  if (const json* outliers = child(stratum, "outliers");
      outliers != nullptr && outliers->is_object()) {
    std::vector<std::string> parts;
    for (const auto& [metric, indices] : outliers->items()) {
      const std::vector<std::string> list = string_list(&indices);
      if (!list.empty()) parts.push_back(fmt::format("{} requests {}", metric, join(list, ", ")));
    }
    if (!parts.empty()) {
      out.push_back(fmt::format("{} outliers flagged (kept in the aggregates): {}.", label,
                                join(parts, "; ")));
    }
  }
  return out;
}

std::vector<std::string> method_of(const json& result) {
  const json* statistics = child(result, "statistics");
  std::vector<std::string> out;
  out.push_back(
      "n = measured requests (warm-up excluded). Decode tok/s = 1000 / ITL P50, where ITL "
      "covers decode intervals only (TTFT never included); prefill tok/s = median over "
      "requests of prompt tokens / TTFT; TTFT excludes tokenization.");
  out.push_back("Percentiles: " +
                known_text(child(statistics, "percentile_method")).value_or("method not recorded") +
                ".");
  const auto level = number(child(statistics, "confidence_level"));
  const auto resamples = number(child(statistics, "bootstrap_resamples"));
  if (level || resamples) {
    std::string line =
        fmt::format("Confidence intervals: {}% percentile bootstrap of P50 and P99 (ITL and TTFT)",
                    level ? fmt::format("{:g}", *level * 100) : std::string("95"));
    if (resamples) line += fmt::format(", {} resamples", format_count(resamples));
    if (auto seed = known_text(child(statistics, "bootstrap_seed"))) line += ", seed " + *seed;
    if (auto unit = known_text(child(statistics, "bootstrap_unit"))) {
      line += ", resampling whole " + *unit + "s";
    }
    out.push_back(line + ".");
  } else {
    out.push_back("Confidence intervals: not recorded.");
  }
  if (auto rule = known_text(child(statistics, "outlier_rule"))) {
    out.push_back("Outliers: " + *rule + ".");
  }
  if (auto warmup = number(child(child(result, "plan"), "warmup"))) {
    out.push_back(fmt::format(
        "Warm-up requests (the first {} of each stratum) are kept in the raw data and excluded "
        "from every aggregate.",
        format_count(warmup)));
  }
  return out;
}

}  // namespace

std::string format_number(std::optional<double> value) {
  if (!value || !std::isfinite(*value)) return std::string(kMissing);
  const double x = *value;
  const double magnitude = std::fabs(x);
  if (magnitude == 0) return "0";
  if (magnitude >= 100) return fmt::format("{:.0f}", x);
  if (magnitude >= 10) return fmt::format("{:.1f}", x);
  if (magnitude >= 1) return fmt::format("{:.2f}", x);
  if (magnitude >= 0.001) {
    // Three significant digits: 0.5 -> "0.500", 0.0123 -> "0.0123".
    const int decimals = 2 - static_cast<int>(std::floor(std::log10(magnitude)));
    return fmt::format("{:.{}f}", x, decimals);
  }
  return fmt::format("{:.2e}", x);
}

std::string format_count(std::optional<double> value) {
  if (!value || !std::isfinite(*value)) return std::string(kMissing);
  return fmt::format("{:.0f}", *value);
}

SummaryView build_summary(const json& result) {
  SummaryView view;
  const bool simulated = is_simulated(result);
  view.title = simulated ? "SIMULATED: tokscope benchmark result" : "tokscope benchmark result";
  if (simulated) {
    view.simulated_banner =
        "SIMULATED run: every number below comes from the sim engine's schedule, not from "
        "inference on hardware.";
  }
  view.warnings = warnings_of(result);

  view.facts.push_back({"Engine", engine_fact(result)});
  view.facts.push_back({"Model", model_fact(result)});
  view.facts.push_back({"Device", device_fact(result)});
  view.facts.push_back({"Tool", tool_fact(result)});
  if (auto plan = plan_fact(result)) view.facts.push_back({"Plan", *plan});

  const json* strata = child(result, "strata");
  view.strata = strata_table(strata, any_ceiling(strata));
  view.no_strata =
      "No strata in this result (an interrupted run or a partial journal can have none).";
  view.footnotes.push_back(fmt::format(
      "{} blended tok/s = output tokens / end-to-end time, prefill and decode folded together: "
      "not a decode metric. It moves with prompt length (mostly decode for short prompts, "
      "mostly prefill for long ones), which is how one board was reported at both 42 and "
      "8.5 tok/s. Compare decode tok/s instead.",
      kBlendedMarker));

  if (strata != nullptr && strata->is_array()) {
    // One ceiling source for every stratum (the usual case) is printed once, not per row.
    std::optional<std::string> shared_source;
    for (const json& stratum : *strata) {
      const auto source = known_text(child(child(&stratum, "ceiling"), "source"));
      if (!source || (shared_source && *shared_source != *source)) {
        shared_source.reset();
        break;
      }
      shared_source = source;
    }
    if (shared_source) {
      const bool has_ceiling = any_ceiling(strata);
      view.stratum_notes.push_back(fmt::format(
          "{} {}.",
          has_ceiling ? "Ceiling inputs (all strata):" : "No physical ceiling (all strata):",
          *shared_source));
    }
    for (const json& stratum : *strata) {
      for (std::string& line : notes_of_stratum(stratum, shared_source)) {
        view.stratum_notes.push_back(std::move(line));
      }
    }
  }
  view.notes = string_list(child(result, "notes"));
  view.method = method_of(result);
  view.footer =
      "Metric definitions and why they are defined so: docs/metrics.md. Every field of the "
      "result document: docs/result-schema.md.";
  return view;
}

}  // namespace tokscope::report::detail
