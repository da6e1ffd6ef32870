// Shape checks of journal lines read back from disk, so a hand-edited or truncated-then-patched
// journal gives an error naming the line and the field instead of crashing the result builder.
// The result builder may then rely on these fields and types.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace tokscope::run {

// Empty string when the header is usable, else "field: what is wrong".
std::string check_header(const nlohmann::json& header);
// Empty string when the request record is usable, else "field: what is wrong".
std::string check_request_record(const nlohmann::json& record);
// Empty string when the telemetry line is usable (t_ns integers, values rows of numbers/null,
// throttled booleans, all as long as t_ns), else "field: what is wrong".
std::string check_telemetry_record(const nlohmann::json& record);

}  // namespace tokscope::run
