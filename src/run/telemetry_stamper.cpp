#include "run/telemetry_stamper.hpp"

#include <cmath>

namespace tokscope::run {
namespace {

using nlohmann::json;

const char* kind_name(platform::ChannelKind k) {
  switch (k) {
    case platform::ChannelKind::kTemperature:
      return "temperature";
    case platform::ChannelKind::kFrequency:
      return "frequency";
    case platform::ChannelKind::kPower:
      return "power";
    case platform::ChannelKind::kEnergy:
      return "energy";
    case platform::ChannelKind::kLoad:
      return "load";
    case platform::ChannelKind::kOther:
      break;
  }
  return "other";
}

json value_or_null(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

json row_object(const platform::Sampler& sampler, const platform::SampleRow& row) {
  json o = json::object();
  const auto& channels = sampler.channels();
  for (std::size_t i = 0; i < channels.size() && i < row.values.size(); ++i) {
    o[channels[i].name] = value_or_null(row.values[i]);
  }
  return o;
}

}  // namespace

json telemetry_channels_json(const platform::Sampler& sampler) {
  json channels = json::array();
  const auto& infos = sampler.channels();
  for (std::size_t i = 0; i < infos.size(); ++i) {
    const auto& c = infos[i];
    json o = {{"name", c.name}, {"kind", kind_name(c.kind)}};
    if (c.passive_trip_c) o["passive_trip_c"] = *c.passive_trip_c;
    if (c.wrap_at) o["wrap_at"] = *c.wrap_at;
    if (const auto locked = sampler.locked_value(i)) o["locked"] = *locked;
    channels.push_back(std::move(o));
  }
  return {{"period_ms", sampler.options().period_ms}, {"channels", std::move(channels)}};
}

void TelemetryStamper::stamp(json& record) const {
  const auto t_submit = record.value("t_submit_ns", std::int64_t{0});
  const auto t_done = record.value("t_done_ns", std::int64_t{0});
  const auto first = sampler_.nearest_row(t_submit);
  platform::SampleRow row;
  if (!first || !sampler_.read_row(*first, row)) {
    record["telemetry"] = {{"unavailable", "no telemetry sample yet"}};
    return;
  }
  json t = {{"submit", row_object(sampler_, row)}};
  bool throttled = row.throttled;
  std::uint64_t inside = 0;
  if (t_done > 0) {
    const auto last = sampler_.nearest_row(t_done);
    const std::uint64_t end = last ? *last : *first;
    // Every row from the one nearest t_submit to the one nearest t_done.
    for (std::uint64_t seq = *first; seq <= end; ++seq) {
      if (!sampler_.read_row(seq, row)) continue;
      throttled = throttled || row.throttled;
      if (row.t_ns >= t_submit && row.t_ns <= t_done) ++inside;
      if (seq == end) t["done"] = row_object(sampler_, row);
    }
  }
  t["throttled"] = throttled;
  t["rows"] = inside;
  record["telemetry"] = std::move(t);
}

std::optional<json> TelemetryStamper::drain() {
  const std::uint64_t written = sampler_.rows_written();
  if (written <= next_) return std::nullopt;
  json t_ns = json::array();
  json throttled = json::array();
  json values = json::array();
  std::uint64_t lost = 0;
  platform::SampleRow row;
  for (std::uint64_t seq = next_; seq < written; ++seq) {
    if (!sampler_.read_row(seq, row)) {  // overwritten by the ring before it was drained
      ++lost;
      continue;
    }
    t_ns.push_back(row.t_ns);
    throttled.push_back(row.throttled);
    json v = json::array();
    for (double x : row.values) v.push_back(value_or_null(x));
    values.push_back(std::move(v));
  }
  next_ = written;
  json line = {{"type", "telemetry"},
               {"t_ns", std::move(t_ns)},
               {"throttled", std::move(throttled)},
               {"values", std::move(values)}};
  if (lost > 0) line["lost_rows"] = lost;
  return line;
}

}  // namespace tokscope::run
