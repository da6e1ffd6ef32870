// Acceptance: the per-token path allocates nothing. A counting replacement of the global
// operator new counts allocations made by this thread while `counting` is on.
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>

#include "run/recorder.hpp"

namespace {
thread_local bool counting = false;
thread_local std::size_t allocations = 0;
}  // namespace

// GCC 12 at -O2 (the TSan build) inlines these into library code that allocated with operator
// new and then reports "free called on a pointer from operator new": a false positive, since this
// replacement operator new is malloc. The warning is off for these definitions only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t size) {
  if (counting) ++allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t /*size*/) noexcept {
  std::free(p);
}
#pragma GCC diagnostic pop

namespace tokscope::run {
namespace {

TEST(RecorderAllocation, CountingAllocatorSeesAnAllocation) {
  // Proves the counter works, so the zero below means something.
  counting = true;
  allocations = 0;
  int* p = new int(7);
  int* volatile escaped = p;  // a pointer that escapes: the allocation cannot be elided
  counting = false;
  delete escaped;
  EXPECT_EQ(allocations, 1U);
}

TEST(RecorderAllocation, PerTokenPathAllocatesNothing) {
  platform::MonotonicClock clock;
  std::atomic<bool> interrupted{false};
  Recorder rec(clock, interrupted, 1024);
  rec.reset(1024, clock.now_ns() + 1'000'000'000);
  counting = true;
  allocations = 0;
  rec.mark_request();
  rec.mark_ids_in_hand();
  rec.on_submit();
  for (int i = 0; i < 1000; ++i) {
    rec.on_tokens(1);
    (void)rec.should_stop();
  }
  for (int i = 0; i < 100; ++i) rec.on_tokens(2);  // overflow path too
  rec.on_done();
  rec.on_error(ErrorKind::kEngine, "an error message that fits the reserved buffer");
  rec.reset(1024, 0);  // reuse for the next request: capacity suffices
  counting = false;
  EXPECT_EQ(allocations, 0U);
  EXPECT_EQ(rec.chunk_count(), 0U);
}

TEST(RecorderAllocation, CounterReadsOnTheTokenPathAllocateNothing) {
  // Counters read at submit, first token and done (software events count on every Linux).
  auto set = platform::perf::CounterSet::open(
      platform::perf::CounterRequest{{"task-clock", "context-switches"}, {}, {}, "/"});
  ASSERT_TRUE(set.ok()) << set.error().message;
  platform::MonotonicClock clock;
  std::atomic<bool> interrupted{false};
  Recorder rec(clock, interrupted, 1024);
  rec.set_counters(&*set);
  rec.reset(1024, 0);
  counting = true;
  allocations = 0;
  rec.mark_request();
  rec.mark_ids_in_hand();
  rec.on_submit();
  for (int i = 0; i < 1000; ++i) rec.on_tokens(1);
  rec.on_done();
  rec.reset(1024, 0);
  rec.on_submit();
  rec.on_tokens(1);
  rec.on_done();
  counting = false;
  EXPECT_EQ(allocations, 0U);
  EXPECT_NE(rec.counters_at_first_token(), nullptr);
}

}  // namespace
}  // namespace tokscope::run
