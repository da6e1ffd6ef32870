// Implementation of power_log.hpp: the power-log CSV reader, offset alignment and the marker
// pulse search. Everything but read_power_log is pure.
#include "platform/power_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <system_error>
#include <utility>
#include <vector>

namespace tokscope::platform {
namespace {

constexpr double kNsPerS = 1e9;
constexpr double kMwPerW = 1e3;
// Largest |ns| accepted from a time column or an offset: int64 holds ±9.22e18 ns (±292 years).
constexpr double kMaxAbsNs = 9.2e18;
// Numeric times at or above this many seconds (2001-09-09) are taken as Unix time.
constexpr double kEpochThresholdS = 1e9;
constexpr double kNoiseFloorMw = 1e-3;

// ---- messages -------------------------------------------------------------------------------

std::string seconds_text(std::int64_t ns) {
  return fmt::format("{:.3f} s", static_cast<double>(ns) / kNsPerS);
}

Error input_error(std::string message) {
  return make_error(ErrorKind::kInput, std::move(message));
}

// A place in the source text, for "source:line:column: …" messages.
struct Where {
  std::string_view source;
  std::size_t line = 0;
};

Error error_at(const Where& where, std::size_t column, std::string_view what) {
  return input_error(fmt::format("{}:{}:{}: {}", where.source, where.line, column, what));
}

Error error_at_line(const Where& where, std::string_view what) {
  return input_error(fmt::format("{}:{}: {}", where.source, where.line, what));
}

// ---- text -----------------------------------------------------------------------------------

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

bool is_skipped(std::string_view line) {
  const std::string_view t = trim(line);
  return t.empty() || t.front() == '#';
}

struct Field {
  std::string text;
  std::size_t column = 0;  // 1-based byte column where the field starts
};

// Splits one line (without its line end) at `delim`. A field may be "quoted" ("" inside is
// one "); unquoted fields are trimmed of spaces and tabs.
Expected<std::vector<Field>> split_line(std::string_view line, char delim, const Where& where) {
  std::vector<Field> fields;
  std::size_t i = 0;
  while (true) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    Field field;
    field.column = i + 1;
    if (i < line.size() && line[i] == '"') {
      const std::size_t open = i++;
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field.text += '"';
            i += 2;
            continue;
          }
          closed = true;
          ++i;
          break;
        }
        field.text += line[i++];
      }
      if (!closed) {
        return error_at(where, open + 1, "the quote opened here is not closed; close it with \"");
      }
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      if (i < line.size() && line[i] != delim) {
        return error_at(where, i + 1,
                        fmt::format("text after a quoted field; put a '{}' after the closing "
                                    "quote",
                                    delim));
      }
    } else {
      const std::size_t end = std::min(line.find(delim, i), line.size());
      field.text = std::string(trim(line.substr(i, end - i)));
      i = end;
    }
    fields.push_back(std::move(field));
    if (i >= line.size()) break;
    ++i;  // the delimiter
  }
  return fields;
}

