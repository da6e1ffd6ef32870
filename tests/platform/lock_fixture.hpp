// A writable RK3588-shaped sysfs tree for frequency-lock tests, generated in a fresh directory per
// test (never the shared tests/fixtures tree, which must stay read-only). Modelled, not copied
// from a board, on the documented RK3588 layout:
//   cpufreq policy0 (cpus 0-3, Cortex-A55, up to 1800000 kHz), policy4 and policy6 (cpus 4-5
//   and 6-7, Cortex-A76, up to 2352000 kHz), governor schedutil;
//   devfreq dmc (DDR OPPs 528/1068/1560/2112 MHz, governor dmc_ondemand), fdab0000.npu (300 MHz
//   to 1 GHz, rknpu_ondemand), fb000000.gpu (300 MHz to 1 GHz, simple_ondemand).
// As on a board, sys/class/devfreq/<name> is a relative symlink into sys/devices/platform/...
// Unlike a board, every file is a plain file: writing a governor changes nothing else, and
// userspace/set_freq exists before the userspace governor is chosen. The current frequencies are
// the maxima, so a lock at the maxima "holds"; a test of a lock that does not hold writes
// another cur value.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace tokscope::testing {

inline void write_lock_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::trunc) << text;
}

// A file's text without its trailing newline(s) (what the lock compares).
inline std::string read_lock_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

inline constexpr const char* kA55FreqsKhz =
    "408000 600000 816000 1008000 1200000 1416000 "
    "1608000 1800000 ";
inline constexpr const char* kA76FreqsKhz =
    "408000 600000 816000 1008000 1200000 1416000 "
    "1608000 1800000 2016000 2208000 2352000 ";
inline constexpr const char* kDmcFreqsHz = "528000000 1068000000 1560000000 2112000000";
inline constexpr const char* kNpuGpuFreqsHz =
    "300000000 400000000 500000000 600000000 700000000 800000000 900000000 1000000000";

inline void make_policy(const std::filesystem::path& root, int policy, const std::string& cpus,
                        const char* freqs, const std::string& max_khz) {
  const auto dir = root / "sys/devices/system/cpu/cpufreq" / ("policy" + std::to_string(policy));
  write_lock_file(dir / "affected_cpus", cpus + "\n");
  write_lock_file(dir / "related_cpus", cpus + "\n");
  write_lock_file(dir / "scaling_governor", "schedutil\n");
  write_lock_file(dir / "scaling_available_governors",
                  "conservative ondemand userspace powersave performance schedutil \n");
  write_lock_file(dir / "scaling_available_frequencies", std::string(freqs) + "\n");
  write_lock_file(dir / "scaling_min_freq", "408000\n");
  write_lock_file(dir / "scaling_max_freq", max_khz + "\n");
  write_lock_file(dir / "scaling_cur_freq", max_khz + "\n");
  write_lock_file(dir / "scaling_setspeed", "<unsupported>\n");
  write_lock_file(dir / "cpuinfo_min_freq", "408000\n");
  write_lock_file(dir / "cpuinfo_max_freq", max_khz + "\n");
}

inline void make_devfreq(const std::filesystem::path& root, const std::string& name,
                         const std::string& governor, const std::string& governors,
                         const std::string& freqs, const std::string& min_hz,
                         const std::string& max_hz) {
  const auto rel = std::filesystem::path("devices/platform") / name / "devfreq" / name;
  const auto dir = root / "sys" / rel;
  write_lock_file(dir / "governor", governor + "\n");
  write_lock_file(dir / "available_governors", governors + "\n");
  write_lock_file(dir / "available_frequencies", freqs + "\n");
  write_lock_file(dir / "min_freq", min_hz + "\n");
  write_lock_file(dir / "max_freq", max_hz + "\n");
  write_lock_file(dir / "cur_freq", max_hz + "\n");
  write_lock_file(dir / "target_freq", max_hz + "\n");
  write_lock_file(dir / "userspace/set_freq", "0\n");
  std::filesystem::create_directories(root / "sys/class/devfreq");
  std::filesystem::create_directory_symlink(std::filesystem::path("../..") / rel,
                                            root / "sys/class/devfreq" / name);
}

// Builds the tree under dir/"root" and returns that root.
inline std::filesystem::path make_rk3588_lock_tree(const std::filesystem::path& dir) {
  const auto root = dir / "root";
  make_policy(root, 0, "0 1 2 3", kA55FreqsKhz, "1800000");
  make_policy(root, 4, "4 5", kA76FreqsKhz, "2352000");
  make_policy(root, 6, "6 7", kA76FreqsKhz, "2352000");
  make_devfreq(root, "dmc", "dmc_ondemand",
               "dmc_ondemand userspace powersave performance simple_ondemand", kDmcFreqsHz,
               "528000000", "2112000000");
  make_devfreq(root, "fdab0000.npu", "rknpu_ondemand",
               "rknpu_ondemand userspace powersave performance simple_ondemand", kNpuGpuFreqsHz,
               "300000000", "1000000000");
  make_devfreq(root, "fb000000.gpu", "simple_ondemand",
               "userspace powersave performance simple_ondemand", kNpuGpuFreqsHz, "300000000",
               "1000000000");
  return root;
}

// Every regular file of the tree (relative path → text), to compare before and after a lock.
// with_userspace_files = false leaves out userspace/set_freq and scaling_setspeed: a restore
// writes them back only when the channel was under the userspace governor before (on a board
// they vanish or read "<unsupported>" once the governor changes back), so in this plain-file
// fixture they keep the locked value.
inline std::map<std::string, std::string> snapshot_tree(const std::filesystem::path& root,
                                                        bool with_userspace_files = true) {
  std::map<std::string, std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (!e.is_regular_file() || e.is_symlink()) continue;
    const std::string name = e.path().filename().string();
    if (!with_userspace_files && (name == "set_freq" || name == "scaling_setspeed")) continue;
    out[std::filesystem::relative(e.path(), root).string()] = read_lock_file(e.path());
  }
  return out;
}

}  // namespace tokscope::testing
