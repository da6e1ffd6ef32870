#include "platform/doctor/gather.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <map>
#include <system_error>
#include <thread>

#include "platform/lock/lock_plan.hpp"
#include "platform/perf/counter_set.hpp"
#include "platform/sysfs/sysfs_file.hpp"

namespace tokscope::platform::doctor {

namespace fs = std::filesystem;

Expected<ProcStat> parse_proc_stat(std::string_view text) {
  const auto open = text.find('(');
  const auto close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return make_error(ErrorKind::kInput, "proc stat: no \"(comm)\" field");
  }
  const auto pid = sysfs::parse_u64(text.substr(0, open));
  if (!pid || *pid > 0x7fffffffU) return make_error(ErrorKind::kInput, "proc stat: no pid");
  // After ")": state (field 3) … utime (14), stime (15): words 11 and 12 counting state as 0.
  const auto words = sysfs::split_words(text.substr(close + 1));
  if (words.size() < 13) {
    return make_error(
        ErrorKind::kInput,
        fmt::format("proc stat: {} fields after comm, utime and stime need 13", words.size()));
  }
  const auto utime = sysfs::parse_u64(words[11]);
  const auto stime = sysfs::parse_u64(words[12]);
  if (!utime || !stime) return make_error(ErrorKind::kInput, "proc stat: utime/stime not integers");
  return ProcStat{static_cast<int>(*pid), std::string(text.substr(open + 1, close - open - 1)),
                  *utime + *stime};
}

std::vector<ProcessCpuUsage> cpu_usage_between(const std::vector<ProcStat>& before,
                                               const std::vector<ProcStat>& after, double elapsed_s,
                                               double ticks_per_s, int exclude_pid) {
  std::vector<ProcessCpuUsage> out;
  if (!(elapsed_s > 0) || !(ticks_per_s > 0)) return out;
  std::map<int, std::uint64_t> start;
  for (const auto& p : before) start[p.pid] = p.cpu_ticks;
  for (const auto& p : after) {
    if (p.pid == exclude_pid) continue;
    const auto it = start.find(p.pid);
    const std::uint64_t from = it != start.end() && it->second <= p.cpu_ticks ? it->second : 0;
    const std::uint64_t ticks = p.cpu_ticks - from;
    if (ticks == 0) continue;
    out.push_back({p.pid, p.comm, 100.0 * static_cast<double>(ticks) / ticks_per_s / elapsed_s});
  }
  std::sort(out.begin(), out.end(), [](const ProcessCpuUsage& a, const ProcessCpuUsage& b) {
    return a.cpu_pct != b.cpu_pct ? a.cpu_pct > b.cpu_pct : a.pid < b.pid;
  });
  return out;
}

std::vector<ProcStat> read_proc_stats(const fs::path& root) {
  std::vector<ProcStat> out;
  std::error_code ec;
  fs::directory_iterator it(root / "proc", ec);
  if (ec) return out;
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    if (name.empty() ||
        !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    auto text = sysfs::read_text(entry.path() / "stat");
    if (!text) continue;  // exited while listed, or not a process directory
    auto stat = parse_proc_stat(*text);
    if (stat) out.push_back(std::move(*stat));
  }
  return out;
}

Expected<std::optional<std::uint64_t>> parse_memlock_limit(std::string_view limits_text) {
  constexpr std::string_view kLabel = "Max locked memory";
  const auto at = limits_text.find(kLabel);
  if (at == std::string_view::npos) {
    return make_error(ErrorKind::kInput, "no \"Max locked memory\" line");
  }
  auto line = limits_text.substr(at + kLabel.size());
  line = line.substr(0, line.find('\n'));
  const auto words = sysfs::split_words(line);
  if (words.empty()) return make_error(ErrorKind::kInput, "\"Max locked memory\" has no value");
  if (words[0] == "unlimited") return std::optional<std::uint64_t>();
  const auto soft = sysfs::parse_u64(words[0]);
  if (!soft) {
    return make_error(
        ErrorKind::kInput,
        fmt::format("\"Max locked memory\" soft limit \"{}\" is not a number", words[0]));
  }
  return std::optional<std::uint64_t>(*soft);
}

