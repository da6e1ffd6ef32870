#include "platform/probe/pinned_threads.hpp"

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <latch>
#include <system_error>
#include <thread>

namespace tokscope::platform::probe {

std::string pin_current_thread(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) {
    return "cpu " + std::to_string(cpu) + ": outside the cpu set size";
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(static_cast<std::size_t>(cpu), &set);
  const int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  // error_code's message is thread-safe; strerror is not, and workers pin concurrently.
  if (rc != 0)
    return "cpu " + std::to_string(cpu) + ": " +
           std::error_code(rc, std::generic_category()).message();
  return {};
}

Expected<std::vector<std::string>> run_pinned(const std::vector<int>& cpus,
                                              const std::function<void(std::size_t)>& work) {
  std::vector<std::string> pin_results(cpus.size());  // slot i written by thread i only
  std::latch start(1);  // released once every thread exists, or to abort
  std::atomic<bool> abort{false};
  std::vector<std::thread> threads;
  threads.reserve(cpus.size());
  const auto join_all = [&threads] {
    for (auto& t : threads) t.join();
  };
  try {
    for (std::size_t i = 0; i < cpus.size(); ++i) {
      threads.emplace_back([&, i] {
        pin_results[i] = pin_current_thread(cpus[i]);
        start.wait();
        if (!abort.load(std::memory_order_acquire)) work(i);
      });
    }
  } catch (const std::system_error& e) {
    // Workers may wait on a barrier sized for every cpu, so none may start: abort them all.
    abort.store(true, std::memory_order_release);
    start.count_down();
    join_all();
    return make_error(ErrorKind::kInternal, "cannot start worker thread " +
                                                std::to_string(threads.size()) + " of " +
                                                std::to_string(cpus.size()) + ": " + e.what());
  }
  start.count_down();
  join_all();
  return pin_results;
}

std::vector<std::string> failures_only(const std::vector<std::string>& pin_results) {
  std::vector<std::string> out;
  for (const auto& r : pin_results) {
    if (!r.empty()) out.push_back(r);
  }
  return out;
}

}  // namespace tokscope::platform::probe