// "1.25", "+1.25", "1e3" and, with the ';' delimiter, "1,25" → a finite double.
std::optional<double> parse_number(std::string_view text, char delim) {
  std::string s(trim(text));
  if (delim == ';' && std::count(s.begin(), s.end(), ',') == 1 &&
      s.find('.') == std::string::npos) {
    s[s.find(',')] = '.';
  }
  std::size_t start = (!s.empty() && s.front() == '+') ? 1 : 0;
  if (start >= s.size()) return std::nullopt;
  double value = 0;
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data() + start, end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

// A plain decimal ("12", "-3.25", "1714564800.123456789"; the decimal comma already replaced)
// times ns_per_unit (1e9, 1e6 or 1e3), exactly: a double would round Unix-time seconds to
// ~0.25 µs. Digits past a nanosecond are rounded. nullopt for other forms (exponents) and on
// overflow; parse_number then serves.
std::optional<std::int64_t> exact_decimal_ns(std::string_view s, std::int64_t ns_per_unit) {
  const bool negative = !s.empty() && s.front() == '-';
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) s.remove_prefix(1);
  const std::size_t dot = s.find('.');
  const std::string_view whole = s.substr(0, dot);
  const std::string_view frac = dot == std::string_view::npos ? "" : s.substr(dot + 1);
  if ((whole.empty() && frac.empty()) || whole.size() > 12) return std::nullopt;
  auto all_digits = [](std::string_view d) {
    return std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (!all_digits(whole) || !all_digits(frac)) return std::nullopt;
  std::int64_t units = 0;
  for (const char c : whole) units = units * 10 + (c - '0');
  std::int64_t frac_ns = 0;
  std::int64_t place = ns_per_unit;
  std::size_t i = 0;
  for (; i < frac.size() && place >= 10; ++i) {
    place /= 10;
    frac_ns += place * (frac[i] - '0');
  }
  if (i < frac.size() && frac[i] >= '5') ++frac_ns;  // round at the nanosecond
  std::int64_t ns = 0;
  if (__builtin_mul_overflow(units, ns_per_unit, &ns) || __builtin_add_overflow(ns, frac_ns, &ns)) {
    return std::nullopt;
  }
  return negative ? -ns : ns;
}

// Digits [pos, pos + count) of s as a number; nullopt when any is not a digit.
std::optional<int> digits(std::string_view s, std::size_t pos, std::size_t count) {
  if (pos + count > s.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = pos; i < pos + count; ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    value = value * 10 + (s[i] - '0');
  }
  return value;
}

struct IsoTime {
  std::int64_t ns = 0;  // since the Unix epoch, UTC (or as if UTC without a zone)
  bool has_zone = false;
};

// ISO-8601 date-time: YYYY-MM-DD(T| )HH:MM:SS[.fraction][Z|±HH[:MM]|±HHMM]. Years 1900–2200.
std::optional<IsoTime> parse_iso8601(std::string_view s) {
  s = trim(s);
  const auto year = digits(s, 0, 4);
  const auto month = digits(s, 5, 2);
  const auto day = digits(s, 8, 2);
  const auto hour = digits(s, 11, 2);
  const auto minute = digits(s, 14, 2);
  const auto second = digits(s, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second || s.size() < 19 || s[4] != '-' ||
      s[7] != '-' || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || s[13] != ':' ||
      s[16] != ':') {
    return std::nullopt;
  }
  const std::chrono::year_month_day ymd{std::chrono::year{*year},
                                        std::chrono::month{static_cast<unsigned>(*month)},
                                        std::chrono::day{static_cast<unsigned>(*day)}};
  if (!ymd.ok() || *year < 1900 || *year > 2200 || *hour > 23 || *minute > 59 || *second > 59) {
    return std::nullopt;
  }
  std::size_t pos = 19;
  std::int64_t fraction_ns = 0;
  if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
    ++pos;
    std::int64_t scale = 100'000'000;
    const std::size_t first = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      fraction_ns += scale * (s[pos] - '0');  // digits past nanoseconds add 0
      scale /= 10;
      ++pos;
    }
    if (pos == first) return std::nullopt;
  }
  IsoTime out;
  std::int64_t zone_s = 0;
  if (pos < s.size()) {
    const std::string_view zone = s.substr(pos);
    if (zone == "Z" || zone == "z") {
      out.has_zone = true;
    } else if (zone[0] == '+' || zone[0] == '-') {
      const auto zh = digits(zone, 1, 2);
      std::optional<int> zm = 0;
      if (zone.size() == 6 && zone[3] == ':') {
        zm = digits(zone, 4, 2);
      } else if (zone.size() == 5) {
        zm = digits(zone, 3, 2);
      } else if (zone.size() != 3) {
        return std::nullopt;
      }
      if (!zh || !zm || *zh > 23 || *zm > 59) return std::nullopt;
      zone_s = (zone[0] == '-' ? -1 : 1) * (std::int64_t{*zh} * 3600 + std::int64_t{*zm} * 60);
      out.has_zone = true;
    } else {
      return std::nullopt;
    }
  }
  const std::int64_t days = std::chrono::sys_days(ymd).time_since_epoch().count();
  // Local time = UTC + zone, so UTC = local − zone.
  const std::int64_t seconds =
      days * 86'400 + std::int64_t{*hour} * 3600 + std::int64_t{*minute} * 60 + *second - zone_s;
  out.ns = seconds * 1'000'000'000 + fraction_ns;
  return out;
}

// ---- header ---------------------------------------------------------------------------------

enum class Role { kIgnored, kTime, kPower, kVoltage, kCurrent };

