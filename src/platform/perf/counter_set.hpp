// Hardware and software performance counters over the prefill and decode windows of a request.
//
// A CounterSet is opened once, before the engine starts its threads, and read at request
// submit, at the first token and at the end; window(a, b) turns two snapshots into per-event
// counts. What is counted:
//  - own process (pid unset): the thread that calls open() and every thread it creates
//    afterwards. Each event is one fd per encoding, perf_event_open(pid=0, cpu=-1, inherit=1):
//    inherited counters of live threads are summed by the kernel on read(), and those of exited
//    threads are folded into the parent's count. So open() must run on the thread that later
//    starts the engine (or its thread pool), before it does; threads that already exist
//    (other harness threads) are not counted.
//  - another process (pid set, an engine server): every thread listed in /proc/<pid>/task at
//    open(), each with inherit=1 so the threads they create later count too. A thread created
//    between the listing and the open of its creator's fd is missed (a narrow race at open).
//    Needs ptrace-read permission on the process (same user, or CAP_PERFMON/root).
// Each fd is read by itself (one read() syscall per fd, no group). perf_event_open(2) warns
// that "inherit does not work for some combinations of read_format values, such as
// PERF_FORMAT_GROUP"; Linux 6.18 accepts the combination, but older kernels are not relied on,
// and a group is scheduled all-or-nothing, so one unsupported event would silence the others.
// Inherit covers threads created after the open only, never ones that already exist. The cost is
// one syscall per fd per snapshot (about a microsecond each).
//
// Multiplexing: every fd reads PERF_FORMAT_TOTAL_TIME_ENABLED|RUNNING. An event opened once
// (software events; hardware events on a machine with at most one CPU PMU) that was on a counter
// for only part of the window is scaled: count × enabled / running, marked `scaled`. An event
// summed over several per-cluster CPU PMUs is NOT scaled: there, running < enabled also means
// "the thread ran on the other cluster", which is not missing data, so the raw sum is reported
// with each PMU's enabled/running times. Keep at most 6 hardware events (the programmable
// counters of Cortex-A55/A76) so that no cluster multiplexes.
//
// Unsupported events (a VM without a virtual PMU: ENOENT/EOPNOTSUPP; perf_event_paranoid too
// strict: EACCES) are marked "unavailable: <reason>" and the others still count.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "platform/perf/event_resolver.hpp"

