// The md writer: the human summary (detail/summary.hpp) as GitHub-flavoured Markdown.
#include <string_view>

#include "report/detail/summary.hpp"
#include "report/writers.hpp"

namespace tokscope::report {
namespace {

// Table cells and list items are single lines: a '|' would end the cell and a line break the
// row, so both are neutralised.
std::string inline_text(std::string_view text, bool in_table) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '\n' || c == '\r') {
      out += ' ';
    } else if (c == '|' && in_table) {
      out += "\\|";
    } else {
      out += c;
    }
  }
  return out;
}

void append_row(const std::vector<std::string>& cells, std::string& out) {
  out += '|';
  for (const std::string& cell : cells) {
    out += ' ';
    out += inline_text(cell, true);
    out += " |";
  }
  out += '\n';
}

void append_list(const std::vector<std::string>& items, std::string& out) {
  for (const std::string& item : items) {
    out += "- ";
    out += inline_text(item, false);
    out += '\n';
  }
}

}  // namespace

std::string render_md(const nlohmann::json& result) {
  const detail::SummaryView view = detail::build_summary(result);
  std::string out = "# " + view.title + "\n\n";
  if (!view.simulated_banner.empty()) out += "> **" + view.simulated_banner + "**\n\n";
  for (const std::string& warning : view.warnings) {
    out += "> " + inline_text(warning, false) + "\n\n";
  }
  for (const detail::Fact& fact : view.facts) {
    out += "- **" + fact.label + ":** " + inline_text(fact.value, false) + "\n";
  }
  out += '\n';

  if (view.strata.rows.empty()) {
    out += view.no_strata + "\n\n";
  } else {
    append_row(view.strata.header, out);
    out += '|';
    // Every column but the flags is numeric: right-aligned.
    for (std::size_t i = 0; i < view.strata.header.size(); ++i) {
      out += i + 1 < view.strata.header.size() ? "---:|" : "---|";
    }
    out += '\n';
    for (const std::vector<std::string>& row : view.strata.rows) append_row(row, out);
    out += '\n';
    for (const std::string& footnote : view.footnotes) out += inline_text(footnote, false) + "\n";
    out += '\n';
  }

  if (!view.stratum_notes.empty()) {
    out += "Per stratum (prompt/output/concurrency):\n\n";
    append_list(view.stratum_notes, out);
    out += '\n';
  }
  if (!view.notes.empty()) {
    out += "## Notes\n\n";
    append_list(view.notes, out);
    out += '\n';
  }
  out += "## Method\n\n";
  append_list(view.method, out);
  out += "\n---\n" + view.footer + "\n";
  return out;
}

}  // namespace tokscope::report
