// hwmon devices (Documentation/hwmon/sysfs-interface.rst): sys/class/hwmon/hwmonN with "name"
// ("coretemp", "acpitz", "ina226") and sensor files <type><n>_input, plus power<n>_average and
// the optional <type><n>_label ("Package id 0", "Core 0"). Units in the files: temp millidegrees
// Celsius, power µW, curr mA, in mV, energy µJ. Here temperatures are converted to °C and
// everything else is kept in the file's unit. Read under an injectable root; missing or malformed
// files follow the contract of sysfs_file.hpp. Nothing is cached.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tokscope::platform {

// The parts of a hwmon value file name: "power1_average" → {"power", 1, "average"}.
struct HwmonFileName {
  std::string type;       // "temp", "power", "curr", "in", "energy"
  int index = 0;          // n (in0 starts at 0, the others at 1)
  std::string attribute;  // "input" or "average" (average only for power)
};

// The value file names this reader knows (temp/power/curr/in/energy<n>_input and
// power<n>_average); nullopt for every other file ("temp1_max", "power1_average_interval",
// "temp1_label", "name"). Pure.
std::optional<HwmonFileName> parse_hwmon_file_name(std::string_view file_name);

// The unit suffix of a sensor type as the values here carry it: "temp" → "c" (°C, converted),
// "power" → "uw", "curr" → "ma", "in" → "mv", "energy" → "uj"; "" for other types. Pure.
std::string_view hwmon_unit(std::string_view type) noexcept;

struct HwmonSensor {
  std::string sensor;  // "temp1", "power1", "in0"
  std::string type;    // "temp", "power", "curr", "in", "energy"
  int index = 0;
  std::string attribute;        // "input" or "average"
  std::string unit;             // hwmon_unit(type)
  std::string label;            // <sensor>_label, "" when the driver has none
  std::optional<double> value;  // in unit: °C for temp, µW, mA, mV, µJ
  std::filesystem::path file;   // the value file read

  // The last part of this sensor's channel name: "temp1_c", "power1_uw", "power1_average_uw".
  [[nodiscard]] std::string channel_suffix() const;
};

struct HwmonDevice {
  int hwmon = 0;              // N of hwmonN
  std::filesystem::path dir;  // where name and the sensor files are (hwmonN, or hwmonN/device
                              // on old kernels that kept them there)
  std::string name;           // "" when unread
  std::vector<HwmonSensor> sensors;  // sorted by type, index, attribute
};

struct HwmonState {
  std::vector<HwmonDevice> devices;      // sorted by hwmon number
  std::vector<std::string> unavailable;  // "unavailable: ..." lines, see sysfs_file.hpp
};

// Reads every hwmonN under root/sys/class/hwmon. No such directory (most VMs, RK3588 boards
// without a power monitor) gives no devices and one unavailable line.
HwmonState read_hwmon(const std::filesystem::path& root);

}  // namespace tokscope::platform
