#include "platform/sysfs/channel_sources.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "platform/sysfs/cpufreq.hpp"
#include "platform/sysfs/devfreq.hpp"
#include "platform/sysfs/hwmon.hpp"
#include "platform/sysfs/live_file.hpp"
#include "platform/sysfs/powercap.hpp"
#include "platform/sysfs/rknpu.hpp"
#include "platform/sysfs/sysfs_file.hpp"
#include "platform/sysfs/thermal.hpp"

namespace tokscope::platform {
namespace {

namespace fs = std::filesystem;

// One channel whose value is one integer file divided by a divisor (millidegrees → °C: 1000;
// a division, not a multiplication by 0.001, so 45230 gives exactly the double nearest 45.23, as
// the inventory readers do).
struct ScalarChannel {
  ChannelInfo info;
  sysfs::LiveFile file;
  double divisor = 1.0;
};

// A group of scalar channels, each its own file. read() costs one fstat and one pread per
// channel; no allocation.
class ScalarFilesSource final : public ChannelSource {
 public:
  explicit ScalarFilesSource(std::vector<ScalarChannel> channels) {
    infos_.reserve(channels.size());
    files_.reserve(channels.size());
    divisors_.reserve(channels.size());
    for (auto& c : channels) {
      infos_.push_back(std::move(c.info));
      files_.push_back(std::move(c.file));
      divisors_.push_back(c.divisor);
    }
  }

  [[nodiscard]] const std::vector<ChannelInfo>& channels() const override { return infos_; }

  void read(std::span<double> out) noexcept override {
    const std::size_t n = std::min(out.size(), files_.size());
    for (std::size_t i = 0; i < n; ++i) {
      const auto value = files_[i].read_i64();
      out[i] = value ? static_cast<double>(*value) / divisors_[i] : kNoReading;
    }
  }

 private:
  std::vector<ChannelInfo> infos_;
  std::vector<sysfs::LiveFile> files_;
  std::vector<double> divisors_;
};

// The rknpu load file: one read gives every core's load.
class RknpuLoadSource final : public ChannelSource {
 public:
  RknpuLoadSource(sysfs::LiveFile file, std::vector<ChannelInfo> infos, std::vector<int> cores)
      : file_(std::move(file)), infos_(std::move(infos)), cores_(std::move(cores)) {}

  [[nodiscard]] const std::vector<ChannelInfo>& channels() const override { return infos_; }

  void read(std::span<double> out) noexcept override {
    const std::size_t n = std::min(out.size(), cores_.size());
    char buf[512];
    RknpuCoreLoad parsed[kMaxRknpuCores];
    std::size_t count = 0;
    if (const auto text = file_.read(buf)) {
      count = parse_rknpu_load_into(*text, parsed).value_or(0);
    }
    for (std::size_t i = 0; i < n; ++i) {
      out[i] = kNoReading;
      for (std::size_t j = 0; j < count; ++j) {
        if (parsed[j].core == cores_[i]) out[i] = parsed[j].load_pct;
      }
    }
  }

