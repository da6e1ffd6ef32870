// Tests of the result writers (src/report/writers.hpp) and the -o format names. The result is
// built here, small and with nulls where a partial journal would leave them, so every assertion
// can be checked against the document by eye.
#include "report/writers.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "report/detail/summary.hpp"
#include "report/format.hpp"

namespace tokscope::report {
namespace {

using nlohmann::json;

json stat(double p50, double p99, json ci50 = nullptr, json ci99 = nullptr) {
  return {{"count", 10},
          {"mean", p50},
          {"stddev", 0.1},
          {"min", p50 * 0.9},
          {"p50", p50},
          {"p90", p99 * 0.95},
          {"p99", p99},
          {"max", p99},
          {"ci95_p50", std::move(ci50)},
          {"ci95_p99", std::move(ci99)}};
}

json empty_stat() {
  return {{"count", 0},          {"mean", nullptr},    {"stddev", nullptr}, {"min", nullptr},
          {"p50", nullptr},      {"p90", nullptr},     {"p99", nullptr},    {"max", nullptr},
          {"ci95_p50", nullptr}, {"ci95_p99", nullptr}};
}

// Two strata: the first complete, with a ceiling it exceeds and a flag holding a comma and a
// quote; the second rebuilt from a partial journal (no decode samples, nulls everywhere).
json sample_result() {
  json first = {
      {"id", 0},
      {"prompt_tokens", 128},
      {"output_tokens", 64},
      {"concurrency", 1},
      {"measured", 10},
      {"warmup", 3},
      {"failed", 0},
      {"short", 0},
      {"ttft_ms", stat(120.6, 140.25, json::array({118.0, 122.0}), json::array({135.0, 150.0}))},
      {"itl_ms", stat(23.8, 30.1, json::array({23.5, 24.1}))},
      {"tpot_ms", stat(24.0, 29.0)},
      {"e2e_ms", stat(1632.0, 1700.0)},
      {"tokenize_ms", stat(0.8, 1.2)},
      {"ttft_e2e_ms", stat(121.3, 141.0)},
      {"prefill_tps", stat(1062.0, 1100.0)},
      {"blended_tps", stat(39.2, 41.0)},
      {"decode_tps_p50", 42.0},
      {"decode_tps_ci95", json::array({41.5, 42.6})},
      {"prefill_tps_p50", 1062.0},
      {"multi_token_chunks", 2},
      {"first_chunk_multi_token_requests", 0},
      {"outliers", {{"ttft_ms", json::array({4})}, {"e2e_ms", json::array()}}},
      {"ceiling",
       {{"decode_tps", 31.0},
        {"prefill_tps", 900.0},
        {"bandwidth_gbps", 33.8},
        {"context_tokens", 192},
        {"source", "device profile rk3588-npu"}}},
      {"efficiency", {{"decode", 1.35}, {"prefill", 1.18}}},
      {"flags", json::array({"exceeds_physical_ceiling", "throttled, hot", "say \"hi\""})}};
  json second = {{"id", 1},
                 {"prompt_tokens", 512},
                 {"output_tokens", 64},
                 {"concurrency", 1},
                 {"measured", 1},
                 {"warmup", 3},
                 {"failed", 2},
                 {"ttft_ms", stat(480.0, 480.0)},
                 {"itl_ms", empty_stat()},
                 {"tpot_ms", empty_stat()},
                 {"decode_tps_p50", nullptr},
                 {"prefill_tps_p50", 1066.7},
                 {"ceiling", {{"decode_tps", nullptr}, {"source", "unknown: no bandwidth"}}},
                 {"efficiency", nullptr},
                 {"flags", json::array({"few_samples"})}};
  json requests = json::array();
  for (int i = 0; i < 3; ++i) {
    requests.push_back({{"stratum", 0},
                        {"index", i},
                        {"warmup", i == 0},
                        {"ok", true},
                        {"error", nullptr},
                        {"prompt_tokens", 128},
                        {"output_tokens", 64},
                        {"ttft_ms", 120.0 + i}});
  }
  requests.push_back({{"stratum", 1},
                      {"index", 0},
                      {"warmup", false},
                      {"ok", false},
                      {"error", "engine said: no"},
                      {"prompt_tokens", 512},
                      {"output_tokens", 3},
                      {"ttft_ms", nullptr}});
  return {{"schema", "tokscope.result/1"},
          {"tool",
           {{"name", "tokscope"},
            {"version", "0.1.0"},
            {"git_commit", "abc123"},
            {"build_type", "Release"},
            {"sanitizer", ""}}},
          {"created_utc", "2026-11-30T10:00:00Z"},
          {"simulated", true},
          {"complete", true},
          {"interrupted", false},
          {"engine", {{"name", "sim"}, {"version", "0.1.0"}, {"simulated", true}}},
          {"model",
           {{"path", nullptr},
            {"name", "qwen-1.5b"},
            {"arch", "qwen2"},
            {"params", 1777088000},
            {"quant",
             {{"weight_bits", 4},
              {"act_bits", 16},
              {"group_size", "g128"},
              {"file_type", "unknown"}}}}},
          {"environment", {{"host", "board"}, {"cpu", nullptr}}},
          {"plan", {{"warmup", 3}, {"repetitions", 10}, {"seed", 42}}},
          {"statistics",
           {{"percentile_method", "Hyndman-Fan type 7"},
            {"bootstrap_resamples", 1000},
            {"bootstrap_seed", 42},
            {"confidence_level", 0.95},
            {"bootstrap_unit", "request"}}},
          {"strata", json::array({first, second})},
          {"notes", json::array({"decode is a < b & c"})},
          {"requests", requests}};
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// RFC 4180 reader for the test: records of fields, honouring quotes and doubled quotes.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool in_quotes = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_quotes) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        in_quotes = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      in_quotes = true;
    } else if (c == ',') {
      record.push_back(field);
      field.clear();
    } else if (c == '\n') {
      record.push_back(field);
      field.clear();
      records.push_back(record);
      record.clear();
    } else {
      field += c;
    }
  }
  EXPECT_FALSE(in_quotes) << "unterminated quoted field";
  EXPECT_TRUE(field.empty() && record.empty()) << "last record lacks its line break";
  return records;
}

