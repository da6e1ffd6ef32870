#include <gtest/gtest.h>

#include "platform/lock/freq_check.hpp"

namespace tokscope::platform::lock {
namespace {

const std::vector<std::uint64_t> kDmcHz = {528000000, 1068000000, 1560000000, 2112000000};
const std::vector<std::uint64_t> kA76Khz = {408000, 1800000, 2208000, 2352000};

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

TEST(LockFreqCheck, ParsesSysfsLists) {
  auto cpu = parse_frequency_list("408000 600000 1800000 \n");
  ASSERT_TRUE(cpu.ok()) << cpu.error().message;
  EXPECT_EQ(*cpu, (std::vector<std::uint64_t>{408000, 600000, 1800000}));
  auto dmc = parse_frequency_list("2112000000 528000000\t1560000000 1068000000 528000000");
  ASSERT_TRUE(dmc.ok());
  EXPECT_EQ(*dmc, kDmcHz);  // sorted, duplicates dropped
  EXPECT_TRUE(parse_frequency_list("").value().empty());
  EXPECT_TRUE(parse_frequency_list(" \n").value().empty());
}

TEST(LockFreqCheck, RejectsMalformedLists) {
  for (const char* bad : {"528000000 abc", "1.5e9", "-5", "100 200x"}) {
    auto r = parse_frequency_list(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().kind, ErrorKind::kInput);
  }
}

TEST(LockFreqCheck, FlagValuesAreWholePositiveNumbers) {
  EXPECT_EQ(*parse_frequency_flag("--ddr-freq", "2112000000", "Hz"), 2112000000U);
  for (const char* bad : {"", "0", "2.1G", "-1", "1e9", " 5", "99999999999999999999999"}) {
    auto r = parse_frequency_flag("--ddr-freq", bad, "Hz");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().kind, ErrorKind::kUsage);
    EXPECT_TRUE(has(r.error().message, "--ddr-freq")) << r.error().message;
    EXPECT_TRUE(has(r.error().message, "Hz")) << r.error().message;
  }
}

TEST(LockFreqCheck, CpuFlagOneValueOrPerPolicy) {
  auto all = parse_cpu_freq_flag("2352000");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->all_khz, 2352000U);
  EXPECT_TRUE(all->per_policy_khz.empty());

  auto per = parse_cpu_freq_flag("policy0=1800000,policy4=2352000,policy6=2352000");
  ASSERT_TRUE(per.ok()) << per.error().message;
  EXPECT_FALSE(per->all_khz.has_value());
  EXPECT_EQ(per->per_policy_khz.size(), 3U);
  EXPECT_EQ(per->per_policy_khz.at("policy0"), 1800000U);
  EXPECT_EQ(per->per_policy_khz.at("policy6"), 2352000U);

  for (const char* bad : {"policy=1", "cpu0=1800000", "policy0=", "policy0=1,policy0=2",
                          "policy0=1800000,", "policy0:1800000", "policyx=5"}) {
    auto r = parse_cpu_freq_flag(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().kind, ErrorKind::kUsage);
    EXPECT_TRUE(has(r.error().message, "--cpu-freq")) << r.error().message;
  }
}

TEST(LockFreqCheck, NearestIsOneBelowAndOneAbove) {
  EXPECT_EQ(nearest_frequencies(2000000000, kDmcHz),
            (std::vector<std::uint64_t>{1560000000, 2112000000}));
  EXPECT_EQ(nearest_frequencies(100, kDmcHz), (std::vector<std::uint64_t>{528000000}));
  EXPECT_EQ(nearest_frequencies(3000000000, kDmcHz), (std::vector<std::uint64_t>{2112000000}));
  EXPECT_TRUE(nearest_frequencies(5, {}).empty());
}

TEST(LockFreqCheck, ScaleSlips) {
  auto ten = detect_scale_slip(211200000, kDmcHz, "Hz");  // the seed's DDR value
  ASSERT_TRUE(ten.has_value());
  EXPECT_EQ(ten->suggestion, 2112000000U);
  EXPECT_EQ(ten->description, "ten times too low");

  auto khz = detect_scale_slip(2112000, kDmcHz, "Hz");
  ASSERT_TRUE(khz.has_value());
  EXPECT_EQ(khz->suggestion, 2112000000U);
  EXPECT_TRUE(has(khz->description, "a thousand times too low")) << khz->description;
  EXPECT_TRUE(has(khz->description, "kHz given")) << khz->description;

  auto mhz = detect_scale_slip(2112, kDmcHz, "Hz");
  ASSERT_TRUE(mhz.has_value());
  EXPECT_TRUE(has(mhz->description, "a million times too low (MHz")) << mhz->description;

  auto hz_for_khz = detect_scale_slip(2352000000, kA76Khz, "kHz");
  ASSERT_TRUE(hz_for_khz.has_value());
  EXPECT_EQ(hz_for_khz->suggestion, 2352000U);
  EXPECT_TRUE(has(hz_for_khz->description, "too high (Hz given")) << hz_for_khz->description;

  EXPECT_FALSE(detect_scale_slip(2000000000, kDmcHz, "Hz").has_value());
  EXPECT_FALSE(detect_scale_slip(0, kDmcHz, "Hz").has_value());
  // No overflow for absurd values.
  EXPECT_FALSE(detect_scale_slip(UINT64_MAX, kDmcHz, "Hz").has_value());
}

TEST(LockFreqCheck, ListedValueIsAccepted) {
  EXPECT_TRUE(check_frequency("--ddr-freq", "devfreq.dmc", 2112000000, kDmcHz, "Hz").ok());
  EXPECT_TRUE(check_frequency("--ddr-freq", "devfreq.dmc", 528000000, kDmcHz, "Hz").ok());
}

TEST(LockFreqCheck, TenTimesTooLowDdrIsRefusedWithTheValueMeant) {
  auto r = check_frequency("--ddr-freq", "devfreq.dmc", 211200000, kDmcHz, "Hz");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kUsage);
  const std::string& m = r.error().message;
  EXPECT_TRUE(has(m, "--ddr-freq 211200000")) << m;
  EXPECT_TRUE(has(m, "ten times too low")) << m;
  EXPECT_TRUE(has(m, "did you mean 2112000000?")) << m;
  EXPECT_TRUE(has(m, "available: 528000000 1068000000 1560000000 2112000000 Hz")) << m;
}

TEST(LockFreqCheck, UnlistedValueNamesTheNearestOnes) {
  auto r = check_frequency("--ddr-freq", "devfreq.dmc", 2000000000, kDmcHz, "Hz");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(has(r.error().message, "nearest valid: 1560000000 or 2112000000"))
      << r.error().message;
  auto top = check_frequency("--cpu-freq", "cpufreq.policy4", 2400000, kA76Khz, "kHz");
  ASSERT_FALSE(top.ok());
  EXPECT_TRUE(has(top.error().message, "nearest valid: 2352000 (")) << top.error().message;
}

}  // namespace
}  // namespace tokscope::platform::lock
