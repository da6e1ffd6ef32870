// devfreq devices (Documentation/ABI/testing/sysfs-class-devfreq): sys/class/devfreq/<name>, on
// RK3588 "dmc" (the DDR controller), "fdab0000.npu" and "fb000000.gpu". Every frequency is in
// Hz, as the kernel prints it. Read under an injectable root; missing or malformed files follow
// the contract of sysfs_file.hpp. Nothing is cached.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"

namespace tokscope::platform {

// The trans_stat table (drivers/devfreq/devfreq.c trans_stat_show): per frequency the number of
// transitions to every other one and the time spent at it.
struct DevfreqTransStat {
  struct State {
    std::uint64_t freq_hz = 0;
    std::uint64_t time_ms = 0;                  // time spent at freq_hz since boot or reset
    std::vector<std::uint64_t> transitions_to;  // to each state, in table order
  };
  std::vector<State> states;                // in the driver's table order
  std::optional<std::uint64_t> current_hz;  // the row marked '*' (the last frequency set)
  std::uint64_t total_transitions = 0;      // "Total transition : N"
};

// Parses trans_stat text. The frequencies are taken from the row labels (" 528000000:"), not the
// header, whose "%10lu" columns run together once a value has 10 digits (≥ 1 GHz). Errors:
// kUnavailable for the driver's "Not Supported." (no frequency table), kInput for any other text
// that is not the table (the message says which line). Pure.
Expected<DevfreqTransStat> parse_devfreq_trans_stat(std::string_view text);

struct DevfreqDevice {
  std::string name;           // directory name: "dmc", "fdab0000.npu", "fb000000.gpu"
  std::filesystem::path dir;  // root/sys/class/devfreq/<name> (a symlink on real systems)
  std::string governor;       // "dmc_ondemand", "simple_ondemand", "userspace", … "" unread
  std::optional<std::uint64_t> cur_hz;      // cur_freq (the target when the driver cannot read it)
  std::optional<std::uint64_t> min_hz;      // min_freq
  std::optional<std::uint64_t> max_hz;      // max_freq
  std::vector<std::uint64_t> available_hz;  // available_frequencies, as listed
  std::vector<std::string> available_governors;  // available_governors
  std::optional<DevfreqTransStat> trans_stat;    // absent when unsupported or unreadable
};

struct DevfreqState {
  std::vector<DevfreqDevice> devices;    // sorted by name
  std::vector<std::string> unavailable;  // "unavailable: ..." lines, see sysfs_file.hpp
};

// Reads every device under root/sys/class/devfreq. No such directory, or an empty one (x86, or an
// RK3588 firmware without DMC support), gives no devices and one unavailable line.
DevfreqState read_devfreq(const std::filesystem::path& root);

}  // namespace tokscope::platform