std::size_t column_index(const std::vector<std::string>& header, const std::string& name) {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  ADD_FAILURE() << "no column " << name;
  return 0;
}

TEST(Format, ParsesEveryNameAndRoundTrips) {
  for (const Format f : {Format::kMd, Format::kJson, Format::kJsonl, Format::kCsv, Format::kHtml}) {
    const Expected<Format> parsed = parse_format(to_string(f));
    ASSERT_TRUE(parsed.ok()) << to_string(f);
    EXPECT_EQ(*parsed, f);
  }
  EXPECT_EQ(to_string(Format::kJsonl), "jsonl");
}

TEST(Format, UnknownNameIsUsageErrorNamingTheFlagAndValues) {
  const Expected<Format> parsed = parse_format("xml");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().kind, ErrorKind::kUsage);
  EXPECT_NE(parsed.error().message.find("-o"), std::string::npos);
  EXPECT_NE(parsed.error().message.find("'xml'"), std::string::npos);
  EXPECT_NE(parsed.error().message.find("md, json, jsonl, csv, html"), std::string::npos);
  EXPECT_FALSE(parse_format("MD").ok());
  EXPECT_FALSE(parse_format("").ok());
}

TEST(Markdown, OneRowPerStratumWithHeadlineMetrics) {
  const std::string md = render_md(sample_result());
  int rows = 0;
  for (const std::string& line : lines_of(md)) {
    if (line.rfind("| 128 | 64 | 1 | 10 |", 0) == 0 ||
        line.rfind("| 512 | 64 | 1 | 1 (+2", 0) == 0) {
      ++rows;
    }
  }
  EXPECT_EQ(rows, 2) << md;
  EXPECT_NE(md.find("| 42.0 [41.5, 42.6] | 23.8 [23.5, 24.1] | 30.1 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 121 [118, 122] | 140 [135, 150] |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 1 (+2 failed) | – | – |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 31.0 | 135% | exceeds_physical_ceiling, throttled, hot, say \"hi\" |"),
            std::string::npos)
      << md;
  // The decode column comes before every other throughput column.
  EXPECT_LT(md.find("decode tok/s P50"), md.find("prefill tok/s P50"));
  EXPECT_LT(md.find("prefill tok/s P50"), md.find("blended tok/s P50"));
}

