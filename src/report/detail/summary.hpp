// The human-readable summary of a result: what the md and html writers show, built once so the
// two cannot drift. Every string here is plain text (no markup, no escaping); each writer adds
// its own markup and escapes what it must.
//
// Content rules (spec/metrics.md): one table row per stratum, never one number for several
// strata; headline metrics first; blended tok/s carries a footnote saying it is not a decode
// metric; a simulated run says SIMULATED in the title and in a banner.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tokscope::report::detail {

// Shown for a number that is null, absent or not finite.
inline constexpr std::string_view kMissing = "–";

// Footnote marker of the blended tok/s column, and the footnote's text (it begins with it).
inline constexpr std::string_view kBlendedMarker = "¹";

struct Fact {
  std::string label;  // "Engine", "Model", ...
  std::string value;
};

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // each row has header.size() cells
};

struct SummaryView {
  std::string title;                       // first line of the document
  std::string simulated_banner;            // empty unless the run was simulated
  std::vector<std::string> warnings;       // incomplete run, non-release build, ...
  std::vector<Fact> facts;                 // engine, model, device, tool, plan
  Table strata;                            // one row per stratum, in document order
  std::string no_strata;                   // said instead of the table when there are no rows
  std::vector<std::string> footnotes;      // keyed to markers in the table header
  std::vector<std::string> stratum_notes;  // ceilings, multi-token chunks, outliers
  std::vector<std::string> notes;          // the result's own "notes", verbatim
  std::vector<std::string> method;         // percentile method, bootstrap, warm-up
  std::string footer;
};

// Never throws on a partial document (see json_access.hpp); absent parts become kMissing cells
// or are left out.
SummaryView build_summary(const nlohmann::json& result);

// About three significant digits, fixed notation for everyday magnitudes: 20000, 512, 42.0,
// 3.20, 0.0123; scientific below 0.001. kMissing for nullopt.
std::string format_number(std::optional<double> value);

// A count (tokens, requests): no decimals. kMissing for nullopt.
std::string format_count(std::optional<double> value);

}  // namespace tokscope::report::detail