struct Column {
  Role role = Role::kIgnored;
  std::size_t index = 0;   // field index in a row
  std::size_t column = 0;  // header column, for messages
  std::string name;        // as written in the header
  // Time: ns per unit (0: no unit, a number is seconds and text is ISO-8601). Power: mW per
  // unit. Voltage: V per unit. Current: A per unit.
  double scale = 0;
};

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// The micro sign (U+00B5) and Greek small mu (U+03BC) in UTF-8 → 'u'.
std::string ascii_micro(std::string s) {
  for (const std::string_view mu : {std::string_view("\xC2\xB5"), std::string_view("\xCE\xBC")}) {
    for (auto p = s.find(mu); p != std::string::npos; p = s.find(mu)) s.replace(p, mu.size(), "u");
  }
  return s;
}

// "Power (W)" → {"power", "w"}; "Current [mA]" → {"current", "ma"}; "t_s" → {"t", "s"};
// "timestamp" → {"timestamp", ""}.
std::pair<std::string, std::string> name_and_unit(std::string_view header) {
  const std::string s = ascii_micro(lower_ascii(trim(header)));
  if (!s.empty() && (s.back() == ')' || s.back() == ']')) {
    const auto open = s.rfind(s.back() == ')' ? '(' : '[');
    if (open != std::string::npos) {
      return {std::string(trim(std::string_view(s).substr(0, open))),
              std::string(trim(std::string_view(s).substr(open + 1, s.size() - open - 2)))};
    }
  }
  const auto underscore = s.rfind('_');
  if (underscore != std::string::npos) return {s.substr(0, underscore), s.substr(underscore + 1)};
  return {s, ""};
}

struct Quantity {
  Role role = Role::kIgnored;
  std::vector<std::string_view> names;
  std::vector<std::pair<std::string_view, double>> units;  // unit → scale; the first is the
                                                           // one suggested in messages
  const char* unit_list = "";                              // for messages
};

// Single-letter names (t, p, v, i) are recognised only with a known unit: a column "p_value"
// is some other column, not an error.
Expected<Column> classify(const Field& field, std::size_t index, const Where& where) {
  static constexpr double kNsPerMs = 1e6;
  static constexpr double kNsPerUs = 1e3;
  const std::vector<Quantity> quantities = {
      {Role::kTime,
       {"t", "time", "timestamp", "elapsed"},
       {{"s", kNsPerS}, {"ms", kNsPerMs}, {"us", kNsPerUs}},
       "s, ms or us (or no unit: seconds, or ISO-8601 date-times)"},
      {Role::kPower, {"p", "power"}, {{"w", kMwPerW}, {"mw", 1.0}, {"uw", 1e-3}}, "W, mW or uW"},
      {Role::kVoltage, {"v", "voltage", "vbus"}, {{"v", 1.0}, {"mv", 1e-3}}, "V or mV"},
      {Role::kCurrent,
       {"i", "current", "ibus"},
       {{"a", 1.0}, {"ma", 1e-3}, {"ua", 1e-6}},
       "A, mA or uA"},
  };
  Column col;
  col.index = index;
  col.column = field.column;
  col.name = field.text;
  const auto [name, unit] = name_and_unit(field.text);
  for (const Quantity& q : quantities) {
    if (std::find(q.names.begin(), q.names.end(), name) == q.names.end()) continue;
    for (const auto& [u, scale] : q.units) {
      if (unit == u) {
        col.role = q.role;
        col.scale = scale;
        return col;
      }
    }
    if (q.role == Role::kTime && unit.empty()) {
      col.role = Role::kTime;
      return col;
    }
    if (name.size() == 1) return col;  // "p_value": not ours
    if (unit.empty()) {
      return error_at(where, field.column,
                      fmt::format("column '{}' has no unit; write it in the name, e.g. {}_{} or "
                                  "{}({}) (units: {})",
                                  field.text, name, q.units.begin()->first, field.text,
                                  q.units.begin()->first, q.unit_list));
    }
    return error_at(where, field.column,
                    fmt::format("column '{}': unit '{}' is not understood; use {}", field.text,
                                unit, q.unit_list));
  }
  return col;
}

std::string names_of(const std::vector<const Column*>& columns) {
  std::string out;
  for (const Column* c : columns) {
    if (!out.empty()) out += ", ";
    out += fmt::format("'{}' (column {})", c->name, c->column);
  }
  return out;
}

