// Where a rendered result goes: stdout, or --out FILE (written whole, then renamed into place
// so a reader never sees half a file). Errors name the file.
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>

#include "core/expected.hpp"
#include "report/format.hpp"

namespace tokscope::cli {

Expected<void> emit(const nlohmann::json& result, report::Format format,
                    const std::string& out_path, std::ostream& out);

// Writes already-rendered text to stdout ("" or "-") or, atomically, to a file.
Expected<void> write_text(const std::string& text, const std::string& out_path, std::ostream& out);

// Exit code for an error: usage/input -> 2, everything else -> 1 (spec/cli.md).
int exit_code_for(const Error& error);

}  // namespace tokscope::cli
