#include "run/record_check.hpp"

namespace tokscope::run {
namespace {

using nlohmann::json;

bool is_count(const json& j) {
  return j.is_number_unsigned() || (j.is_number_integer() && j.get<std::int64_t>() >= 0);
}

std::string need(const json& o, const char* key, bool (*pred)(const json&), const char* what) {
  const auto it = o.find(key);
  if (it == o.end()) return std::string(key) + ": missing";
  if (!pred(*it)) return std::string(key) + ": expected " + what;
  return {};
}

bool is_bool(const json& j) {
  return j.is_boolean();
}
bool is_int(const json& j) {
  return j.is_number_integer();
}
bool is_object(const json& j) {
  return j.is_object();
}
bool is_array(const json& j) {
  return j.is_array();
}

// record["counters"] (run/counter_record.hpp): {"scope": text, "prefill"/"decode": null or
// {event: {"value": number} or {"value": null, "unavailable": text}}}.
std::string check_counters(const json& c) {
  if (!c.is_object()) return "counters: expected an object";
  if (auto e = need(
          c, "scope", [](const json& j) { return j.is_string(); }, "a text");
      !e.empty()) {
    return "counters." + e;
  }
  for (const char* phase : {"prefill", "decode"}) {
    const auto w = c.find(phase);
    if (w == c.end()) return std::string("counters.") + phase + ": missing";
    if (w->is_null()) continue;
    if (!w->is_object()) return std::string("counters.") + phase + ": expected an object or null";
    for (const auto& [name, event] : w->items()) {
      const std::string where = std::string("counters.") + phase + "." + name;
      if (!event.is_object()) return where + ": expected an object";
      const auto v = event.find("value");
      if (v == event.end()) return where + ".value: missing";
      if (v->is_number()) continue;
      if (!v->is_null()) return where + ".value: expected a number or null";
      const auto why = event.find("unavailable");
      if (why == event.end() || !why->is_string()) {
        return where + ".unavailable: expected the reason when value is null";
      }
    }
  }
  return {};
}

}  // namespace

std::string check_header(const json& h) {
  for (const auto& e :
       {need(h, "settings", is_object, "an object"), need(h, "strata", is_array, "an array")}) {
    if (!e.empty()) return e;
  }
  std::size_t i = 0;
  for (const auto& s : h.at("strata")) {
    if (!s.is_object()) return "strata[" + std::to_string(i) + "]: expected an object";
    for (const char* key : {"id", "prompt_tokens", "output_tokens", "concurrency"}) {
      if (auto e = need(s, key, is_count, "a whole number >= 0"); !e.empty()) {
        return "strata[" + std::to_string(i) + "]." + e;
      }
    }
    ++i;
  }
  return {};
}

std::string check_request_record(const json& r) {
  for (const auto& e :
       {need(r, "stratum", is_count, "a whole number >= 0"),
        need(r, "index", is_count, "a whole number >= 0"), need(r, "warmup", is_bool, "true/false"),
        need(r, "ok", is_bool, "true/false"), need(r, "prompt_tokens", is_count, "a count"),
        need(r, "t_request_ns", is_int, "an integer (ns)"),
        need(r, "t_tokenized_ns", is_int, "an integer (ns)"),
        need(r, "t_submit_ns", is_int, "an integer (ns)"),
        need(r, "t_done_ns", is_int, "an integer (ns)"),
        need(r, "chunk_t_ns", is_array, "an array of integers (ns)")}) {
    if (!e.empty()) return e;
  }
  const json& t = r.at("chunk_t_ns");
  for (const auto& v : t) {
    if (!v.is_number_integer()) return "chunk_t_ns: expected integers (ns)";
  }
  if (const auto it = r.find("counters"); it != r.end()) {
    if (auto e = check_counters(*it); !e.empty()) return e;
  }
  if (const auto it = r.find("chunk_tokens"); it != r.end()) {
    if (!it->is_array() || it->size() != t.size()) {
      return "chunk_tokens: expected an array as long as chunk_t_ns";
    }
    for (const auto& v : *it) {
      if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() > 0)) {
        return "chunk_tokens: expected positive whole numbers";
      }
    }
  }
  return {};
}

std::string check_telemetry_record(const json& r) {
  for (const auto& e : {need(r, "t_ns", is_array, "an array of integers (ns)"),
                        need(r, "values", is_array, "an array of rows"),
                        need(r, "throttled", is_array, "an array of true/false")}) {
    if (!e.empty()) return e;
  }
  const json& t = r.at("t_ns");
  const json& values = r.at("values");
  const json& throttled = r.at("throttled");
  if (values.size() != t.size() || throttled.size() != t.size()) {
    return "values/throttled: expected as many rows as t_ns";
  }
  for (const auto& v : t) {
    if (!v.is_number_integer()) return "t_ns: expected integers (ns)";
  }
  for (const auto& b : throttled) {
    if (!b.is_boolean()) return "throttled: expected true/false";
  }
  for (const auto& row : values) {
    if (!row.is_array()) return "values: expected arrays (one value per channel)";
    for (const auto& v : row) {
      if (!v.is_number() && !v.is_null()) return "values: expected numbers or null";
    }
  }
  return {};
}

}  // namespace tokscope::run