// The columns a row is read from.
struct Layout {
  Column time;
  std::optional<Column> power;  // set, or voltage and current both set
  std::optional<Column> voltage;
  std::optional<Column> current;
  std::size_t fields_needed = 0;  // 1 + the largest index used
};

Expected<Layout> plan_columns(const std::vector<Field>& header, const Where& where,
                              std::vector<std::string>& notes) {
  std::vector<Column> columns;
  for (std::size_t i = 0; i < header.size(); ++i) {
    auto col = classify(header[i], i, where);
    if (!col) return col.error();
    columns.push_back(std::move(*col));
  }
  auto of_role = [&](Role role) {
    std::vector<const Column*> out;
    for (const Column& c : columns) {
      if (c.role == role) out.push_back(&c);
    }
    return out;
  };
  Layout layout;
  std::vector<std::string> ignored;
  for (const Column& c : columns) {
    if (c.role == Role::kIgnored && !c.name.empty()) ignored.push_back("'" + c.name + "'");
  }

  auto times = of_role(Role::kTime);
  if (times.size() > 1) {
    std::vector<const Column*> with_unit;
    for (const Column* c : times) {
      if (c->scale > 0) with_unit.push_back(c);
    }
    if (with_unit.size() != 1) {
      return error_at_line(where, fmt::format("several time columns: {}; keep one, or give "
                                              "exactly one of them a unit (t_s, Time(ms))",
                                              names_of(times)));
    }
    for (const Column* c : times) {
      if (c != with_unit.front()) ignored.push_back("'" + c->name + "'");
    }
    times = with_unit;
  }
  if (times.empty()) {
    return error_at_line(where,
                         "no time column in the header; name one t_s, t_ms, time or "
                         "timestamp (docs/power-log.md)");
  }
  layout.time = *times.front();

  for (const Role role : {Role::kPower, Role::kVoltage, Role::kCurrent}) {
    const auto found = of_role(role);
    if (found.size() > 1) {
      return error_at_line(where, fmt::format("{} columns give the same quantity: {}; keep one",
                                              found.size(), names_of(found)));
    }
    if (found.empty()) continue;
    auto& slot = role == Role::kPower     ? layout.power
                 : role == Role::kVoltage ? layout.voltage
                                          : layout.current;
    slot = *found.front();
  }
  if (layout.power) {
    if (layout.voltage || layout.current) {
      notes.emplace_back("power read from '" + layout.power->name +
                         "'; the voltage/current columns are not used");
      layout.voltage.reset();
      layout.current.reset();
    }
  } else if (layout.voltage && !layout.current) {
    return error_at(where, layout.voltage->column,
                    fmt::format("voltage column '{}' but no current column: power needs both; add "
                                "current_a (or a power column such as power_w)",
                                layout.voltage->name));
  } else if (layout.current && !layout.voltage) {
    return error_at(where, layout.current->column,
                    fmt::format("current column '{}' but no voltage column: power needs both; add "
                                "voltage_v (or a power column such as power_w)",
                                layout.current->name));
  } else if (!layout.voltage) {
    return error_at_line(where,
                         "no power column in the header; name one power_w, power_mw or "
                         "power_uw, or give voltage_v and current_a (docs/power-log.md)");
  }
  if (!ignored.empty()) {
    std::string list;
    for (const auto& name : ignored) list += (list.empty() ? "" : ", ") + name;
    notes.push_back("columns ignored: " + list);
  }
  for (const auto& c :
       {std::optional<Column>(layout.time), layout.power, layout.voltage, layout.current}) {
    if (c) layout.fields_needed = std::max(layout.fields_needed, c->index + 1);
  }
  return layout;
}

// ---- rows -----------------------------------------------------------------------------------

enum class TimeMode { kUndecided, kNumber, kIso };

struct RowReader {
  Layout layout;
  char delim = ',';
  TimeMode mode = TimeMode::kUndecided;
  PowerLog* log = nullptr;

  Expected<double> number(const Field& field, const Column& col, const Where& where) const {
    if (field.text.empty()) {
      return error_at(where, field.column,
                      fmt::format("column '{}' is empty; fill it in or delete the row", col.name));
    }
    const auto value = parse_number(field.text, delim);
    if (!value) {
      return error_at(where, field.column,
                      fmt::format("'{}' in column '{}' is not a number; write a plain decimal "
                                  "such as 1.25{}",
                                  field.text, col.name, delim == ';' ? " or 1,25" : ""));
    }
    return *value;
  }

