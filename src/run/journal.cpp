#include "run/journal.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "run/record_check.hpp"

namespace tokscope::run {
namespace {

Error io_error(const std::filesystem::path& path, const char* what) {
  return make_error(ErrorKind::kIo,
                    fmt::format("journal {}: {}: {}", path.string(), what, std::strerror(errno)));
}

void fsync_directory(const std::filesystem::path& path) {
  const auto dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);  // best effort: makes the new file's name durable too
    ::close(fd);
  }
}

}  // namespace

Expected<JournalWriter> JournalWriter::create(const std::filesystem::path& path) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == EEXIST) {
      return make_error(ErrorKind::kUsage,
                        fmt::format("--journal {}: the file exists; continue it with --resume {} "
                                    "or choose another path",
                                    path.string(), path.string()));
    }
    return io_error(path, "cannot create");
  }
  fsync_directory(path);
  return JournalWriter(path, fd);
}

Expected<JournalWriter> JournalWriter::open_append(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return io_error(path, "cannot open for appending");
  return JournalWriter(path, fd);
}

JournalWriter::JournalWriter(JournalWriter&& other) noexcept
    : path_(std::move(other.path_)), fd_(other.fd_) {
  other.fd_ = -1;
}

JournalWriter::~JournalWriter() {
  if (fd_ >= 0) ::close(fd_);
}

Expected<void> JournalWriter::append(const nlohmann::json& line) {
  std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  text.push_back('\n');
  std::lock_guard lock(mutex_);
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + written, text.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error(path_, "write failed");
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd_) != 0) return io_error(path_, "fsync failed");
  return {};
}

Expected<JournalContents> read_journal(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return make_error(ErrorKind::kInput,
                      fmt::format("{}: cannot open the journal (check the path)", path.string()));
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string content = buffer.str();
  JournalContents out;
  std::size_t pos = 0;
  std::size_t line_no = 0;
  while (pos < content.size()) {
    const std::size_t nl = content.find('\n', pos);
    const bool complete = nl != std::string::npos;
    const std::string line = content.substr(pos, complete ? nl - pos : std::string::npos);
    pos = complete ? nl + 1 : content.size();
    ++line_no;
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      if (!complete) {  // torn tail: killed while writing the last line
        out.torn_tail = true;
        break;
      }
      return make_error(ErrorKind::kInput,
                        fmt::format("{} line {}: not a JSON object; the journal is corrupt "
                                    "(a tokscope journal has one JSON object per line)",
                                    path.string(), line_no));
    }
    const std::string type = j.value("type", "");
    if (line_no == 1) {
      if (type != "header" || j.value("schema", "") != kJournalSchema) {
        return make_error(ErrorKind::kInput,
                          fmt::format("{}: not a tokscope journal (line 1 must be a header with "
                                      "schema \"{}\")",
                                      path.string(), kJournalSchema));
      }
      if (const std::string problem = check_header(j); !problem.empty()) {
        return make_error(ErrorKind::kInput,
                          fmt::format("{} line 1 (header): {}; the journal was not written by "
                                      "this version of tokscope or was edited",
                                      path.string(), problem));
      }
      out.header = std::move(j);
    } else if (type == "request") {
      if (const std::string problem = check_request_record(j); !problem.empty()) {
        return make_error(ErrorKind::kInput,
                          fmt::format("{} line {} (request): {}; fix or delete that line",
                                      path.string(), line_no, problem));
      }
      out.requests.push_back(std::move(j));
    } else if (type == "telemetry") {
      if (const std::string problem = check_telemetry_record(j); !problem.empty()) {
        return make_error(ErrorKind::kInput,
                          fmt::format("{} line {} (telemetry): {}; fix or delete that line",
                                      path.string(), line_no, problem));
      }
      out.telemetry.push_back(std::move(j));
    } else if (type == "end") {
      out.ended = true;
      out.interrupted = j.value("interrupted", false);
      out.end = j;
    } else {
      return make_error(ErrorKind::kInput, fmt::format("{} line {}: unknown record type \"{}\"",
                                                       path.string(), line_no, type));
    }
  }
  if (out.header.is_null()) {
    return make_error(ErrorKind::kInput, fmt::format("{}: empty journal", path.string()));
  }
  return out;
}

}  // namespace tokscope::run
