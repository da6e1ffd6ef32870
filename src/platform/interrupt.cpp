#include "platform/interrupt.hpp"

#include <csignal>

namespace tokscope::platform {
namespace {

// Process-wide by necessity (see header). Lock-free atomics are async-signal-safe.
std::atomic<bool> g_interrupted{false};
std::atomic<int> g_signal{0};
struct sigaction g_old_int {};
struct sigaction g_old_term {};

extern "C" void on_signal(int sig) {
  g_signal.store(sig);
  g_interrupted.store(true);
  // Second signal: default action.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
}

}  // namespace

static_assert(std::atomic<bool>::is_always_lock_free, "signal flag must be lock-free");

InterruptGuard::InterruptGuard() {
  g_interrupted.store(false);
  g_signal.store(0);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: blocking reads return EINTR and notice the flag
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

const std::atomic<bool>& InterruptGuard::flag() const noexcept {
  return g_interrupted;
}
int InterruptGuard::signal_number() const noexcept {
  return g_signal.load();
}

}  // namespace tokscope::platform
