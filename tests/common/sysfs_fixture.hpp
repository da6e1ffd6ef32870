// Fixture trees of tests/fixtures/sysfs/<machine>/ and writable copies of them for tests that
// break or change a file.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/test_dir.hpp"

namespace tokscope::testing {

// The read-only fixture tree of a machine ("rk3588", "x86-laptop").
inline std::filesystem::path sysfs_fixture(const std::string& machine) {
  return std::filesystem::path(TOKSCOPE_TEST_DATA_DIR).parent_path() / "fixtures" / "sysfs" /
         machine;
}

// A fresh copy of a fixture tree in this test's temporary directory. Symlinks are copied as
// symlinks (they are relative, so they resolve inside the copy, as /sys/class entries do).
inline std::filesystem::path copy_sysfs_fixture(const std::string& machine) {
  const auto root = fresh_test_dir() / machine;
  std::filesystem::copy(
      sysfs_fixture(machine), root,
      std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
  return root;
}

// Writes text in place (same inode, as the kernel updates an attribute), creating directories.
inline void write_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::trunc) << text;
}

// Whether some line contains every needle.
inline bool has_line(const std::vector<std::string>& lines,
                     const std::vector<std::string>& needles) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& line) {
    return std::all_of(needles.begin(), needles.end(), [&](const std::string& needle) {
      return line.find(needle) != std::string::npos;
    });
  });
}

// All lines, one per line, for failure messages.
inline std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

}  // namespace tokscope::testing