std::vector<CpuIdleState> read_cpuidle(const fs::path& root, std::string& unavailable) {
  std::vector<CpuIdleState> out;
  const fs::path cpus = root / "sys/devices/system/cpu";
  auto cpu_dirs = sysfs::list_indexed_dirs(cpus, "cpu");
  if (!cpu_dirs) {
    unavailable = "unavailable: " + cpu_dirs.error().message;
    return out;
  }
  std::vector<std::string> ignored;  // a state with an unreadable file is still listed
  for (const auto& cpu : *cpu_dirs) {
    auto states = sysfs::list_indexed_dirs(cpu.path / "cpuidle", "state");
    if (!states) continue;
    for (const auto& st : *states) {
      CpuIdleState s;
      s.cpu = cpu.index;
      s.state = st.index;
      if (auto name = sysfs::read_string(st.path / "name", sysfs::Presence::kOptional, ignored)) {
        s.name = std::string(sysfs::trim(*name));
      }
      s.latency_us = sysfs::read_u64(st.path / "latency", "an integer in µs",
                                     sysfs::Presence::kOptional, ignored);
      if (auto d =
              sysfs::read_u64(st.path / "disable", "0 or 1", sysfs::Presence::kOptional, ignored)) {
        s.disabled = *d != 0;
      }
      out.push_back(std::move(s));
    }
  }
  if (out.empty()) {
    unavailable = fmt::format(
        "unavailable: no cpuidle state under {}/cpu*/cpuidle (no cpuidle "
        "driver)",
        cpus.string());
  }
  return out;
}

