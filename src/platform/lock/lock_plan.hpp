// What a frequency lock would write, decided before anything is written. plan_lock() reads the
// tree (never writes), finds the channels, checks every requested frequency against what the
// device offers, and lists the writes in order together with each file's previous text.
//
// Channels (paths relative to the sysfs root):
//   cpufreq  sys/devices/system/cpu/cpufreq/policy*   (kHz; RK3588: policy0 A55, policy4/6 A76)
//   DDR      sys/class/devfreq/dmc                     (Hz)
//   NPU      sys/class/devfreq/*.npu                   (Hz; RK3588: fdab0000.npu)
//   GPU      sys/class/devfreq/*.gpu                   (Hz; RK3588: fb000000.gpu)
// Modes:
//   performance  governor=performance (the device's own maximum); the default for CPU/NPU/GPU
//   userspace    governor=userspace, then scaling_setspeed (cpufreq) or userspace/set_freq
//                (devfreq) = the frequency; DDR always (at --ddr-freq, else its highest)
//   pin          when a frequency is asked for but the userspace governor is not offered:
//                governor=performance and min=max=the frequency (cpufreq scaling_min/max_freq,
//                devfreq min_freq/max_freq), written in the order that keeps min <= max
// Restore runs the steps backwards, writing back each step's previous text. A step with no value
// is a snapshot: nothing is written at lock time, the previous text is written back at restore
// (the userspace frequency of a channel that was already under the userspace governor, which
// switching governors would lose).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/expected.hpp"

namespace tokscope::platform::lock {

struct LockRequest {
  std::filesystem::path sysfs_root = "/";
  std::filesystem::path journal;  // lock journal file; the CLI defaults it (default_journal_path)
  std::optional<std::uint64_t> ddr_freq_hz;   // nullopt: the highest available
  std::optional<std::uint64_t> npu_freq_hz;   // nullopt: governor performance
  std::optional<std::uint64_t> gpu_freq_hz;   // nullopt: governor performance
  std::optional<std::uint64_t> cpu_freq_khz;  // every policy; nullopt: governor performance
  std::map<std::string, std::uint64_t> cpu_policy_freq_khz;  // "policy4" → kHz; beats the above
  // The command named in "run as root: sudo <command_hint> ..." ("tokscope bench --lock").
  std::string command_hint = "tokscope lock";
};

enum class ChannelKind { kCpu, kDdr, kNpu, kGpu };
enum class LockMode { kPerformance, kUserspace, kPin };

const char* to_string(ChannelKind kind) noexcept;  // "cpu", "ddr", "npu", "gpu"
const char* to_string(LockMode mode) noexcept;     // "performance", "userspace", "pin"

// One file of a lock, in the order of acquisition.
struct LockStep {
  std::string file;                  // relative to the sysfs root
  std::string previous;              // its trimmed text before the lock
  std::optional<std::string> value;  // written at acquisition; nullopt: a snapshot step
  bool restore = false;              // `previous` is written back on restore
};

struct ChannelPlan {
  std::string name;  // "cpufreq.policy4", "devfreq.dmc"
  ChannelKind kind = ChannelKind::kCpu;
  std::string dir;  // relative to the root ("sys/class/devfreq/dmc")
  LockMode mode = LockMode::kPerformance;
  std::string previous_governor;
  std::string governor;  // written
  // The frequency the lock should hold, in `unit`: the requested one, or under performance the
  // maximum (scaling_max_freq / max_freq); nullopt when that is unreadable.
  std::optional<std::uint64_t> target_freq;
  std::string unit;      // "kHz" (cpufreq) or "Hz" (devfreq)
  std::string cur_file;  // relative: .../scaling_cur_freq or .../cur_freq
  std::vector<LockStep> steps;
  std::vector<std::string> notes;
};

struct LockPlan {
  std::filesystem::path sysfs_root;  // canonical
  std::vector<ChannelPlan> channels;
  std::vector<std::string> notes;  // channels not found, and why
  std::string command_hint;

  // Every channel's steps in acquisition order.
  [[nodiscard]] std::vector<LockStep> steps() const;
};

// Reads the tree under request.sysfs_root and decides the writes. kUsage for a frequency the
// device does not offer, a frequency for a channel that does not exist, or a path leaving the
// root; kUnavailable when not a single channel exists. Writes nothing.
Expected<LockPlan> plan_lock(const LockRequest& request);

// {"sysfs_root", "channels": [{name, kind, dir, mode, previous_governor, governor, target_freq,
// unit, cur_file, notes, steps: [{file, previous, value, restore}]}], "notes"}.
nlohmann::json to_json(const LockStep& step);
nlohmann::json to_json(const ChannelPlan& channel);
nlohmann::json to_json(const LockPlan& plan);

}  // namespace tokscope::platform::lock
