// The device-model schedule: prefill and decode times from model::DeviceModel (a roofline model
// of a device profile, a model shape and a quantization), for the simulated engine.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>

#include "engines/sim_schedule.hpp"
#include "model/device_model.hpp"

namespace tokscope::engines {

std::unique_ptr<SimSchedule> make_device_schedule(model::DeviceModel model);

// The ceiling inputs a result needs (bandwidth, W, K, peak ops, ops per token, source) from the
// device profile the model was built on.
nlohmann::json device_ceiling_inputs(const model::DeviceModel& model);

// The result's "model" object for a catalog shape in a quantization preset.
nlohmann::json catalog_model_info(const model::ModelShape& shape, const model::QuantPreset& quant);

}  // namespace tokscope::engines
