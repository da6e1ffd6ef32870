#include "report/telemetry_series.hpp"

namespace tokscope::report {

using nlohmann::json;

json stratum_series(const json& channels, const std::vector<json>& lines, std::int64_t t0_ns,
                    std::int64_t t1_ns) {
  if (!channels.is_array() || channels.empty() || t1_ns < t0_ns) return nullptr;
  std::vector<json> columns(channels.size(), json::array());
  json t_ms = json::array();
  json throttled = json::array();
  std::uint64_t n_throttled = 0;
  for (const auto& line : lines) {
    const json& ts = line.at("t_ns");
    const json& values = line.at("values");
    const json& flags = line.at("throttled");
    for (std::size_t r = 0; r < ts.size(); ++r) {
      const auto t = ts[r].get<std::int64_t>();
      if (t < t0_ns || t > t1_ns) continue;
      t_ms.push_back(static_cast<double>(t - t0_ns) / 1e6);
      const bool th = flags[r].get<bool>();
      throttled.push_back(th);
      if (th) ++n_throttled;
      const json& row = values[r];
      for (std::size_t c = 0; c < columns.size(); ++c) {
        columns[c].push_back(c < row.size() ? row[c] : json(nullptr));
      }
    }
  }
  if (t_ms.empty()) return nullptr;
  json by_name = json::object();
  for (std::size_t c = 0; c < columns.size(); ++c) {
    by_name[channels[c].value("name", "channel" + std::to_string(c))] = std::move(columns[c]);
  }
  return {{"t_ms", std::move(t_ms)},
          {"throttled", std::move(throttled)},
          {"throttled_rows", n_throttled},
          {"channels", std::move(by_name)}};
}

}  // namespace tokscope::report
