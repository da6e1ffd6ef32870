// Turns SIGINT/SIGTERM into a flag the run polls, so Ctrl-C stops cleanly: the request in
// flight is abandoned, everything completed is already in the journal, a partial result is
// written. A second signal restores the default action (a stuck engine can still be killed).
// The flag is process-wide because a signal handler can only reach process-wide state; this is
// the one such object in tokscope, owned by an RAII guard that restores the old handlers.
#pragma once

#include <atomic>

namespace tokscope::platform {

class InterruptGuard {
 public:
  InterruptGuard();   // installs the handlers
  ~InterruptGuard();  // restores the previous handlers
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // Set once a signal arrived (lock-free atomic, safe to read from any thread).
  [[nodiscard]] const std::atomic<bool>& flag() const noexcept;
  [[nodiscard]] int signal_number() const noexcept;
};

}  // namespace tokscope::platform
