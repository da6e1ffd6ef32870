#include "platform/sysfs/thermal.hpp"

#include <algorithm>
#include <system_error>

#include "platform/sysfs/sysfs_file.hpp"

namespace tokscope::platform {
namespace {

namespace fs = std::filesystem;
using sysfs::Presence;

constexpr std::string_view kMillidegrees = "an integer in millidegrees Celsius";

std::optional<double> read_temp_c(const fs::path& path, Presence presence,
                                  std::vector<std::string>& unavailable) {
  const auto text = sysfs::read_string(path, presence, unavailable);
  if (!text) return std::nullopt;
  const auto temp_c = parse_millidegrees_c(*text);
  if (!temp_c) unavailable.push_back(sysfs::malformed_line(path, kMillidegrees, *text));
  return temp_c;
}

// K of every trip_point_K_type file in the zone directory, sorted.
std::vector<int> trip_indices(const fs::path& dir) {
  std::vector<int> indices;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    constexpr std::string_view kSuffix = "_type";
    if (name.size() <= kSuffix.size() ||
        name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) {
      continue;
    }
    const std::string_view stem = std::string_view(name).substr(0, name.size() - kSuffix.size());
    if (const auto k = sysfs::index_after_prefix(stem, "trip_point_")) indices.push_back(*k);
  }
  std::sort(indices.begin(), indices.end());
  return indices;
}

ThermalZone read_zone(int index, const fs::path& dir, std::vector<std::string>& unavailable) {
  ThermalZone z;
  z.zone = index;
  z.dir = dir;
  z.type =
      sysfs::read_string(dir / "type", Presence::kRequired, unavailable).value_or(std::string());
  z.temp_c = read_temp_c(dir / "temp", Presence::kRequired, unavailable);
  z.policy =
      sysfs::read_string(dir / "policy", Presence::kOptional, unavailable).value_or(std::string());
  for (const int k : trip_indices(dir)) {
    const std::string stem = "trip_point_" + std::to_string(k);
    TripPoint trip;
    trip.index = k;
    trip.type = sysfs::read_string(dir / (stem + "_type"), Presence::kRequired, unavailable)
                    .value_or(std::string());
    trip.temp_c = read_temp_c(dir / (stem + "_temp"), Presence::kRequired, unavailable);
    z.trips.push_back(std::move(trip));
  }
  return z;
}

}  // namespace

std::optional<double> parse_millidegrees_c(std::string_view text) noexcept {
  const auto millidegrees = sysfs::parse_i64(text);
  if (!millidegrees) return std::nullopt;
  return static_cast<double>(*millidegrees) / 1000.0;
}

std::optional<double> lowest_passive_trip_c(const std::vector<TripPoint>& trips) {
  std::optional<double> lowest;
  for (const auto& trip : trips) {
    if (trip.type != "passive" || !trip.temp_c || *trip.temp_c <= 0.0) continue;
    if (!lowest || *trip.temp_c < *lowest) lowest = trip.temp_c;
  }
  return lowest;
}

ThermalState read_thermal(const fs::path& root) {
  ThermalState state;
  const fs::path dir = root / "sys/class/thermal";
  const auto entries = sysfs::list_indexed_dirs(dir, "thermal_zone");
  if (!entries.ok()) {
    state.unavailable.push_back(sysfs::unavailable_line("thermal", entries.error().message));
    return state;
  }
  if (entries->empty()) {
    state.unavailable.push_back(
        sysfs::unavailable_line("thermal", "no thermal_zoneN under " + dir.string()));
  }
  for (const auto& entry : *entries) {
    state.zones.push_back(read_zone(entry.index, entry.path, state.unavailable));
  }
  return state;
}

}  // namespace tokscope::platform