namespace {

// What `tokscope lock` would write, per channel, as commands for the board.
std::map<std::string, std::vector<std::string>> lock_writes(const fs::path& root) {
  std::map<std::string, std::vector<std::string>> out;
  lock::LockRequest request;
  request.sysfs_root = root;
  request.journal = "/dev/null";  // planning reads only; the journal is never touched
  auto plan = lock::plan_lock(request);
  if (!plan) return out;
  for (const auto& ch : plan->channels) {
    auto& cmds = out[ch.name];
    for (const auto& step : ch.steps) {
      if (step.value) cmds.push_back(fmt::format("echo {} | sudo tee /{}", *step.value, step.file));
    }
  }
  return out;
}

// CAP_IPC_LOCK (bit 14) in the CapEff line of /proc/self/status: mlock is then not limited by
// RLIMIT_MEMLOCK (root has it). nullopt when the line is missing or malformed.
std::optional<bool> has_cap_ipc_lock(std::string_view status_text) {
  const std::size_t at = status_text.find("CapEff:");
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t i = at + 7;
  while (i < status_text.size() && (status_text[i] == ' ' || status_text[i] == '\t')) ++i;
  std::uint64_t caps = 0;
  const auto [ptr, ec] =
      std::from_chars(status_text.data() + i, status_text.data() + status_text.size(), caps, 16);
  if (ec != std::errc() || ptr == status_text.data() + i) return std::nullopt;
  return ((caps >> 14U) & 1U) != 0;
}

void gather_memlock(const fs::path& root, DoctorInputs& in) {
  if (auto status = sysfs::read_text(root / "proc/self/status")) {
    in.memlock_privileged = has_cap_ipc_lock(*status).value_or(false);
  }
  const fs::path file = root / "proc/self/limits";
  auto text = sysfs::read_text(file);
  if (text) {
    auto limit = parse_memlock_limit(*text);
    if (limit) {
      in.memlock_source = file.string();
      in.memlock_unlimited = !limit->has_value();
      in.memlock_bytes = *limit;
      return;
    }
    in.memlock_unavailable =
        fmt::format("unavailable: {}: {}", file.string(), limit.error().message);
  } else {
    in.memlock_unavailable = "unavailable: " + text.error().message;
  }
  // On the live system the limit of this process is the one the engine would inherit.
  if (root == "/") {
    rlimit lim{};
    if (::getrlimit(RLIMIT_MEMLOCK, &lim) == 0) {
      in.memlock_source = "getrlimit(RLIMIT_MEMLOCK)";
      in.memlock_unlimited = lim.rlim_cur == RLIM_INFINITY;
      if (!in.memlock_unlimited) in.memlock_bytes = static_cast<std::uint64_t>(lim.rlim_cur);
      in.memlock_unavailable.clear();
    }
  }
}

void gather_cpu_usage(const GatherOptions& o, DoctorInputs& in) {
  in.interval_s = o.interval_s;
  if (o.interval_s <= 0) {
    in.cpu_usage_unavailable = "not measured (--interval-s 0 takes a single snapshot)";
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const auto before = read_proc_stats(o.root);
  std::this_thread::sleep_for(std::chrono::duration<double>(o.interval_s));
  const auto after = read_proc_stats(o.root);
  const double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (before.empty() && after.empty()) {
    in.cpu_usage_unavailable =
        fmt::format("unavailable: no readable {}/<pid>/stat", (o.root / "proc").string());
    return;
  }
  const long ticks = ::sysconf(_SC_CLK_TCK);
  in.interval_s = elapsed_s;
  in.cpu_usage =
      cpu_usage_between(before, after, elapsed_s, static_cast<double>(ticks > 0 ? ticks : 100),
                        o.self_pid.value_or(static_cast<int>(::getpid())));
}

void gather_counters(const GatherOptions& o, DoctorInputs& in) {
  const bool probe = o.probe_counters.value_or(o.root == "/");
  if (!probe) {
    in.counters_unavailable =
        "not checked under --sysfs-root: hardware counters belong to the running kernel";
    if (auto p = sysfs::read_text(o.root / "proc/sys/kernel/perf_event_paranoid")) {
      in.counters_unavailable +=
          fmt::format(" (the tree's perf_event_paranoid is {})", sysfs::trim(*p));
    }
    return;
  }
  perf::CounterRequest request;
  request.events = {"cycles", "instructions"};
  request.root = o.root;
  auto set = perf::CounterSet::open(request);
  if (!set) {
    in.counters_unavailable = "unavailable: " + set.error().message;
    return;
  }
  in.perf_event_paranoid = set->perf_event_paranoid();
  for (const auto& e : set->events()) in.counters.push_back({e.name, e.unavailable});
}

}  // namespace

Expected<DoctorInputs> gather_inputs(const GatherOptions& o) {
  if (!std::isfinite(o.interval_s) || o.interval_s < 0) {
    return make_error(ErrorKind::kUsage,
                      fmt::format("--interval-s {}: must be 0 or more seconds", o.interval_s));
  }
  DoctorInputs in;
  in.root = o.root;
  if (o.model_file) {
    std::error_code ec;
    const auto size = fs::file_size(*o.model_file, ec);
    if (ec) {
      return make_error(ErrorKind::kInput,
                        fmt::format("--model-file {}: {}", o.model_file->string(), ec.message()));
    }
    in.model_file_bytes = static_cast<std::uint64_t>(size);
    in.model_file = o.model_file->string();
  }
  in.cpufreq = read_cpufreq(o.root);
  in.devfreq = read_devfreq(o.root);
  in.thermal = read_thermal(o.root);
  in.memory = read_memory_state(o.root);
  in.lock_writes = lock_writes(o.root);
  in.build_type = TOKSCOPE_BUILD_TYPE;
  in.sanitizer = TOKSCOPE_SANITIZER;
  gather_memlock(o.root, in);
  in.cpuidle = read_cpuidle(o.root, in.cpuidle_unavailable);
  gather_counters(o, in);
  gather_cpu_usage(o, in);  // last: it sleeps
  return in;
}

}  // namespace tokscope::platform::doctor
