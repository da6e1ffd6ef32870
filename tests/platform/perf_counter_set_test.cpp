#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <ctime>
#include <fstream>
#include <thread>

#include "common/test_dir.hpp"
#include "platform/perf/counter_json.hpp"
#include "platform/perf/counter_set.hpp"

namespace tokscope::platform::perf {
namespace {

namespace fs = std::filesystem;

fs::path fixture(const std::string& name) {
  return fs::path(TOKSCOPE_TEST_DATA_DIR).parent_path() / "fixtures" / "sysfs" / name;
}

// Software events must count on every Linux this runs on (root, or perf_event_paranoid <= 2):
// a refusal fails the test with the reason, never a silent skip.
::testing::AssertionResult software_counted(const CounterSet& set) {
  for (const auto& e : set.events()) {
    if (e.software && !e.unavailable.empty()) {
      return ::testing::AssertionFailure()
             << "perf_event_open refused software event " << e.name << ": " << e.unavailable;
    }
  }
  return ::testing::AssertionSuccess();
}

const CounterValue* find(const CounterWindow& window, const std::string& name) {
  for (const auto& e : window.events) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

// A request for the own process, default domain and root.
CounterRequest own(std::vector<std::string> events) {
  CounterRequest request;
  request.events = std::move(events);
  return request;
}

CounterRequest with_pid(std::vector<std::string> events, int pid) {
  CounterRequest request = own(std::move(events));
  request.pid = pid;
  return request;
}

CounterRequest with_root(std::vector<std::string> events, CountDomain domain, fs::path root) {
  CounterRequest request = own(std::move(events));
  request.domain = domain;
  request.root = std::move(root);
  return request;
}

// Spins until this thread has used `duration` of CPU time (not wall time: on a loaded machine a
// spinning thread gets only part of a cpu, and task-clock counts CPU time).
void spin_for(std::chrono::milliseconds duration) {
  const auto cpu_ns = [] {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
  };
  const std::int64_t until = cpu_ns() + std::chrono::nanoseconds(duration).count();
  volatile std::uint64_t sink = 0;
  while (cpu_ns() < until) sink = sink + 1;
}

constexpr double kNsPerMs = 1e6;

TEST(PerfCounterSet, PageFaultsWhileTouching64MiB) {
  auto set_opened = CounterSet::open(own({"page-faults", "task-clock"}));
  ASSERT_TRUE(set_opened.ok()) << set_opened.error().message;
  CounterSet& set = *set_opened;
  ASSERT_TRUE(software_counted(set));
  constexpr std::size_t kBytes = std::size_t{64} << 20;
  constexpr std::size_t kPage = 4096;
  void* memory =
      ::mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(memory, MAP_FAILED);
  ::madvise(memory, kBytes, MADV_NOHUGEPAGE);  // one fault per 4 KiB page, not per 2 MiB
  const CounterSnapshot begin = set.read();
  auto* bytes = static_cast<volatile char*>(memory);
  for (std::size_t i = 0; i < kBytes; i += kPage) bytes[i] = 1;
  const CounterSnapshot end = set.read();
  ::munmap(memory, kBytes);

  const CounterWindow window = set.window(begin, end);
  ASSERT_NE(find(window, "page-faults"), nullptr);
  const CounterValue& faults = *find(window, "page-faults");
  ASSERT_TRUE(faults.value) << faults.unavailable;
  constexpr std::size_t kHalfThePages = kBytes / kPage / 2;
  EXPECT_GE(*faults.value, static_cast<double>(kHalfThePages));
  EXPECT_FALSE(faults.scaled);
  EXPECT_EQ(faults.time_enabled_ns, faults.time_running_ns);
  EXPECT_EQ(window.value("page-faults"), faults.value);
  ASSERT_TRUE(window.value("task-clock"));
  EXPECT_GT(*window.value("task-clock"), 0);
}

TEST(PerfCounterSet, InheritCountsThreadsStartedAfterOpen) {
  auto set_opened = CounterSet::open(own({"task-clock"}));
  ASSERT_TRUE(set_opened.ok()) << set_opened.error().message;
  CounterSet& set = *set_opened;
  ASSERT_TRUE(software_counted(set));
  const CounterSnapshot begin = set.read();
  std::thread worker([] { spin_for(std::chrono::milliseconds(50)); });
  worker.join();  // the opening thread sleeps in join: the time is the worker's
  const CounterSnapshot end = set.read();
  const auto task_clock_ns = set.window(begin, end).value("task-clock");
  ASSERT_TRUE(task_clock_ns);
  EXPECT_GE(*task_clock_ns, 40 * kNsPerMs) << "a thread created after open() was not counted";
}

TEST(PerfCounterSet, ThreadsThatExistedBeforeOpenAreNotCounted) {
  std::atomic<bool> go{false};
  std::thread early([&go] {
    while (!go.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    spin_for(std::chrono::milliseconds(50));
  });
  auto set_opened = CounterSet::open(own({"task-clock"}));
  ASSERT_TRUE(set_opened.ok()) << set_opened.error().message;
  CounterSet& set = *set_opened;
  ASSERT_TRUE(software_counted(set));
  const CounterSnapshot begin = set.read();
  go = true;
  early.join();
  const CounterSnapshot end = set.read();
  const auto task_clock_ns = set.window(begin, end).value("task-clock");
  ASSERT_TRUE(task_clock_ns);
  EXPECT_LT(*task_clock_ns, 25 * kNsPerMs) << "inherit does not reach threads created earlier";
}

TEST(PerfCounterSet, ContextSwitchesOfASleepingThread) {
  auto set_opened = CounterSet::open(own({"context-switches"}));
  ASSERT_TRUE(set_opened.ok()) << set_opened.error().message;
  CounterSet& set = *set_opened;
  ASSERT_TRUE(software_counted(set));
  const auto& info = set.events().front();
  ASSERT_EQ(info.parts.size(), 1U);
  const CounterSnapshot begin = set.read();
  std::thread sleeper([] {
    for (int i = 0; i < 20; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  sleeper.join();
  const CounterSnapshot end = set.read();
  const auto switches = set.window(begin, end).value("context-switches");
  ASSERT_TRUE(switches);
  if (info.parts.front().kernel_counted) {
    EXPECT_GE(*switches, 20);
  } else {
    EXPECT_NE(info.note.find("expect 0"), std::string::npos) << info.note;
  }
}

TEST(PerfCounterSet, UserOnlyDomainStillCountsPageFaults) {
  auto set_opened =
      CounterSet::open(with_root({"page-faults", "context-switches"}, CountDomain::kUser, "/"));
  ASSERT_TRUE(set_opened.ok()) << set_opened.error().message;
  CounterSet& set = *set_opened;
  ASSERT_TRUE(software_counted(set));
  EXPECT_FALSE(set.events()[0].parts[0].kernel_counted);
  EXPECT_NE(set.events()[1].note.find("user mode only"), std::string::npos);
  const CounterSnapshot begin = set.read();
  std::vector<char> touched(std::size_t{8} << 20);
  for (std::size_t i = 0; i < touched.size(); i += 4096) touched[i] = 1;
  const CounterSnapshot end = set.read();
  const auto faults = set.window(begin, end).value("page-faults");
  ASSERT_TRUE(faults);
  EXPECT_GT(*faults, 0);
}

TEST(PerfCounterSet, HardwareEventsAreCountedOrUnavailableWithAReason) {
  // This VM has no PMU: instructions/cycles fail with ENOENT; on a PC or a board they count.
  auto set_opened = CounterSet::open(own({"instructions", "cycles", "task-clock"}));
  ASSERT_TRUE(set_opened.ok()) << set_opened.error().message;
  CounterSet& set = *set_opened;
  ASSERT_TRUE(software_counted(set));
  const CounterSnapshot begin = set.read();
  spin_for(std::chrono::milliseconds(10));
  const CounterSnapshot end = set.read();
  const CounterWindow window = set.window(begin, end);
  for (const char* name : {"instructions", "cycles"}) {
    ASSERT_NE(find(window, name), nullptr) << name;
    const CounterValue& v = *find(window, name);
    if (v.value) {
      EXPECT_GT(*v.value, 0) << name;
    } else {
      EXPECT_EQ(v.unavailable.rfind("unavailable: ", 0), 0U) << v.unavailable;
      EXPECT_NE(v.unavailable.find('('), std::string::npos) << "no errno in " << v.unavailable;
    }
  }
  ASSERT_TRUE(window.value("task-clock"));
  EXPECT_GE(*window.value("task-clock"), 5 * kNsPerMs);
}

TEST(PerfCounterSet, CountsAnotherProcessAndTheThreadsItStartsLater) {
  int go[2];
  ASSERT_EQ(::pipe(go), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(go[1]);
    char byte = 0;
    if (::read(go[0], &byte, 1) != 1) ::_exit(2);
    std::thread worker([] { spin_for(std::chrono::milliseconds(50)); });
    worker.join();
    ::_exit(0);
  }
  ::close(go[0]);
  auto set = CounterSet::open(with_pid({"task-clock", "page-faults"}, child));
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_EQ(set->pid(), child);
  EXPECT_GE(set->threads_attached(), 1U);  // 2 under TSan: its runtime thread survives fork
  EXPECT_TRUE(set->events()[0].unavailable.empty()) << set->events()[0].unavailable;
  const CounterSnapshot begin = set->read();
  ASSERT_EQ(::write(go[1], "x", 1), 1);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const CounterSnapshot end = set->read();  // an exited task keeps its final counts
  ::close(go[1]);
  const auto task_clock_ns = set->window(begin, end).value("task-clock");
  ASSERT_TRUE(task_clock_ns);
  EXPECT_GE(*task_clock_ns, 40 * kNsPerMs);
}

TEST(PerfCounterSet, RequestErrors) {
  auto unknown = CounterSet::open(own({"task-clock", "instructionz"}));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().kind, ErrorKind::kUsage);
  EXPECT_NE(unknown.error().message.find("instructionz"), std::string::npos);

  auto twice = CounterSet::open(own({"task-clock", "task-clock"}));
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().message.find("twice"), std::string::npos);

  std::vector<std::string> many;
  for (std::size_t i = 0; i <= kMaxCounterEvents; ++i) many.push_back("r" + std::to_string(i + 1));
  auto too_many = CounterSet::open(own(many));
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.error().message.find("at most 16"), std::string::npos);

  auto no_process = CounterSet::open(with_pid({"task-clock"}, 999999999));
  ASSERT_FALSE(no_process.ok());
  EXPECT_EQ(no_process.error().kind, ErrorKind::kUsage);
  EXPECT_NE(no_process.error().message.find("999999999"), std::string::npos);

  EXPECT_FALSE(CounterSet::open(with_pid({"task-clock"}, 0)).ok());
}

TEST(PerfCounterSet, TooManyEventClusterPairs) {
  // 16 events × 2 cluster PMUs = 32 pairs fit; the fixture's PMUs are not opened for real here,
  // so each is unavailable, but resolution and limits are exercised.
  std::vector<std::string> events;
  for (int i = 1; i <= 16; ++i) events.push_back("r" + std::to_string(i));
  const CounterRequest request = with_root(events, CountDomain::kUser, fixture("rk3588"));
  auto set = CounterSet::open(request);
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_EQ(set->events().size(), 16U);
  EXPECT_EQ(set->events()[0].parts.size(), 2U);
  EXPECT_EQ(set->events()[15].parts[1].slot, 31U);
}

TEST(PerfCounterSet, TooManyPmusForTheSlots) {
  const auto dir = tokscope::testing::fresh_test_dir();
  for (int i = 0; i < 5; ++i) {  // 16 events × 5 cluster PMUs = 80 pairs > 64
    const fs::path pmu = dir / "sys/bus/event_source/devices" / ("cluster" + std::to_string(i));
    fs::create_directories(pmu);
    std::ofstream(pmu / "type") << 100 + i << "\n";
    std::ofstream(pmu / "cpus") << i << "\n";
  }
  std::vector<std::string> events;
  for (int i = 1; i <= 16; ++i) events.push_back("r" + std::to_string(i));
  auto set = CounterSet::open(with_root(events, CountDomain::kUser, dir));
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.error().kind, ErrorKind::kUsage);
  EXPECT_NE(set.error().message.find("80 event × PMU pairs"), std::string::npos)
      << set.error().message;
  fs::remove_all(dir);
}

TEST(PerfCounterSet, MovedFromSetOwnsNothing) {
  auto a_opened = CounterSet::open(own({"task-clock"}));
  ASSERT_TRUE(a_opened.ok()) << a_opened.error().message;
  CounterSet& a = *a_opened;
  ASSERT_TRUE(software_counted(a));
  EXPECT_EQ(a.open_fds(), 1U);
  CounterSet b = std::move(a);  // NOLINT(performance-move-const-arg)
  EXPECT_EQ(b.open_fds(), 1U);
  EXPECT_EQ(a.open_fds(), 0U);  // NOLINT(bugprone-use-after-move): checking the moved-from state
  const CounterSnapshot s = b.read();
  EXPECT_EQ(s.read_failed, 0U);
}

TEST(PerfCounterSet, EmptyRequestReadsNothing) {
  auto set = CounterSet::open(own({}));
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(set->open_fds(), 0U);
  EXPECT_TRUE(set->window(set->read(), set->read()).events.empty());
}

// compute_window rules on fabricated snapshots.
CounterEventInfo info_with_parts(const std::string& name, const std::vector<bool>& per_cluster) {
  CounterEventInfo info;
  info.name = name;
  std::size_t slot = 0;
  for (const bool cluster : per_cluster) {
    CounterEventInfo::Part part;
    part.pmu = cluster ? "pmu" + std::to_string(slot) : "";
    part.encoding.per_cluster = cluster;
    part.slot = slot++;
    info.parts.push_back(part);
  }
  return info;
}

TEST(PerfComputeWindow, ScalesAMultiplexedSingleOpen) {
  const std::vector<CounterEventInfo> events{info_with_parts("cycles", {false})};
  CounterSnapshot a;
  CounterSnapshot b;
  a.slots[0] = {100, 1000, 500};
  b.slots[0] = {300, 3000, 1500};  // +200 counted over 1000 of 2000 ns
  const CounterWindow w = compute_window(events, a, b);
  ASSERT_EQ(w.events.size(), 1U);
  EXPECT_EQ(w.events[0].count, 200U);
  EXPECT_EQ(w.events[0].time_enabled_ns, 2000U);
  EXPECT_EQ(w.events[0].time_running_ns, 1000U);
  EXPECT_TRUE(w.events[0].scaled);
  EXPECT_DOUBLE_EQ(*w.events[0].value, 400.0);
}

TEST(PerfComputeWindow, SumsClustersWithoutScaling) {
  const std::vector<CounterEventInfo> events{info_with_parts("instructions", {true, true})};
  CounterSnapshot a;
  CounterSnapshot b;
  b.slots[0] = {1000, 10000, 2500};  // little cluster: ran a quarter of the time
  b.slots[1] = {9000, 10000, 7500};  // big cluster
  const CounterWindow w = compute_window(events, a, b);
  EXPECT_FALSE(w.events[0].scaled);
  EXPECT_DOUBLE_EQ(*w.events[0].value, 10000.0);
  ASSERT_EQ(w.events[0].parts.size(), 2U);
  EXPECT_EQ(w.events[0].parts[1].pmu, "pmu1");
  EXPECT_EQ(w.events[0].parts[1].count, 9000U);
  EXPECT_EQ(w.events[0].parts[0].time_running_ns, 2500U);
}

TEST(PerfComputeWindow, NeverScheduledReadFailedAndUnavailable) {
  std::vector<CounterEventInfo> events{info_with_parts("a", {false}), info_with_parts("b", {false}),
                                       info_with_parts("c", {false}),
                                       info_with_parts("idle", {false})};
  events[1].parts[0].slot = 1;
  events[2].parts[0].slot = 2;
  events[2].unavailable = "unavailable: the kernel has no such event on this machine (ENOENT)";
  events[3].parts[0].slot = 3;
  CounterSnapshot a;
  CounterSnapshot b;
  b.slots[0] = {0, 5000, 0};
  b.slots[1] = {10, 10, 10};
  b.read_failed = 1U << 1U;
  const CounterWindow w = compute_window(events, a, b);
  EXPECT_FALSE(w.events[0].value);
  EXPECT_NE(w.events[0].unavailable.find("never on a hardware counter"), std::string::npos);
  EXPECT_FALSE(w.events[1].value);
  EXPECT_NE(w.events[1].unavailable.find("read() of a counter failed"), std::string::npos);
  EXPECT_FALSE(w.events[2].value);
  EXPECT_EQ(w.events[2].unavailable, events[2].unavailable);
  ASSERT_TRUE(w.events[3].value);  // the task never ran: 0, not unavailable
  EXPECT_EQ(*w.events[3].value, 0);
  EXPECT_FALSE(w.value("c"));
  EXPECT_FALSE(w.value("no such event"));
}

TEST(PerfOpenFailureReason, NamesErrnoAndParanoid) {
  const std::string denied = open_failure_reason(EACCES, 3, false, std::nullopt);
  EXPECT_EQ(denied.rfind("unavailable: permission denied (EACCES)", 0), 0U) << denied;
  EXPECT_NE(denied.find("perf_event_paranoid is 3"), std::string::npos);
  EXPECT_NE(denied.find("2 or below"), std::string::npos);
  const std::string kernel = open_failure_reason(EPERM, 2, true, 1234);
  EXPECT_NE(kernel.find("1 or below"), std::string::npos);
  EXPECT_NE(kernel.find("ptrace permission on process 1234"), std::string::npos);
  EXPECT_NE(open_failure_reason(EACCES, std::nullopt, false, std::nullopt).find("unreadable"),
            std::string::npos);
  EXPECT_NE(open_failure_reason(ENOENT, 2, false, std::nullopt).find("ENOENT"), std::string::npos);
  EXPECT_NE(open_failure_reason(EOPNOTSUPP, 2, false, std::nullopt).find("EOPNOTSUPP"),
            std::string::npos);
  EXPECT_NE(open_failure_reason(EINVAL, 2, false, std::nullopt).find("bits 32-63"),
            std::string::npos);
  EXPECT_NE(open_failure_reason(EIO, 2, false, std::nullopt).find("errno"), std::string::npos);
}

TEST(PerfCounterJson, SetAndWindow) {
  auto set_opened = CounterSet::open(own({"task-clock", "l2d_cache_refill"}));
  ASSERT_TRUE(set_opened.ok()) << set_opened.error().message;
  CounterSet& set = *set_opened;
  ASSERT_TRUE(software_counted(set));
  const nlohmann::json described = to_json(set);
  EXPECT_EQ(described["events"].size(), 2U);
  EXPECT_EQ(described["events"][0]["name"], "task-clock");
  EXPECT_EQ(described["events"][0]["parts"][0]["config"], "0x1");
  EXPECT_EQ(described["events"][0]["parts"][0]["fds"], 1);
  EXPECT_TRUE(described.contains("perf_event_paranoid"));
  EXPECT_EQ(described["threads_attached"], 1);

  const CounterSnapshot begin = set.read();
  spin_for(std::chrono::milliseconds(2));
  const nlohmann::json window = to_json(set.window(begin, set.read()));
  EXPECT_GT(window["task-clock"]["value"].get<double>(), 0);
  EXPECT_FALSE(window["task-clock"].contains("unavailable"));
  EXPECT_FALSE(window["task-clock"].contains("parts"));
  if (set.events()[1].unavailable.empty()) {
    EXPECT_TRUE(window["l2d_cache_refill"]["value"].is_number());
  } else {  // not an ARM board
    EXPECT_TRUE(window["l2d_cache_refill"]["value"].is_null());
    EXPECT_EQ(window["l2d_cache_refill"]["unavailable"], set.events()[1].unavailable);
  }
}

TEST(PerfCounterJson, DerivedFiguresNullWhenMissing) {
  core::CounterWindowCounts counts;
  counts.instructions = 3e9;
  counts.cycles = 2e9;
  counts.seconds = 1.0;
  counts.tokens = 10;
  const nlohmann::json j = to_json(core::derive_counter_metrics(counts));
  EXPECT_DOUBLE_EQ(j["ipc"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(j["instructions_per_token"].get<double>(), 3e8);
  EXPECT_TRUE(j["dram_bytes_per_token_estimate"].is_null());
  EXPECT_TRUE(j["bandwidth_utilization"].is_null());
  EXPECT_EQ(j["dram_line_bytes"], 64.0);
}

}  // namespace
}  // namespace tokscope::platform::perf
