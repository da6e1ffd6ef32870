#include "report/detail/json_access.hpp"

#include <cmath>

namespace tokscope::report::detail {

const nlohmann::json* child(const nlohmann::json* j, std::string_view key) {
  if (j == nullptr || !j->is_object()) return nullptr;
  const auto it = j->find(key);
  return it == j->end() ? nullptr : &*it;
}

const nlohmann::json* child(const nlohmann::json& j, std::string_view key) {
  return child(&j, key);
}

const nlohmann::json* element(const nlohmann::json* j, std::size_t index) {
  if (j == nullptr || !j->is_array() || index >= j->size()) return nullptr;
  return &(*j)[index];
}

std::optional<double> number(const nlohmann::json* j) {
  if (j == nullptr || !j->is_number()) return std::nullopt;
  const double value = j->get<double>();
  if (!std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<std::string> text(const nlohmann::json* j) {
  if (j == nullptr) return std::nullopt;
  if (j->is_string()) return j->get<std::string>();
  if (j->is_number() || j->is_boolean()) {
    if (j->is_number_float() && !std::isfinite(j->get<double>())) return std::nullopt;
    return j->dump();
  }
  return std::nullopt;
}

bool is_true(const nlohmann::json* j) {
  return j != nullptr && j->is_boolean() && j->get<bool>();
}

bool is_simulated(const nlohmann::json& result) {
  return is_true(child(result, "simulated")) ||
         is_true(child(child(result, "engine"), "simulated"));
}

const nlohmann::json* find_stratum(const nlohmann::json& result, const nlohmann::json& request) {
  const nlohmann::json* strata = child(result, "strata");
  const std::optional<double> wanted = number(child(request, "stratum"));
  if (strata == nullptr || !strata->is_array() || !wanted || *wanted < 0) return nullptr;
  bool any_id = false;
  for (const nlohmann::json& stratum : *strata) {
    const std::optional<double> id = number(child(stratum, "id"));
    if (!id) continue;
    any_id = true;
    if (*id == *wanted) return &stratum;
  }
  // Positional fallback: only a whole index inside the array (a cast of anything else is UB).
  if (any_id || *wanted != std::floor(*wanted) || *wanted >= static_cast<double>(strata->size())) {
    return nullptr;
  }
  return element(strata, static_cast<std::size_t>(*wanted));
}

}  // namespace tokscope::report::detail
