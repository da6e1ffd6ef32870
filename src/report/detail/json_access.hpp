// Null-safe reads of a result document (schema "tokscope.result/1", docs/result-schema.md).
//
// Contract: no function here throws, asserts or reads out of bounds, whatever the document
// holds. A result rebuilt from a partial journal can lack strata, requests or whole sections,
// and a statistic of an empty sample set is null; every reader answers "absent" (nullptr or
// std::nullopt) instead. Writers build on these so that none of them can crash on such input.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace tokscope::report::detail {

// The member `key` of `j`, or nullptr when `j` is null, not an object, or lacks the key.
const nlohmann::json* child(const nlohmann::json* j, std::string_view key);
const nlohmann::json* child(const nlohmann::json& j, std::string_view key);

// Element `index` of an array, or nullptr.
const nlohmann::json* element(const nlohmann::json* j, std::size_t index);

// The value when `j` is a finite number; nullopt for null, absent, non-numbers, NaN and ±inf.
std::optional<double> number(const nlohmann::json* j);

// A scalar as text: strings verbatim, numbers and booleans as JSON spells them. nullopt for
// null, absent, objects and arrays.
std::optional<std::string> text(const nlohmann::json* j);

// True when `j` is the boolean true (absent, null and non-booleans are false).
bool is_true(const nlohmann::json* j);

// Whether the run was simulated: the top-level "simulated" or "engine.simulated" is true.
// Either one suffices, so a document that kept only one of the two copies still says so.
bool is_simulated(const nlohmann::json& result);

// The stratum a request belongs to: the entry of "strata" whose "id" equals the request's
// "stratum"; when no entry carries an id, strata[stratum] by position. nullptr when neither.
const nlohmann::json* find_stratum(const nlohmann::json& result, const nlohmann::json& request);

}  // namespace tokscope::report::detail