  Expected<std::int64_t> time_ns(const Field& field, const Where& where, bool first_row) {
    const Column& col = layout.time;
    if (mode == TimeMode::kUndecided) {
      mode =
          (col.scale > 0 || parse_number(field.text, delim)) ? TimeMode::kNumber : TimeMode::kIso;
    }
    if (mode == TimeMode::kIso) {
      const auto iso = parse_iso8601(field.text);
      if (!iso) {
        return error_at(where, field.column,
                        fmt::format("'{}' in column '{}' is not a time: write seconds (12.5) or "
                                    "an ISO-8601 date-time (2024-05-01T12:00:00.250Z), the same "
                                    "kind in every row",
                                    field.text, col.name));
      }
      if (first_row) log->clock = iso->has_zone ? LogClock::kEpoch : LogClock::kWallNoZone;
      return iso->ns;
    }
    auto value = number(field, col, where);
    if (!value) return value.error();
    const double scale = col.scale > 0 ? col.scale : kNsPerS;
    const double ns = *value * scale;
    std::string text(trim(field.text));
    if (delim == ';') std::replace(text.begin(), text.end(), ',', '.');
    const auto exact = exact_decimal_ns(text, std::llround(scale));
    if (!(std::fabs(ns) < kMaxAbsNs)) {
      return error_at(where, field.column,
                      fmt::format("time '{}' in column '{}' is out of range (beyond ±292 years "
                                  "in ns); check the column's unit",
                                  field.text, col.name));
    }
    if (first_row) {
      log->clock = ns / kNsPerS >= kEpochThresholdS ? LogClock::kEpoch : LogClock::kRelative;
    }
    return exact ? *exact : std::llround(ns);
  }

  Expected<double> power_mw(const std::vector<Field>& fields, const Where& where) const {
    if (layout.power) {
      auto p = number(fields[layout.power->index], *layout.power, where);
      if (!p) return p;
      return *p * layout.power->scale;
    }
    auto v = number(fields[layout.voltage->index], *layout.voltage, where);
    if (!v) return v;
    auto i = number(fields[layout.current->index], *layout.current, where);
    if (!i) return i;
    return *v * layout.voltage->scale * *i * layout.current->scale * kMwPerW;
  }
};

std::int64_t median_interval_ns(const std::vector<std::int64_t>& t) {
  if (t.size() < 2) return 0;
  std::vector<std::int64_t> gaps;
  gaps.reserve(t.size() - 1);
  for (std::size_t i = 1; i < t.size(); ++i) gaps.push_back(t[i] - t[i - 1]);
  const auto mid = gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2);
  std::nth_element(gaps.begin(), mid, gaps.end());
  return *mid;
}

// ---- pulse search ---------------------------------------------------------------------------

std::optional<std::int64_t> add_ns(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// One placement of the idle–busy–idle template: the busy part starts at tau.
struct Placement {
  std::int64_t tau = 0;
  std::size_t busy_begin = 0, busy_end = 0;  // rows [busy_begin, busy_end) are busy
  std::size_t idle_begin = 0, idle_end = 0;  // idle rows: [idle_begin, busy_begin) and
                                             // [busy_end, idle_end)
  double contrast = 0;                       // mean busy − mean idle, mW
};

}  // namespace

const char* to_string(LogClock clock) noexcept {
  switch (clock) {
    case LogClock::kRelative:
      return "relative";
    case LogClock::kEpoch:
      return "epoch";
    case LogClock::kWallNoZone:
      return "wall clock without zone";
  }
  return "relative";
}

