#include "platform/perf/pmu.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>

#include "platform/topology.hpp"

namespace tokscope::platform::perf {
namespace {

namespace fs = std::filesystem;

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::optional<std::string> read_text(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Decimal, or hex with a 0x prefix, filling all of s.
std::optional<std::uint64_t> parse_number(std::string_view s) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  std::uint64_t value = 0;
  if (s.empty()) return std::nullopt;
  const auto* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, value, base);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// Splits s at sep; empty pieces are kept so callers can refuse them.
std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = s.find(sep, start);
    parts.push_back(s.substr(start, at == std::string_view::npos ? s.size() - start : at - start));
    if (at == std::string_view::npos) break;
    start = at + 1;
  }
  return parts;
}

std::map<std::string, FormatField> read_formats(const fs::path& dir, std::string& bad) {
  std::map<std::string, FormatField> formats;
  std::error_code ec;
  for (fs::directory_iterator it(dir / "format", ec), end; !ec && it != end; it.increment(ec)) {
    const auto text = read_text(it->path());
    if (!text) continue;
    auto field = parse_format_spec(*text);
    if (!field) {
      bad = it->path().string() + ": " + field.error().message;
      continue;
    }
    formats.emplace(it->path().filename().string(), std::move(*field));
  }
  return formats;
}

}  // namespace

PmuList discover_pmus(const fs::path& root) {
  PmuList list;
  const fs::path devices = root / "sys/bus/event_source/devices";
  std::error_code ec;
  fs::directory_iterator it(devices, ec);
  if (ec) {
    list.notes.push_back("no PMU list at " + devices.string() + ": " + ec.message());
    return list;
  }
  for (fs::directory_iterator end; !ec && it != end; it.increment(ec)) {
    std::error_code dir_ec;
    if (!it->is_directory(dir_ec)) continue;  // follows the live tree's symlinks
    const std::string name = it->path().filename().string();
    const auto type_text = read_text(it->path() / "type");
    const auto type = type_text ? parse_number(trim(*type_text)) : std::nullopt;
    if (!type || *type > UINT32_MAX) {
      list.notes.push_back("PMU " + name + " skipped: no readable numeric type");
      continue;
    }
    PmuInfo pmu;
    pmu.name = name;
    pmu.type = static_cast<std::uint32_t>(*type);
    pmu.dir = it->path();
    if (const auto cpus_text = read_text(it->path() / "cpus")) {
      pmu.cpu_pmu = true;
      if (auto cpus = parse_cpu_list(*cpus_text)) {
        pmu.cpus = std::move(*cpus);
      } else {
        list.notes.push_back("PMU " + name + ": " + cpus.error().message);
      }
    }
    list.pmus.push_back(std::move(pmu));
  }
  std::sort(list.pmus.begin(), list.pmus.end(),
            [](const PmuInfo& a, const PmuInfo& b) { return a.name < b.name; });
  return list;
}

std::vector<PmuInfo> cpu_pmus(const PmuList& list) {
  std::vector<PmuInfo> out;
  std::copy_if(list.pmus.begin(), list.pmus.end(), std::back_inserter(out),
               [](const PmuInfo& p) { return p.cpu_pmu; });
  return out;
}