TEST(Markdown, SaysSimulatedAndFootnotesBlended) {
  const std::string md = render_md(sample_result());
  EXPECT_EQ(md.rfind("# SIMULATED", 0), 0U) << md;
  EXPECT_NE(md.find("blended tok/s P50 ¹"), std::string::npos);
  EXPECT_NE(md.find("¹ blended tok/s"), std::string::npos);
  EXPECT_NE(md.find("not a decode metric"), std::string::npos);
  EXPECT_NE(md.find("- decode is a < b & c"), std::string::npos);
  EXPECT_NE(md.find("Hyndman-Fan type 7"), std::string::npos);
  EXPECT_NE(md.find("1000 resamples"), std::string::npos);
  EXPECT_NE(md.find("docs/metrics.md"), std::string::npos);
  EXPECT_NE(md.find("exceeds the physical ceiling of 31.0 tok/s"), std::string::npos);
  EXPECT_NE(md.find("33.8 GB/s"), std::string::npos);
  EXPECT_NE(md.find("2 chunks carried more than one token"), std::string::npos);
  EXPECT_NE(md.find("ttft_ms requests 4"), std::string::npos);
  EXPECT_NE(md.find("[512/64/1] no physical ceiling: unknown: no bandwidth."), std::string::npos);
  EXPECT_NE(md.find("W4A16, group g128"), std::string::npos);
  EXPECT_EQ(md.find("file type unknown"), std::string::npos) << "unknown is not a value";
}

TEST(Markdown, SimulatedFromEngineCopyAloneAndAbsentOtherwise) {
  json result = sample_result();
  result.erase("simulated");
  EXPECT_NE(render_md(result).find("SIMULATED"), std::string::npos);
  result["engine"]["simulated"] = false;
  const std::string md = render_md(result);
  EXPECT_EQ(md.find("SIMULATED"), std::string::npos) << md;
  EXPECT_EQ(md.rfind("# tokscope benchmark result", 0), 0U);
}

TEST(Markdown, PipesInCellsAreEscaped) {
  json result = sample_result();
  result["strata"][1]["flags"] = json::array({"a|b"});
  EXPECT_NE(render_md(result).find("| a\\|b |"), std::string::npos);
}

TEST(Markdown, IncompleteRunIsSaidAndEmptyStrataExplained) {
  json result = sample_result();
  result["complete"] = false;
  result["interrupted"] = true;
  result["strata"] = json::array();
  const std::string md = render_md(result);
  EXPECT_NE(md.find("INCOMPLETE"), std::string::npos);
  EXPECT_NE(md.find("No strata in this result"), std::string::npos);
  EXPECT_EQ(md.find("| prompt |"), std::string::npos);
}

TEST(Csv, HeaderAndRowsHaveTheSameColumnsAndQuoting) {
  const std::string csv = render_csv(sample_result());
  const auto records = parse_csv(csv);
  ASSERT_EQ(records.size(), 3U) << csv;  // header + one row per stratum
  const std::vector<std::string>& header = records[0];
  for (const auto& record : records) EXPECT_EQ(record.size(), header.size());
  EXPECT_EQ(header.front(), "prompt_tokens");
  EXPECT_EQ(header.back(), "simulated");

  EXPECT_EQ(records[1][column_index(header, "flags")],
            "exceeds_physical_ceiling;throttled, hot;say \"hi\"");
  EXPECT_NE(csv.find(",\"exceeds_physical_ceiling;throttled, hot;say \"\"hi\"\"\","),
            std::string::npos)
      << csv;
  EXPECT_EQ(records[1][column_index(header, "decode_tps_p50")], "42.0");
  EXPECT_EQ(records[1][column_index(header, "ttft_ms_ci95_p99_hi")], "150.0");
  EXPECT_EQ(records[1][column_index(header, "itl_ms_ci95_p99_lo")], "");
  EXPECT_EQ(records[1][column_index(header, "efficiency_decode")], "1.35");
  EXPECT_EQ(records[1][column_index(header, "simulated")], "true");
  EXPECT_EQ(records[2][column_index(header, "prompt_tokens")], "512");
  EXPECT_EQ(records[2][column_index(header, "itl_ms_count")], "0");
  EXPECT_EQ(records[2][column_index(header, "itl_ms_p50")], "");
  EXPECT_EQ(records[2][column_index(header, "blended_tps_p50")], "");  // absent metric
  EXPECT_EQ(records[2][column_index(header, "efficiency_decode")], "");
}

