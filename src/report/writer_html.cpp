// The html writer: the human summary (detail/summary.hpp) as one self-contained page. No
// external stylesheet, font, image or script, so the file can be mailed or archived and still
// render the same; every piece of document text is escaped.
#include <string_view>

#include "report/detail/summary.hpp"
#include "report/writers.hpp"

namespace tokscope::report {
namespace {

constexpr std::string_view kStyle = R"css(
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
.banner { padding: 0.8em 1em; margin: 1em 0; border-radius: 4px; font-weight: bold; }
.simulated { background: #fde2e1; border: 2px solid #c0392b; color: #7b1d15; }
.warning { background: #fff4d6; border: 1px solid #d4a017; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #bbb; padding: 0.3em 0.6em; }
th { background: #f0f0f0; }
td { text-align: right; font-variant-numeric: tabular-nums; }
td:last-child { text-align: left; }
.footnote, footer { font-size: 0.9em; color: #555; }
)css";

std::string escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void append_list(const std::vector<std::string>& items, std::string& out) {
  out += "<ul>\n";
  for (const std::string& item : items) out += "<li>" + escaped(item) + "</li>\n";
  out += "</ul>\n";
}

void append_table(const detail::Table& table, std::string& out) {
  out += "<table>\n<thead><tr>";
  for (const std::string& cell : table.header) out += "<th>" + escaped(cell) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const std::vector<std::string>& row : table.rows) {
    out += "<tr>";
    for (const std::string& cell : row) out += "<td>" + escaped(cell) + "</td>";
    out += "</tr>\n";
  }
  out += "</tbody>\n</table>\n";
}

}  // namespace

std::string render_html(const nlohmann::json& result) {
  const detail::SummaryView view = detail::build_summary(result);
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<title>" + escaped(view.title) + "</title>\n<style>" + std::string(kStyle) +
         "</style>\n</head>\n<body>\n";
  out += "<h1>" + escaped(view.title) + "</h1>\n";
  if (!view.simulated_banner.empty()) {
    out += "<div class=\"banner simulated\">" + escaped(view.simulated_banner) + "</div>\n";
  }
  for (const std::string& warning : view.warnings) {
    out += "<div class=\"banner warning\">" + escaped(warning) + "</div>\n";
  }
  out += "<ul>\n";
  for (const detail::Fact& fact : view.facts) {
    out += "<li><strong>" + escaped(fact.label) + ":</strong> " + escaped(fact.value) + "</li>\n";
  }
  out += "</ul>\n";

  if (view.strata.rows.empty()) {
    out += "<p>" + escaped(view.no_strata) + "</p>\n";
  } else {
    append_table(view.strata, out);
    for (const std::string& footnote : view.footnotes) {
      out += "<p class=\"footnote\">" + escaped(footnote) + "</p>\n";
    }
  }
  if (!view.stratum_notes.empty()) {
    out += "<p>Per stratum (prompt/output/concurrency):</p>\n";
    append_list(view.stratum_notes, out);
  }
  if (!view.notes.empty()) {
    out += "<h2>Notes</h2>\n";
    append_list(view.notes, out);
  }
  out += "<h2>Method</h2>\n";
  append_list(view.method, out);
  out += "<footer><p>" + escaped(view.footer) + "</p></footer>\n</body>\n</html>\n";
  return out;
}

}  // namespace tokscope::report
