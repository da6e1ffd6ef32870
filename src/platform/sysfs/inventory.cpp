#include "platform/sysfs/inventory.hpp"

#include <optional>

namespace tokscope::platform {
namespace {

using nlohmann::json;

template <class T>
json or_null(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

json or_null(const std::string& value) {
  return value.empty() ? json(nullptr) : json(value);
}

template <class T>
json array_of(const std::vector<T>& items) {
  json out = json::array();
  for (const auto& item : items) out.push_back(to_json(item));
  return out;
}

void append(std::vector<std::string>& to, const std::vector<std::string>& lines) {
  to.insert(to.end(), lines.begin(), lines.end());
}

}  // namespace

PlatformInventory discover_platform(const std::filesystem::path& root) {
  PlatformInventory inv;
  inv.root = root;
  inv.cpufreq = read_cpufreq(root);
  inv.devfreq = read_devfreq(root);
  inv.thermal = read_thermal(root);
  inv.hwmon = read_hwmon(root);
  inv.powercap = read_powercap(root);
  inv.rknpu = read_rknpu_load(root);
  inv.memory = read_memory_state(root);
  append(inv.unavailable, inv.cpufreq.unavailable);
  append(inv.unavailable, inv.devfreq.unavailable);
  append(inv.unavailable, inv.thermal.unavailable);
  append(inv.unavailable, inv.hwmon.unavailable);
  append(inv.unavailable, inv.powercap.unavailable);
  append(inv.unavailable, inv.rknpu.unavailable);
  append(inv.unavailable, inv.memory.unavailable);
  return inv;
}

json to_json(const CpufreqPolicy& p) {
  return json{{"policy", p.policy},
              {"dir", p.dir.string()},
              {"affected_cpus", p.affected_cpus},
              {"related_cpus", p.related_cpus},
              {"driver", or_null(p.driver)},
              {"governor", or_null(p.governor)},
              {"cur_khz", or_null(p.cur_khz)},
              {"cur_source", or_null(p.cur_source)},
              {"scaling_min_khz", or_null(p.scaling_min_khz)},
              {"scaling_max_khz", or_null(p.scaling_max_khz)},
              {"cpuinfo_min_khz", or_null(p.cpuinfo_min_khz)},
              {"cpuinfo_max_khz", or_null(p.cpuinfo_max_khz)},
              {"available_khz", p.available_khz},
              {"available_governors", p.available_governors}};
}

json to_json(const DevfreqDevice& d) {
  json trans = nullptr;
  if (d.trans_stat) {
    json states = json::array();
    for (const auto& s : d.trans_stat->states) {
      states.push_back(
          {{"freq_hz", s.freq_hz}, {"time_ms", s.time_ms}, {"transitions_to", s.transitions_to}});
    }
    trans = {{"states", std::move(states)},
             {"current_hz", or_null(d.trans_stat->current_hz)},
             {"total_transitions", d.trans_stat->total_transitions}};
  }
  return json{{"name", d.name},
              {"dir", d.dir.string()},
              {"governor", or_null(d.governor)},
              {"cur_hz", or_null(d.cur_hz)},
              {"min_hz", or_null(d.min_hz)},
              {"max_hz", or_null(d.max_hz)},
              {"available_hz", d.available_hz},
              {"available_governors", d.available_governors},
              {"trans_stat", std::move(trans)}};
}

json to_json(const ThermalZone& z) {
  json trips = json::array();
  for (const auto& t : z.trips) {
    trips.push_back({{"index", t.index}, {"type", or_null(t.type)}, {"temp_c", or_null(t.temp_c)}});
  }
  return json{{"zone", z.zone},
              {"dir", z.dir.string()},
              {"type", or_null(z.type)},
              {"temp_c", or_null(z.temp_c)},
              {"policy", or_null(z.policy)},
              {"lowest_passive_trip_c", or_null(lowest_passive_trip_c(z.trips))},
              {"trips", std::move(trips)}};
}

json to_json(const HwmonDevice& d) {
  json sensors = json::array();
  for (const auto& s : d.sensors) {
    sensors.push_back({{"sensor", s.sensor},
                       {"attribute", s.attribute},
                       {"unit", s.unit},
                       {"label", or_null(s.label)},
                       {"value", or_null(s.value)},
                       {"file", s.file.string()}});
  }
  return json{{"hwmon", d.hwmon},
              {"dir", d.dir.string()},
              {"name", or_null(d.name)},
              {"sensors", std::move(sensors)}};
}

json to_json(const RaplDomain& d) {
  return json{{"zone", d.zone},
              {"parent_zone", or_null(d.parent_zone)},
              {"dir", d.dir.string()},
              {"name", or_null(d.name)},
              {"energy_uj", or_null(d.energy_uj)},
              {"max_energy_range_uj", or_null(d.max_energy_range_uj)}};
}

json to_json(const RknpuLoadState& r) {
  json cores = json::array();
  for (const auto& c : r.cores) cores.push_back({{"core", c.core}, {"load_pct", c.load_pct}});
  return json{{"file", r.file.empty() ? json(nullptr) : json(r.file.string())},
              {"cores", std::move(cores)}};
}

json to_json(const MemoryState& m) {
  json swaps = json::array();
  for (const auto& s : m.swaps) {
    swaps.push_back({{"filename", s.filename},
                     {"type", s.type},
                     {"size_kib", s.size_kib},
                     {"used_kib", s.used_kib},
                     {"priority", s.priority},
                     {"zram", s.zram}});
  }
  return json{{"mem_total_kib", or_null(m.meminfo.mem_total_kib)},
              {"mem_available_kib", or_null(m.meminfo.mem_available_kib)},
              {"swap_total_kib", or_null(m.meminfo.swap_total_kib)},
              {"swap_free_kib", or_null(m.meminfo.swap_free_kib)},
              {"swaps", m.swaps_known ? std::move(swaps) : json(nullptr)},
              {"zram_swap", m.swaps_known ? json(m.zram_swap()) : json(nullptr)},
              {"swappiness", or_null(m.swappiness)},
              {"thp_enabled", or_null(m.thp_enabled)}};
}

json to_json(const PlatformInventory& inv) {
  return json{{"root", inv.root.string()},
              {"cpufreq", array_of(inv.cpufreq.policies)},
              {"devfreq", array_of(inv.devfreq.devices)},
              {"thermal", array_of(inv.thermal.zones)},
              {"hwmon", array_of(inv.hwmon.devices)},
              {"rapl", array_of(inv.powercap.domains)},
              {"rknpu_load", to_json(inv.rknpu)},
              {"memory", to_json(inv.memory)},
              {"unavailable", inv.unavailable}};
}

}  // namespace tokscope::platform