TEST(Csv, HasEveryStatisticOfEveryMetric) {
  const auto records = parse_csv(render_csv(json::object()));
  ASSERT_EQ(records.size(), 1U);
  const std::vector<std::string>& header = records[0];
  for (const char* metric : {"ttft_ms", "itl_ms", "tpot_ms", "e2e_ms", "tokenize_ms", "ttft_e2e_ms",
                             "prefill_tps", "blended_tps"}) {
    for (const char* statistic : {"count", "mean", "stddev", "min", "p50", "p90", "p99", "max",
                                  "ci95_p50_lo", "ci95_p50_hi", "ci95_p99_lo", "ci95_p99_hi"}) {
      column_index(header, std::string(metric) + "_" + statistic);
    }
  }
  for (const char* name : {"output_tokens", "concurrency", "measured", "warmup", "failed",
                           "prefill_tps_p50", "ceiling_decode_tps", "flags"}) {
    column_index(header, name);
  }
}

TEST(Md, EnergyAndThrottledColumnsAppearOnlyWhenAStratumHasThem) {
  json result = sample_result();
  const std::string plain = render_md(result);
  EXPECT_EQ(plain.find("decode mJ/token P50"), std::string::npos);
  EXPECT_EQ(plain.find("| throttled"), std::string::npos);
  result["strata"][0]["decode_mj_per_token"] = stat(41.5, 44.0);
  result["strata"][0]["prefill_mj_per_token"] = stat(0.25, 0.3);
  result["strata"][0]["throttled"] = 4;
  result["strata"][0]["discarded_throttled"] = 4;
  const std::string md = render_md(result);
  EXPECT_NE(md.find("decode mJ/token P50"), std::string::npos) << md;
  EXPECT_NE(md.find("41.5"), std::string::npos) << md;
  EXPECT_NE(md.find("4 (4 discarded)"), std::string::npos) << md;
}

TEST(Csv, EnergyAndThrottledColumns) {
  json result = sample_result();
  result["strata"][0]["decode_mj_per_token"] = stat(41.5, 44.0, json::array({40.0, 43.0}));
  result["strata"][0]["energy_source"] = "rapl.package-0.energy_uj";
  result["strata"][0]["throttled"] = 2;
  const auto records = parse_csv(render_csv(result));
  const std::vector<std::string>& header = records[0];
  EXPECT_EQ(records[1][column_index(header, "decode_mj_per_token_p50")], "41.5");
  EXPECT_EQ(records[1][column_index(header, "decode_mj_per_token_ci95_p50_lo")], "40.0");
  EXPECT_EQ(records[1][column_index(header, "energy_source")], "rapl.package-0.energy_uj");
  EXPECT_EQ(records[1][column_index(header, "throttled")], "2");
  EXPECT_EQ(records[2][column_index(header, "decode_mj_per_token_p50")], "");
}

TEST(Jsonl, OneParseableLinePerRequestWithStratumAndSimulated) {
  const std::string jsonl = render_jsonl(sample_result());
  const std::vector<std::string> lines = lines_of(jsonl);
  ASSERT_EQ(lines.size(), 4U) << jsonl;
  EXPECT_EQ(jsonl.back(), '\n');
  for (const std::string& line : lines) {
    const json request = json::parse(line);  // throws, failing the test, on a bad line
    EXPECT_EQ(request["simulated"], true);
  }
  const json first = json::parse(lines[0]);
  EXPECT_EQ(first["stratum_prompt_tokens"], 128);
  EXPECT_EQ(first["stratum_output_tokens"], 64);
  EXPECT_EQ(first["stratum_concurrency"], 1);
  EXPECT_EQ(first["warmup"], true);
  const json failed = json::parse(lines[3]);
  EXPECT_EQ(failed["stratum_prompt_tokens"], 512);
  EXPECT_EQ(failed["output_tokens"], 3);  // the request's own count is kept
  EXPECT_EQ(failed["error"], "engine said: no");
}

TEST(Jsonl, UnknownStratumGivesNullsAndNonObjectsAreSkipped) {
  json result = sample_result();
  result["requests"] = json::array({{{"stratum", 7}}, 3, "x", {{"index", 1}}});
  const std::vector<std::string> lines = lines_of(render_jsonl(result));
  ASSERT_EQ(lines.size(), 2U);
  const json orphan = json::parse(lines[0]);
  EXPECT_TRUE(orphan["stratum_prompt_tokens"].is_null());
  EXPECT_TRUE(orphan["stratum_concurrency"].is_null());
}

