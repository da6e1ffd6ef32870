#include "platform/sysfs/powercap.hpp"

#include <algorithm>

#include "platform/sysfs/sysfs_file.hpp"

namespace tokscope::platform {
namespace {

namespace fs = std::filesystem;
using sysfs::Presence;

constexpr std::string_view kMicrojoules = "an integer in microjoules";

}  // namespace

bool is_rapl_zone(std::string_view entry_name) noexcept {
  for (const std::string_view prefix : {"intel-rapl:", "intel-rapl-mmio:"}) {
    if (entry_name.size() > prefix.size() && entry_name.substr(0, prefix.size()) == prefix) {
      return true;
    }
  }
  return false;
}

std::string rapl_parent_zone(std::string_view zone) {
  const std::size_t first = zone.find(':');
  const std::size_t last = zone.rfind(':');
  if (first == std::string_view::npos || first == last) return {};
  return std::string(zone.substr(0, last));
}

PowercapState read_powercap(const fs::path& root) {
  PowercapState state;
  const fs::path dir = root / "sys/class/powercap";
  const auto names = sysfs::list_dir_names(dir);
  if (!names.ok()) {
    state.unavailable.push_back(sysfs::unavailable_line("RAPL", names.error().message));
    return state;
  }
  for (const auto& zone : *names) {
    if (!is_rapl_zone(zone)) continue;
    RaplDomain d;
    d.zone = zone;
    d.parent_zone = rapl_parent_zone(zone);
    d.dir = dir / zone;
    d.name = sysfs::read_string(d.dir / "name", Presence::kRequired, state.unavailable)
                 .value_or(std::string());
    d.energy_uj =
        sysfs::read_u64(d.dir / "energy_uj", kMicrojoules, Presence::kRequired, state.unavailable);
    d.max_energy_range_uj = sysfs::read_u64(d.dir / "max_energy_range_uj", kMicrojoules,
                                            Presence::kRequired, state.unavailable);
    state.domains.push_back(std::move(d));
  }
  if (state.domains.empty()) {
    state.unavailable.push_back(
        sysfs::unavailable_line("RAPL", "no intel-rapl zone under " + dir.string()));
  }
  return state;
}

}  // namespace tokscope::platform
