#include "platform/perf/counter_set.hpp"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>
#include <utility>

namespace tokscope::platform::perf {
namespace {

namespace fs = std::filesystem;

std::optional<int> parse_int(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
  int value = 0;
  const auto* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, value);
  if (s.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::optional<int> read_paranoid(const fs::path& root) {
  std::ifstream in(root / "proc/sys/kernel/perf_event_paranoid");
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return parse_int(text.str());
}

// Thread ids of a live process, from /proc/<pid>/task (not under the injectable root: the
// counters are always the running kernel's).
Expected<std::vector<int>> list_threads(int pid) {
  const fs::path dir = fs::path("/proc") / std::to_string(pid) / "task";
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) {
    return make_error(ErrorKind::kUsage, "cannot count process " + std::to_string(pid) + ": " +
                                             dir.string() + ": " + ec.message());
  }
  std::set<int> tids;
  for (fs::directory_iterator end; !ec && it != end; it.increment(ec)) {
    if (const auto tid = parse_int(it->path().filename().string()); tid && *tid > 0) {
      tids.insert(*tid);
    }
  }
  if (tids.empty()) {
    return make_error(ErrorKind::kUsage,
                      "cannot count process " + std::to_string(pid) + ": it has no threads");
  }
  return std::vector<int>(tids.begin(), tids.end());
}

int perf_event_open(perf_event_attr& attr, int tid) {
  // cpu -1: wherever the task runs; group -1: every fd is its own group.
  return static_cast<int>(::syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

perf_event_attr make_attr(const EventEncoding& encoding, bool kernel) {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = encoding.type;
  attr.config = encoding.words.config;
  attr.config1 = encoding.words.config1;
  attr.config2 = encoding.words.config2;
  attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  attr.inherit = 1;
  attr.exclude_kernel = kernel ? 0 : 1;
  attr.exclude_hv = 1;
  return attr;
}

const char* errno_name(int err) {
  switch (err) {
    case ENOENT:
      return "ENOENT";
    case EOPNOTSUPP:
      return "EOPNOTSUPP";
    case EACCES:
      return "EACCES";
    case EPERM:
      return "EPERM";
    case EINVAL:
      return "EINVAL";
    case ESRCH:
      return "ESRCH";
    case EMFILE:
      return "EMFILE";
    case ENFILE:
      return "ENFILE";
    case ENODEV:
      return "ENODEV";
    case EBUSY:
      return "EBUSY";
    case E2BIG:
      return "E2BIG";
    case ENOSPC:
      return "ENOSPC";
    default:
      return nullptr;
  }
}

// The outcome of opening one part on every thread.
struct PartOpen {
  std::vector<int> fds;
  bool kernel = false;
  int err = 0;  // 0: opened on at least one thread
};

void close_fds(std::vector<int>& fds) noexcept {
  for (const int fd : fds) ::close(fd);
  fds.clear();
}

PartOpen open_on_threads(const EventEncoding& encoding, bool kernel, const std::vector<int>& tids,
                         bool external) {
  PartOpen out;
  out.kernel = kernel;
  for (const int tid : tids) {
    perf_event_attr attr = make_attr(encoding, kernel);
    const int fd = perf_event_open(attr, tid);
    if (fd >= 0) {
      out.fds.push_back(fd);
      continue;
    }
    const int err = errno;
    if (external && err == ESRCH) continue;  // the thread exited after it was listed
    close_fds(out.fds);
    out.err = err;
    return out;
  }
  if (out.fds.empty()) out.err = ESRCH;  // every listed thread exited
  return out;
}

PartOpen open_part(const EventEncoding& encoding, CountDomain domain, const std::vector<int>& tids,
                   bool external) {
  const bool kernel_first = domain != CountDomain::kUser;
  PartOpen first = open_on_threads(encoding, kernel_first, tids, external);
  if (first.err == 0 || domain != CountDomain::kAuto) return first;
  if (first.err != EACCES && first.err != EPERM) return first;
  PartOpen user_only = open_on_threads(encoding, false, tids, external);
  return user_only.err == 0 ? std::move(user_only) : std::move(first);
}

std::uint64_t minus(std::uint64_t end, std::uint64_t begin) {
  return end >= begin ? end - begin : 0;  // a counter never runs backwards; guard anyway
}

}  // namespace

std::string open_failure_reason(int err, std::optional<int> paranoid, bool kernel_counted,
                                std::optional<int> pid) {
  const char* name = errno_name(err);
  const std::string code = name != nullptr ? name : "errno " + std::to_string(err);
  const std::string paranoid_text =
      paranoid ? "/proc/sys/kernel/perf_event_paranoid is " + std::to_string(*paranoid)
               : std::string("/proc/sys/kernel/perf_event_paranoid is unreadable");
  std::string reason = "unavailable: ";
  switch (err) {
    case ENOENT:
      reason += "the kernel has no such event on this machine (" + code +
                "); virtual machines often expose no hardware PMU";
      break;
    case EOPNOTSUPP:
      reason += "the PMU cannot count this event for a task (" + code +
                "), e.g. a PMU without an overflow interrupt or a virtual machine without a "
                "virtual PMU";
      break;
    case EACCES:
    case EPERM:
      reason += "permission denied (" + code + "); " + paranoid_text + ": " +
                (kernel_counted ? "counting kernel mode needs it at 1 or below"
                                : "counting needs it at 2 or below") +
                ", or CAP_PERFMON (root)";
      if (pid) reason += ", and ptrace permission on process " + std::to_string(*pid);
      break;
    case EINVAL:
      reason += "the kernel refused the encoding (" + code +
                "): a config this PMU does not know, or a PMU type in config bits 32-63 that "
                "this kernel does not accept yet";
      break;
    case ESRCH:
      reason += pid ? "process " + std::to_string(*pid) + " has exited (" + code + ")"
                    : "no such task (" + code + ")";
      break;
    case EMFILE:
    case ENFILE:
      reason += "too many open files (" + code + "): raise the limit (ulimit -n)";
      break;
    case ENODEV:
      reason += "no such PMU (" + code + ")";
      break;
    case EBUSY:
      reason += "the PMU is in exclusive use by another user (" + code + ")";
      break;
    default:
      reason += "perf_event_open failed (" + code + ": " + std::strerror(err) + ")";
      break;
  }
  return reason;
}

std::optional<double> CounterWindow::value(std::string_view name) const {
  for (const auto& e : events) {
    if (e.name == name) return e.value;
  }
  return std::nullopt;
}

Expected<CounterSet> CounterSet::open(const CounterRequest& request) {
  EventResolver resolver(request.root);
  return open(request, resolver);
}

Expected<CounterSet> CounterSet::open(const CounterRequest& request, EventResolver& resolver) {
  if (request.events.size() > kMaxCounterEvents) {
    return make_error(ErrorKind::kUsage, "too many counter events (" +
                                             std::to_string(request.events.size()) + "): at most " +
                                             std::to_string(kMaxCounterEvents));
  }
  for (std::size_t i = 0; i < request.events.size(); ++i) {
    for (std::size_t j = i + 1; j < request.events.size(); ++j) {
      if (request.events[i] == request.events[j]) {
        return make_error(ErrorKind::kUsage,
                          "counter event \"" + request.events[i] + "\" is listed twice");
      }
    }
  }
  if (request.pid && *request.pid <= 0) {
    return make_error(ErrorKind::kUsage,
                      "counter pid must be positive, got " + std::to_string(*request.pid));
  }

  std::vector<ResolvedEvent> resolved;
  std::size_t slots = 0;
  for (const auto& name : request.events) {
    auto event = resolver.resolve(name, request.domain != CountDomain::kUser);
    if (!event) return event.error();
    slots += event->encodings.size();
    resolved.push_back(std::move(*event));
  }
  if (slots > kMaxCounterSlots) {
    return make_error(ErrorKind::kUsage, "too many counter events for " +
                                             std::to_string(resolver.cpu_pmu_list().size()) +
                                             " CPU PMUs (" + std::to_string(slots) +
                                             " event × PMU pairs, at most " +
                                             std::to_string(kMaxCounterSlots) + ")");
  }

  std::vector<int> tids{0};  // 0: the calling thread
  if (request.pid) {
    auto listed = list_threads(*request.pid);
    if (!listed) return listed.error();
    tids = std::move(*listed);
  }

  CounterSet set;
  set.pid_ = request.pid;
  set.paranoid_ = read_paranoid(request.root);
  set.threads_ = tids.size();
  set.notes_ = resolver.pmus().notes;
  const bool no_cpu_pmu = resolver.cpu_pmu_list().empty();
  std::size_t hardware_events = 0;

  std::size_t slot = 0;
  for (auto& event : resolved) {
    CounterEventInfo info;
    info.name = event.name;
    info.source = std::move(event.source);
    info.software = event.software;
    info.unavailable = std::move(event.unavailable);
    info.note = std::move(event.note);
    for (const auto& encoding : event.encodings) {
      CounterEventInfo::Part part;
      part.pmu = encoding.pmu;
      part.encoding = encoding;
      part.slot = slot++;
      PartOpen opened = open_part(encoding, request.domain, tids, request.pid.has_value());
      if (opened.err != 0) {
        part.unavailable =
            open_failure_reason(opened.err, set.paranoid_, opened.kernel, request.pid);
        if (!event.software && no_cpu_pmu && (opened.err == ENOENT || opened.err == EOPNOTSUPP)) {
          part.unavailable += "; no CPU PMU is listed under " +
                              (request.root / "sys/bus/event_source/devices").string();
        }
      } else {
        part.kernel_counted = opened.kernel;
        part.fds = opened.fds.size();
        for (const int fd : opened.fds) {
          set.fds_.push_back(fd);
          set.fd_slot_.push_back(part.slot);
        }
      }
      info.parts.push_back(std::move(part));
    }
    const bool any_open = std::any_of(info.parts.begin(), info.parts.end(),
                                      [](const auto& p) { return p.unavailable.empty(); });
    if (!any_open && info.unavailable.empty() && !info.parts.empty()) {
      info.unavailable = info.parts.front().unavailable;
    }
    for (const auto& part : info.parts) {
      if (any_open && !part.unavailable.empty()) {  // summed over the other clusters only
        info.note += (info.note.empty() ? "not counted on " : "; not counted on ") + part.pmu +
                     ": " + part.unavailable;
      }
    }
    if (any_open && !info.software) ++hardware_events;
    if (any_open && info.software && request.domain != CountDomain::kUserAndKernel &&
        !info.parts.front().kernel_counted &&
        (event.encodings.front().words.config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
         event.encodings.front().words.config == PERF_COUNT_SW_CPU_MIGRATIONS)) {
      info.note += std::string(info.note.empty() ? "" : "; ") +
                   "counted in user mode only, where context switches and migrations never "
                   "happen: expect 0";
    }
    set.events_.push_back(std::move(info));
  }
  constexpr std::size_t kArmProgrammableCounters = 6;
  if (hardware_events > kArmProgrammableCounters) {
    set.notes_.push_back(std::to_string(hardware_events) +
                         " hardware events: more than the 6 programmable counters of "
                         "Cortex-A55/A76, so they may be multiplexed");
  }
  return set;
}

CounterSet::CounterSet(CounterSet&& other) noexcept
    : fds_(std::exchange(other.fds_, {})),
      fd_slot_(std::exchange(other.fd_slot_, {})),
      events_(std::move(other.events_)),
      pid_(other.pid_),
      paranoid_(other.paranoid_),
      threads_(other.threads_),
      notes_(std::move(other.notes_)) {}

CounterSet& CounterSet::operator=(CounterSet&& other) noexcept {
  if (this != &other) {
    close_all();
    fds_ = std::exchange(other.fds_, {});
    fd_slot_ = std::exchange(other.fd_slot_, {});
    events_ = std::move(other.events_);
    pid_ = other.pid_;
    paranoid_ = other.paranoid_;
    threads_ = other.threads_;
    notes_ = std::move(other.notes_);
  }
  return *this;
}

CounterSet::~CounterSet() {
  close_all();
}

void CounterSet::close_all() noexcept {
  close_fds(fds_);
}

CounterSnapshot CounterSet::read() const noexcept {
  CounterSnapshot snapshot;
  for (std::size_t i = 0; i < fds_.size(); ++i) {
    std::array<std::uint64_t, 3> buffer{};  // value, time_enabled, time_running (read_format)
    ssize_t n = 0;
    do {
      n = ::read(fds_[i], buffer.data(), sizeof(buffer));
    } while (n < 0 && errno == EINTR);
    const std::size_t slot = fd_slot_[i];
    if (n != static_cast<ssize_t>(sizeof(buffer))) {
      snapshot.read_failed |= std::uint64_t{1} << slot;
      continue;
    }
    snapshot.slots[slot].count += buffer[0];
    snapshot.slots[slot].time_enabled_ns += buffer[1];
    snapshot.slots[slot].time_running_ns += buffer[2];
  }
  return snapshot;
}

CounterWindow CounterSet::window(const CounterSnapshot& begin, const CounterSnapshot& end) const {
  return compute_window(events_, begin, end);
}

CounterWindow compute_window(const std::vector<CounterEventInfo>& events,
                             const CounterSnapshot& begin, const CounterSnapshot& end) {
  CounterWindow window;
  window.events.reserve(events.size());
  const std::uint64_t failed = begin.read_failed | end.read_failed;
  for (const auto& info : events) {
    if (!info.unavailable.empty()) {
      CounterValue missing;
      missing.name = info.name;
      missing.unavailable = info.unavailable;
      window.events.push_back(std::move(missing));
      continue;
    }
    CounterValue value;
    value.name = info.name;
    bool read_failed = false;
    bool per_cluster = false;
    for (const auto& part : info.parts) {
      if (!part.unavailable.empty() || part.slot >= kMaxCounterSlots) continue;
      if ((failed >> part.slot) & 1U) read_failed = true;
      const auto& a = begin.slots[part.slot];
      const auto& b = end.slots[part.slot];
      CounterValue::Part delta{part.pmu, minus(b.count, a.count),
                               minus(b.time_enabled_ns, a.time_enabled_ns),
                               minus(b.time_running_ns, a.time_running_ns)};
      value.count += delta.count;
      value.time_enabled_ns += delta.time_enabled_ns;
      value.time_running_ns += delta.time_running_ns;
      per_cluster = per_cluster || part.encoding.per_cluster;
      value.parts.push_back(std::move(delta));
    }
    // Scaled only when one open covers the machine and was multiplexed. Per-cluster sums are
    // not scaled: there running < enabled also means "ran on another cluster" (see header).
    const bool multiplexed = !per_cluster && value.time_running_ns < value.time_enabled_ns;
    if (read_failed) {
      value.unavailable = "unavailable: read() of a counter failed in this window";
    } else if (multiplexed && value.time_running_ns == 0) {
      value.unavailable = "unavailable: never on a hardware counter in this window (running 0 of " +
                          std::to_string(value.time_enabled_ns) +
                          " ns enabled: more events than counters)";
    } else {
      value.value = static_cast<double>(value.count);
      if (multiplexed) {
        *value.value *=
            static_cast<double>(value.time_enabled_ns) / static_cast<double>(value.time_running_ns);
        value.scaled = true;
      }
    }
    window.events.push_back(std::move(value));
  }
  return window;
}

}  // namespace tokscope::platform::perf
