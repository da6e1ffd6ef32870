// The telemetry of one bench run: the channel sources under the sysfs root, the sampler over
// them, the stamper that ties them to request records, and what the result's environment says
// about them (which families are available, and why the others are not).
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/expected.hpp"
#include "platform/clock.hpp"
#include "platform/telemetry/sampler.hpp"
#include "run/telemetry_stamper.hpp"

namespace tokscope::run {

struct TelemetrySession {
  // null when the sampler is off (sample_ms 0) or there is no channel to read
  std::unique_ptr<platform::Sampler> sampler;
  std::unique_ptr<TelemetryStamper> stamper;  // null with the sampler
  std::vector<std::string> unavailable;       // the readers' "unavailable: …" lines
  // Merged into the header's environment: sampler_period_ms, telemetry {period_ms, channels},
  // telemetry_available {family: true | "unavailable: reason"}, platform (static inventory).
  nlohmann::json environment;
};

// Opens every channel under root and builds the sampler (not started). sample_ms 0 → no sampler;
// the environment then says the sampler is off. Never fails: a missing source is reported.
TelemetrySession open_telemetry(const std::filesystem::path& root, double sample_ms,
                                const platform::Clock& clock);

// For --resume: the channels sampled now must be the ones the journal's header lists (same
// names, same order), since its telemetry lines store values by position. kUsage error naming
// the first difference and the fix otherwise. A header without channels and a session without a
// sampler agree.
Expected<void> check_same_channels(const nlohmann::json& header, const TelemetrySession& session);

// {family: true | "unavailable: reason"} for thermal, cpufreq, devfreq, power, npu_load, from
// the channel names and the readers' unavailable lines. Pure.
nlohmann::json telemetry_available(const std::vector<platform::ChannelInfo>& channels,
                                   const std::vector<std::string>& unavailable, bool sampler_on);

}  // namespace tokscope::run
