#include "run/power_log_alignment.hpp"

#include <fmt/format.h>

#include "platform/pre_run.hpp"

namespace tokscope::run {

namespace {

struct Offset {
  std::int64_t ns = 0;
  std::string method;
  nlohmann::json pulse = nullptr;
};

Expected<Offset> choose_offset(const platform::PowerLog& log, const nlohmann::json& environment,
                               std::optional<double> offset_s) {
  if (offset_s) {
    auto ns = platform::offset_ns_from_s(*offset_s);
    if (!ns) return ns.error();
    return Offset{*ns, fmt::format("offset given by --power-log-offset-s {}", *offset_s)};
  }
  if (const auto shape = platform::marker_pulse_from_json(
          environment.value("marker_pulse", nlohmann::json(nullptr)))) {
    auto match = platform::find_marker_pulse(log.t_log_ns, log.power_mw, *shape);
    if (!match) {
      return make_error(match.error().kind,
                        fmt::format("--power-log {}: the run's marker pulse was not found: {}",
                                    log.source, match.error().message));
    }
    Offset o{match->offset_ns, fmt::format("marker pulse (snr {:.1f})", match->snr)};
    o.pulse = {{"edge_log_ns", match->edge_log_ns},
               {"uncertainty_ns", match->uncertainty_ns},
               {"snr", match->snr},
               {"runner_up_ratio", match->runner_up_ratio},
               {"pulse_mw", match->pulse_mw},
               {"idle_mw", match->idle_mw}};
    return o;
  }
  const nlohmann::json sync = environment.value("clock_sync", nlohmann::json(nullptr));
  if (log.clock == platform::LogClock::kEpoch && sync.is_object() &&
      sync.value("monotonic_ns", nlohmann::json(nullptr)).is_number_integer() &&
      sync.value("realtime_ns", nlohmann::json(nullptr)).is_number_integer()) {
    const auto mono = sync["monotonic_ns"].get<std::int64_t>();
    const auto real = sync["realtime_ns"].get<std::int64_t>();
    return Offset{mono - real,
                  "Unix-time log aligned by the run's clock sync point (assumes the meter's "
                  "clock agrees with this machine's)"};
  }
  return make_error(
      ErrorKind::kUsage,
      fmt::format("--power-log {}: cannot place the log on the run's timeline: its times are {} "
                  "and the run made no marker pulse; give --power-log-offset-s SECONDS, or "
                  "rerun with --marker-pulse while the meter logs, or log Unix time "
                  "(docs/power-log.md)",
                  log.source,
                  log.clock == platform::LogClock::kRelative ? "relative to the logger's start"
                                                             : "wall-clock without a time zone"));
}

}  // namespace

Expected<RunPowerLog> align_run_power_log(const platform::PowerLog& log,
                                          const nlohmann::json& environment,
                                          std::optional<double> offset_s) {
  auto offset = choose_offset(log, environment, offset_s);
  if (!offset) return offset.error();
  auto aligned = platform::align_power_log(log, offset->ns, offset->method);
  if (!aligned) return aligned.error();
  RunPowerLog out;
  out.series.channel = "power-log:" + log.source;
  out.series.cumulative = false;
  out.series.t_ns = std::move(aligned->t_ns);
  out.series.values.reserve(aligned->power_mw.size());
  for (const double mw : aligned->power_mw) out.series.values.push_back(mw * 1000.0);  // → µW
  out.info = {{"file", log.source},
              {"rows", log.t_log_ns.size()},
              {"median_period_ms", static_cast<double>(log.median_period_ns) / 1e6},
              {"time_column", log.time_column},
              {"power_from", log.power_from},
              {"clock", platform::to_string(log.clock)},
              {"offset_ns", offset->ns},
              {"method", offset->method},
              {"pulse", offset->pulse},
              {"notes", log.notes}};
  return out;
}

Expected<RunPowerLog> load_run_power_log(const std::string& path, const nlohmann::json& environment,
                                         std::optional<double> offset_s) {
  auto log = platform::read_power_log(path);
  if (!log) return log.error();
  return align_run_power_log(*log, environment, offset_s);
}

}  // namespace tokscope::run
