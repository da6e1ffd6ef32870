#include "platform/doctor/checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <numeric>

namespace tokscope::platform::doctor {

namespace fs = std::filesystem;

const char* to_string(Severity severity) noexcept {
  switch (severity) {
    case Severity::kBlocking:
      return "blocking";
    case Severity::kWarning:
      return "warning";
    case Severity::kInfo:
      return "info";
    case Severity::kOk:
      return "ok";
  }
  return "info";
}

namespace {

constexpr const char* kLockCommand = "sudo tokscope lock --keep";

Finding make(std::string_view id, Severity severity, std::string title, std::string detail,
             std::vector<std::string> fix = {}) {
  return Finding{std::string(id), severity, std::move(title), std::move(detail), std::move(fix)};
}

// An info finding for a check whose source could not be read. `reason` is an "unavailable: …"
// line of a reader, or a sentence; either way the title starts with "unavailable".
Finding unavailable(std::string_view id, const std::string& reason) {
  const std::string_view prefix = "unavailable: ";
  const std::string body = reason.rfind(prefix, 0) == 0 ? reason.substr(prefix.size()) : reason;
  // The reason names the path read, so the title carries it all and the detail stays empty.
  return make(id, Severity::kInfo, "unavailable: " + body, "");
}

std::string first_or(const std::vector<std::string>& lines, const std::string& fallback) {
  return lines.empty() ? fallback : lines.front();
}

// The path on the board of a path read under root ("<root>/sys/x" → "/sys/x").
std::string board_path(const fs::path& root, const fs::path& path) {
  const fs::path rel = path.lexically_relative(root);
  if (rel.empty() || rel.native().rfind("..", 0) == 0) return path.string();
  return "/" + rel.string();
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

// `tokscope lock --keep`, then the writes it would do for these channels (the same fix by hand).
std::vector<std::string> lock_fix(const DoctorInputs& in, const std::vector<std::string>& channels,
                                  const std::vector<std::string>& fallback) {
  std::vector<std::string> fix{kLockCommand};
  bool planned = false;
  for (const auto& ch : channels) {
    auto it = in.lock_writes.find(ch);
    if (it == in.lock_writes.end()) continue;
    planned = true;
    fix.insert(fix.end(), it->second.begin(), it->second.end());
  }
  if (!planned) fix.insert(fix.end(), fallback.begin(), fallback.end());
  return fix;
}

Finding check_build(const DoctorInputs& in) {
  const std::string type = lower(in.build_type);
  const std::vector<std::string> fix{
      "cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release -DTOKSCOPE_SANITIZE= "
      "&& ninja -C build-release tokscope"};
  const std::string detail = fmt::format(
      "this tokscope was built with CMAKE_BUILD_TYPE='{}', "
      "TOKSCOPE_SANITIZE='{}'",
      in.build_type, in.sanitizer);
  if (!in.sanitizer.empty()) {
    return make(
        "build", Severity::kBlocking,
        fmt::format("sanitizer build ({}): its timings are not the product's", in.sanitizer),
        detail, fix);
  }
  if (type.empty() || type == "debug") {
    return make("build", Severity::kBlocking,
                fmt::format("{} build (no optimisation): its timings are not the product's",
                            type.empty() ? "unset CMAKE_BUILD_TYPE" : "debug"),
                detail, fix);
  }
  return make("build", Severity::kOk, fmt::format("optimised build ({})", in.build_type), detail);
}

Finding check_thermal(const DoctorInputs& in) {
  if (in.thermal.zones.empty()) {
    return unavailable("thermal", first_or(in.thermal.unavailable, "no thermal zone"));
  }
  struct Zone {
    const ThermalZone* zone;
    double trip_c;
    double headroom_c;
  };
  std::vector<Zone> zones;
  for (const auto& z : in.thermal.zones) {
    const auto trip = lowest_passive_trip_c(z.trips);
    if (!trip || !z.temp_c) continue;
    zones.push_back({&z, *trip, *trip - *z.temp_c});
  }
  if (zones.empty()) {
    return unavailable("thermal",
                       fmt::format("none of the {} thermal zones has a readable temperature and a "
                                   "passive trip point above 0 °C, so the headroom is unknown",
                                   in.thermal.zones.size()));
  }
  std::sort(zones.begin(), zones.end(),
            [](const Zone& a, const Zone& b) { return a.headroom_c < b.headroom_c; });
  std::vector<std::string> parts;
  parts.reserve(zones.size());
  for (const auto& z : zones) {
    parts.push_back(
        fmt::format("{} ({}/temp) {:.1f} °C, passive trip {:.1f} °C, headroom {:.1f} °C",
                    z.zone->type.empty() ? "?" : z.zone->type, z.zone->dir.string(),
                    *z.zone->temp_c, z.trip_c, z.headroom_c));
  }
  const Zone& worst = zones.front();
  const std::string detail = join(parts, "; ");
  const std::string temp_file = board_path(in.root, worst.zone->dir / "temp");
  // Wait until the worst zone has kMinHeadroomC of headroom again (the file is in m°C).
  const auto cool_mc = static_cast<long long>((worst.trip_c - kMinHeadroomC) * 1000.0);
  std::vector<std::string> fix{
      fmt::format("while [ $(cat {}) -gt {} ]; do sleep 10; done  # let it cool", temp_file,
                  cool_mc),
      "tokscope bench --discard-throttled  # drop requests that ran throttled"};
  const std::string name = worst.zone->type.empty() ? "?" : worst.zone->type;
  if (worst.headroom_c <= 0) {
    return make("thermal", Severity::kBlocking,
                fmt::format("{} at {:.1f} °C is at or over its passive trip {:.1f} °C: the "
                            "kernel is throttling",
                            name, *worst.zone->temp_c, worst.trip_c),
                detail, fix);
  }
  if (worst.headroom_c < kMinHeadroomC) {
    return make("thermal", Severity::kWarning,
                fmt::format("{} has {:.1f} °C of headroom to its passive trip (< {:.0f} °C): a "
                            "long run will throttle",
                            name, worst.headroom_c, kMinHeadroomC),
                detail, fix);
  }
  return make("thermal", Severity::kOk,
              fmt::format("{:.1f} °C or more of thermal headroom in every zone with a passive trip",
                          worst.headroom_c),
              detail);
}

Finding check_cpu_load(const DoctorInputs& in) {
  if (!in.cpu_usage) return unavailable("cpu-load", in.cpu_usage_unavailable);
  const auto& usage = *in.cpu_usage;
  const double total_pct =
      std::accumulate(usage.begin(), usage.end(), 0.0,
                      [](double sum, const ProcessCpuUsage& p) { return sum + p.cpu_pct; });
  std::vector<std::string> busy;
  std::vector<std::string> fix;
  for (const auto& p : usage) {
    if (p.cpu_pct < kBusyProcessPct || busy.size() >= 5) continue;
    busy.push_back(fmt::format("pid {} ({}) {:.1f}%", p.pid, p.comm, p.cpu_pct));
    fix.push_back(fmt::format("kill {}  # {}, {:.1f}% of a core", p.pid, p.comm, p.cpu_pct));
  }
  const std::string detail = fmt::format(
      "{} other processes over {:.2f} s (utime+stime of {}/proc/<pid>/stat): {:.1f}% of a core in "
      "total{}{}",
      usage.size(), in.interval_s, in.root.string() == "/" ? "" : in.root.string(), total_pct,
      busy.empty() ? "" : "; above 5%: ", join(busy, ", "));
  if (total_pct > kBlockingOtherCpuPct) {
    return make("cpu-load", Severity::kBlocking,
                fmt::format("other processes use {:.0f}% of a core: they take the cores being "
                            "measured",
                            total_pct),
                detail, fix);
  }
  if (!busy.empty()) {
    return make(
        "cpu-load", Severity::kWarning,
        fmt::format("{} other process(es) above {:.0f}% of a core", busy.size(), kBusyProcessPct),
        detail, fix);
  }
  return make("cpu-load", Severity::kOk,
              fmt::format("other processes use {:.1f}% of a core in total", total_pct), detail);
}

Finding check_governors(const DoctorInputs& in) {
  if (in.cpufreq.policies.empty()) {
    return unavailable("governors", first_or(in.cpufreq.unavailable, "no cpufreq policy"));
  }
  std::vector<std::string> parts;
  std::vector<std::string> bad_channels;
  std::vector<std::string> fallback;
  for (const auto& p : in.cpufreq.policies) {
    const std::string gov = p.governor.empty() ? "unreadable" : p.governor;
    parts.push_back(fmt::format("policy{} {}", p.policy, gov));
    // userspace holds whatever frequency `tokscope lock --cpu-freq` set: fixed, so locked.
    if (p.governor == "performance" || p.governor == "userspace") continue;
    bad_channels.push_back(fmt::format("cpufreq.policy{}", p.policy));
    fallback.push_back(fmt::format("echo performance | sudo tee {}",
                                   board_path(in.root, p.dir / "scaling_governor")));
  }
  const std::string detail =
      fmt::format("scaling_governor under {}: {}",
                  (in.root / "sys/devices/system/cpu/cpufreq").string(), join(parts, ", "));
  if (bad_channels.empty()) {
    return make("governors", Severity::kOk, "every CPU policy is locked (performance/userspace)",
                detail);
  }
  return make("governors", Severity::kWarning,
              fmt::format("{} of {} CPU policies not locked: the clock follows the load",
                          bad_channels.size(), in.cpufreq.policies.size()),
              detail, lock_fix(in, bad_channels, fallback));
}

// The highest frequency a devfreq device offers: its list's, else max_freq.
std::optional<std::uint64_t> highest_hz(const DevfreqDevice& d) {
  if (!d.available_hz.empty())
    return *std::max_element(d.available_hz.begin(), d.available_hz.end());
  return d.max_hz;
}

// A devfreq device is locked under performance, or under userspace at its highest frequency.
Finding check_devfreq(const DoctorInputs& in, std::string_view id, std::string_view what,
                      bool (*match)(const std::string&)) {
  const DevfreqDevice* dev = nullptr;
  for (const auto& d : in.devfreq.devices) {
    if (match(d.name)) dev = &d;
  }
  if (dev == nullptr) {
    const std::string reason = in.devfreq.devices.empty()
                                   ? first_or(in.devfreq.unavailable, "no devfreq device")
                                   : fmt::format("no {} devfreq device under {} (devices: {})",
                                                 what, (in.root / "sys/class/devfreq").string(),
                                                 join(
                                                     [&] {
                                                       std::vector<std::string> names;
                                                       for (const auto& d : in.devfreq.devices)
                                                         names.push_back(d.name);
                                                       return names;
                                                     }(),
                                                     ", "));
    return unavailable(id, reason);
  }
  const auto top = highest_hz(*dev);
  const std::string cur = dev->cur_hz ? std::to_string(*dev->cur_hz) + " Hz" : "unreadable";
  const std::string detail =
      fmt::format("{}: governor {}, cur_freq {}, highest {}", (dev->dir / "governor").string(),
                  dev->governor.empty() ? "unreadable" : dev->governor, cur,
                  top ? std::to_string(*top) + " Hz" : "unknown");
  const bool at_top = dev->cur_hz && top && *dev->cur_hz == *top;
  if (dev->governor == "performance" || (dev->governor == "userspace" && at_top)) {
    return make(id, Severity::kOk, fmt::format("{} locked at its highest frequency", what), detail);
  }
  const std::string board_dir = board_path(in.root, dev->dir);
  std::vector<std::string> fallback{
      fmt::format("echo userspace | sudo tee {}/governor", board_dir)};
  if (top)
    fallback.push_back(fmt::format("echo {} | sudo tee {}/userspace/set_freq", *top, board_dir));
  const std::string title =
      dev->governor == "userspace"
          ? fmt::format("{} held at {} below its highest frequency", what, cur)
          : fmt::format("{} not locked (governor {}): its clock follows the load", what,
                        dev->governor.empty() ? "unreadable" : dev->governor);
  return make(id, Severity::kWarning, title, detail,
              lock_fix(in, {"devfreq." + dev->name}, fallback));
}

bool is_dmc(const std::string& name) {
  return name == "dmc";
}
bool is_npu(const std::string& name) {
  return name.size() >= 4 && name.compare(name.size() - 4, 4, ".npu") == 0;
}

Finding check_swap(const DoctorInputs& in) {
  const MemoryState& m = in.memory;
  if (!m.swaps_known && !m.swappiness) {
    return unavailable("swap", first_or(m.unavailable, "proc/swaps and swappiness unreadable"));
  }
  std::vector<std::string> fix;
  std::vector<std::string> problems;
  for (const auto& s : m.swaps) {
    if (!s.zram) continue;
    problems.push_back(fmt::format("zram swap {} active ({} KiB used)", s.filename, s.used_kib));
    fix.push_back(fmt::format("sudo swapoff {}", s.filename));
  }
  // swappiness only matters while some swap is on (or when that is unknown).
  const bool swap_on = !m.swaps_known || !m.swaps.empty();
  if (m.swappiness && *m.swappiness > kMaxSwappiness && swap_on) {
    problems.push_back(fmt::format("vm.swappiness {} > {}", *m.swappiness, kMaxSwappiness));
    fix.push_back(fmt::format("sudo sysctl vm.swappiness={}", kMaxSwappiness));
  }
  const std::string detail = fmt::format(
      "{}: {}; {}: {}", (in.root / "proc/swaps").string(),
      !m.swaps_known ? std::string("unreadable")
                     : (m.swaps.empty() ? std::string("no swap")
                                        : fmt::format("{} swap area(s)", m.swaps.size())),
      (in.root / "proc/sys/vm/swappiness").string(),
      m.swappiness ? std::to_string(*m.swappiness) : std::string("unreadable"));
  if (problems.empty()) {
    return make("swap", Severity::kOk, "no zram swap, swappiness low or no swap on", detail);
  }
  return make("swap", Severity::kWarning,
              join(problems, "; ") + ": pages of the model can be swapped or compressed", detail,
              fix);
}

Finding check_cpuidle(const DoctorInputs& in) {
  if (in.cpuidle.empty()) return unavailable("cpuidle", in.cpuidle_unavailable);
  std::vector<std::string> enabled;
  std::vector<std::string> fix;
  std::size_t deep = 0;
  for (const auto& s : in.cpuidle) {
    const bool is_deep = s.state > 0 || s.latency_us.value_or(0) > 0;
    if (!is_deep) continue;
    ++deep;
    if (s.disabled.value_or(false)) continue;
    enabled.push_back(fmt::format("cpu{}/state{} ({}, {} µs)", s.cpu, s.state,
                                  s.name.empty() ? "?" : s.name,
                                  s.latency_us ? std::to_string(*s.latency_us) : "?"));
    fix.push_back(fmt::format(
        "echo 1 | sudo tee /sys/devices/system/cpu/cpu{}/cpuidle/state{}/disable", s.cpu, s.state));
  }
  const std::string dir = (in.root / "sys/devices/system/cpu/cpu*/cpuidle").string();
  if (enabled.empty()) {
    return make("cpuidle", Severity::kOk,
                deep == 0 ? "no deep idle state" : "every deep idle state is disabled",
                fmt::format("{}: {} states, {} deep, none enabled", dir, in.cpuidle.size(), deep));
  }
  return make(
      "cpuidle", Severity::kWarning,
      fmt::format("{} deep idle state(s) enabled: waking from them adds latency", enabled.size()),
      fmt::format("{}: enabled: {}", dir, join(enabled, ", ")), fix);
}

Finding check_counters(const DoctorInputs& in) {
  if (in.counters.empty()) return unavailable("counters", in.counters_unavailable);
  std::vector<std::string> reasons;
  std::vector<std::string> names;
  bool permission = false;
  for (const auto& c : in.counters) {
    names.push_back(c.event);
    if (c.unavailable.empty()) continue;
    reasons.push_back(c.event + ": " + c.unavailable);
    if (c.unavailable.find("permission") != std::string::npos ||
        c.unavailable.find("EACCES") != std::string::npos ||
        c.unavailable.find("EPERM") != std::string::npos) {
      permission = true;
    }
  }
  const std::string paranoid =
      in.perf_event_paranoid ? std::to_string(*in.perf_event_paranoid) : std::string("unreadable");
  if (reasons.empty()) {
    return make("counters", Severity::kOk,
                fmt::format("hardware counters work ({})", join(names, ", ")),
                fmt::format("perf_event_open for this process; perf_event_paranoid {}", paranoid));
  }
  std::vector<std::string> fix;
  if (permission || (in.perf_event_paranoid && *in.perf_event_paranoid > 2)) {
    fix.push_back("sudo sysctl kernel.perf_event_paranoid=1");
  } else {
    fix.push_back(
        "none here: no PMU is exposed (a VM needs a virtual PMU, e.g. qemu -cpu host); measure "
        "on the board");
  }
  return make(
      "counters", Severity::kWarning,
      fmt::format("{} of {} hardware counters unavailable: no cycles/instructions per "
                  "token",
                  reasons.size(), in.counters.size()),
      fmt::format("{}; /proc/sys/kernel/perf_event_paranoid {}", join(reasons, "; "), paranoid),
      fix);
}

std::string bytes_text(std::uint64_t bytes) {
  return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

Finding check_memlock(const DoctorInputs& in) {
  if (!in.memlock_unlimited && !in.memlock_bytes) {
    return unavailable("memlock", in.memlock_unavailable);
  }
  const std::uint64_t need = std::max(kMinMemlockBytes, in.model_file_bytes.value_or(0));
  const std::string need_text =
      in.model_file_bytes && *in.model_file_bytes > kMinMemlockBytes
          ? fmt::format("the model file {} ({})", in.model_file, bytes_text(need))
          : std::string("1 GiB");
  const std::string limit =
      in.memlock_unlimited ? std::string("unlimited") : bytes_text(*in.memlock_bytes);
  const std::string detail = fmt::format("{}: Max locked memory (soft) {}; needed: {}",
                                         in.memlock_source, limit, need_text);
  if (in.memlock_unlimited || *in.memlock_bytes >= need) {
    return make("memlock", Severity::kOk, fmt::format("mlock limit {} is enough", limit), detail);
  }
  if (in.memlock_privileged) {
    return make(
        "memlock", Severity::kOk,
        fmt::format("mlock limit {} does not apply: this process has CAP_IPC_LOCK (root)", limit),
        detail + "; /proc/self/status CapEff has CAP_IPC_LOCK");
  }
  return make("memlock", Severity::kWarning,
              fmt::format("mlock limit {} is below {}: an engine cannot pin the weights (mlock "
                          "fails, pages may be evicted)",
                          limit, need_text),
              detail,
              {"ulimit -l unlimited  # in the shell that runs the benchmark (as root or within "
               "the hard limit)",
               "echo \"$USER - memlock unlimited\" | sudo tee -a /etc/security/limits.conf  # "
               "then log in again"});
}

}  // namespace

std::vector<Finding> run_checks(const DoctorInputs& in) {
  return {check_build(in),
          check_thermal(in),
          check_cpu_load(in),
          check_governors(in),
          check_devfreq(in, "ddr", "DDR (devfreq dmc)", is_dmc),
          check_devfreq(in, "npu", "NPU (devfreq *.npu)", is_npu),
          check_swap(in),
          check_cpuidle(in),
          check_counters(in),
          check_memlock(in)};
}

Expected<std::vector<Finding>> apply_skips(std::vector<Finding> findings,
                                           const std::vector<std::string>& skip) {
  for (const auto& id : skip) {
    if (std::find(std::begin(kCheckIds), std::end(kCheckIds), id) == std::end(kCheckIds)) {
      std::vector<std::string> ids(std::begin(kCheckIds), std::end(kCheckIds));
      return make_error(ErrorKind::kUsage,
                        fmt::format("--skip {}: no such check (checks: {})", id, join(ids, ", ")));
    }
    for (auto& f : findings) {
      if (f.id != id) continue;
      f.detail = fmt::format("was {}: {}; {}", to_string(f.severity), f.title, f.detail);
      f.title = fmt::format("skipped (--skip {})", id);
      f.severity = Severity::kInfo;
      f.fix.clear();
    }
  }
  return findings;
}

void sort_by_severity(std::vector<Finding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    return static_cast<int>(a.severity) < static_cast<int>(b.severity);
  });
}

std::size_t count(const std::vector<Finding>& findings, Severity severity) noexcept {
  return static_cast<std::size_t>(std::count_if(
      findings.begin(), findings.end(), [&](const Finding& f) { return f.severity == severity; }));
}

nlohmann::json to_json(const Finding& f) {
  return {{"id", f.id},
          {"severity", to_string(f.severity)},
          {"title", f.title},
          {"detail", f.detail},
          {"fix", f.fix}};
}

}  // namespace tokscope::platform::doctor
