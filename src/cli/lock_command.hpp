// `tokscope lock`: hold CPU, DDR, NPU and GPU at fixed frequencies (checked, journaled, read back,
// restored); `tokscope unlock`: restore a lock left behind by a killed tokscope. The frequency
// flags are shared so `bench --lock` can take the same ones (add_lock_frequency_flags +
// make_lock_request, then platform::lock::FrequencyLock::acquire).
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <memory>
#include <string>

#include "core/expected.hpp"
#include "platform/lock/lock_plan.hpp"

namespace tokscope::cli {

// The text of the frequency flags as given ("" = not given).
struct LockFlags {
  std::string ddr_freq_hz;
  std::string npu_freq_hz;
  std::string gpu_freq_hz;
  std::string cpu_freq_khz;  // "2352000" or "policy0=1800000,policy4=2352000"
  std::string journal;       // --lock-journal; "" = the default state file
};

// Adds --ddr-freq, --npu-freq, --gpu-freq, --cpu-freq and --lock-journal to cmd.
void add_lock_frequency_flags(CLI::App& cmd, LockFlags& flags);

// Parses the flags (kUsage naming the flag on a malformed value) into a request.
Expected<platform::lock::LockRequest> make_lock_request(const LockFlags& flags,
                                                        const std::string& sysfs_root,
                                                        std::string command_hint);

struct LockCommandOptions;
std::shared_ptr<LockCommandOptions> add_lock_command(CLI::App& app);
int run_lock_command(const LockCommandOptions& options, std::ostream& out, std::ostream& err);

struct UnlockCommandOptions;
std::shared_ptr<UnlockCommandOptions> add_unlock_command(CLI::App& app);
int run_unlock_command(const UnlockCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tokscope::cli
