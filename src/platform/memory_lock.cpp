#include "platform/memory_lock.hpp"

#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstring>

namespace tokscope::platform {

namespace {

std::optional<std::uint64_t> memlock_limit() {
  rlimit rl{};
  if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return static_cast<std::uint64_t>(rl.rlim_cur);
}

std::string limit_text(std::optional<std::uint64_t> limit) {
  return limit ? fmt::format("{} KiB", *limit / 1024) : std::string("unlimited");
}

}  // namespace

std::string mlock_failure_reason(int err, std::optional<std::uint64_t> memlock_limit_bytes) {
  const std::string limit = limit_text(memlock_limit_bytes);
  if (err == ENOMEM) {
    return fmt::format(
        "--mlock: mlockall refused: the locked-memory limit (RLIMIT_MEMLOCK, {}) is below what "
        "tokscope and the model map; raise it for this shell with `ulimit -l unlimited` (as "
        "root), or set memlock in /etc/security/limits.conf, or run as root",
        limit);
  }
  if (err == EPERM) {
    return fmt::format(
        "--mlock: mlockall refused: locking memory needs CAP_IPC_LOCK or a non-zero "
        "RLIMIT_MEMLOCK (now {}); run as root or raise the limit with `ulimit -l unlimited`",
        limit);
  }
  return fmt::format("--mlock: mlockall failed: {} (RLIMIT_MEMLOCK {}); run without --mlock",
                     std::strerror(err), limit);
}

Expected<nlohmann::json> lock_all_memory() {
  if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0) {
    const int e = errno;
    return make_error(ErrorKind::kUsage, mlock_failure_reason(e, memlock_limit()));
  }
  const auto limit = memlock_limit();
  return nlohmann::json{{"locked", true},
                        {"limit_bytes", limit ? nlohmann::json(*limit) : nlohmann::json(nullptr)}};
}

void unlock_all_memory() noexcept {
  munlockall();
}

}  // namespace tokscope::platform
