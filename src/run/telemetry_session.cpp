#include "run/telemetry_session.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "platform/sysfs/channel_sources.hpp"
#include "platform/sysfs/inventory.hpp"

namespace tokscope::run {
namespace {

struct Family {
  const char* key;                    // telemetry_available key
  std::vector<const char*> prefixes;  // channel name prefixes that count as this family
  std::vector<const char*> keywords;  // words that tie an unavailable line to the family
};

const std::vector<Family>& families() {
  static const std::vector<Family> kFamilies = {
      {"thermal", {"thermal."}, {"thermal"}},
      {"cpufreq", {"cpufreq."}, {"cpufreq"}},
      {"devfreq", {"devfreq."}, {"devfreq"}},
      {"power", {"rapl.", "hwmon."}, {"powercap", "rapl", "hwmon"}},
      {"npu_load", {"rknpu."}, {"rknpu"}},
  };
  return kFamilies;
}

}  // namespace

nlohmann::json telemetry_available(const std::vector<platform::ChannelInfo>& channels,
                                   const std::vector<std::string>& unavailable, bool sampler_on) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& f : families()) {
    if (!sampler_on) {
      out[f.key] = "unavailable: the telemetry sampler is off (--sample-ms 0)";
      continue;
    }
    bool found = false;
    for (const auto& c : channels) {
      for (const char* p : f.prefixes) found = found || c.name.rfind(p, 0) == 0;
    }
    if (found) {
      out[f.key] = true;
      continue;
    }
    std::string reason;
    for (const auto& line : unavailable) {
      for (const char* k : f.keywords) {
        if (reason.empty() && line.find(k) != std::string::npos) reason = line;
      }
    }
    if (reason.empty()) reason = fmt::format("unavailable: no {} source found", f.key);
    if (reason.rfind("unavailable", 0) != 0) reason.insert(0, "unavailable: ");
    out[f.key] = reason;
  }
  return out;
}

TelemetrySession open_telemetry(const std::filesystem::path& root, double sample_ms,
                                const platform::Clock& clock) {
  TelemetrySession t;
  const platform::PlatformInventory inventory = platform::discover_platform(root);
  std::vector<platform::ChannelInfo> channels;
  if (sample_ms > 0) {
    auto sources = platform::open_channel_sources(root, t.unavailable);
    // Nothing to read (this x86 VM): no thread, no empty stamps on every request.
    if (!sources.empty()) {
      platform::SamplerOptions so;
      so.period_ms = sample_ms;
      t.sampler = std::make_unique<platform::Sampler>(std::move(sources), clock, so);
      t.stamper = std::make_unique<TelemetryStamper>(*t.sampler);
      channels = t.sampler->channels();
    }
  } else {
    t.unavailable = inventory.unavailable;
  }
  t.environment = {
      {"sampler_period_ms", sample_ms > 0 ? nlohmann::json(sample_ms) : nlohmann::json(nullptr)},
      {"telemetry",
       t.sampler ? telemetry_channels_json(*t.sampler)
                 : nlohmann::json{{"period_ms", sample_ms}, {"channels", nlohmann::json::array()}}},
      {"telemetry_available", telemetry_available(channels, t.unavailable, sample_ms > 0)},
      {"platform", platform::to_json(inventory)}};
  return t;
}

Expected<void> check_same_channels(const nlohmann::json& header, const TelemetrySession& session) {
  std::vector<std::string> before;
  const nlohmann::json channels = header.value("environment", nlohmann::json::object())
                                      .value("telemetry", nlohmann::json::object())
                                      .value("channels", nlohmann::json::array());
  if (channels.is_array()) {
    for (const auto& c : channels) before.push_back(c.value("name", ""));
  }
  std::vector<std::string> now;
  if (session.sampler) {
    for (const auto& c : session.sampler->channels()) now.push_back(c.name);
  }
  if (before == now) return {};
  std::string difference;
  for (std::size_t i = 0; i < std::max(before.size(), now.size()); ++i) {
    const std::string a = i < before.size() ? before[i] : "(none)";
    const std::string b = i < now.size() ? now[i] : "(none)";
    if (a != b) {
      difference = fmt::format("channel {} was {} and is now {}", i, a, b);
      break;
    }
  }
  return make_error(ErrorKind::kUsage,
                    fmt::format("--resume: the telemetry channels differ from the journal's "
                                "({}; {} then, {} now); resume on the machine and --sysfs-root "
                                "of the original run with the same --sample-ms, or start a new "
                                "run",
                                difference, before.size(), now.size()));
}

}  // namespace tokscope::run
