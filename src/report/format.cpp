#include "report/format.hpp"

#include <fmt/format.h>

#include <array>
#include <string>
#include <utility>

namespace tokscope::report {
namespace {

struct FormatName {
  Format format;
  std::string_view name;
};

// The single list of formats: parsing, printing and the error message all derive from it.
constexpr std::array<FormatName, 5> kFormats{{
    {Format::kMd, "md"},
    {Format::kJson, "json"},
    {Format::kJsonl, "jsonl"},
    {Format::kCsv, "csv"},
    {Format::kHtml, "html"},
}};

}  // namespace

Expected<Format> parse_format(std::string_view name) {
  for (const FormatName& entry : kFormats) {
    if (entry.name == name) return entry.format;
  }
  std::string valid;
  for (const FormatName& entry : kFormats) {
    if (!valid.empty()) valid += ", ";
    valid += entry.name;
  }
  return make_error(ErrorKind::kUsage,
                    fmt::format("-o: unknown output format '{}'; valid values: {}", name, valid));
}

std::string_view to_string(Format format) noexcept {
  for (const FormatName& entry : kFormats) {
    if (entry.format == format) return entry.name;
  }
  return "md";  // unreachable for a valid enumerator
}

}  // namespace tokscope::report
