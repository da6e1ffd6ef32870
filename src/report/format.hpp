// Output formats of every command that writes a result (`-o md|json|jsonl|csv|html`,
// spec/cli.md). The names are part of the command-line contract: scripts pass them, so they are
// stable; add formats freely, never rename one.
#pragma once

#include <string_view>

#include "core/expected.hpp"

namespace tokscope::report {

enum class Format {
  kMd,     // human summary, one table row per stratum (the default on a terminal)
  kJson,   // the whole result document, pretty-printed
  kJsonl,  // one request per line, for streaming into other tools
  kCsv,    // one row per stratum, flat column names
  kHtml,   // self-contained page with the same content as md
};

// Parses the value of `-o`. Exact, lower-case names only ("md", "json", "jsonl", "csv",
// "html"). On failure: ErrorKind::kUsage with a message naming -o and listing the valid values.
Expected<Format> parse_format(std::string_view name);

// The `-o` name of a format; parse_format(to_string(f)) == f for every f.
std::string_view to_string(Format format) noexcept;

}  // namespace tokscope::report
