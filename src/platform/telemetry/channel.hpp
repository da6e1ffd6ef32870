// Telemetry channels: the contract between platform readers (thermal, cpufreq, devfreq, hwmon,
// RAPL, rknpu load, …) and the sampler that stamps their values on every measured request.
//
// A channel is one scalar time series with a stable dotted name and a unit in its name's last
// part ("thermal.soc-thermal.temp_c", "cpufreq.policy4.cur_khz", "devfreq.dmc.cur_hz",
// "rapl.package-0.energy_uj", "hwmon.ina226.power_uw", "rknpu.core0.load_pct").
// A ChannelSource owns open handles to its files and refreshes its channels' values on demand.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tokscope::platform {

enum class ChannelKind {
  kTemperature,  // °C
  kFrequency,    // Hz or kHz, as the channel name says
  kPower,        // µW
  kEnergy,       // µJ, cumulative counter (may wrap at wrap_at)
  kLoad,         // percent
  kOther,
};

struct ChannelInfo {
  std::string name;  // dotted, unit-suffixed; unique within one sampler
  ChannelKind kind = ChannelKind::kOther;
  // Throttling evidence for the sampler: a passive trip point (temperature channels, °C), and
  // whether the frequency is locked with the value it is locked to (set by the lock code).
  std::optional<double> passive_trip_c;
  // Cumulative energy counters wrap to 0 after this value (RAPL max_energy_range_uj).
  std::optional<double> wrap_at;
};

// Value written for a channel that could not be read this time (file vanished, EIO).
inline constexpr double kNoReading = std::numeric_limits<double>::quiet_NaN();

// One group of channels read together (one thermal zone, one cpufreq policy, one RAPL domain…).
// Thread-safety: read() is called from the sampler thread only; channels() is immutable after
// construction. read() must not allocate or throw: it re-reads already-open files (pread at
// offset 0) into the caller's span, one value per channel in channels() order, kNoReading on
// failure.
class ChannelSource {
 public:
  virtual ~ChannelSource() = default;
  [[nodiscard]] virtual const std::vector<ChannelInfo>& channels() const = 0;
  virtual void read(std::span<double> out) noexcept = 0;
};

}  // namespace tokscope::platform
