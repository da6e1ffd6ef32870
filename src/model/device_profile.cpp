#include "model/device_profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <utility>

#include "model/quant.hpp"
#include "tokscope/build_info.hpp"

namespace tokscope::model {
namespace {

using nlohmann::json;

constexpr std::string_view kSchema = "tokscope.device_profiles/1";

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Which values a field accepts.
enum class Range { kPositive, kNonNegative, kFraction };

// Reads fields of one JSON object, remembering the first error. Every error names the origin and
// the dotted path of the field, so a bad profile file points at its own line of trouble.
class Reader {
 public:
  explicit Reader(std::string_view origin) : origin_(origin) {}

  [[nodiscard]] bool failed() const { return error_.has_value(); }
  Error take_error() { return std::move(*error_); }

  void fail(const std::string& path, const std::string& what) {
    if (error_) return;
    error_ = make_error(ErrorKind::kInput, path.empty()
                                               ? fmt::format("{}: {}", origin_, what)
                                               : fmt::format("{}: {}: {}", origin_, path, what));
  }

  const json* member(const json& object, const std::string& path, std::string_view key) {
    if (failed()) return nullptr;
    if (!object.is_object()) {
      fail(path, "expected an object");
      return nullptr;
    }
    const auto it = object.find(key);
    if (it == object.end()) {
      fail(path, fmt::format("missing field \"{}\"", key));
      return nullptr;
    }
    return &*it;
  }

  std::string string(const json& object, const std::string& path, std::string_view key) {
    const json* v = member(object, path, key);
    if (v == nullptr) return {};
    if (!v->is_string() || v->get_ref<const std::string&>().empty()) {
      fail(join(path, key), "expected a non-empty string");
      return {};
    }
    return v->get<std::string>();
  }

  SourcedValue sourced(const json& object, const std::string& path, std::string_view key,
                       Range range) {
    const json* v = member(object, path, key);
    if (v == nullptr) return {};
    return sourced_value(*v, join(path, key), range);
  }

  SourcedValue sourced_value(const json& v, const std::string& path, Range range) {
    SourcedValue out;
    const json* value = member(v, path, "value");
    if (value == nullptr) return out;
    if (!value->is_number()) {
      fail(path + ".value", fmt::format("expected a number, got {}", value->dump()));
      return out;
    }
    out.value = value->get<double>();
    if (!in_range(out.value, range)) {
      fail(path + ".value", fmt::format("expected {}, got {}", describe(range), value->dump()));
      return out;
    }
    out.source = string(v, path, "source");
    const json* uncertain = member(v, path, "uncertain");
    if (uncertain == nullptr) return out;
    if (!uncertain->is_boolean()) {
      fail(path + ".uncertain", "expected true or false");
      return out;
    }
    out.uncertain = uncertain->get<bool>();
    return out;
  }

  static std::string join(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
  }

 private:
  static bool in_range(double v, Range range) {
    if (!std::isfinite(v)) return false;
    switch (range) {
      case Range::kPositive:
        return v > 0.0;
      case Range::kNonNegative:
        return v >= 0.0;
      case Range::kFraction:
        return v > 0.0 && v <= 1.0;
    }
    return false;
  }

  static const char* describe(Range range) {
    switch (range) {
      case Range::kPositive:
        return "a positive number";
      case Range::kNonNegative:
        return "a number >= 0";
      case Range::kFraction:
        return "a number in (0, 1]";
    }
    return "a number";
  }

