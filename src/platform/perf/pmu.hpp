// The kernel's perf event sources (PMUs) as sysfs lists them under
// <root>/sys/bus/event_source/devices/<pmu>/: "type" (the perf_event_attr.type to open its events
// with), "cpus" (present on CPU PMUs: the cpus that PMU counts on), "events/<name>" (named events,
// "event=0x0017" or "event=0x2e,umask=0x41") and "format/<term>" (where each term goes in the
// config words, "config:0-15"). A big.LITTLE board with one PMU per cluster (RK3588 on a mainline
// kernel: armv8_cortex_a55 on cpus 0-3, armv8_cortex_a76 on cpus 4-7) lists two CPU PMUs, and a
// task-bound event on one of them counts only while the task runs on that PMU's cpus.
//
// Parsers are pure (text in, value out); readers take the root ("/" on a live system, a fixture
// tree in tests). Nothing is cached or global: every call reads the tree again.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/expected.hpp"

namespace tokscope::platform::perf {

struct PmuInfo {
  std::string name;           // "armv8_cortex_a76", "cpu", "software"
  std::uint32_t type = 0;     // perf_event_attr.type of its events
  std::vector<int> cpus;      // from its "cpus" file; empty when it has none
  bool cpu_pmu = false;       // it has a "cpus" file: counts a task while it runs on those cpus
  std::filesystem::path dir;  // its directory under the root
};

struct PmuList {
  std::vector<PmuInfo> pmus;       // sorted by name
  std::vector<std::string> notes;  // PMU directories skipped, one line each
};

// Every PMU under root/sys/bus/event_source/devices with a readable numeric "type". A missing
// directory gives an empty list and a note, never an error.
PmuList discover_pmus(const std::filesystem::path& root);

// The CPU PMUs of a list (those with a "cpus" file), in list order.
std::vector<PmuInfo> cpu_pmus(const PmuList& list);

// Where one format term goes: "config:0-7,32-35" → word "config", bit ranges {0,7},{32,35}
// (inclusive, low bits of the value first). "config1:0" is a one-bit field. Pure.
struct FormatField {
  std::string word;                         // "config", "config1" or "config2"
  std::vector<std::pair<int, int>> ranges;  // inclusive [first, last] bit, 0..63
};
Expected<FormatField> parse_format_spec(std::string_view text);

// An events/<name> file: "event=0x0017", "event=0x2e,umask=0x41", "edge" (a bare term is 1).
// Values are hex with 0x or decimal. A "?" value (a parameter the user must supply) is refused.
// Pure.
Expected<std::vector<std::pair<std::string, std::uint64_t>>> parse_event_terms(
    std::string_view text);

// The config words of perf_event_attr.
struct ConfigWords {
  std::uint64_t config = 0;
  std::uint64_t config1 = 0;
  std::uint64_t config2 = 0;
  bool operator==(const ConfigWords&) const = default;
};

// Places each term's value into the bits its format names. A term without a format, or a value
// wider than its field, is a kInput error. Pure.
Expected<ConfigWords> encode_event_terms(
    const std::vector<std::pair<std::string, std::uint64_t>>& terms,
    const std::map<std::string, FormatField>& formats);

// True when name can be a sysfs event file name: [A-Za-z0-9_.-]+ without "..", so a user's event
// name never escapes the PMU's events directory. Pure.
bool is_sysfs_event_name(std::string_view name);

// The named event of one PMU, encoded from events/<name> and format/*. kUnavailable when the PMU
// does not list that event, kInput when its files do not parse.
Expected<ConfigWords> read_pmu_event(const PmuInfo& pmu, std::string_view name);

// Whether the PMU lists events/<name>.
bool pmu_has_event(const PmuInfo& pmu, std::string_view name);

}  // namespace tokscope::platform::perf
