// RAPL energy counters through powercap (Documentation/power/powercap/powercap.rst):
// sys/class/powercap/intel-rapl:N (a package, "package-0", or "psys") and intel-rapl:N:M (its
// sub-domains "core", "uncore", "dram"), each with "name", "energy_uj" (cumulative µJ, wraps to 0
// after max_energy_range_uj) and "max_energy_range_uj". intel-rapl-mmio:N zones are read too.
// x86 only (AMD exposes its RAPL under the same name); ARM boards have none. energy_uj is
// root-only on kernels since 5.10 (and stable backports). Read under an injectable root; missing
// or malformed files follow the contract of sysfs_file.hpp. Nothing is cached.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tokscope::platform {

struct RaplDomain {
  std::string zone;           // directory name: "intel-rapl:0", "intel-rapl:0:0"
  std::string parent_zone;    // "intel-rapl:0" for "intel-rapl:0:0"; "" for a top-level zone
  std::filesystem::path dir;  // root/sys/class/powercap/<zone>
  std::string name;           // "package-0", "core", "uncore", "dram", "psys"; "" when unread
  std::optional<std::uint64_t> energy_uj;            // µJ, cumulative
  std::optional<std::uint64_t> max_energy_range_uj;  // µJ, where energy_uj wraps to 0
};

struct PowercapState {
  std::vector<RaplDomain> domains;       // sorted by zone name (parents before children)
  std::vector<std::string> unavailable;  // "unavailable: ..." lines, see sysfs_file.hpp
};

// Whether a powercap entry is a RAPL zone ("intel-rapl:0", "intel-rapl-mmio:0:1"), not the
// control-type directory ("intel-rapl") or another powercap driver ("dtpm"). Pure.
bool is_rapl_zone(std::string_view entry_name) noexcept;

// The parent zone of a RAPL zone: "intel-rapl:0:1" → "intel-rapl:0"; "" for "intel-rapl:0". Pure.
std::string rapl_parent_zone(std::string_view zone);

// Reads every RAPL zone under root/sys/class/powercap. None (ARM, most VMs) gives no domains and
// one unavailable line.
PowercapState read_powercap(const std::filesystem::path& root);

}  // namespace tokscope::platform
