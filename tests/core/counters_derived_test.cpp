#include "core/counters_derived.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace tokscope::core {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(CountersDerived, InstructionsPerCycle) {
  EXPECT_DOUBLE_EQ(*instructions_per_cycle(3e9, 1.5e9), 2.0);
  EXPECT_FALSE(instructions_per_cycle(std::nullopt, 1e9));
  EXPECT_FALSE(instructions_per_cycle(1e9, std::nullopt));
  EXPECT_FALSE(instructions_per_cycle(1e9, 0.0));
  EXPECT_FALSE(instructions_per_cycle(kNaN, 1e9));
  EXPECT_DOUBLE_EQ(*instructions_per_cycle(0.0, 1e9), 0.0);
}

TEST(CountersDerived, PerToken) {
  EXPECT_DOUBLE_EQ(*per_token(1000.0, 4), 250.0);
  EXPECT_FALSE(per_token(1000.0, 0));
  EXPECT_FALSE(per_token(std::nullopt, 4));
}

TEST(CountersDerived, DramBytesFromLineFills) {
  EXPECT_DOUBLE_EQ(*estimated_dram_bytes(1000.0), 64000.0);  // 64-byte lines by default
  EXPECT_DOUBLE_EQ(*estimated_dram_bytes(1000.0, 128.0), 128000.0);
  EXPECT_FALSE(estimated_dram_bytes(std::nullopt));
  EXPECT_FALSE(estimated_dram_bytes(1000.0, 0.0));
  EXPECT_FALSE(estimated_dram_bytes(1000.0, -64.0));
  EXPECT_FALSE(estimated_dram_bytes(1000.0, kNaN));
}

TEST(CountersDerived, BandwidthAndUtilization) {
  // 1.1 GB of weights read in 50 ms: 22 GB/s, 65% of RK3588's 33.8 GB/s.
  EXPECT_NEAR(*bandwidth_gbps(1.1e9, 0.05), 22.0, 1e-9);
  EXPECT_NEAR(*bandwidth_utilization(1.1e9, 0.05, 33.8), 22.0 / 33.8, 1e-12);
  EXPECT_FALSE(bandwidth_gbps(1e9, 0.0));
  EXPECT_FALSE(bandwidth_gbps(std::nullopt, 1.0));
  EXPECT_FALSE(bandwidth_utilization(1e9, 1.0, 0.0));
  EXPECT_FALSE(bandwidth_utilization(1e9, 0.0, 33.8));
}

TEST(CountersDerived, DecodeWindowOfOneRequest) {
  // 32 decode tokens in 1.6 s; 17.2M line fills of 64 B = 1.1 GB; 2.4e10 instructions over 1.6e10
  // cycles.
  CounterWindowCounts counts;
  counts.instructions = 2.4e10;
  counts.cycles = 1.6e10;
  counts.dram_line_fills = 17'187'500.0 * 32;
  counts.seconds = 1.6;
  counts.tokens = 32;
  counts.peak_gbps = 33.8;
  const CounterDerived d = derive_counter_metrics(counts);
  EXPECT_DOUBLE_EQ(d.line_bytes, 64.0);
  EXPECT_DOUBLE_EQ(*d.ipc, 1.5);
  EXPECT_DOUBLE_EQ(*d.instructions_per_token, 7.5e8);
  EXPECT_DOUBLE_EQ(*d.cycles_per_token, 5e8);
  EXPECT_DOUBLE_EQ(*d.dram_bytes, 1.1e9 * 32);
  EXPECT_DOUBLE_EQ(*d.dram_bytes_per_token, 1.1e9);
  EXPECT_NEAR(*d.dram_gbps, 22.0, 1e-9);
  EXPECT_NEAR(*d.bandwidth_utilization, 22.0 / 33.8, 1e-12);
}

TEST(CountersDerived, MissingCountersLeaveOnlyWhatCanBeComputed) {
  CounterWindowCounts counts;  // a VM: only software counters, no peak
  counts.seconds = 0.5;
  counts.tokens = 10;
  CounterDerived d = derive_counter_metrics(counts);
  EXPECT_FALSE(d.ipc);
  EXPECT_FALSE(d.instructions_per_token);
  EXPECT_FALSE(d.dram_bytes);
  EXPECT_FALSE(d.dram_gbps);
  EXPECT_FALSE(d.bandwidth_utilization);

  counts.dram_line_fills = 1000.0;  // fills but no peak: bandwidth yes, utilization no
  counts.line_bytes = 128.0;
  d = derive_counter_metrics(counts);
  EXPECT_DOUBLE_EQ(*d.dram_bytes_per_token, 12800.0);
  EXPECT_NEAR(*d.dram_gbps, 128000.0 / 0.5 / 1e9, 1e-18);
  EXPECT_FALSE(d.bandwidth_utilization);

  counts.tokens = 0;  // no tokens in the window (a request that failed before its first)
  d = derive_counter_metrics(counts);
  EXPECT_FALSE(d.dram_bytes_per_token);
  EXPECT_TRUE(d.dram_bytes);
}

}  // namespace
}  // namespace tokscope::core
