// `tokscope soak` documents: the JSON of windows, bands and first throttling (schema
// "tokscope.soak/1", also the journal's "window" lines), and the Markdown rendering of a whole
// soak document. Pure. Non-finite numbers are written as null.
//
// Document: {"schema":"tokscope.soak/1", "simulated":bool, "engine":{…}, "environment":{…},
//   "settings":{…}, "window_s", "planned_minutes", "elapsed_s", "complete", "interrupted",
//   "requests", "failed_requests", "windows":[window…], "bands":{…}, "first_throttle_s",
//   "first_throttle":{…}|null}
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "report/soak_table.hpp"

namespace tokscope::report {

inline constexpr const char* kSoakSchema = "tokscope.soak/1";

nlohmann::json soak_window_json(const SoakWindow& window);
nlohmann::json soak_bands_json(const SoakBands& bands);
// {"t_s", "channel", "value_c"} or null.
nlohmann::json throttle_json(const std::optional<ThrottleEvent>& event);

// The per-window table, the band table and the first-throttling line. Every line and table row
// says SIMULATED when document["simulated"] is true.
std::string render_soak_md(const nlohmann::json& document);

}  // namespace tokscope::report
