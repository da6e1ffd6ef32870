// Device profile parsing: the shipped file, and errors that name the origin and the field.
#include "model/device_profile.hpp"

#include <gtest/gtest.h>

#include <string>

namespace tokscope::model {
namespace {

// A minimal valid document; tests break one field at a time.
std::string valid_doc(const std::string& bandwidth = "33.8", const std::string& quant = "w8a8",
                      const std::string& efficiency = "0.9") {
  return R"({"schema": "tokscope.device_profiles/1", "devices": [{
    "name": "test-npu", "unit": "npu", "description": "d",
    "memory_bandwidth_gbps": {"value": )" +
         bandwidth + R"(, "source": "s", "uncertain": false},
    "peak_tops": {"value": 6, "source": "s", "uncertain": true},
    "supported_quants": [{"name": ")" +
         quant + R"("}],
    "unsupported_quant_reason": "only w8a8",
    "model": {"fitted_to": "nothing",
      "bandwidth_efficiency": {"value": )" +
         efficiency + R"(, "source": "s", "uncertain": true},
      "decode_layer_overhead_ms": {"value": 0.1, "source": "s", "uncertain": true},
      "decode_fixed_ms": {"value": 0, "source": "s", "uncertain": true},
      "compute_efficiency": {"value": 0.2, "source": "s", "uncertain": true},
      "prefill_layer_overhead_ms": {"value": 1, "source": "s", "uncertain": true},
      "prefill_fixed_ms": {"value": 0, "source": "s", "uncertain": true}}}]})";
}

std::string error_of(const std::string& doc) {
  const auto parsed = parse_device_profiles(doc, "my.json");
  EXPECT_FALSE(parsed.ok());
  return parsed.ok() ? std::string() : parsed.error().message;
}

TEST(DeviceProfile, ParsesAValidDocument) {
  const auto parsed = parse_device_profiles(valid_doc(), "my.json");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  ASSERT_EQ(parsed->size(), 1u);
  const DeviceProfile& d = parsed->front();
  EXPECT_EQ(d.name, "test-npu");
  EXPECT_DOUBLE_EQ(d.memory_bandwidth_gbps.value, 33.8);
  EXPECT_TRUE(d.peak_tops.uncertain);
  ASSERT_NE(d.find_support("W8A8"), nullptr);
  EXPECT_DOUBLE_EQ(d.find_support("w8a8")->decode_time_scale.value, 1.0);  // absent = 1
  EXPECT_EQ(d.find_support("w8a16"), nullptr);
}

TEST(DeviceProfile, ErrorsNameTheOriginAndTheField) {
  std::string e = error_of(valid_doc("-1"));
  EXPECT_NE(e.find("my.json"), std::string::npos) << e;
  EXPECT_NE(e.find("devices[0].memory_bandwidth_gbps.value"), std::string::npos) << e;

  e = error_of(valid_doc("\"fast\""));
  EXPECT_NE(e.find("devices[0].memory_bandwidth_gbps.value: expected a number"), std::string::npos)
      << e;

  e = error_of(valid_doc("33.8", "w3a3"));
  EXPECT_NE(e.find("devices[0].supported_quants[0].name"), std::string::npos) << e;
  EXPECT_NE(e.find("w3a3"), std::string::npos) << e;

  e = error_of(valid_doc("33.8", "w8a8", "1.5"));
  EXPECT_NE(e.find("devices[0].model.bandwidth_efficiency.value: expected a number in (0, 1]"),
            std::string::npos)
      << e;
}

TEST(DeviceProfile, MissingFieldsAndBadDocuments) {
  std::string doc = valid_doc();
  doc.replace(doc.find("\"peak_tops\""), std::string("\"peak_tops\"").size(), "\"peak_gops\"");
  std::string e = error_of(doc);
  EXPECT_NE(e.find("devices[0]: missing field \"peak_tops\""), std::string::npos) << e;

  e = error_of(R"({"schema": "tokscope.device_profiles/1"})");
  EXPECT_EQ(e, "my.json: missing field \"devices\"");

  e = error_of("{not json");
  EXPECT_NE(e.find("my.json: invalid JSON"), std::string::npos) << e;

  e = error_of(R"({"schema": "tokscope.device_profiles/2", "devices": []})");
  EXPECT_NE(e.find("schema: expected \"tokscope.device_profiles/1\""), std::string::npos) << e;

  const auto parsed = parse_device_profiles("{not json", "x");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().kind, ErrorKind::kInput);
}

TEST(DeviceProfile, DuplicateDeviceNamesAreRejected) {
  std::string doc = valid_doc();
  const auto start = doc.find("{\n    \"name\"");
  const auto end = doc.rfind("]}");
  ASSERT_NE(start, std::string::npos);
  const std::string device = doc.substr(start, end - start);
  doc.insert(end, ", " + device);
  const std::string e = error_of(doc);
  EXPECT_NE(e.find("devices[1].name: duplicate device name \"test-npu\""), std::string::npos) << e;
}

TEST(DeviceProfile, BuiltinProfilesParseAndCarrySources) {
  const auto& builtin = builtin_device_profiles();
  ASSERT_TRUE(builtin.ok()) << builtin.error().message;
  for (const char* name : {"rk3588-npu", "rk3588-cpu", "ax650n"}) {
    const DeviceProfile* d = find_device(*builtin, name);
    ASSERT_NE(d, nullptr) << name;
    EXPECT_FALSE(d->memory_bandwidth_gbps.source.empty());
    EXPECT_FALSE(d->factors.fitted_to.empty());
    EXPECT_FALSE(d->unsupported_quant_reason.empty());
  }
  EXPECT_DOUBLE_EQ(find_device(*builtin, "RK3588-NPU")->memory_bandwidth_gbps.value, 33.8);
  EXPECT_TRUE(find_device(*builtin, "ax650n")->memory_bandwidth_gbps.uncertain);
  EXPECT_NE(find_device(*builtin, "rk3588-cpu")->factors.fitted_to.find("uncalibrated guess"),
            std::string::npos);
}

TEST(DeviceProfile, UnknownBuiltinDeviceIsAUsageErrorListingTheKnownOnes) {
  const auto d = builtin_device("rk3566");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().kind, ErrorKind::kUsage);
  EXPECT_NE(d.error().message.find("rk3588-npu"), std::string::npos) << d.error().message;
  EXPECT_TRUE(builtin_device("ax650n").ok());
}

}  // namespace
}  // namespace tokscope::model
