// Result writers: the result document (schema "tokscope.result/1", docs/result-schema.md) in,
// the bytes of one output format out.
//
// Contract: pure functions. No I/O, no clock, no globals; where the bytes go (stdout, --out
// FILE) is the caller's business (practice 6 of the style anchors). Every writer renders from
// the same document, so formats cannot disagree on a number. None throws or crashes on a partial
// document (no strata, no requests, null statistics, missing sections): what is absent is shown
// as absent. Every output of a simulated run says so (md/html: "SIMULATED" in title and banner;
// json: the document's own fields; jsonl/csv: a "simulated" field on every line).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report/format.hpp"

namespace tokscope::report {

// Dispatches to the writer of `format`.
std::string render(const nlohmann::json& result, Format format);

// Markdown: title, engine/model/device lines, one table row per stratum with the headline
// metrics first, the result's notes, the statistical method and a footer pointing to
// docs/metrics.md.
std::string render_md(const nlohmann::json& result);

// The document pretty-printed with a 2-space indent and a trailing newline. Invalid UTF-8 in a
// string (an engine's error text, say) is replaced by U+FFFD rather than aborting the write.
std::string render_json(const nlohmann::json& result);

// One compact JSON object per line, one line per entry of "requests" (warm-up and failed ones
// included, as recorded), each augmented with "simulated" and its stratum's
// "stratum_prompt_tokens", "stratum_output_tokens" and "stratum_concurrency" (null when the
// stratum is not in the document). Non-object entries are skipped.
std::string render_jsonl(const nlohmann::json& result);

// A header row of flat column names, then one row per stratum. Columns come from one table, so
// header and rows cannot drift. RFC 4180 quoting; records end in "\n".
std::string render_csv(const nlohmann::json& result);

// A self-contained HTML page (inline CSS, no external assets, no scripts) with the md content.
std::string render_html(const nlohmann::json& result);

}  // namespace tokscope::report
