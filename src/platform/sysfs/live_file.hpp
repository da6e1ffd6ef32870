// A sysfs/procfs/debugfs file kept open and re-read from offset 0, for live telemetry channels.
// The kernel regenerates an attribute's text on every read at offset 0 (kernfs and seq_file both
// support pread), so one open(2) serves a whole run and each sample costs a pread(2) and an
// fstat(2), with no allocation.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string_view>

#include "core/expected.hpp"

namespace tokscope::platform::sysfs {

// Move-only owner of one O_RDONLY|O_CLOEXEC descriptor. Thread-safety: pread does not move a
// shared offset, so concurrent reads are safe, but the sampler reads from one thread anyway;
// moving or destroying must not race with reading.
class LiveFile {
 public:
  // Opens path read-only. Errors as sysfs::read_text: kUnavailable when it does not exist, kIo
  // otherwise; the message is "<path>: <reason>".
  static Expected<LiveFile> open(const std::filesystem::path& path);

  LiveFile(LiveFile&& other) noexcept;
  LiveFile& operator=(LiveFile&& other) noexcept;
  LiveFile(const LiveFile&) = delete;
  LiveFile& operator=(const LiveFile&) = delete;
  ~LiveFile();

  // The file's text now, in buf (which must outlive the view). nullopt when the read fails
  // (EIO, ENODEV once a device is gone), when the text fills all of buf (it may be cut short),
  // or when the file was unlinked since it was opened (st_nlink == 0: a file in a regular
  // directory tree keeps serving its old bytes through an open descriptor after it is deleted,
  // so that is checked to report it as gone). noexcept, no allocation.
  [[nodiscard]] std::optional<std::string_view> read(std::span<char> buf) const noexcept;

  // read() of a file holding one decimal integer (sysfs "45230\n"), parsed; nullopt on a failed
  // read or text that is not an integer. noexcept, no allocation (a 64-byte stack buffer).
  [[nodiscard]] std::optional<std::int64_t> read_i64() const noexcept;

 private:
  explicit LiveFile(int fd) noexcept : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace tokscope::platform::sysfs
