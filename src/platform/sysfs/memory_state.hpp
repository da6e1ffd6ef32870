// Memory facts that change what a benchmark measures: how much memory is free, whether swap is
// on and whether it is zram (compressed RAM: swapping to it costs CPU time, not disk time), the
// vm.swappiness setting and transparent hugepages. From proc/meminfo, proc/swaps,
// proc/sys/vm/swappiness and sys/kernel/mm/transparent_hugepage/enabled under an injectable root.
// Sizes are KiB (the kernel's "kB" is 1024 bytes). Missing or malformed files follow the contract
// of sysfs_file.hpp. Nothing is cached.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"

namespace tokscope::platform {

// Every "Key:   value [kB]" line of /proc/meminfo → key to value (KiB for sizes, a count for
// HugePages_*). Lines whose value is not an integer are left out. Pure.
std::map<std::string, std::uint64_t> parse_meminfo(std::string_view text);

struct MemInfo {
  std::optional<std::uint64_t> mem_total_kib;
  std::optional<std::uint64_t> mem_available_kib;  // the kernel's estimate of what can be
                                                   // allocated without swapping
  std::optional<std::uint64_t> swap_total_kib;
  std::optional<std::uint64_t> swap_free_kib;
};

struct SwapEntry {
  std::string filename;  // "/dev/zram0", "/swapfile" (octal escapes such as \040 decoded)
  std::string type;      // "partition" or "file"
  std::uint64_t size_kib = 0;
  std::uint64_t used_kib = 0;
  int priority = 0;
  bool zram = false;  // a /dev/zramN device
};

// /proc/swaps: a header line "Filename Type Size Used Priority", then one line per swap area
// (possibly none). kInput error naming the first line that is not five such fields. Pure.
Expected<std::vector<SwapEntry>> parse_swaps(std::string_view text);

// Whether a swap file name is a zram device ("/dev/zram0"). Pure.
bool is_zram_device(std::string_view filename) noexcept;

struct MemoryState {
  MemInfo meminfo;
  std::vector<SwapEntry> swaps;          // empty with no swap or when unreadable
  bool swaps_known = false;              // proc/swaps was read and parsed
  std::optional<int> swappiness;         // proc/sys/vm/swappiness, 0-200
  std::string thp_enabled;               // "always", "madvise" or "never"; "" when unread
  std::vector<std::string> unavailable;  // "unavailable: ..." lines, see sysfs_file.hpp

  // Whether a zram device is among the active swap areas.
  [[nodiscard]] bool zram_swap() const noexcept;
};

// Reads the memory state under root.
MemoryState read_memory_state(const std::filesystem::path& root);

}  // namespace tokscope::platform
