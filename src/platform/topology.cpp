#include "platform/topology.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

#include "platform/host_info.hpp"

namespace tokscope::platform {
namespace {

namespace fs = std::filesystem;

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// A non-negative decimal integer filling all of s.
template <class T>
std::optional<T> parse_unsigned(std::string_view s) {
  T value{};
  if (s.empty() || s.front() == '-') return std::nullopt;
  const auto* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::optional<std::string> read_text(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::optional<std::string> read_trimmed(const fs::path& path) {
  auto text = read_text(path);
  if (!text) return std::nullopt;
  return std::string(trim(*text));
}

// "cpu12" → 12; anything else → nullopt.
std::optional<int> cpu_dir_index(const std::string& name) {
  if (name.size() <= 3 || name.compare(0, 3, "cpu") != 0) return std::nullopt;
  return parse_unsigned<int>(std::string_view(name).substr(3));
}

// Online cpus from the cpuN directories, for kernels or trees without an "online" file.
std::vector<int> list_cpu_dirs(const fs::path& cpu_root) {
  std::vector<int> cpus;
  std::error_code ec;
  for (fs::directory_iterator it(cpu_root, ec), end; !ec && it != end; it.increment(ec)) {
    if (auto n = cpu_dir_index(it->path().filename().string()); n && it->is_directory(ec)) {
      cpus.push_back(*n);
    }
  }
  std::sort(cpus.begin(), cpus.end());
  return cpus;
}

std::vector<CacheLevel> read_caches(const fs::path& cache_dir, std::vector<std::string>& notes) {
  std::vector<std::pair<int, fs::path>> indices;
  std::error_code ec;
  for (fs::directory_iterator it(cache_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("index", 0) != 0) continue;
    if (auto n = parse_unsigned<int>(std::string_view(name).substr(5))) {
      indices.emplace_back(*n, it->path());
    }
  }
  std::sort(indices.begin(), indices.end());
  std::vector<CacheLevel> caches;
  for (const auto& [index, dir] : indices) {
    const auto level = read_trimmed(dir / "level");
    const auto type = read_trimmed(dir / "type");
    const auto size = read_trimmed(dir / "size");
    const auto level_value = level ? parse_unsigned<int>(*level) : std::nullopt;
    const auto bytes = size ? parse_cache_size(*size) : Expected<std::uint64_t>(Error{});
    if (!level_value || !type || !bytes.ok()) {
      notes.push_back("cache " + dir.string() + " skipped: level, type or size unreadable");
      continue;
    }
    caches.push_back(CacheLevel{*level_value, *type, *bytes});
  }
  return caches;
}

bool usable_name(std::string_view name) {
  return !name.empty() && name.rfind("unavailable", 0) != 0;
}

// The name a group of cpus goes by: the ARM core when the part is known, else what is known.
std::string name_group(const CoreType& group, std::string_view fallback_name, bool only_group) {
  if (!group.part.empty()) {
    const std::string known = arm_part_name(group.part);
    return known.empty() ? "part " + group.part : known;
  }
  if (only_group && usable_name(fallback_name)) return std::string(fallback_name);
  if (group.capacity) return "capacity " + std::to_string(*group.capacity);
  return usable_name(fallback_name) ? std::string(fallback_name) : std::string("all cpus");
}

// The part every cpu of the group shares, or "" when they differ or one has none.
std::string common_part(const std::vector<int>& group_cpus, const std::vector<CpuFacts>& cpus) {
  std::string part;
  for (const int cpu : group_cpus) {
    const auto it =
        std::find_if(cpus.begin(), cpus.end(), [cpu](const CpuFacts& f) { return f.cpu == cpu; });
    if (it == cpus.end() || it->part.empty()) return {};
    if (part.empty()) part = it->part;
    if (part != it->part) return {};
  }
  return part;
}

}  // namespace

Expected<std::vector<int>> parse_cpu_list(std::string_view text) {
  const std::string_view body = trim(text);
  std::set<int> cpus;
  const auto bad = [&](std::string_view why) {
    return make_error(ErrorKind::kInput,
                      "malformed cpu list \"" + std::string(body) + "\": " + std::string(why));
  };
  std::size_t start = 0;
  while (start < body.size()) {
    const std::size_t comma = std::min(body.find(',', start), body.size());
    const std::string_view token = trim(body.substr(start, comma - start));
    if (token.empty()) return bad("empty entry");
    const std::size_t dash = token.find('-');
    const auto first = parse_unsigned<int>(token.substr(0, dash));
    const auto last =
        dash == std::string_view::npos ? first : parse_unsigned<int>(token.substr(dash + 1));
    if (!first || !last) return bad("expected N or N-M");
    if (*last < *first) return bad("range runs backwards");
    // CPU_SETSIZE is 1024 in glibc; a larger id cannot be pinned to, so it is refused here.
    if (*last >= 1024) return bad("cpu id above 1023");
    for (int cpu = *first; cpu <= *last; ++cpu) cpus.insert(cpu);
    start = comma + 1;
  }
  if (!body.empty() && body.back() == ',') return bad("trailing comma");
  return std::vector<int>(cpus.begin(), cpus.end());
}

std::string format_cpu_list(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

Expected<std::uint64_t> parse_cache_size(std::string_view text) {
  const std::string_view body = trim(text);
  std::size_t digits = 0;
  while (digits < body.size() && body[digits] >= '0' && body[digits] <= '9') ++digits;
  const auto number = parse_unsigned<std::uint64_t>(body.substr(0, digits));
  const std::string_view suffix = body.substr(digits);
  constexpr std::uint64_t kKiB = 1024;
  std::uint64_t unit = 0;
  if (suffix.empty()) unit = 1;
  if (suffix == "K") unit = kKiB;
  if (suffix == "M") unit = kKiB * kKiB;
  if (suffix == "G") unit = kKiB * kKiB * kKiB;
  if (!number || unit == 0 || *number > UINT64_MAX / unit) {
    return make_error(ErrorKind::kInput, "malformed cache size \"" + std::string(body) +
                                             "\": expected bytes or a number with K, M or G");
  }
  return *number * unit;
}

std::map<int, std::string> parse_cpu_parts(std::string_view text) {
  std::map<int, std::string> parts;
  std::optional<int> processor;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t newline = std::min(text.find('\n', start), text.size());
    const std::string_view line = text.substr(start, newline - start);
    start = newline + 1;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = trim(line.substr(0, colon));
    const std::string_view value = trim(line.substr(colon + 1));
    if (key == "processor") processor = parse_unsigned<int>(value);
    if (key == "CPU part" && processor) parts[*processor] = std::string(value);
  }
  return parts;
}

std::string arm_part_name(std::string_view part) {
  // Arm Ltd. (implementer 0x41) part numbers, from each core's Technical Reference Manual (MIDR).
  static constexpr std::pair<std::string_view, std::string_view> kParts[] = {
      {"0xd03", "Cortex-A53"},  {"0xd04", "Cortex-A35"},  {"0xd05", "Cortex-A55"},
      {"0xd07", "Cortex-A57"},  {"0xd08", "Cortex-A72"},  {"0xd09", "Cortex-A73"},
      {"0xd0a", "Cortex-A75"},  {"0xd0b", "Cortex-A76"},  {"0xd0d", "Cortex-A77"},
      {"0xd41", "Cortex-A78"},  {"0xd44", "Cortex-X1"},   {"0xd46", "Cortex-A510"},
      {"0xd47", "Cortex-A710"}, {"0xd48", "Cortex-X2"},   {"0xd4d", "Cortex-A715"},
      {"0xd4e", "Cortex-X3"},   {"0xd80", "Cortex-A520"}, {"0xd81", "Cortex-A720"},
      {"0xd82", "Cortex-X4"}};
  for (const auto& [code, name] : kParts) {
    if (part == code) return std::string(name);
  }
  return {};
}

std::optional<CacheLevel> last_level_cache(const std::vector<CacheLevel>& caches) {
  std::optional<CacheLevel> best;
  for (const auto& cache : caches) {
    if (cache.type != "Unified" && cache.type != "Data") continue;
    if (!best || cache.level > best->level) best = cache;
  }
  return best;
}

CoreTypes group_core_types(const std::vector<CpuFacts>& cpus, std::string_view fallback_name) {
  CoreTypes out;
  if (cpus.empty()) {
    out.basis = "uniform: no cpus";
    return out;
  }
  const bool all_capacity =
      std::all_of(cpus.begin(), cpus.end(), [](const CpuFacts& f) { return f.capacity; });
  const bool all_part =
      std::all_of(cpus.begin(), cpus.end(), [](const CpuFacts& f) { return !f.part.empty(); });
  if (all_capacity) {
    out.basis = "cpu_capacity";
    std::map<int, std::vector<int>> by_capacity;  // ascending: little first
    for (const auto& f : cpus) by_capacity[*f.capacity].push_back(f.cpu);
    for (auto& [capacity, members] : by_capacity) {
      out.types.push_back(CoreType{{}, {}, std::move(members), capacity, {}});
    }
  } else if (all_part) {
    out.basis = "cpuinfo CPU part";
    for (const auto& f : cpus) {  // in order of first cpu: capacity is unknown, so no ranking
      auto it = std::find_if(out.types.begin(), out.types.end(),
                             [&](const CoreType& t) { return t.part == f.part; });
      if (it == out.types.end()) {
        out.types.push_back(CoreType{{}, {}, {f.cpu}, std::nullopt, f.part});
      } else {
        it->cpus.push_back(f.cpu);
      }
    }
  } else {
    out.basis = "uniform: no cpu_capacity and no CPU part for every cpu";
    std::vector<int> all;
    all.reserve(cpus.size());
    for (const auto& f : cpus) all.push_back(f.cpu);
    out.types.push_back(CoreType{{}, {}, std::move(all), std::nullopt, {}});
  }
  const std::size_t n = out.types.size();
  for (std::size_t i = 0; i < n; ++i) {
    CoreType& t = out.types[i];
    std::sort(t.cpus.begin(), t.cpus.end());
    t.part = common_part(t.cpus, cpus);
    t.name = name_group(t, fallback_name, n == 1);
    if (n == 1) {
      t.role = "uniform";
    } else if (!all_capacity) {
      t.role = "unranked";
    } else {
      t.role = i == 0 ? "little" : (i + 1 == n ? "big" : "mid");
    }
  }
  // Two groups of one core design at different capacities (binned clusters) keep distinct names.
  std::vector<bool> clash(n);
  for (std::size_t i = 0; i < n; ++i) {
    clash[i] = std::count_if(out.types.begin(), out.types.end(),
                             [&](const CoreType& t) { return t.name == out.types[i].name; }) > 1;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (clash[i]) out.types[i].name += " (cpus " + format_cpu_list(out.types[i].cpus) + ")";
  }
  return out;
}

Topology read_topology(const fs::path& root) {
  Topology topo;
  const fs::path cpu_root = root / "sys/devices/system/cpu";

  const fs::path online_path = cpu_root / "online";
  const auto online_text = read_text(online_path);
  auto online = online_text ? parse_cpu_list(*online_text)
                            : Expected<std::vector<int>>(make_error(
                                  ErrorKind::kUnavailable, "cannot read " + online_path.string()));
  if (online.ok() && !online->empty()) {
    topo.online_cpus = std::move(*online);
  } else {
    const std::string why =
        online.ok() ? online_path.string() + " lists no cpu" : online.error().message;
    topo.online_cpus = list_cpu_dirs(cpu_root);
    topo.online_unavailable = "unavailable: " + why + "; used the cpuN directories (" +
                              std::to_string(topo.online_cpus.size()) + " found)";
    topo.notes.push_back(topo.online_unavailable);
  }

  const fs::path cpuinfo_path = root / "proc/cpuinfo";
  std::map<int, std::string> parts;
  if (const auto cpuinfo = read_text(cpuinfo_path)) {
    topo.cpu_description = describe_cpuinfo(*cpuinfo);
    parts = parse_cpu_parts(*cpuinfo);
  } else {
    topo.cpu_description = "unavailable: cannot read " + cpuinfo_path.string();
    topo.notes.push_back(topo.cpu_description);
  }

  std::vector<int> no_capacity;
  std::vector<int> no_freq;
  for (const int cpu : topo.online_cpus) {
    const fs::path dir = cpu_root / ("cpu" + std::to_string(cpu));
    CpuFacts facts;
    facts.cpu = cpu;
    if (const auto text = read_trimmed(dir / "cpu_capacity")) {
      facts.capacity = parse_unsigned<int>(*text);
    }
    if (const auto text = read_trimmed(dir / "cpufreq/cpuinfo_max_freq")) {
      facts.max_freq_khz = parse_unsigned<std::uint64_t>(*text);
    }
    if (const auto it = parts.find(cpu); it != parts.end()) facts.part = it->second;
    if (!facts.capacity) no_capacity.push_back(cpu);
    if (!facts.max_freq_khz) no_freq.push_back(cpu);
    topo.cpus.push_back(std::move(facts));
  }
  if (!no_capacity.empty()) {
    topo.notes.push_back("cpu_capacity unavailable for cpus " + format_cpu_list(no_capacity) +
                         " (kernel without big.LITTLE capacity or not exposed here)");
  }
  if (!no_freq.empty()) {
    topo.notes.push_back("cpufreq/cpuinfo_max_freq unavailable for cpus " +
                         format_cpu_list(no_freq) + " (no cpufreq driver, as in most VMs)");
  }
  topo.core_types = group_core_types(topo.cpus, topo.cpu_description);

  if (topo.online_cpus.empty()) {
    topo.llc_unavailable = "unavailable: no online cpu found under " + cpu_root.string();
  } else {
    const fs::path cache_dir =
        cpu_root / ("cpu" + std::to_string(topo.online_cpus.front())) / "cache";
    topo.llc = last_level_cache(read_caches(cache_dir, topo.notes));
    if (!topo.llc) {
      topo.llc_unavailable = "unavailable: no readable data cache under " + cache_dir.string();
    }
  }
  return topo;
}

}  // namespace tokscope::platform