  std::string origin_;
  std::optional<Error> error_;
};

SourcedValue unit_scale() {
  return SourcedValue{1.0, "no adjustment: runs at the calibrated efficiencies", false};
}

QuantSupport parse_support(Reader& r, const json& entry, const std::string& path) {
  QuantSupport out;
  out.name = r.string(entry, path, "name");
  if (r.failed()) return out;
  if (find_quant(out.name) == nullptr) {
    r.fail(Reader::join(path, "name"), fmt::format("unknown quantization preset \"{}\"", out.name));
    return out;
  }
  out.name = find_quant(out.name)->name;  // canonical spelling
  out.decode_time_scale = unit_scale();
  out.prefill_time_scale = unit_scale();
  if (entry.contains("decode_time_scale")) {
    out.decode_time_scale =
        r.sourced_value(entry["decode_time_scale"], path + ".decode_time_scale", Range::kPositive);
  }
  if (entry.contains("prefill_time_scale")) {
    out.prefill_time_scale = r.sourced_value(entry["prefill_time_scale"],
                                             path + ".prefill_time_scale", Range::kPositive);
  }
  return out;
}

DeviceModelFactors parse_factors(Reader& r, const json& model, const std::string& path) {
  DeviceModelFactors f;
  f.fitted_to = r.string(model, path, "fitted_to");
  f.bandwidth_efficiency = r.sourced(model, path, "bandwidth_efficiency", Range::kFraction);
  f.decode_layer_overhead_ms =
      r.sourced(model, path, "decode_layer_overhead_ms", Range::kNonNegative);
  f.decode_fixed_ms = r.sourced(model, path, "decode_fixed_ms", Range::kNonNegative);
  f.compute_efficiency = r.sourced(model, path, "compute_efficiency", Range::kFraction);
  f.prefill_layer_overhead_ms =
      r.sourced(model, path, "prefill_layer_overhead_ms", Range::kNonNegative);
  f.prefill_fixed_ms = r.sourced(model, path, "prefill_fixed_ms", Range::kNonNegative);
  return f;
}

DeviceProfile parse_device(Reader& r, const json& device, const std::string& path) {
  DeviceProfile d;
  d.name = r.string(device, path, "name");
  d.unit = r.string(device, path, "unit");
  d.description = r.string(device, path, "description");
  d.memory_bandwidth_gbps = r.sourced(device, path, "memory_bandwidth_gbps", Range::kPositive);
  d.peak_tops = r.sourced(device, path, "peak_tops", Range::kPositive);
  d.unsupported_quant_reason = r.string(device, path, "unsupported_quant_reason");

  const json* quants = r.member(device, path, "supported_quants");
  if (quants != nullptr && (!quants->is_array() || quants->empty())) {
    r.fail(path + ".supported_quants", "expected a non-empty array");
  }
  if (r.failed()) return d;
  for (std::size_t i = 0; i < quants->size() && !r.failed(); ++i) {
    d.supported_quants.push_back(
        parse_support(r, (*quants)[i], fmt::format("{}.supported_quants[{}]", path, i)));
  }

  const json* model = r.member(device, path, "model");
  if (model != nullptr) d.factors = parse_factors(r, *model, path + ".model");
  return d;
}

}  // namespace

const QuantSupport* DeviceProfile::find_support(std::string_view quant_name) const {
  const QuantPreset* preset = find_quant(quant_name);  // resolves aliases such as "w4a16"
  const std::string_view canonical =
      preset != nullptr ? std::string_view(preset->name) : quant_name;
  for (const auto& support : supported_quants) {
    if (iequals(support.name, canonical)) return &support;
  }
  return nullptr;
}

Expected<std::vector<DeviceProfile>> parse_device_profiles(std::string_view text,
                                                           std::string_view origin) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    return make_error(ErrorKind::kInput, fmt::format("{}: invalid JSON: {}", origin, e.what()));
  }

  Reader r(origin);
  const std::string schema = r.string(doc, "", "schema");
  if (!r.failed() && schema != kSchema) {
    r.fail("schema", fmt::format("expected \"{}\", got \"{}\"", kSchema, schema));
  }
  const json* devices = r.member(doc, "", "devices");
  if (devices != nullptr && !devices->is_array()) r.fail("devices", "expected an array");
  if (r.failed()) return r.take_error();

  std::vector<DeviceProfile> out;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < devices->size(); ++i) {
    const std::string path = fmt::format("devices[{}]", i);
    DeviceProfile d = parse_device(r, (*devices)[i], path);
    if (r.failed()) return r.take_error();
    std::string key = d.name;
    std::transform(key.begin(), key.end(), key.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (!seen.insert(key).second) {
      r.fail(path + ".name", fmt::format("duplicate device name \"{}\"", d.name));
      return r.take_error();
    }
    out.push_back(std::move(d));
  }
  return out;
}

const Expected<std::vector<DeviceProfile>>& builtin_device_profiles() {
  static const Expected<std::vector<DeviceProfile>> profiles =
      parse_device_profiles(build::kDeviceProfilesJson, "built-in data/device_profiles.json");
  return profiles;
}

const DeviceProfile* find_device(std::span<const DeviceProfile> profiles, std::string_view name) {
  for (const auto& profile : profiles) {
    if (iequals(profile.name, name)) return &profile;
  }
  return nullptr;
}

Expected<DeviceProfile> builtin_device(std::string_view name) {
  const auto& profiles = builtin_device_profiles();
  if (!profiles.ok()) return profiles.error();
  if (const DeviceProfile* found = find_device(*profiles, name); found != nullptr) return *found;
  std::string known;
  for (const auto& profile : *profiles) {
    known += known.empty() ? profile.name : ", " + profile.name;
  }
  return make_error(
      ErrorKind::kUsage,
      fmt::format("unknown device \"{}\" (--device): known devices are {}", name, known));
}

}  // namespace tokscope::model
