#include "platform/probe/probe_cache.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "common/test_dir.hpp"
#include "platform/probe/probe.hpp"

namespace tokscope::platform::probe {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A real, non-quick probe document, kept small: 64 KiB arrays, no compute.
json probe_document() {
  ProbeOptions o;
  o.root = fs::path(TOKSCOPE_TEST_DATA_DIR).parent_path() / "fixtures" / "sysfs" / "rk3588";
  o.array_bytes = 64 * 1024;
  o.repetitions = 1;
  o.compute = false;
  o.per_core_type = false;
  auto r = run_probe(o);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? *r : json();
}

TEST(ProbeIdentity, HashIsStableAndDistinguishes) {
  const ProbeIdentity id{"6.1.0-rk3588", "4x Cortex-A55 + 4x Cortex-A76", 8};
  EXPECT_EQ(identity_hash(id), "682d92ec98a39418");  // FNV-1a 64, fixed forever
  ProbeIdentity other = id;
  other.logical_cpus = 7;
  EXPECT_NE(identity_hash(other), identity_hash(id));
  EXPECT_EQ(identity_from_json(to_json(id)), id);
  EXPECT_FALSE(identity_from_json(json{{"cpu", "x"}}));
  EXPECT_FALSE(identity_from_json(json::array()));
}

TEST(ProbeCache, DirectoryFromEnvironment) {
  EXPECT_EQ(cache_dir_from("/xdg", "/home/u"), fs::path("/xdg/tokscope"));
  EXPECT_EQ(cache_dir_from("", "/home/u"), fs::path("/home/u/.cache/tokscope"));
  EXPECT_EQ(cache_dir_from(nullptr, "/home/u"), fs::path("/home/u/.cache/tokscope"));
  EXPECT_FALSE(cache_dir_from(nullptr, ""));
  const ProbeIdentity id{"k", "c", 2};
  EXPECT_EQ(cache_file("/d", id), fs::path("/d/probe-" + identity_hash(id) + ".json"));
}

TEST(ProbeCache, RoundTripAndInvalidation) {
  const fs::path dir = testing::fresh_test_dir() / "cache";
  const json doc = probe_document();
  ASSERT_EQ(doc["quick"], false);
  const auto id = identity_from_json(doc["identity"]);
  ASSERT_TRUE(id);
  EXPECT_FALSE(load_cached_probe(*id, dir));  // nothing stored yet

  auto stored = store_cached_probe(doc, dir);
  ASSERT_TRUE(stored.ok()) << stored.error().message;
  EXPECT_EQ(*stored, cache_file(dir, *id));
  auto loaded = load_cached_probe(*id, dir);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(*loaded, doc);

  ProbeIdentity changed = *id;
  changed.kernel_release += "-new";
  EXPECT_FALSE(load_cached_probe(changed, dir));
  changed = *id;
  changed.logical_cpus += 1;
  EXPECT_FALSE(load_cached_probe(changed, dir));
  changed = *id;
  changed.cpu = "another board";
  EXPECT_FALSE(load_cached_probe(changed, dir));
}

TEST(ProbeCache, RejectsQuickCorruptAndForeignFiles) {
  const fs::path dir = testing::fresh_test_dir();
  json doc = probe_document();
  const ProbeIdentity id = *identity_from_json(doc["identity"]);

  doc["quick"] = true;
  auto quick = store_cached_probe(doc, dir);
  ASSERT_FALSE(quick.ok());
  EXPECT_EQ(quick.error().kind, ErrorKind::kUsage);
  EXPECT_FALSE(fs::exists(cache_file(dir, id)));

  std::ofstream(cache_file(dir, id)) << "{ not json";
  EXPECT_FALSE(load_cached_probe(id, dir));

  doc["quick"] = false;
  doc["schema"] = "tokscope.probe/0";
  std::ofstream(cache_file(dir, id), std::ios::trunc) << doc.dump();
  EXPECT_FALSE(load_cached_probe(id, dir));

  // A file at this identity's path whose document names another identity is not trusted.
  doc["schema"] = kProbeSchema;
  doc["identity"]["kernel_release"] = "other";
  std::ofstream(cache_file(dir, id), std::ios::trunc) << doc.dump();
  EXPECT_FALSE(load_cached_probe(id, dir));
}

}  // namespace
}  // namespace tokscope::platform::probe