 private:
  sysfs::LiveFile file_;
  std::vector<ChannelInfo> infos_;
  std::vector<int> cores_;
};

// Opens path for a scalar channel and reads it once; nullopt (and a line) when either fails.
std::optional<ScalarChannel> open_scalar(const fs::path& path, ChannelInfo info, double divisor,
                                         std::vector<std::string>& unavailable) {
  auto file = sysfs::LiveFile::open(path);
  if (!file.ok()) {
    unavailable.push_back(sysfs::unavailable_line(info.name, file.error().message));
    return std::nullopt;
  }
  if (!file->read_i64()) {
    unavailable.push_back(
        sysfs::unavailable_line(info.name, path.string() + ": not an integer when opened"));
    return std::nullopt;
  }
  return ScalarChannel{std::move(info), std::move(*file), divisor};
}

// Final name parts: base, or base + "-" + suffix for every base that occurs more than once.
std::vector<std::string> disambiguate(
    const std::vector<std::pair<std::string, std::string>>& parts) {
  std::map<std::string, int> count;
  for (const auto& [base, suffix] : parts) ++count[base];
  std::vector<std::string> names;
  names.reserve(parts.size());
  for (const auto& [base, suffix] : parts) {
    std::string name = base;
    if (count[base] > 1) name.append("-").append(suffix);
    names.push_back(std::move(name));
  }
  return names;
}

void add_source(std::vector<std::unique_ptr<ChannelSource>>& sources,
                std::vector<ScalarChannel> channels) {
  if (!channels.empty())
    sources.push_back(std::make_unique<ScalarFilesSource>(std::move(channels)));
}

void append(std::vector<std::string>& to, const std::vector<std::string>& lines) {
  to.insert(to.end(), lines.begin(), lines.end());
}

void open_thermal(const fs::path& root, std::vector<std::unique_ptr<ChannelSource>>& sources,
                  std::vector<std::string>& unavailable) {
  const ThermalState state = read_thermal(root);
  append(unavailable, state.unavailable);
  std::vector<std::pair<std::string, std::string>> parts;
  for (const auto& z : state.zones) {
    const std::string zone = "zone" + std::to_string(z.zone);
    parts.emplace_back(z.type.empty() ? "thermal_" + zone : channel_name_part(z.type), zone);
  }
  const auto names = disambiguate(parts);
  for (std::size_t i = 0; i < state.zones.size(); ++i) {
    const auto& z = state.zones[i];
    if (!z.temp_c) continue;
    ChannelInfo info;
    info.name = "thermal." + names[i] + ".temp_c";
    info.kind = ChannelKind::kTemperature;
    info.passive_trip_c = lowest_passive_trip_c(z.trips);
    std::vector<ScalarChannel> channels;
    if (auto c = open_scalar(z.dir / "temp", std::move(info), 1000.0, unavailable)) {
      channels.push_back(std::move(*c));
    }
    add_source(sources, std::move(channels));
  }
}

void open_cpufreq(const fs::path& root, std::vector<std::unique_ptr<ChannelSource>>& sources,
                  std::vector<std::string>& unavailable) {
  const CpufreqState state = read_cpufreq(root);
  append(unavailable, state.unavailable);
  for (const auto& p : state.policies) {
    if (p.cur_source.empty()) continue;
    ChannelInfo info;
    info.name = "cpufreq.policy" + std::to_string(p.policy) + ".cur_khz";
    info.kind = ChannelKind::kFrequency;
    std::vector<ScalarChannel> channels;
    if (auto c = open_scalar(p.dir / p.cur_source, std::move(info), 1.0, unavailable)) {
      channels.push_back(std::move(*c));
    }
    add_source(sources, std::move(channels));
  }
}

void open_devfreq(const fs::path& root, std::vector<std::unique_ptr<ChannelSource>>& sources,
                  std::vector<std::string>& unavailable) {
  const DevfreqState state = read_devfreq(root);
  append(unavailable, state.unavailable);
  for (const auto& d : state.devices) {
    if (!d.cur_hz) continue;
    ChannelInfo info;
    info.name = "devfreq." + channel_name_part(d.name) + ".cur_hz";
    info.kind = ChannelKind::kFrequency;
    std::vector<ScalarChannel> channels;
    if (auto c = open_scalar(d.dir / "cur_freq", std::move(info), 1.0, unavailable)) {
      channels.push_back(std::move(*c));
    }
    add_source(sources, std::move(channels));
  }
}

void open_hwmon(const fs::path& root, std::vector<std::unique_ptr<ChannelSource>>& sources,
                std::vector<std::string>& unavailable) {
  const HwmonState state = read_hwmon(root);
  append(unavailable, state.unavailable);
  std::vector<std::pair<std::string, std::string>> parts;
  for (const auto& d : state.devices) {
    const std::string hwmon = "hwmon" + std::to_string(d.hwmon);
    parts.emplace_back(d.name.empty() ? hwmon : channel_name_part(d.name), hwmon);
  }
  const auto names = disambiguate(parts);
  for (std::size_t i = 0; i < state.devices.size(); ++i) {
    std::vector<ScalarChannel> channels;
    for (const auto& s : state.devices[i].sensors) {
      if (!s.value) continue;
      ChannelInfo info;
      info.name = "hwmon." + names[i] + "." + s.channel_suffix();
      double divisor = 1.0;
      if (s.type == "temp") {
        info.kind = ChannelKind::kTemperature;
        divisor = 1000.0;
      } else if (s.type == "power") {
        info.kind = ChannelKind::kPower;
      } else if (s.type == "energy") {
        info.kind = ChannelKind::kEnergy;
      } else {
        continue;  // curr and in are inventory facts, not sampled
      }
      if (auto c = open_scalar(s.file, std::move(info), divisor, unavailable)) {
        channels.push_back(std::move(*c));
      }
    }
    add_source(sources, std::move(channels));
  }
}

void open_rapl(const fs::path& root, std::vector<std::unique_ptr<ChannelSource>>& sources,
               std::vector<std::string>& unavailable) {
  const PowercapState state = read_powercap(root);
  append(unavailable, state.unavailable);
  std::vector<std::pair<std::string, std::string>> parts;
  for (const auto& d : state.domains) {
    parts.emplace_back(d.name.empty() ? channel_name_part(d.zone) : channel_name_part(d.name),
                       channel_name_part(d.zone));
  }
  const auto names = disambiguate(parts);
  for (std::size_t i = 0; i < state.domains.size(); ++i) {
    const auto& d = state.domains[i];
    if (!d.energy_uj) continue;
    ChannelInfo info;
    info.name = "rapl." + names[i] + ".energy_uj";
    info.kind = ChannelKind::kEnergy;
    if (d.max_energy_range_uj) info.wrap_at = static_cast<double>(*d.max_energy_range_uj);
    std::vector<ScalarChannel> channels;
    if (auto c = open_scalar(d.dir / "energy_uj", std::move(info), 1.0, unavailable)) {
      channels.push_back(std::move(*c));
    }
    add_source(sources, std::move(channels));
  }
}

void open_rknpu(const fs::path& root, std::vector<std::unique_ptr<ChannelSource>>& sources,
                std::vector<std::string>& unavailable) {
  const RknpuLoadState state = read_rknpu_load(root);
  append(unavailable, state.unavailable);
  if (state.cores.empty()) return;
  auto file = sysfs::LiveFile::open(state.file);
  if (!file.ok()) {
    unavailable.push_back(sysfs::unavailable_line("rknpu load", file.error().message));
    return;
  }
  std::vector<ChannelInfo> infos;
  std::vector<int> cores;
  for (const auto& core : state.cores) {
    ChannelInfo info;
    info.name = "rknpu.core" + std::to_string(core.core) + ".load_pct";
    info.kind = ChannelKind::kLoad;
    infos.push_back(std::move(info));
    cores.push_back(core.core);
  }
  sources.push_back(
      std::make_unique<RknpuLoadSource>(std::move(*file), std::move(infos), std::move(cores)));
}

}  // namespace

std::string channel_name_part(std::string_view text) {
  if (text.empty()) return "unnamed";
  std::string part(text);
  for (char& c : part) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '-' || c == '_' || c == ':';
    if (!keep) c = '_';
  }
  return part;
}

std::vector<std::unique_ptr<ChannelSource>> open_channel_sources(
    const fs::path& root, std::vector<std::string>& unavailable) {
  std::vector<std::unique_ptr<ChannelSource>> sources;
  open_thermal(root, sources, unavailable);
  open_cpufreq(root, sources, unavailable);
  open_devfreq(root, sources, unavailable);
  open_hwmon(root, sources, unavailable);
  open_rapl(root, sources, unavailable);
  open_rknpu(root, sources, unavailable);
  return sources;
}

}  // namespace tokscope::platform
