// The static platform inventory: every sysfs/procfs telemetry reader run once under a root, with
// one list of what was unavailable, and its JSON form for result files and `tokscope doctor`.
// A missing source is never an error here: an empty tree gives an inventory with every family
// empty and one or more "unavailable: ..." lines per family.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "platform/sysfs/cpufreq.hpp"
#include "platform/sysfs/devfreq.hpp"
#include "platform/sysfs/hwmon.hpp"
#include "platform/sysfs/memory_state.hpp"
#include "platform/sysfs/powercap.hpp"
#include "platform/sysfs/rknpu.hpp"
#include "platform/sysfs/thermal.hpp"

namespace tokscope::platform {

struct PlatformInventory {
  std::filesystem::path root;  // the root read ("/" on a live system)
  CpufreqState cpufreq;
  DevfreqState devfreq;
  ThermalState thermal;
  HwmonState hwmon;
  PowercapState powercap;
  RknpuLoadState rknpu;
  MemoryState memory;
  // Every family's unavailable lines, in the order above (each family also keeps its own).
  std::vector<std::string> unavailable;
};

// Runs every reader under root ("/" on a live system). Never throws for missing or malformed
// files. Reads the files once; nothing is cached.
PlatformInventory discover_platform(const std::filesystem::path& root);

// JSON of each family and of the whole inventory. Units are in the key names (cur_khz, cur_hz,
// temp_c, energy_uj, mem_total_kib); a value that could not be read is null. Paths are printed
// as read (under the inventory's root). The per-family unavailable lists are left out of the
// whole inventory's JSON, which carries the combined "unavailable" list once.
nlohmann::json to_json(const CpufreqPolicy& policy);
nlohmann::json to_json(const DevfreqDevice& device);
nlohmann::json to_json(const ThermalZone& zone);
nlohmann::json to_json(const HwmonDevice& device);
nlohmann::json to_json(const RaplDomain& domain);
nlohmann::json to_json(const RknpuLoadState& rknpu);
nlohmann::json to_json(const MemoryState& memory);
nlohmann::json to_json(const PlatformInventory& inventory);

}  // namespace tokscope::platform
