// Confined access to the sysfs files a frequency lock reads and writes. Every path is relative to
// a sysfs root ("/" on a live system, a temporary tree in tests) and is canonicalized before each
// use: a path whose canonical form leaves the root (an absolute path, a "..", a symlink pointing
// out of the tree) is refused with a kUsage error that says so. Symlinks that stay inside the root
// are followed: on a board /sys/class/devfreq/dmc links into /sys/devices/platform/..., which is
// inside the root. Writes never create files (a sysfs attribute exists or the write is wrong) and
// translate EACCES/EPERM into "run as root". Nothing is cached: every call touches the tree again.
// Not synchronized: one SysfsRoot per thread, or external locking.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"

namespace tokscope::platform::lock {

// Text without leading/trailing whitespace (sysfs values end in '\n'). Pure.
std::string trim(std::string_view text);

// The error for a failed write of `value` to `file` with errno `err`: EACCES/EPERM → kUsage
// "... run as root: sudo <command_hint> ...", EINVAL/EBUSY → kUnavailable (the driver refused the
// value), ENOENT → kUnavailable, anything else → kIo. Pure.
Error write_error(int err, const std::string& file, std::string_view value,
                  std::string_view command_hint);

class SysfsRoot {
 public:
  // root must be an existing directory; it is canonicalized once here. kUsage otherwise.
  static Expected<SysfsRoot> open(const std::filesystem::path& root);

  // The canonical root (absolute, no symlinks).
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return root_; }

  // root/relative canonicalized (symlinks resolved; the last parts may not exist yet). kUsage
  // when relative is absolute, contains "..", or resolves outside the root.
  [[nodiscard]] Expected<std::filesystem::path> resolve(
      const std::filesystem::path& relative) const;

  // true when relative resolves inside the root and names an existing file or directory.
  [[nodiscard]] bool exists(const std::filesystem::path& relative) const;

  // A file's text, trimmed. kUnavailable when missing or unreadable, kUsage when outside.
  [[nodiscard]] Expected<std::string> read(const std::filesystem::path& relative) const;

  // Names of the entries of a directory, sorted. kUnavailable when it is not a directory.
  [[nodiscard]] Expected<std::vector<std::string>> list(
      const std::filesystem::path& relative) const;

  // Whether this process may write the file (access(2) W_OK); the error is write_error(errno)
  // for a write of value.
  [[nodiscard]] Expected<void> check_writable(const std::filesystem::path& relative,
                                              std::string_view value,
                                              std::string_view command_hint) const;

  // Writes value + '\n' in one write(2), as `echo value > file` does; never creates the file.
  [[nodiscard]] Expected<void> write(const std::filesystem::path& relative, std::string_view value,
                                     std::string_view command_hint) const;

 private:
  explicit SysfsRoot(std::filesystem::path root) : root_(std::move(root)) {}
  std::filesystem::path root_;
};

}  // namespace tokscope::platform::lock
