// CPU topology for the bandwidth/compute probe and the roofline: which cpus are online, which of
// them are big and which little, and how large the last-level cache is. Read from sysfs/procfs
// under an injectable root (tests use tests/fixtures/sysfs/<machine>/; a tree copied from a board
// can be analysed anywhere). A missing fact is an "unavailable: reason" string, never an abort.
// The parsers are pure (text in, value out) and separate from file reading so each rule is
// unit-tested. Nothing here is cached or global: every call reads the tree again.
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

// A sysfs cpu list ("0-3,6", "0", "" for none; a trailing newline is fine) → sorted unique ids.
// Malformed text ("3-1", "a", "1,,2") is a kInput error naming the text. Pure.
Expected<std::vector<int>> parse_cpu_list(std::string_view text);

// The inverse of parse_cpu_list: sorted ids → "0-3,6" ("" for none). Pure.
std::string format_cpu_list(const std::vector<int>& cpus);

// A sysfs cache "size" ("3072K", "8M", "1G", or plain bytes "512") → bytes (K = 1024). Pure.
Expected<std::uint64_t> parse_cache_size(std::string_view text);

// "CPU part" per "processor" from /proc/cpuinfo text (ARM lists one block per cpu); empty on
// x86, whose cpuinfo has no such line. Pure.
std::map<int, std::string> parse_cpu_parts(std::string_view cpuinfo_text);

// The core name of an ARM "CPU part" code ("0xd05" → "Cortex-A55", "0xd0b" → "Cortex-A76"), or
// "" when the code is not in the table. Pure.
std::string arm_part_name(std::string_view part);

// One cache of a cpu, from /sys/devices/system/cpu/cpuN/cache/indexM/{level,type,size}.
struct CacheLevel {
  int level = 0;
  std::string type;  // "Data", "Instruction", "Unified"
  std::uint64_t bytes = 0;
};

// The last-level cache: the highest level that holds data (Unified or Data; an instruction cache
// never is). nullopt for an empty list. Pure.
std::optional<CacheLevel> last_level_cache(const std::vector<CacheLevel>& caches);

// What is known about one online cpu. Absent facts are nullopt/empty.
struct CpuFacts {
  int cpu = 0;
  std::optional<int> capacity;                // cpuN/cpu_capacity: 1024 = the most capable core
  std::string part;                           // cpuinfo "CPU part" (ARM), "" when absent
  std::optional<std::uint64_t> max_freq_khz;  // cpuN/cpufreq/cpuinfo_max_freq, kHz
};

// A group of cpus of one kind (RK3588: cpus 0-3 Cortex-A55, cpus 4-7 Cortex-A76).
struct CoreType {
  std::string name;  // "Cortex-A76", "part 0xd4f", "capacity 512", or the cpu description
  // "uniform" (one type); "little", "mid", "big" when ranked by cpu_capacity; "unranked" when
  // grouped by CPU part alone (no capacity to rank them by)
  std::string role;
  std::vector<int> cpus;
  std::optional<int> capacity;  // shared cpu_capacity when grouped by it
  std::string part;             // shared "CPU part" when every cpu of the group has the same
};

// Core types and the rule that made them.
struct CoreTypes {
  std::vector<CoreType> types;  // least capable first (little before big)
  std::string basis;            // "cpu_capacity", "cpuinfo CPU part", or "uniform: <why no split>"
};

// Groups cpus: by equal cpu_capacity when every cpu has one (the kernel's own big.LITTLE
// ranking), else by equal "CPU part" when every cpu has one (ARM boards whose kernel lacks
// cpu_capacity), else one group. fallback_name names a group that nothing else names (the x86
// "model name"). An empty cpu list gives no types. Pure.
CoreTypes group_core_types(const std::vector<CpuFacts>& cpus, std::string_view fallback_name);

struct Topology {
  std::vector<int> online_cpus;    // sorted; empty only when nothing at all could be read
  std::string online_unavailable;  // "" or "unavailable: ..." (then online_cpus is a fallback)
  std::vector<CpuFacts> cpus;      // one per online cpu, same order
  CoreTypes core_types;
  std::optional<CacheLevel> llc;   // of the first online cpu
  std::string llc_unavailable;     // "unavailable: ..." when llc is nullopt
  std::string cpu_description;     // describe_cpuinfo() of proc/cpuinfo, or "unavailable: ..."
  std::vector<std::string> notes;  // facts that were missing, one line each
};

// Reads the topology under root ("/" on a live system): sys/devices/system/cpu/{online,
// cpuN/cpu_capacity, cpuN/cpufreq/cpuinfo_max_freq, cpuN/cache/index*/} and proc/cpuinfo.
// When "online" is unreadable the cpuN directories are listed instead (and that is noted).
Topology read_topology(const std::filesystem::path& root);

}  // namespace tokscope::platform
