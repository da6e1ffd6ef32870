// Thermal zones (Documentation/driver-api/thermal/sysfs-api.rst): sys/class/thermal/thermal_zoneN
// with "type" (the zone's name: "soc-thermal", "bigcore0-thermal", "x86_pkg_temp", "acpitz"),
// "temp" and trip points trip_point_K_{type,temp}, all temperatures in millidegrees Celsius in the
// files and in °C (double) here. Zones are discovered by listing and reading "type"; no zone name
// is assumed (kernels rename them). Read under an injectable root; missing or malformed files
// follow the contract of sysfs_file.hpp. Nothing is cached.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tokscope::platform {

struct TripPoint {
  int index = 0;                 // K of trip_point_K_*
  std::string type;              // "passive", "active", "hot", "critical", "" when unread
  std::optional<double> temp_c;  // °C
};

struct ThermalZone {
  int zone = 0;                  // N of thermal_zoneN
  std::filesystem::path dir;     // root/sys/class/thermal/thermal_zoneN
  std::string type;              // the zone's name, "" when unread
  std::optional<double> temp_c;  // °C, now
  std::string policy;            // governor ("step_wise", "power_allocator"), "" when unread
  std::vector<TripPoint> trips;  // sorted by index
};

struct ThermalState {
  std::vector<ThermalZone> zones;        // sorted by zone number
  std::vector<std::string> unavailable;  // "unavailable: ..." lines, see sysfs_file.hpp
};

// Millidegrees Celsius text ("45230\n", "-5000") → °C (45.23, -5.0); nullopt for anything else.
// Pure, no allocation.
std::optional<double> parse_millidegrees_c(std::string_view text) noexcept;

// The lowest passive trip temperature, °C: where the kernel starts throttling (RK3588
// soc-thermal: 75 °C of its 75 and 85 °C passive trips). Trips at or below 0 °C are skipped:
// drivers that let user space set trips (x86_pkg_temp) show unset ones as 0. nullopt when there
// is none. Pure.
std::optional<double> lowest_passive_trip_c(const std::vector<TripPoint>& trips);

// Reads every thermal_zoneN under root/sys/class/thermal (cooling_deviceN entries are skipped).
// No zone (most VMs) gives no zones and one unavailable line.
ThermalState read_thermal(const std::filesystem::path& root);

}  // namespace tokscope::platform
