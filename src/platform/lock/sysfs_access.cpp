#include "platform/lock/sysfs_access.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <system_error>

namespace tokscope::platform::lock {
namespace {

namespace fs = std::filesystem;

// Every component of root is a leading component of path (both canonical).
bool is_inside(const fs::path& root, const fs::path& path) {
  auto p = path.begin();
  for (const auto& part : root) {
    if (part.empty()) continue;  // a trailing separator
    if (p == path.end() || *p != part) return false;
    ++p;
  }
  return true;
}

constexpr std::size_t kMaxFileBytes =
    std::size_t{64} * 1024;  // sysfs attributes are at most one page

}  // namespace

std::string trim(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n";
  const auto first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(kSpace);
  return std::string(text.substr(first, last - first + 1));
}

Error write_error(int err, const std::string& file, std::string_view value,
                  std::string_view command_hint) {
  const char* why = std::strerror(err);
  if (err == EACCES || err == EPERM || err == EROFS) {
    return make_error(ErrorKind::kUsage,
                      fmt::format("cannot write '{}' to {} ({}): changing frequencies needs root; "
                                  "run as root: sudo {} ...",
                                  value, file, why, command_hint));
  }
  if (err == EINVAL || err == EBUSY) {
    return make_error(ErrorKind::kUnavailable,
                      fmt::format("the kernel refused '{}' for {} ({}): the driver does not accept "
                                  "this value or governor here",
                                  value, file, why));
  }
  if (err == ENOENT) {
    return make_error(ErrorKind::kUnavailable,
                      fmt::format("cannot write '{}' to {}: the file does not exist", value, file));
  }
  return make_error(ErrorKind::kIo, fmt::format("cannot write '{}' to {}: {}", value, file, why));
}

Expected<SysfsRoot> SysfsRoot::open(const fs::path& root) {
  std::error_code ec;
  const fs::path canonical = fs::canonical(root, ec);
  if (ec || !fs::is_directory(canonical, ec)) {
    return make_error(ErrorKind::kUsage,
                      fmt::format("--sysfs-root {}: not an existing directory", root.string()));
  }
  return SysfsRoot(canonical);
}

Expected<fs::path> SysfsRoot::resolve(const fs::path& relative) const {
  const auto outside = [&](const std::string& why) {
    return make_error(ErrorKind::kUsage,
                      fmt::format("{}: outside the sysfs root {} ({}): refused, nothing written",
                                  relative.string(), root_.string(), why));
  };
  if (relative.empty()) return outside("an empty path");
  if (relative.is_absolute()) return outside("an absolute path");
  for (const auto& part : relative) {
    if (part == "..") return outside("the path contains ..");
  }
  std::error_code ec;
  fs::path full = fs::weakly_canonical(root_ / relative, ec);
  if (ec) {
    return make_error(
        ErrorKind::kUnavailable,
        fmt::format("cannot resolve {}: {}", (root_ / relative).string(), ec.message()));
  }
  if (!is_inside(root_, full)) {
    return outside(fmt::format("it resolves to {} through a symlink", full.string()));
  }
  return full;
}

bool SysfsRoot::exists(const fs::path& relative) const {
  auto full = resolve(relative);
  std::error_code ec;
  return full.ok() && fs::exists(*full, ec);
}

Expected<std::string> SysfsRoot::read(const fs::path& relative) const {
  auto full = resolve(relative);
  if (!full) return full.error();
  const int fd = ::open(full->c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return make_error(
        ErrorKind::kUnavailable,
        fmt::format("cannot read {}: {}", (root_ / relative).string(), std::strerror(errno)));
  }
  std::string text;
  std::array<char, 4096> buf{};
  while (text.size() < kMaxFileBytes) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return make_error(
          ErrorKind::kUnavailable,
          fmt::format("cannot read {}: {}", (root_ / relative).string(), std::strerror(err)));
    }
    if (n == 0) break;
    text.append(buf.data(), static_cast<std::size_t>(n));
  }
  ::close(fd);
  return trim(text);
}

Expected<std::vector<std::string>> SysfsRoot::list(const fs::path& relative) const {
  auto full = resolve(relative);
  if (!full) return full.error();
  std::error_code ec;
  fs::directory_iterator it(*full, ec);
  if (ec) {
    return make_error(ErrorKind::kUnavailable,
                      fmt::format("cannot list {}: {}", (root_ / relative).string(), ec.message()));
  }
  std::vector<std::string> names;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

Expected<void> SysfsRoot::check_writable(const fs::path& relative, std::string_view value,
                                         std::string_view command_hint) const {
  auto full = resolve(relative);
  if (!full) return full.error();
  if (::access(full->c_str(), W_OK) != 0) {
    return write_error(errno, (root_ / relative).string(), value, command_hint);
  }
  return {};
}

Expected<void> SysfsRoot::write(const fs::path& relative, std::string_view value,
                                std::string_view command_hint) const {
  auto full = resolve(relative);
  if (!full) return full.error();
  const std::string file = (root_ / relative).string();
  // O_TRUNC is what `echo value > file` does: ignored by sysfs, needed by a plain-file fixture.
  // O_NOFOLLOW: the canonical path has no symlink left; a new one appearing is refused.
  const int fd = ::open(full->c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return write_error(errno, file, value, command_hint);
  const std::string text = std::string(value) + "\n";
  ssize_t n = 0;
  do {
    n = ::write(fd, text.data(), text.size());
  } while (n < 0 && errno == EINTR);
  const int err = errno;
  ::close(fd);
  if (n < 0) return write_error(err, file, value, command_hint);
  if (static_cast<std::size_t>(n) != text.size()) {
    return make_error(ErrorKind::kIo, fmt::format("cannot write '{}' to {}: short write ({} of {} "
                                                  "bytes)",
                                                  value, file, n, text.size()));
  }
  return {};
}

}  // namespace tokscope::platform::lock