Expected<PowerLog> parse_power_log(std::string_view text, std::string_view source) {
  PowerLog log;
  log.source = std::string(source);
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 byte-order mark

  std::optional<RowReader> reader;
  std::size_t header_line = 0;
  std::size_t previous_line = 0;
  std::size_t header_fields = 0;
  std::size_t negative_rows = 0;
  double lowest_mw = 0;
  Where where{source, 0};
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    const bool last_unterminated = nl == std::string_view::npos;
    std::string_view line = text.substr(pos, last_unterminated ? std::string_view::npos : nl - pos);
    pos = last_unterminated ? text.size() : nl + 1;
    ++where.line;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (is_skipped(line)) continue;

    if (!reader) {
      header_line = where.line;
      const char delim = line.find(';') != std::string_view::npos ? ';' : ',';
      auto header = split_line(line, delim, where);
      if (!header) return header.error();
      header_fields = header->size();
      auto layout = plan_columns(*header, where, log.notes);
      if (!layout) return layout.error();
      reader = RowReader{std::move(*layout), delim, TimeMode::kUndecided, &log};
      log.time_column = reader->layout.time.name;
      log.power_from = reader->layout.power
                           ? reader->layout.power->name
                           : reader->layout.voltage->name + " × " + reader->layout.current->name;
      continue;
    }

    auto fields = split_line(line, reader->delim, where);
    if (!fields) return fields.error();
    if (fields->size() < reader->layout.fields_needed) {
      if (last_unterminated && fields->size() < header_fields) {
        log.notes.push_back(
            fmt::format("line {} dropped: the file ends in the middle of a row "
                        "(the logger was still writing)",
                        where.line));
        break;
      }
      return error_at(where, line.size() + 1,
                      fmt::format("the row has {} fields but the header's columns need {}; "
                                  "complete the row or delete it",
                                  fields->size(), reader->layout.fields_needed));
    }
    const Field& time_field = (*fields)[reader->layout.time.index];
    auto t = reader->time_ns(time_field, where, log.t_log_ns.empty());
    if (!t) return t.error();
    if (!log.t_log_ns.empty() && *t <= log.t_log_ns.back()) {
      return error_at(where, time_field.column,
                      fmt::format("time '{}' is not later than the previous row's (line {}); "
                                  "rows must be in time order, one per instant (rows sharing a "
                                  "time mean the time column is coarser than the sampling: log "
                                  "a finer time)",
                                  time_field.text, previous_line));
    }
    auto p = reader->power_mw(*fields, where);
    if (!p) return p.error();
    if (*p < 0) {
      lowest_mw = negative_rows == 0 ? *p : std::min(lowest_mw, *p);
      ++negative_rows;
    }
    log.t_log_ns.push_back(*t);
    log.power_mw.push_back(*p);
    previous_line = where.line;
  }
  if (!reader) {
    return input_error(
        fmt::format("{}: no header row; the first line that is not blank or a "
                    "# comment must name the columns, e.g. t_s,power_w "
                    "(docs/power-log.md)",
                    source));
  }
  if (log.t_log_ns.empty()) {
    return input_error(
        fmt::format("{}:{}: no data rows after the header; check that the meter "
                    "logged during the run",
                    source, header_line));
  }
  if (negative_rows > 0) {
    log.notes.push_back(
        fmt::format("{} rows with negative power (lowest {:.3f} mW): the meter "
                    "may measure the reverse direction; check its orientation",
                    negative_rows, lowest_mw));
  }
  log.median_period_ns = median_interval_ns(log.t_log_ns);
  return log;
}

Expected<PowerLog> read_power_log(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    return input_error(fmt::format("--power-log {}: cannot open ({}); check the path",
                                   path.string(), std::generic_category().message(err)));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    return input_error(fmt::format("--power-log {}: read failed; check the file", path.string()));
  }
  return parse_power_log(buffer.str(), path.string());
}

Expected<std::int64_t> offset_ns_from_s(double offset_s) {
  const double ns = offset_s * kNsPerS;
  if (!std::isfinite(ns) || !(std::fabs(ns) < kMaxAbsNs)) {
    return make_error(ErrorKind::kUsage,
                      fmt::format("--power-log-offset-s {}: not a finite number of seconds "
                                  "within ±292 years; give the seconds to add to the log's "
                                  "times (may be negative)",
                                  offset_s));
  }
  // Whole seconds and the fraction separately: offset_s × 1e9 as one double would round a
  // Unix-time-sized offset to 256 ns.
  const double whole_s = std::trunc(offset_s);
  return static_cast<std::int64_t>(whole_s) * 1'000'000'000 +
         std::llround((offset_s - whole_s) * kNsPerS);
}

