// A frequency lock with guaranteed restore: CPU, DDR, NPU and GPU held at fixed frequencies for
// the lifetime of one FrequencyLock (a benchmark run, `tokscope lock --hold`), the previous
// values written back when it ends.
//
// acquire() order, nothing written before step 4:
//   1. a lock journal left behind by a killed tokscope is restored first (reported as
//      "recovered"); one whose process still runs is refused (two locks would fight)
//   2. plan_lock(): channels found, every requested frequency checked (lock_plan.hpp)
//   3. every file to be written checked for write permission (not root → "run as root: sudo")
//   4. the journal written atomically with every previous value (lock_journal.hpp)
//   5. the writes, in plan order; a failure rolls back the writes done so far
//   6. every written value read back, and each channel's current frequency compared with the
//      locked one (within 1%): report()["held"]
// Restore (release(), the destructor) writes the previous values back in reverse order and
// removes the journal. SIGINT/SIGTERM: the signal handler may only set a flag
// (platform/interrupt.hpp); the owner polls it and lets the lock go out of scope, so restoring
// never runs inside a handler. kill -9: the journal stays, step 1 of the next start restores.
//
// Not thread-safe: one owner. Movable, not copyable; a moved-from lock restores nothing.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/expected.hpp"
#include "platform/lock/lock_journal.hpp"
#include "platform/lock/lock_plan.hpp"

namespace tokscope::platform::lock {

inline constexpr const char* kLockReportSchema = "tokscope.lock/1";

// A channel locked to one frequency, for a sampler to flag throttling: cur_file reading below
// locked_freq while the lock is held means the kernel or firmware lowered it (thermal, power).
struct LockedChannel {
  std::string channel;            // telemetry name of its frequency: "cpufreq.policy4.cur_khz",
                                  // "devfreq.dmc.cur_hz"
  std::string cur_file;           // relative to the sysfs root: scaling_cur_freq / cur_freq
  std::uint64_t locked_freq = 0;  // in unit
  std::string unit;               // "kHz" (cpufreq) or "Hz" (devfreq)
};

// |cur - locked| <= 1% of locked: the tolerance of the "held" check (a clock rounded by the
// firmware still counts as held).
bool frequency_matches(std::uint64_t cur, std::uint64_t locked) noexcept;

class FrequencyLock {
 public:
  // See the order above. request.journal empty → default_journal_path().
  static Expected<FrequencyLock> acquire(const LockRequest& request);

  FrequencyLock(FrequencyLock&& other) noexcept;
  FrequencyLock& operator=(FrequencyLock&& other) noexcept;  // releases the lock it held
  FrequencyLock(const FrequencyLock&) = delete;
  FrequencyLock& operator=(const FrequencyLock&) = delete;
  ~FrequencyLock();  // release() unless released or kept; errors leave the journal behind

  // {"schema": "tokscope.lock/1", "sysfs_root", "journal", "pid", "recovered": null or the
  // restore report of a leftover journal, "channels": [{"name", "kind", "mode",
  // "previous_governor", "governor", "locked_freq", "unit", "cur_freq", "held", "reason"}],
  // "writes": [{"file", "previous", "value", "read_back", "ok"}], "held", "notes",
  // "released", "kept", "release": null or the restore report}.
  [[nodiscard]] nlohmann::json report() const;

  // Every written value read back and every current frequency matched its lock.
  [[nodiscard]] bool held() const noexcept;

  // The channels locked to a known frequency (performance with an unreadable max is not).
  [[nodiscard]] std::vector<LockedChannel> locked_channels() const;

  // Still locked: neither released nor kept nor moved from.
  [[nodiscard]] bool active() const noexcept;

  // Restores every previous value (reverse order) and removes the journal. Idempotent. On error
  // the journal is kept and the next acquire() or `tokscope unlock` retries.
  Expected<void> release();

  // Leaves the frequencies locked and the journal on disk, for `tokscope unlock` to restore.
  void keep() noexcept;

 private:
  struct State;
  explicit FrequencyLock(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// What acquire() would do, writing nothing: {"dry_run": true, "sysfs_root", "journal",
// "leftover_journal": null or {"pid", "running", "steps"}, "channels" (with their steps),
// "notes"}.
Expected<nlohmann::json> describe_lock(const LockRequest& request);

}  // namespace tokscope::platform::lock
