// The platform side of `bench` around the measured requests, in the order run_bench calls it:
//   pin_for_bench      before the engine loads (its threads inherit the cpu mask)
//   mlock_for_bench    after the engine loaded (the model's pages are locked with it)
//   lock_for_bench     after telemetry is opened, before the sampler starts (locked channels
//                      are marked so a frequency that falls below its lock flags `throttled`)
//   pre_run_phases     with the sampler running: idle baseline window, marker pulse, clock sync
// Each returns what the result's environment says about it (merged into the journal header).
// The frequency lock is restored when the BenchPlatform goes out of scope, on every path out of
// run_bench (errors, Ctrl-C); a kill -9 leaves the lock journal that the next start restores.
#pragma once

#include <atomic>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli/lock_command.hpp"
#include "core/expected.hpp"
#include "platform/clock.hpp"
#include "platform/lock/frequency_lock.hpp"
#include "platform/telemetry/sampler.hpp"
#include "run/settings.hpp"

namespace tokscope::cli {

struct BenchPlatform {
  std::optional<platform::lock::FrequencyLock> lock;
  std::vector<int> cpus;  // the cpus the harness runs on (pinned or inherited)
  // Keys for the header's environment: "locks", "lock", "affinity", "mlock", "idle_baseline",
  // "marker_pulse", "clock_sync".
  nlohmann::json environment = nlohmann::json::object();
};

// --cpus / --core-type (topology under root). No flag: records the inherited mask.
Expected<void> pin_for_bench(const run::Settings& settings, const std::string& root,
                             BenchPlatform& platform);

// --mlock.
Expected<void> mlock_for_bench(const run::Settings& settings, BenchPlatform& platform);

// --lock with the frequency flags of settings; lock_journal "" = the default state file.
// sampler may be null (sampling off).
Expected<void> lock_for_bench(const run::Settings& settings, const std::string& root,
                              const std::string& lock_journal, platform::Sampler* sampler,
                              BenchPlatform& platform);

// --idle-baseline-s and --marker-pulse (the sampler should be running), then the clock sync
// point. kCancelled when Ctrl-C arrives meanwhile.
Expected<void> pre_run_phases(const run::Settings& settings, const platform::Clock& clock,
                              const std::atomic<bool>& stop, bool quiet, std::ostream& err,
                              BenchPlatform& platform);

// Restores the lock, if any: the restore report for the journal's end line (null: no lock).
nlohmann::json release_bench_lock(BenchPlatform& platform);

// The lock flags as settings carry them.
LockFlags lock_flags_of(const run::Settings& settings, const std::string& lock_journal);

}  // namespace tokscope::cli
