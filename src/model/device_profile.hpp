// Device profiles: the declared figures of a machine (bandwidth, peak compute), which quantization
// presets it can run and why not the others, and the efficiency/overhead factors of the device
// model, each number carrying where it came from. Shipped as data/device_profiles.json (schema
// "tokscope.device_profiles/1") and embedded in the binary.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"

namespace tokscope::model {

// One number and its provenance. uncertain = the source itself is unconfirmed, a marketing figure,
// a derivation with assumptions, a guess, or a fit to a handful of rows.
struct SourcedValue {
  double value = 0.0;
  std::string source;
  bool uncertain = false;
};

// A preset the device runs. The time scales multiply the modelled decode step and prefill time;
// they exist because some formats run slower than their byte count predicts (RKLLM's grouped
// w8a8_g128). Absent in the JSON = 1.0, "no adjustment".
struct QuantSupport {
  std::string name;  // a preset name from quant.hpp
  SourcedValue decode_time_scale;
  SourcedValue prefill_time_scale;
};

// Factors of the device model (device_model.hpp has the formula).
struct DeviceModelFactors {
  std::string fitted_to;  // which published rows the factors reproduce, or "uncalibrated guess"
  SourcedValue bandwidth_efficiency;      // achieved / declared bandwidth, (0, 1]
  SourcedValue decode_layer_overhead_ms;  // per layer per decode step
  SourcedValue decode_fixed_ms;           // per decode step
  SourcedValue compute_efficiency;        // achieved / peak ops, (0, 1]
  SourcedValue prefill_layer_overhead_ms;
  SourcedValue prefill_fixed_ms;
};

struct DeviceProfile {
  std::string name;  // "rk3588-npu"
  std::string unit;  // "npu" or "cpu": which unit runs the model
  std::string description;
  SourcedValue memory_bandwidth_gbps;  // 1e9 bytes/s
  SourcedValue peak_tops;              // 1e12 ops/s of the unit
  std::vector<QuantSupport> supported_quants;
  std::string unsupported_quant_reason;  // shown when any other preset is asked for
  DeviceModelFactors factors;

  // The support entry for a preset name (case-insensitive), or nullptr.
  [[nodiscard]] const QuantSupport* find_support(std::string_view quant_name) const;
};

// Parses and validates a profile document. Errors are ErrorKind::kInput and name the origin and
// the offending field, e.g. "profiles.json: devices[1].peak_tops.value: expected a positive
// number". Validation: schema tag, unique device names, positive bandwidth and compute,
// efficiencies in (0, 1], overheads >= 0, time scales > 0, supported quants that exist.
Expected<std::vector<DeviceProfile>> parse_device_profiles(std::string_view json,
                                                           std::string_view origin);

// The profiles shipped in data/device_profiles.json (parsed once).
const Expected<std::vector<DeviceProfile>>& builtin_device_profiles();

// Case-insensitive lookup by name; nullptr when absent.
const DeviceProfile* find_device(std::span<const DeviceProfile> profiles, std::string_view name);

// A built-in profile by name. Unknown name: ErrorKind::kUsage listing the known ones.
Expected<DeviceProfile> builtin_device(std::string_view name);

}  // namespace tokscope::model