Expected<FormatField> parse_format_spec(std::string_view text) {
  const std::string_view body = trim(text);
  const auto bad = [&](std::string_view why) {
    return make_error(ErrorKind::kInput,
                      "malformed PMU format \"" + std::string(body) + "\": " + std::string(why));
  };
  const std::size_t colon = body.find(':');
  if (colon == std::string_view::npos) return bad("expected config:BITS");
  FormatField field;
  field.word = std::string(body.substr(0, colon));
  if (field.word != "config" && field.word != "config1" && field.word != "config2") {
    return bad("unknown config word (config, config1 or config2 expected)");
  }
  for (const std::string_view token : split(body.substr(colon + 1), ',')) {
    const std::size_t dash = token.find('-');
    const auto first = parse_number(token.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : parse_number(token.substr(dash + 1));
    if (!first || !last) return bad("expected N or N-M bit ranges");
    if (*last < *first || *last > 63) return bad("bit range backwards or above 63");
    field.ranges.emplace_back(static_cast<int>(*first), static_cast<int>(*last));
  }
  return field;
}

Expected<std::vector<std::pair<std::string, std::uint64_t>>> parse_event_terms(
    std::string_view text) {
  const std::string_view body = trim(text);
  const auto bad = [&](std::string_view why) {
    return make_error(ErrorKind::kInput,
                      "malformed PMU event \"" + std::string(body) + "\": " + std::string(why));
  };
  if (body.empty()) return bad("empty");
  std::vector<std::pair<std::string, std::uint64_t>> terms;
  for (const std::string_view raw : split(body, ',')) {
    const std::string_view token = trim(raw);
    if (token.empty()) return bad("empty term");
    const std::size_t eq = token.find('=');
    const std::string_view key = trim(token.substr(0, eq));
    if (key.empty()) return bad("term without a name");
    std::uint64_t value = 1;  // a bare term ("edge") sets its field to 1
    if (eq != std::string_view::npos) {
      const std::string_view value_text = trim(token.substr(eq + 1));
      if (value_text == "?") return bad("term " + std::string(key) + " needs a value (\"?\")");
      const auto number = parse_number(value_text);
      if (!number) return bad("term " + std::string(key) + " is not a number");
      value = *number;
    }
    terms.emplace_back(std::string(key), value);
  }
  return terms;
}

Expected<ConfigWords> encode_event_terms(
    const std::vector<std::pair<std::string, std::uint64_t>>& terms,
    const std::map<std::string, FormatField>& formats) {
  ConfigWords words;
  for (const auto& [key, value] : terms) {
    const auto it = formats.find(key);
    if (it == formats.end()) {
      return make_error(ErrorKind::kInput, "PMU event term \"" + key + "\" has no format");
    }
    std::uint64_t* word = &words.config;
    if (it->second.word == "config1") word = &words.config1;
    if (it->second.word == "config2") word = &words.config2;
    std::uint64_t rest = value;
    for (const auto& [first, last] : it->second.ranges) {
      const int width = last - first + 1;
      const std::uint64_t mask = width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
      *word |= (rest & mask) << first;
      rest = width == 64 ? 0 : rest >> width;
    }
    if (rest != 0) {
      return make_error(ErrorKind::kInput, "PMU event term \"" + key + "\" value " +
                                               std::to_string(value) + " is wider than its field");
    }
  }
  return words;
}

bool is_sysfs_event_name(std::string_view name) {
  if (name.empty() || name.find("..") != std::string_view::npos) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

bool pmu_has_event(const PmuInfo& pmu, std::string_view name) {
  if (!is_sysfs_event_name(name)) return false;
  std::error_code ec;
  return fs::is_regular_file(pmu.dir / "events" / std::string(name), ec);
}

Expected<ConfigWords> read_pmu_event(const PmuInfo& pmu, std::string_view name) {
  if (!pmu_has_event(pmu, name)) {
    return make_error(ErrorKind::kUnavailable,
                      "PMU " + pmu.name + " does not list event " + std::string(name));
  }
  const fs::path file = pmu.dir / "events" / std::string(name);
  const auto text = read_text(file);
  if (!text) return make_error(ErrorKind::kUnavailable, "cannot read " + file.string());
  auto terms = parse_event_terms(*text);
  if (!terms) return make_error(ErrorKind::kInput, file.string() + ": " + terms.error().message);
  std::string bad_format;
  const auto formats = read_formats(pmu.dir, bad_format);
  auto words = encode_event_terms(*terms, formats);
  if (!words) {
    std::string message = file.string() + ": " + words.error().message;
    if (!bad_format.empty()) message += " (" + bad_format + ")";
    return make_error(ErrorKind::kInput, std::move(message));
  }
  return words;
}

}  // namespace tokscope::platform::perf