Expected<AlignedPower> align_power_log(const PowerLog& log, std::int64_t offset_ns,
                                       std::string method) {
  AlignedPower out;
  out.offset_ns = offset_ns;
  out.method = std::move(method);
  out.power_mw = log.power_mw;
  out.t_ns.reserve(log.t_log_ns.size());
  for (const std::int64_t t : log.t_log_ns) {
    const auto shifted = add_ns(t, offset_ns);
    if (!shifted) {
      return input_error(
          fmt::format("{}: log time {} shifted by {} overflows; check the "
                      "offset's sign and size",
                      log.source, seconds_text(t), seconds_text(offset_ns)));
    }
    out.t_ns.push_back(*shifted);
  }
  return out;
}

Expected<PulseMatch> find_marker_pulse(std::span<const std::int64_t> t_log_ns,
                                       std::span<const double> power_mw, const MarkerPulse& pulse,
                                       const PulseSearch& search) {
  const std::size_t n = t_log_ns.size();
  if (power_mw.size() != n) {
    return make_error(ErrorKind::kInternal,
                      fmt::format("marker pulse: {} times but {} powers", n, power_mw.size()));
  }
  if (pulse.duration_ns <= 0 || pulse.idle_before_ns < 0 || pulse.idle_after_ns < 0 ||
      pulse.idle_before_ns + pulse.idle_after_ns <= 0) {
    return make_error(ErrorKind::kInternal,
                      "marker pulse: the pulse needs a positive duration and an idle part");
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(power_mw[i]) || (i > 0 && t_log_ns[i] <= t_log_ns[i - 1])) {
      return make_error(
          ErrorKind::kInternal,
          fmt::format("marker pulse: row {} is not a finite power at a later time", i));
    }
  }
  // Prefix sums of the powers centred on their mean (centring keeps the variances exact).
  double mean = 0;
  for (const double p : power_mw) mean += p / static_cast<double>(n);
  std::vector<double> sum(n + 1, 0.0);
  std::vector<double> sum_sq(n + 1, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const double c = power_mw[i] - mean;
    sum[i + 1] = sum[i] + c;
    sum_sq[i + 1] = sum_sq[i] + c * c;
  }
  // First row at or after t.
  auto row_at = [&](std::int64_t t) {
    return static_cast<std::size_t>(std::lower_bound(t_log_ns.begin(), t_log_ns.end(), t) -
                                    t_log_ns.begin());
  };
  auto place = [&](std::int64_t tau) -> std::optional<Placement> {
    const auto before = add_ns(tau, -pulse.idle_before_ns);
    const auto busy_end_t = add_ns(tau, pulse.duration_ns);
    const auto after = busy_end_t ? add_ns(*busy_end_t, pulse.idle_after_ns) : std::nullopt;
    if (!before || !after) return std::nullopt;
    Placement pl;
    pl.tau = tau;
    pl.idle_begin = row_at(*before);
    pl.busy_begin = row_at(tau);
    pl.busy_end = row_at(*busy_end_t);
    pl.idle_end = row_at(*after);
    const std::size_t busy = pl.busy_end - pl.busy_begin;
    const std::size_t idle = (pl.busy_begin - pl.idle_begin) + (pl.idle_end - pl.busy_end);
    // A row before the busy part is needed so the rising edge is bracketed.
    if (busy < search.min_pulse_samples || idle < search.min_idle_samples ||
        pl.busy_begin == pl.idle_begin) {
      return std::nullopt;
    }
    const double busy_sum = sum[pl.busy_end] - sum[pl.busy_begin];
    const double idle_sum =
        (sum[pl.busy_begin] - sum[pl.idle_begin]) + (sum[pl.idle_end] - sum[pl.busy_end]);
    pl.contrast = busy_sum / static_cast<double>(busy) - idle_sum / static_cast<double>(idle);
    return pl;
  };
  // The rows inside the busy part change only where tau or tau + duration crosses a row, so
  // placements at tau = t[k] and tau = t[k] − duration reach every distinct busy set.
  std::vector<Placement> placements;
  placements.reserve(2 * n);
  for (std::size_t k = 0; k < n; ++k) {
    if (auto pl = place(t_log_ns[k])) placements.push_back(*pl);
    if (const auto tau = add_ns(t_log_ns[k], -pulse.duration_ns)) {
      if (auto pl = place(*tau)) placements.push_back(*pl);
    }
  }
  const std::int64_t period_ns = median_interval_ns({t_log_ns.begin(), t_log_ns.end()});
  if (placements.empty()) {
    return input_error(fmt::format(
        "no marker pulse: the log ({} rows, one every {} (median)) has no place where a {} "
        "pulse holds {} rows with {} idle rows around it; sample faster, lengthen the pulse, "
        "or give --power-log-offset-s",
        n, seconds_text(period_ns), seconds_text(pulse.duration_ns), search.min_pulse_samples,
        search.min_idle_samples));
  }
  const auto best_it = std::max_element(
      placements.begin(), placements.end(),
      [](const Placement& a, const Placement& b) { return a.contrast < b.contrast; });
  const Placement best = *best_it;
  double runner_up = 0;
  std::int64_t runner_up_tau = best.tau;
  for (const Placement& pl : placements) {
    const std::int64_t distance = pl.tau > best.tau ? pl.tau - best.tau : best.tau - pl.tau;
    if (distance >= pulse.duration_ns && pl.contrast > runner_up) {
      runner_up = pl.contrast;
      runner_up_tau = pl.tau;
    }
  }

  PulseMatch match;
  match.pulse_samples = best.busy_end - best.busy_begin;
  match.idle_samples = (best.busy_begin - best.idle_begin) + (best.idle_end - best.busy_end);
  const double busy_n = static_cast<double>(match.pulse_samples);
  const double idle_n = static_cast<double>(match.idle_samples);
  const double busy_sum = sum[best.busy_end] - sum[best.busy_begin];
  const double idle_sum =
      (sum[best.busy_begin] - sum[best.idle_begin]) + (sum[best.idle_end] - sum[best.busy_end]);
  const double busy_ss =
      (sum_sq[best.busy_end] - sum_sq[best.busy_begin]) - busy_sum * busy_sum / busy_n;
  const double idle_ss = (sum_sq[best.busy_begin] - sum_sq[best.idle_begin]) +
                         (sum_sq[best.idle_end] - sum_sq[best.busy_end]) -
                         idle_sum * idle_sum / idle_n;
  const double pooled_var = std::max(0.0, (busy_ss + idle_ss) / (busy_n + idle_n - 2));
  match.pulse_mw = mean + busy_sum / busy_n;
  match.idle_mw = mean + idle_sum / idle_n;
  match.noise_sd_mw = std::max(std::sqrt(pooled_var), kNoiseFloorMw);
  match.snr = best.contrast / match.noise_sd_mw;
  match.runner_up_ratio = best.contrast > 0 ? runner_up / best.contrast : 0;

  if (best.contrast <= 0 || match.snr < search.min_snr) {
    return input_error(fmt::format(
        "no marker pulse stands out: the best place (log time {}) is {:.1f} mW above idle "
        "({:.1f} mW) with noise sd {:.1f} mW, snr {:.2f} < {:.1f}; check that the meter logged "
        "during the pulse, or give --power-log-offset-s",
        seconds_text(best.tau), best.contrast, match.idle_mw, match.noise_sd_mw, match.snr,
        search.min_snr));
  }
  if (match.runner_up_ratio > search.max_runner_up_ratio) {
    return input_error(fmt::format(
        "two places look like the marker pulse: log times {} and {} (the second scores {:.2f} "
        "of the first, above {:.2f}); trim the log to one run, or give --power-log-offset-s",
        seconds_text(best.tau), seconds_text(runner_up_tau), match.runner_up_ratio,
        search.max_runner_up_ratio));
  }
  // Every edge position in (lo, hi] puts the same rows in the busy part; take the middle.
  const std::size_t a = best.busy_begin;
  const std::size_t b = best.busy_end - 1;
  const std::int64_t lo = std::max(t_log_ns[a - 1], t_log_ns[b] - pulse.duration_ns);
  const std::int64_t hi =
      b + 1 < n ? std::min(t_log_ns[a], t_log_ns[b + 1] - pulse.duration_ns) : t_log_ns[a];
  match.edge_log_ns = lo + (hi - lo) / 2;
  match.uncertainty_ns = (hi - lo + 1) / 2;
  const auto offset = add_ns(pulse.start_ns, -match.edge_log_ns);
  if (!offset) {
    return input_error("marker pulse: the offset from the log's clock to tokscope's overflows");
  }
  match.offset_ns = *offset;
  return match;
}

}  // namespace tokscope::platform