TEST(Json, RoundTripsPrettyWithTrailingNewline) {
  const json result = sample_result();
  const std::string text = render_json(result);
  EXPECT_EQ(json::parse(text), result);
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.rfind("{\n  \"complete\": true,", 0), 0U) << text.substr(0, 60);
}

TEST(Json, InvalidUtf8IsReplacedNotThrown) {
  json result = sample_result();
  result["notes"] = json::array({std::string("bad \xff byte")});
  std::string text;
  EXPECT_NO_THROW(text = render_json(result));
  EXPECT_NE(text.find("bad \xEF\xBF\xBD byte"), std::string::npos);
  EXPECT_NO_THROW(static_cast<void>(render_jsonl(result)));
}

TEST(Html, EscapesAndSaysSimulatedWithoutExternalAssets) {
  const std::string html = render_html(sample_result());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0U);
  EXPECT_NE(html.find("SIMULATED"), std::string::npos);
  EXPECT_NE(html.find("class=\"banner simulated\""), std::string::npos);
  EXPECT_NE(html.find("decode is a &lt; b &amp; c"), std::string::npos);
  EXPECT_EQ(html.find("a < b"), std::string::npos);
  EXPECT_NE(html.find("say &quot;hi&quot;"), std::string::npos);
  EXPECT_NE(html.find("not a decode metric"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos);
  int rows = 0;
  for (std::size_t at = html.find("<tr><td>"); at != std::string::npos;
       at = html.find("<tr><td>", at + 1)) {
    ++rows;
  }
  EXPECT_EQ(rows, 2);
}

TEST(Writers, PartialDocumentsNeverCrashAnyFormat) {
  const std::vector<json> documents = {
      json(nullptr),
      json::object(),
      json::array({1, 2}),
      json{{"strata", "not an array"}, {"requests", 5}, {"notes", {{"a", 1}}}},
      json{{"strata", json::array({json::object(), nullptr, 3, json::array()})},
           {"requests", json::array({json::object(), {{"stratum", "zero"}}})}},
      json{{"strata", json::array({{{"ttft_ms", nullptr},
                                    {"itl_ms", {{"ci95_p50", json::array({1})}}},
                                    {"flags", "oops"},
                                    {"outliers", json::array()},
                                    {"ceiling", 5},
                                    {"decode_tps_p50", std::nan("")}}})},
           {"requests", json::array({{{"stratum", 1e30}}, {{"stratum", -1}}})}},
  };
  for (const json& document : documents) {
    for (const Format f :
         {Format::kMd, Format::kJson, Format::kJsonl, Format::kCsv, Format::kHtml}) {
      EXPECT_NO_THROW(static_cast<void>(render(document, f)))
          << to_string(f) << " on " << document.dump();
    }
  }
  const std::string md = render_md(documents[5]);
  EXPECT_NE(md.find("| – | – | – |"), std::string::npos) << md;
}

TEST(Writers, DispatchMatchesTheFormatFunctions) {
  const json result = sample_result();
  EXPECT_EQ(render(result, Format::kMd), render_md(result));
  EXPECT_EQ(render(result, Format::kJson), render_json(result));
  EXPECT_EQ(render(result, Format::kJsonl), render_jsonl(result));
  EXPECT_EQ(render(result, Format::kCsv), render_csv(result));
  EXPECT_EQ(render(result, Format::kHtml), render_html(result));
}

TEST(NumberFormat, ThreeSignificantDigitsAndDashForMissing) {
  using detail::format_number;
  EXPECT_EQ(format_number(20000.4), "20000");
  EXPECT_EQ(format_number(512.0), "512");
  EXPECT_EQ(format_number(42.04), "42.0");
  EXPECT_EQ(format_number(3.2), "3.20");
  EXPECT_EQ(format_number(0.5), "0.500");
  EXPECT_EQ(format_number(0.0123), "0.0123");
  EXPECT_EQ(format_number(0.0), "0");
  EXPECT_EQ(format_number(-3.2), "-3.20");
  EXPECT_EQ(format_number(std::nullopt), "–");
  EXPECT_EQ(format_number(std::nan("")), "–");
  EXPECT_EQ(detail::format_count(3.0), "3");
}

}  // namespace
}  // namespace tokscope::report
