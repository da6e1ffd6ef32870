// The json writer: the result document itself, pretty-printed.
#include "report/writers.hpp"

namespace tokscope::report {

std::string render_json(const nlohmann::json& result) {
  return result.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace tokscope::report
