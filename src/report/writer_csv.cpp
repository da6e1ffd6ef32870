// The csv writer: one row per stratum under flat column names, for spreadsheets and scripts.
//
// Every column is one entry of a table (name -> JSON pointer into the stratum), and both the
// header and the rows iterate that same table, so they cannot drift apart (llama-bench's
// get_fields practice). Add a column by adding a table entry; names are a contract once shipped.
#include <array>
#include <charconv>
#include <cmath>
#include <string_view>
#include <vector>

#include "report/detail/json_access.hpp"
#include "report/writers.hpp"

namespace tokscope::report {
namespace {

using nlohmann::json;

enum class Source {
  kStratum,      // a scalar at `pointer` in the stratum object
  kStratumList,  // an array at `pointer`, its elements joined by ';'
  kSimulated,    // whether the run was simulated (document level, same value on every row)
};

struct Column {
  std::string name;
  std::string pointer;  // JSON pointer relative to the stratum; plain names, no ~ escapes
  Source source = Source::kStratum;
};

struct ColumnSpec {
  std::string_view name;
  std::string_view pointer;
};

constexpr std::array<ColumnSpec, 13> kLeading{{
    {"prompt_tokens", "/prompt_tokens"},
    {"output_tokens", "/output_tokens"},
    {"concurrency", "/concurrency"},
    {"measured", "/measured"},
    {"warmup", "/warmup"},
    {"failed", "/failed"},
    {"short", "/short"},
    {"decode_tps_p50", "/decode_tps_p50"},
    {"decode_tps_ci95_lo", "/decode_tps_ci95/0"},
    {"decode_tps_ci95_hi", "/decode_tps_ci95/1"},
    {"prefill_tps_p50", "/prefill_tps_p50"},
    {"multi_token_chunks", "/multi_token_chunks"},
    {"first_chunk_multi_token_requests", "/first_chunk_multi_token_requests"},
}};

// Each metric is a statistics object in the stratum; each gets every statistic below, named
// <metric>_<statistic> ("ttft_ms_p99", "itl_ms_ci95_p50_lo").
constexpr std::array<std::string_view, 8> kMetrics{"ttft_ms",     "itl_ms",      "tpot_ms",
                                                   "e2e_ms",      "tokenize_ms", "ttft_e2e_ms",
                                                   "prefill_tps", "blended_tps"};

constexpr std::array<ColumnSpec, 12> kStatistics{{
    {"count", "/count"},
    {"mean", "/mean"},
    {"stddev", "/stddev"},
    {"min", "/min"},
    {"p50", "/p50"},
    {"p90", "/p90"},
    {"p99", "/p99"},
    {"max", "/max"},
    {"ci95_p50_lo", "/ci95_p50/0"},
    {"ci95_p50_hi", "/ci95_p50/1"},
    {"ci95_p99_lo", "/ci95_p99/0"},
    {"ci95_p99_hi", "/ci95_p99/1"},
}};

constexpr std::array<ColumnSpec, 14> kTrailing{{
    {"ceiling_decode_tps", "/ceiling/decode_tps"},
    {"ceiling_prefill_tps", "/ceiling/prefill_tps"},
    {"ceiling_bandwidth_gbps", "/ceiling/bandwidth_gbps"},
    {"efficiency_decode", "/efficiency/decode"},
    {"efficiency_prefill", "/efficiency/prefill"},
    {"throttled", "/throttled"},
    {"discarded_throttled", "/discarded_throttled"},
    {"energy_source", "/energy_source"},
    {"prefill_mj_per_token_p50", "/prefill_mj_per_token/p50"},
    {"decode_mj_per_token_p50", "/decode_mj_per_token/p50"},
    {"decode_mj_per_token_ci95_p50_lo", "/decode_mj_per_token/ci95_p50/0"},
    {"decode_mj_per_token_ci95_p50_hi", "/decode_mj_per_token/ci95_p50/1"},
    {"prefill_net_mj_per_token_p50", "/prefill_net_mj_per_token/p50"},
    {"decode_net_mj_per_token_p50", "/decode_net_mj_per_token/p50"},
}};

// The one column table, in output order.
std::vector<Column> columns() {
  std::vector<Column> out;
  out.reserve(kLeading.size() + kMetrics.size() * kStatistics.size() + kTrailing.size() + 2);
  for (const ColumnSpec& spec : kLeading) {
    out.push_back({std::string(spec.name), std::string(spec.pointer)});
  }
  for (std::string_view metric : kMetrics) {
    for (const ColumnSpec& stat : kStatistics) {
      out.push_back({std::string(metric) + "_" + std::string(stat.name),
                     "/" + std::string(metric) + std::string(stat.pointer)});
    }
  }
  for (const ColumnSpec& spec : kTrailing) {
    out.push_back({std::string(spec.name), std::string(spec.pointer)});
  }
  out.push_back({"flags", "/flags", Source::kStratumList});
  out.push_back({"simulated", "", Source::kSimulated});
  return out;
}

// Walks a JSON pointer without throwing: nullptr as soon as a step does not exist.
const json* resolve(const json& root, std::string_view pointer) {
  const json* node = &root;
  while (node != nullptr && !pointer.empty()) {
    pointer.remove_prefix(1);  // the '/'
    const std::size_t end = pointer.find('/');
    const std::string_view token = pointer.substr(0, end);
    pointer = end == std::string_view::npos ? std::string_view() : pointer.substr(end);
    if (node->is_array()) {
      std::size_t index = 0;
      const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), index);
      if (ec != std::errc() || ptr != token.data() + token.size()) return nullptr;
      node = detail::element(node, index);
    } else {
      node = detail::child(node, token);
    }
  }
  return node;
}

// A scalar's cell text: empty for null, absent and non-finite numbers.
std::string cell_text(const json* value) {
  if (value == nullptr || value->is_null()) return "";
  if (value->is_string()) return value->get<std::string>();
  if (value->is_number_float() && !std::isfinite(value->get<double>())) return "";
  return value->dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string joined_list(const json* list) {
  if (list == nullptr || !list->is_array()) return cell_text(list);
  std::string out;
  for (const json& item : *list) {
    if (!out.empty()) out += ';';
    out += cell_text(&item);
  }
  return out;
}

// RFC 4180: a field holding a comma, a double quote or a line break is enclosed in double
// quotes, and each double quote inside it is doubled.
std::string quoted(const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  std::string out = "\"";
  for (const char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

void append_record(const std::vector<std::string>& fields, std::string& out) {
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    out += quoted(fields[i]);
  }
  out += '\n';
}

}  // namespace

std::string render_csv(const json& result) {
  const std::vector<Column> table = columns();
  std::string out;

  std::vector<std::string> fields;
  fields.reserve(table.size());
  for (const Column& column : table) fields.push_back(column.name);
  append_record(fields, out);

  const json* strata = detail::child(result, "strata");
  if (strata == nullptr || !strata->is_array()) return out;
  const std::string simulated = detail::is_simulated(result) ? "true" : "false";
  for (const json& stratum : *strata) {
    fields.clear();
    for (const Column& column : table) {
      switch (column.source) {
        case Source::kStratum:
          fields.push_back(cell_text(resolve(stratum, column.pointer)));
          break;
        case Source::kStratumList:
          fields.push_back(joined_list(resolve(stratum, column.pointer)));
          break;
        case Source::kSimulated:
          fields.push_back(simulated);
          break;
      }
    }
    append_record(fields, out);
  }
  return out;
}

}  // namespace tokscope::report
