#include "platform/sysfs/hwmon.hpp"

#include <algorithm>
#include <system_error>
#include <tuple>

#include "platform/sysfs/sysfs_file.hpp"

namespace tokscope::platform {
namespace {

namespace fs = std::filesystem;
using sysfs::Presence;

std::string_view expected_text(std::string_view type) {
  if (type == "temp") return "an integer in millidegrees Celsius";
  if (type == "power") return "an integer in microwatts";
  if (type == "curr") return "an integer in milliamperes";
  if (type == "in") return "an integer in millivolts";
  return "an integer in microjoules";
}

std::vector<HwmonSensor> read_sensors(const fs::path& dir, std::vector<std::string>& unavailable) {
  std::vector<HwmonSensor> sensors;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto parsed = parse_hwmon_file_name(it->path().filename().string());
    if (!parsed) continue;
    HwmonSensor s;
    s.type = parsed->type;
    s.index = parsed->index;
    s.attribute = parsed->attribute;
    s.sensor = s.type + std::to_string(s.index);
    s.unit = std::string(hwmon_unit(s.type));
    s.file = it->path();
    s.label = sysfs::read_string(dir / (s.sensor + "_label"), Presence::kOptional, unavailable)
                  .value_or(std::string());
    const auto raw =
        sysfs::read_i64(s.file, expected_text(s.type), Presence::kRequired, unavailable);
    if (raw) {
      s.value = s.type == "temp" ? static_cast<double>(*raw) / 1000.0 : static_cast<double>(*raw);
    }
    sensors.push_back(std::move(s));
  }
  std::sort(sensors.begin(), sensors.end(), [](const HwmonSensor& a, const HwmonSensor& b) {
    return std::tie(a.type, a.index, a.attribute) < std::tie(b.type, b.index, b.attribute);
  });
  return sensors;
}

HwmonDevice read_device(int index, const fs::path& hwmon_dir,
                        std::vector<std::string>& unavailable) {
  HwmonDevice d;
  d.hwmon = index;
  d.dir = hwmon_dir;
  // Some older drivers keep name and the sensor files in hwmonN/device instead.
  std::error_code ec;
  if (!fs::exists(hwmon_dir / "name", ec) && fs::exists(hwmon_dir / "device/name", ec)) {
    d.dir = hwmon_dir / "device";
  }
  d.name =
      sysfs::read_string(d.dir / "name", Presence::kRequired, unavailable).value_or(std::string());
  d.sensors = read_sensors(d.dir, unavailable);
  return d;
}

}  // namespace

std::optional<HwmonFileName> parse_hwmon_file_name(std::string_view file_name) {
  const std::size_t underscore = file_name.find('_');
  if (underscore == std::string_view::npos) return std::nullopt;
  const std::string_view stem = file_name.substr(0, underscore);
  const std::string_view attribute = file_name.substr(underscore + 1);
  for (const std::string_view type : {"temp", "power", "curr", "in", "energy"}) {
    const auto index = sysfs::index_after_prefix(stem, type);
    if (!index) continue;
    const bool known = attribute == "input" || (type == "power" && attribute == "average");
    if (!known) return std::nullopt;
    return HwmonFileName{std::string(type), *index, std::string(attribute)};
  }
  return std::nullopt;
}

std::string_view hwmon_unit(std::string_view type) noexcept {
  if (type == "temp") return "c";
  if (type == "power") return "uw";
  if (type == "curr") return "ma";
  if (type == "in") return "mv";
  if (type == "energy") return "uj";
  return {};
}

std::string HwmonSensor::channel_suffix() const {
  std::string suffix = sensor;
  if (attribute != "input") suffix += "_" + attribute;
  suffix += "_" + unit;
  return suffix;
}

HwmonState read_hwmon(const fs::path& root) {
  HwmonState state;
  const fs::path dir = root / "sys/class/hwmon";
  const auto entries = sysfs::list_indexed_dirs(dir, "hwmon");
  if (!entries.ok()) {
    state.unavailable.push_back(sysfs::unavailable_line("hwmon", entries.error().message));
    return state;
  }
  if (entries->empty()) {
    state.unavailable.push_back(
        sysfs::unavailable_line("hwmon", "no hwmonN under " + dir.string()));
  }
  for (const auto& entry : *entries) {
    state.devices.push_back(read_device(entry.index, entry.path, state.unavailable));
  }
  return state;
}

}  // namespace tokscope::platform
