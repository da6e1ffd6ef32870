// Rockchip NPU load (drivers/rknpu/rknpu_debugger.c of the BSP kernels):
// sys/kernel/debug/rknpu/load (debugfs: root and a mounted debugfs needed), or proc/rknpu/load on
// kernels built with the driver's procfs option. The text is "NPU load: " then, with several
// cores, " Core%d: " and "%2.d%%," per core ("NPU load:  Core0: 12%, Core1:  0%, Core2:  0%,"
// on RK3588), and with one core just "%2.d%%" ("NPU load: 35%"). Percent of the driver's load
// interval. Read under an injectable root; missing or malformed files follow the contract of
// sysfs_file.hpp. Nothing is cached.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"

namespace tokscope::platform {

struct RknpuCoreLoad {
  int core = 0;         // N of "CoreN"; 0 for the single-core form
  double load_pct = 0;  // 0-100
};

// Cores the parser accepts (RK3588 has 3).
inline constexpr std::size_t kMaxRknpuCores = 16;

// Parses the load text into out, without allocating: the number of cores written, or nullopt
// when the text is not the driver's format or lists more cores than out holds. A percentage
// printed as blanks counts as 0 ("%2.d" prints no digit for 0 under C printf rules; the kernel's
// printf prints "0"). Pure, noexcept.
std::optional<std::size_t> parse_rknpu_load_into(std::string_view text,
                                                 std::span<RknpuCoreLoad> out) noexcept;

// The same, allocating; kInput error "malformed rknpu load" otherwise. Pure.
Expected<std::vector<RknpuCoreLoad>> parse_rknpu_load(std::string_view text);

// Where the load file may be under root, in the order tried: debugfs, then procfs.
std::vector<std::filesystem::path> rknpu_load_paths(const std::filesystem::path& root);

struct RknpuLoadState {
  std::filesystem::path file;            // the file read; empty when none could be
  std::vector<RknpuCoreLoad> cores;      // in file order
  std::vector<std::string> unavailable;  // "unavailable: ..." lines, see sysfs_file.hpp
};

// Reads the first of rknpu_load_paths(root) that exists. None (not a Rockchip board, debugfs
// not mounted, not root) gives no cores and one unavailable line naming every path tried.
RknpuLoadState read_rknpu_load(const std::filesystem::path& root);

}  // namespace tokscope::platform
