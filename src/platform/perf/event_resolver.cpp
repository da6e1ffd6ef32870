#include "platform/perf/event_resolver.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>
#include <string_view>

namespace tokscope::platform::perf {
namespace {

// perf's generic names (tools/perf parse-events tables) → uapi type/config. arm_alias is the
// ARMv8 PMUv3 sysfs event the kernel maps the generic event to (drivers/perf/arm_pmuv3.c
// armv8_pmuv3_perf_map / perf_cache_map), used on machines with several CPU PMUs.
struct GenericEvent {
  std::string_view name;
  std::uint32_t type;
  std::uint64_t config;
  const char* arm_alias;  // nullptr: none
};

// HW_CACHE config = cache id | (op << 8) | (result << 16).
constexpr std::uint64_t cache_config(std::uint64_t id, std::uint64_t op, std::uint64_t result) {
  return id | (op << 8U) | (result << 16U);
}
constexpr std::uint64_t kL1d = 0, kL1i = 1, kLl = 2, kDtlb = 3, kItlb = 4;
constexpr std::uint64_t kRead = 0, kWrite = 1;
constexpr std::uint64_t kAccess = 0, kMiss = 1;

constexpr std::array<GenericEvent, 34> kGenericEvents{{
    {"cycles", kTypeHardware, 0, "cpu_cycles"},
    {"cpu-cycles", kTypeHardware, 0, "cpu_cycles"},
    {"instructions", kTypeHardware, 1, "inst_retired"},
    {"cache-references", kTypeHardware, 2, "l1d_cache"},
    {"cache-misses", kTypeHardware, 3, "l1d_cache_refill"},
    {"branch-instructions", kTypeHardware, 4, nullptr},
    {"branches", kTypeHardware, 4, nullptr},
    {"branch-misses", kTypeHardware, 5, "br_mis_pred"},
    {"bus-cycles", kTypeHardware, 6, "bus_cycles"},
    {"stalled-cycles-frontend", kTypeHardware, 7, "stall_frontend"},
    {"stalled-cycles-backend", kTypeHardware, 8, "stall_backend"},
    {"ref-cycles", kTypeHardware, 9, nullptr},
    {"L1-dcache-loads", kTypeHwCache, cache_config(kL1d, kRead, kAccess), "l1d_cache"},
    {"L1-dcache-load-misses", kTypeHwCache, cache_config(kL1d, kRead, kMiss), "l1d_cache_refill"},
    {"L1-dcache-stores", kTypeHwCache, cache_config(kL1d, kWrite, kAccess), nullptr},
    {"L1-dcache-store-misses", kTypeHwCache, cache_config(kL1d, kWrite, kMiss), nullptr},
    {"L1-icache-loads", kTypeHwCache, cache_config(kL1i, kRead, kAccess), "l1i_cache"},
    {"L1-icache-load-misses", kTypeHwCache, cache_config(kL1i, kRead, kMiss), "l1i_cache_refill"},
    {"LLC-loads", kTypeHwCache, cache_config(kLl, kRead, kAccess), "ll_cache_rd"},
    {"LLC-load-misses", kTypeHwCache, cache_config(kLl, kRead, kMiss), "ll_cache_miss_rd"},
    {"dTLB-loads", kTypeHwCache, cache_config(kDtlb, kRead, kAccess), nullptr},
    {"dTLB-load-misses", kTypeHwCache, cache_config(kDtlb, kRead, kMiss), "l1d_tlb_refill"},
    {"iTLB-loads", kTypeHwCache, cache_config(kItlb, kRead, kAccess), nullptr},
    {"iTLB-load-misses", kTypeHwCache, cache_config(kItlb, kRead, kMiss), "l1i_tlb_refill"},
    {"cpu-clock", kTypeSoftware, 0, nullptr},
    {"task-clock", kTypeSoftware, 1, nullptr},
    {"page-faults", kTypeSoftware, 2, nullptr},
    {"faults", kTypeSoftware, 2, nullptr},
    {"context-switches", kTypeSoftware, 3, nullptr},
    {"cs", kTypeSoftware, 3, nullptr},
    {"cpu-migrations", kTypeSoftware, 4, nullptr},
    {"migrations", kTypeSoftware, 4, nullptr},
    {"minor-faults", kTypeSoftware, 5, nullptr},
    {"major-faults", kTypeSoftware, 6, nullptr},
}};

// ARMv8 PMUv3 common events under their kernel (sysfs) names. Only used to tell "an ARM event
// this machine has no PMU for" (unavailable) from a typo (usage error); encodings always come
// from the PMU's own sysfs files.
constexpr std::array<std::string_view, 33> kArmCommonEvents{
    "l1i_cache_refill", "l1i_tlb_refill",   "l1d_cache_refill", "l1d_cache",
    "l1d_tlb_refill",   "inst_retired",     "br_mis_pred",      "cpu_cycles",
    "br_pred",          "mem_access",       "l1i_cache",        "l1d_cache_wb",
    "l2d_cache",        "l2d_cache_refill", "l2d_cache_wb",     "bus_access",
    "bus_cycles",       "inst_spec",        "br_retired",       "stall_frontend",
    "stall_backend",    "l3d_cache_refill", "l3d_cache",        "ll_cache_rd",
    "ll_cache_miss_rd", "bus_access_rd",    "bus_access_wr",    "mem_access_rd",
    "mem_access_wr",    "ld_spec",          "st_spec",          "dp_spec",
    "ase_spec",
};

const GenericEvent* find_generic(std::string_view name) {
  const auto* it = std::find_if(kGenericEvents.begin(), kGenericEvents.end(),
                                [name](const GenericEvent& e) { return e.name == name; });
  return it == kGenericEvents.end() ? nullptr : it;
}

// "r17", "r1B" → 0x17, 0x1b; anything else → nullopt.
std::optional<std::uint64_t> parse_raw(std::string_view name) {
  if (name.size() < 2 || name.size() > 17 || name.front() != 'r') return std::nullopt;
  std::uint64_t value = 0;
  const auto* end = name.data() + name.size();
  const auto [ptr, ec] = std::from_chars(name.data() + 1, end, value, 16);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::string pmu_names(const std::vector<PmuInfo>& pmus) {
  std::string out;
  for (const auto& p : pmus) out += (out.empty() ? "" : ", ") + p.name;
  return out.empty() ? "none" : out;
}

}  // namespace

std::vector<std::string> example_event_names() {
  return {"instructions",
          "cycles",
          "cache-misses",
          "L1-dcache-load-misses",
          "task-clock",
          "context-switches",
          "page-faults",
          "bus_access",
          "l2d_cache_refill",
          "r17",
          "arm_ac76::L2D_CACHE_REFILL"};
}

EventResolver::EventResolver(const std::filesystem::path& root)
    : EventResolver(discover_pmus(root)) {}

EventResolver::EventResolver(PmuList pmus) : pmus_(std::move(pmus)), cpu_pmus_(cpu_pmus(pmus_)) {}

ResolvedEvent EventResolver::hardware(const std::string& name, std::uint32_t type,
                                      std::uint64_t config, const char* arm_alias,
                                      std::string source) const {
  ResolvedEvent event{name, std::move(source), false, {}, {}, {}};
  if (cpu_pmus_.size() < 2) {
    event.encodings.push_back(EventEncoding{"", false, type, ConfigWords{config, 0, 0}});
    return event;
  }
  for (const auto& pmu : cpu_pmus_) {
    if (arm_alias != nullptr) {
      if (auto words = read_pmu_event(pmu, arm_alias)) {
        event.encodings.push_back(EventEncoding{pmu.name, true, pmu.type, *words});
        event.note +=
            std::string(event.note.empty() ? "" : "; ") + pmu.name + ": sysfs " + arm_alias;
        continue;
      }
    }
    const std::uint64_t extended = (std::uint64_t{pmu.type} << kPmuTypeShift) | config;
    event.encodings.push_back(EventEncoding{pmu.name, true, type, ConfigWords{extended, 0, 0}});
  }
  return event;
}

ResolvedEvent EventResolver::raw(const std::string& name, const ConfigWords& words,
                                 std::string source) const {
  ResolvedEvent event{name, std::move(source), false, {}, {}, {}};
  if (cpu_pmus_.size() < 2) {
    event.encodings.push_back(EventEncoding{"", false, kTypeRaw, words});
    return event;
  }
  for (const auto& pmu : cpu_pmus_) {
    event.encodings.push_back(EventEncoding{pmu.name, true, pmu.type, words});
  }
  return event;
}

Expected<ResolvedEvent> EventResolver::resolve(const std::string& name, bool include_kernel) {
  if (const GenericEvent* generic = find_generic(name)) {
    if (generic->type == kTypeSoftware) {
      ResolvedEvent event{name, "perf generic", true, {}, {}, {}};
      event.encodings.push_back(
          EventEncoding{"", false, kTypeSoftware, ConfigWords{generic->config, 0, 0}});
      return event;
    }
    return hardware(name, generic->type, generic->config, generic->arm_alias, "perf generic");
  }
  if (const auto code = parse_raw(name)) return raw(name, ConfigWords{*code, 0, 0}, "raw");

  if (is_sysfs_event_name(name)) {
    ResolvedEvent event{name, "sysfs", false, {}, {}, {}};
    std::string missing;
    for (const auto& pmu : cpu_pmus_) {
      auto words = read_pmu_event(pmu, name);
      if (words) {
        event.encodings.push_back(EventEncoding{pmu.name, cpu_pmus_.size() > 1, pmu.type, *words});
      } else {
        missing += (missing.empty() ? "" : ", ") + pmu.name;
        if (words.error().kind == ErrorKind::kInput) {
          event.note += (event.note.empty() ? "" : "; ") + words.error().message;
        }
      }
    }
    if (!event.encodings.empty()) {
      if (!missing.empty()) {
        event.note += std::string(event.note.empty() ? "" : "; ") + "not counted on " + missing +
                      " (the PMU does not list it)";
      }
      return event;
    }
    // A PMU without a "cpus" file that lists the name: x86's "cpu" (mem-loads, topdown-…), or a
    // kernel whose ARM PMU lacks the file. One open on each; an uncore PMU that counts only
    // system-wide then fails at open with its errno.
    for (const auto& pmu : pmus_.pmus) {
      if (pmu.cpu_pmu) continue;
      if (auto words = read_pmu_event(pmu, name)) {
        event.encodings.push_back(EventEncoding{pmu.name, false, pmu.type, *words});
      }
    }
    if (!event.encodings.empty()) return event;
    if (std::find(kArmCommonEvents.begin(), kArmCommonEvents.end(), name) !=
        kArmCommonEvents.end()) {
      event.unavailable =
          "unavailable: " + name +
          " is an ARMv8 PMU event and no CPU PMU here lists it (CPU PMUs: " + pmu_names(cpu_pmus_) +
          ")";
      return event;
    }
  }

  auto encoded = pfm_.encode(name, include_kernel);
  if (encoded) {
    std::string source = "libpfm " + encoded->canonical;
    switch (encoded->type) {
      case kTypeSoftware: {
        ResolvedEvent event{name, std::move(source), true, {}, {}, {}};
        event.encodings.push_back(EventEncoding{"", false, kTypeSoftware, encoded->words});
        return event;
      }
      case kTypeHardware:
      case kTypeHwCache:
        return hardware(name, encoded->type, encoded->words.config, nullptr, std::move(source));
      case kTypeRaw:
        return raw(name, encoded->words, std::move(source));
      default: {
        ResolvedEvent event{name, std::move(source), false, {}, {}, {}};
        const auto it = std::find_if(cpu_pmus_.begin(), cpu_pmus_.end(),
                                     [&](const PmuInfo& p) { return p.type == encoded->type; });
        event.encodings.push_back(EventEncoding{it == cpu_pmus_.end() ? "" : it->name,
                                                it != cpu_pmus_.end() && cpu_pmus_.size() > 1,
                                                encoded->type, encoded->words});
        return event;
      }
    }
  }
  if (name.find("::") != std::string::npos) {
    ResolvedEvent event{name, "libpfm", false, {}, {}, {}};
    event.unavailable = "unavailable: " + encoded.error().message;
    return event;
  }
  std::string examples;
  for (const auto& e : example_event_names()) examples += (examples.empty() ? "" : ", ") + e;
  return make_error(ErrorKind::kUsage,
                    "unknown counter event \"" + name +
                        "\": not a perf generic name, a raw code rNNN (hex), an event a CPU PMU "
                        "lists under /sys/bus/event_source/devices/<pmu>/events (CPU PMUs here: " +
                        pmu_names(cpu_pmus_) + ") or a libpfm name (" + encoded.error().message +
                        "). Examples: " + examples);
}

}  // namespace tokscope::platform::perf