namespace tokscope::platform::perf {

inline constexpr std::size_t kMaxCounterEvents = 16;
inline constexpr std::size_t kMaxCounterSlots = 64;  // event × CPU PMU pairs

// Privilege levels counted.
enum class CountDomain {
  kAuto,           // user + kernel; user only when perf_event_paranoid refuses kernel counting
  kUser,           // user mode only (works up to perf_event_paranoid 2 without privileges)
  kUserAndKernel,  // user + kernel, else the event is unavailable
};

struct CounterRequest {
  std::vector<std::string> events;  // at most kMaxCounterEvents names (see event_resolver.hpp)
  std::optional<int> pid;           // unset: own process (see above); set: that process
  CountDomain domain = CountDomain::kAuto;
  // PMU discovery (sys/bus/event_source/devices) and proc/sys/kernel/perf_event_paranoid are
  // read under root; the counters themselves are always the running kernel's.
  std::filesystem::path root = "/";
};

// Raw counter values at one instant. Fixed size: read() allocates nothing. Slots are event ×
// PMU pairs (CounterEventInfo::Part::slot); each slot is the sum over that pair's fds.
struct CounterSnapshot {
  struct Slot {
    std::uint64_t count = 0;
    std::uint64_t time_enabled_ns = 0;
    std::uint64_t time_running_ns = 0;
  };
  std::array<Slot, kMaxCounterSlots> slots{};
  std::uint64_t read_failed = 0;  // bit i set: a read() of slot i failed, its values are partial
};

// What was opened for one requested event.
struct CounterEventInfo {
  struct Part {
    std::string pmu;  // "" when one open covers the machine
    EventEncoding encoding;
    std::size_t slot = 0;
    bool kernel_counted = false;  // exclude_kernel was 0
    std::size_t fds = 0;          // threads it was opened on (1 for own process)
    std::string unavailable;      // "" or "unavailable: reason"
  };
  std::string name;
  std::string source;
  bool software = false;
  std::vector<Part> parts;
  std::string unavailable;  // "" or "unavailable: reason" (every part failed or unresolvable)
  std::string note;
};

// One event over one window (end snapshot - begin snapshot).
struct CounterValue {
  struct Part {
    std::string pmu;
    std::uint64_t count = 0;
    std::uint64_t time_enabled_ns = 0;
    std::uint64_t time_running_ns = 0;
  };
  std::string name;
  std::optional<double> value;        // the count (scaled when `scaled`); nullopt when unavailable
  bool scaled = false;                // value = count × enabled / running (multiplexed)
  std::uint64_t count = 0;            // raw count, summed over parts
  std::uint64_t time_enabled_ns = 0;  // summed over parts
  std::uint64_t time_running_ns = 0;  // summed over parts
  std::string unavailable;            // "" or "unavailable: reason"
  std::vector<Part> parts;            // one per PMU when summed over several
};

struct CounterWindow {
  std::vector<CounterValue> events;  // in request order
  // The value of the named event, nullopt when absent or unavailable.
  [[nodiscard]] std::optional<double> value(std::string_view name) const;
};

// Per-event counts between two snapshots (begin taken first) of the set events describes: the
// rules of CounterSet::window(), as a pure function for tests.
CounterWindow compute_window(const std::vector<CounterEventInfo>& events,
                             const CounterSnapshot& begin, const CounterSnapshot& end);

// The reason an open failed, from errno: names the errno, what it usually means and, for
// permission errors, the perf_event_paranoid value (nullopt: unreadable). Pure.
std::string open_failure_reason(int err, std::optional<int> paranoid, bool kernel_counted,
                                std::optional<int> pid);

// Thread-safety: open() and destruction on one thread. read() is const, allocates nothing and
// may be called from any thread, also concurrently (each call only read()s the fds).
class CounterSet {
 public:
  // Resolves and opens every event. kUsage for an unknown event name, more than
  // kMaxCounterEvents events, too many event × PMU pairs, or a pid that does not exist.
  // Events that cannot be counted here do not fail open(): they are marked unavailable.
  static Expected<CounterSet> open(const CounterRequest& request, EventResolver& resolver);
  static Expected<CounterSet> open(const CounterRequest& request);  // own EventResolver

  CounterSet(CounterSet&& other) noexcept;
  CounterSet& operator=(CounterSet&& other) noexcept;
  CounterSet(const CounterSet&) = delete;
  CounterSet& operator=(const CounterSet&) = delete;
  ~CounterSet();

  // Reads every fd (one read() syscall each). Never throws or allocates.
  [[nodiscard]] CounterSnapshot read() const noexcept;

  // Per-event counts between two snapshots of this set (begin taken first). Allocates.
  [[nodiscard]] CounterWindow window(const CounterSnapshot& begin,
                                     const CounterSnapshot& end) const;

  [[nodiscard]] const std::vector<CounterEventInfo>& events() const noexcept { return events_; }
  [[nodiscard]] std::optional<int> pid() const noexcept { return pid_; }
  [[nodiscard]] std::optional<int> perf_event_paranoid() const noexcept { return paranoid_; }
  [[nodiscard]] std::size_t threads_attached() const noexcept { return threads_; }
  [[nodiscard]] std::size_t open_fds() const noexcept { return fds_.size(); }
  [[nodiscard]] const std::vector<std::string>& notes() const noexcept { return notes_; }

 private:
  CounterSet() = default;
  void close_all() noexcept;

  std::vector<int> fds_;
  std::vector<std::size_t> fd_slot_;  // slot of each fd, parallel to fds_
  std::vector<CounterEventInfo> events_;
  std::optional<int> pid_;
  std::optional<int> paranoid_;
  std::size_t threads_ = 0;
  std::vector<std::string> notes_;
};

}  // namespace tokscope::platform::perf
