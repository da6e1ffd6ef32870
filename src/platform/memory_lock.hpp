// `bench --mlock`: lock every page of the harness (and of an in-process engine's model) in RAM
// with mlockall(MCL_CURRENT | MCL_FUTURE), so that no page of the weights is swapped out or
// dropped and re-read from flash in the middle of a decode (zram and low-RAM boards do that).
// Called after the engine has loaded, so the model's mapping is locked at once. An engine
// server in another process is not affected (start it with its own --mlock).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/expected.hpp"

namespace tokscope::platform {

// The reason mlockall failed, in words, with the fix: errno (ENOMEM / EPERM / other) and the
// RLIMIT_MEMLOCK soft limit in bytes (nullopt = unlimited or unknown). Pure.
std::string mlock_failure_reason(int err, std::optional<std::uint64_t> memlock_limit_bytes);

// Locks all current and future pages. kUsage error (naming --mlock and the fix) when refused.
// On success: {"locked": true, "limit_bytes": n | null (unlimited)}.
Expected<nlohmann::json> lock_all_memory();

// munlockall(); for tests. Never fails visibly.
void unlock_all_memory() noexcept;

}  // namespace tokscope::platform
