#include "platform/sysfs/live_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <utility>

#include "platform/sysfs/sysfs_file.hpp"

namespace tokscope::platform::sysfs {

Expected<LiveFile> LiveFile::open(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int error_number = errno;
    const ErrorKind kind = (error_number == ENOENT || error_number == ENOTDIR)
                               ? ErrorKind::kUnavailable
                               : ErrorKind::kIo;
    return make_error(kind, path.string() + ": " +
                                std::error_code(error_number, std::generic_category()).message());
  }
  return LiveFile(fd);
}

LiveFile::LiveFile(LiveFile&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

LiveFile& LiveFile::operator=(LiveFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

LiveFile::~LiveFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<std::string_view> LiveFile::read(std::span<char> buf) const noexcept {
  if (fd_ < 0 || buf.empty()) return std::nullopt;
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || st.st_nlink == 0) return std::nullopt;
  ssize_t n = 0;
  do {
    n = ::pread(fd_, buf.data(), buf.size(), 0);
  } while (n < 0 && errno == EINTR);
  if (n < 0 || static_cast<std::size_t>(n) >= buf.size()) return std::nullopt;
  return std::string_view(buf.data(), static_cast<std::size_t>(n));
}

std::optional<std::int64_t> LiveFile::read_i64() const noexcept {
  char buf[64];
  const auto text = read(buf);
  if (!text) return std::nullopt;
  return parse_i64(*text);
}

}  // namespace tokscope::platform::sysfs
