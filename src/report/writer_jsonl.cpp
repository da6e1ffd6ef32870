// The jsonl writer: one request per line, self-describing enough to stream into another tool
// without the rest of the document (each line says whether it was simulated and which stratum
// it belongs to).
#include "report/detail/json_access.hpp"
#include "report/writers.hpp"

namespace tokscope::report {

std::string render_jsonl(const nlohmann::json& result) {
  using nlohmann::json;
  std::string out;
  const json* requests = detail::child(result, "requests");
  if (requests == nullptr || !requests->is_array()) return out;

  const bool simulated = detail::is_simulated(result);
  for (const json& request : *requests) {
    if (!request.is_object()) continue;
    json line = request;
    line["simulated"] = simulated;
    // "stratum_" prefix: the request's own prompt_tokens/output_tokens are the actual counts,
    // which can differ from the stratum's targets (a request that stopped short).
    const json* stratum = detail::find_stratum(result, request);
    for (const char* key : {"prompt_tokens", "output_tokens", "concurrency"}) {
      const json* value = detail::child(stratum, key);
      line[std::string("stratum_") + key] = value != nullptr ? *value : json(nullptr);
    }
    out += line.dump(-1, ' ', false, json::error_handler_t::replace);
    out += '\n';
  }
  return out;
}

}  // namespace tokscope::report
