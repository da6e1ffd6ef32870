// Live telemetry channels (platform/telemetry/channel.hpp) over sysfs/procfs/debugfs files under
// an injectable root. One ChannelSource per thermal zone, cpufreq policy, devfreq device, hwmon
// device, RAPL domain and one for the rknpu load file; each keeps its files open
// (O_RDONLY|O_CLOEXEC) and read() re-reads them with pread at offset 0 into a stack buffer and
// parses without allocating. Channel names:
//   thermal.<type>.temp_c            °C; passive_trip_c = lowest passive trip above 0 °C.
//                                    Zones sharing a type are all named <type>-zone<N>.
//   cpufreq.policy<N>.cur_khz        kHz (scaling_cur_freq, else cpuinfo_cur_freq)
//   devfreq.<device>.cur_hz          Hz ("devfreq.fdab0000.npu.cur_hz": the device name is kept
//                                    as sysfs spells it, dot included)
//   hwmon.<name>.<sensor>_<unit>     temp<n>_c (°C), power<n>_uw and power<n>_average_uw (µW),
//                                    energy<n>_uj (µJ, cumulative, no wrap_at). Devices sharing a
//                                    name are all named <name>-hwmon<N>.
//   rapl.<name>.energy_uj            µJ, cumulative; wrap_at = max_energy_range_uj. Domains
//                                    sharing a name are all named <name>-<zone>
//                                    ("core-intel-rapl:0:0").
//   rknpu.core<N>.load_pct           percent
// Characters of a name part other than letters, digits, '.', '-', '_' and ':' become '_'.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "platform/telemetry/channel.hpp"

namespace tokscope::platform {

// A sysfs name made safe as one part of a channel name: letters, digits, '.', '-', '_' and ':'
// are kept, anything else becomes '_'; "" becomes "unnamed". Pure.
std::string channel_name_part(std::string_view text);

// Opens every channel source available under root ("/" on a live system). Channels whose value
// could not be read once at open are left out. `unavailable` receives the readers' lines (why a
// family or a value is missing; see sysfs_file.hpp) and one line per file that could not be
// opened or read at open. Never throws for a missing or broken source; an empty tree gives no
// sources. The sources are independent objects: each may be read from its own thread, but each
// one from one thread at a time.
std::vector<std::unique_ptr<ChannelSource>> open_channel_sources(
    const std::filesystem::path& root, std::vector<std::string>& unavailable);

}  // namespace tokscope::platform
