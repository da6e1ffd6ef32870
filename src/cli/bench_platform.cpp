#include "cli/bench_platform.hpp"

#include <fmt/format.h>

#include <ostream>

#include "platform/affinity.hpp"
#include "platform/memory_lock.hpp"
#include "platform/pre_run.hpp"
#include "platform/topology.hpp"

namespace tokscope::cli {

namespace lk = platform::lock;

LockFlags lock_flags_of(const run::Settings& settings, const std::string& lock_journal) {
  LockFlags f;
  f.ddr_freq_hz = settings.lock_ddr_freq_hz;
  f.npu_freq_hz = settings.lock_npu_freq_hz;
  f.gpu_freq_hz = settings.lock_gpu_freq_hz;
  f.cpu_freq_khz = settings.lock_cpu_freq_khz;
  f.journal = lock_journal;
  return f;
}

Expected<void> pin_for_bench(const run::Settings& settings, const std::string& root,
                             BenchPlatform& platform) {
  if (settings.cpus.empty() && settings.core_type.empty()) {
    platform.cpus = platform::current_affinity();
    platform.environment["affinity"] = {
        {"requested", nullptr},
        {"applied", platform::format_cpu_list(platform.cpus)},
        {"source", "inherited (not pinned: --cpus or --core-type pin the harness)"}};
    return {};
  }
  const platform::Topology topology = platform::read_topology(root);
  auto plan = platform::plan_affinity(settings.cpus, settings.core_type, topology);
  if (!plan) return plan.error();
  auto applied = platform::pin_calling_thread(*plan);
  if (!applied) return applied.error();
  platform.cpus = *applied;
  platform.environment["affinity"] = platform::affinity_json(*plan, *applied);
  return {};
}

Expected<void> mlock_for_bench(const run::Settings& settings, BenchPlatform& platform) {
  if (!settings.mlock) {
    platform.environment["mlock"] = {{"locked", false}};
    return {};
  }
  auto locked = platform::lock_all_memory();
  if (!locked) return locked.error();
  platform.environment["mlock"] = *locked;
  return {};
}

Expected<void> lock_for_bench(const run::Settings& settings, const std::string& root,
                              const std::string& lock_journal, platform::Sampler* sampler,
                              BenchPlatform& platform) {
  platform.environment["locks"] = nlohmann::json::array();
  platform.environment["lock"] = nullptr;
  if (!settings.lock) return {};
  auto request =
      make_lock_request(lock_flags_of(settings, lock_journal), root, "tokscope bench --lock");
  if (!request) return request.error();
  auto lock = lk::FrequencyLock::acquire(*request);
  if (!lock) return lock.error();
  const nlohmann::json report = lock->report();
  // environment.locks (spec/cli.md): one entry per channel, what was locked and whether it held.
  for (const auto& ch : report.value("channels", nlohmann::json::array())) {
    platform.environment["locks"].push_back(ch);
  }
  platform.environment["lock"] = {{"held", report.value("held", false)},
                                  {"journal", report.value("journal", "")},
                                  {"recovered", report.value("recovered", nlohmann::json())},
                                  {"notes", report.value("notes", nlohmann::json::array())}};
  if (sampler != nullptr) {
    for (const auto& ch : lock->locked_channels()) {
      sampler->mark_locked(ch.channel, static_cast<double>(ch.locked_freq));
    }
  }
  platform.lock.emplace(std::move(*lock));
  return {};
}

Expected<void> pre_run_phases(const run::Settings& settings, const platform::Clock& clock,
                              const std::atomic<bool>& stop, bool quiet, std::ostream& err,
                              BenchPlatform& platform) {
  platform.environment["idle_baseline"] = nullptr;
  platform.environment["marker_pulse"] = nullptr;
  if (settings.idle_baseline_s > 0) {
    if (!quiet) {
      err << fmt::format("tokscope bench: idle baseline, {} s (keep the machine idle)...\n",
                         settings.idle_baseline_s);
    }
    // A sampler read before the window starts and one after it ends: the window is covered
    // on both sides (energy is never extrapolated).
    const double margin_s = 1.5 * settings.sample_ms / 1000.0;
    if (margin_s > 0) {
      if (auto lead = platform::idle_for(clock, stop, margin_s); !lead) return lead.error();
    }
    auto idle = platform::idle_for(clock, stop, settings.idle_baseline_s);
    if (!idle) return idle.error();
    platform.environment["idle_baseline"] = {
        {"t0_ns", idle->t0_ns},
        {"t1_ns", idle->t1_ns},
        {"window_s", static_cast<double>(idle->t1_ns - idle->t0_ns) / 1e9}};
    if (margin_s > 0) {
      if (auto tail = platform::idle_for(clock, stop, margin_s); !tail) return tail.error();
    }
  }
  if (settings.marker_pulse) {
    if (!quiet) {
      err << "tokscope bench: marker pulse for the power meter: 3 s idle, 2 s every cpu busy, 3 s "
             "idle...\n";
    }
    std::vector<int> cpus = platform.cpus;
    if (cpus.empty()) cpus = platform::current_affinity();
    auto pulse = platform::run_marker_pulse(clock, stop, cpus, platform::MarkerPulse{});
    if (!pulse) return pulse.error();
    platform.environment["marker_pulse"] = platform::marker_pulse_json(*pulse);
    platform.environment["marker_pulse"]["cpus"] = platform::format_cpu_list(cpus);
  }
  platform.environment["clock_sync"] = platform::clock_sync_point(clock);
  return {};
}

nlohmann::json release_bench_lock(BenchPlatform& platform) {
  if (!platform.lock || !platform.lock->active()) return nullptr;
  auto released = platform.lock->release();
  nlohmann::json report = platform.lock->report();
  nlohmann::json out = {{"restored", released.ok()},
                        {"release", report.value("release", nlohmann::json())}};
  if (!released) out["error"] = released.error().message;
  return out;
}

}  // namespace tokscope::cli
