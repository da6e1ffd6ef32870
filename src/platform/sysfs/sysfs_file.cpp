#include "platform/sysfs/sysfs_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <system_error>

namespace tokscope::platform::sysfs {
namespace {

namespace fs = std::filesystem;

bool is_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

std::string errno_text(int error_number) {
  return std::error_code(error_number, std::generic_category()).message();
}

Error file_error(const fs::path& path, int error_number) {
  const ErrorKind kind = (error_number == ENOENT || error_number == ENOTDIR)
                             ? ErrorKind::kUnavailable
                             : ErrorKind::kIo;
  return make_error(kind, path.string() + ": " + errno_text(error_number));
}

// Closes a descriptor on every path out of read_text.
class FdCloser {
 public:
  explicit FdCloser(int fd) noexcept : fd_(fd) {}
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;
  ~FdCloser() { ::close(fd_); }

 private:
  int fd_;
};

// The text of a file that should hold a value; nullopt after appending the line when it is
// missing (and required) or unreadable.
std::optional<std::string> read_for_field(const fs::path& path, Presence presence,
                                          std::vector<std::string>& unavailable) {
  auto text = read_text(path);
  if (text.ok()) return std::move(*text);
  if (presence == Presence::kRequired || text.error().kind != ErrorKind::kUnavailable) {
    unavailable.push_back("unavailable: " + text.error().message);
  }
  return std::nullopt;
}

}  // namespace

std::string_view trim(std::string_view text) noexcept {
  std::size_t b = 0;
  std::size_t e = text.size();
  while (b < e && is_space(text[b])) ++b;
  while (e > b && is_space(text[e - 1])) --e;
  return text.substr(b, e - b);
}

std::optional<std::uint64_t> parse_u64(std::string_view text) noexcept {
  const std::string_view body = trim(text);
  std::uint64_t value = 0;
  if (body.empty() || body.front() == '-' || body.front() == '+') return std::nullopt;
  const char* end = body.data() + body.size();
  const auto [ptr, ec] = std::from_chars(body.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::optional<std::int64_t> parse_i64(std::string_view text) noexcept {
  const std::string_view body = trim(text);
  std::int64_t value = 0;
  if (body.empty() || body.front() == '+') return std::nullopt;
  const char* end = body.data() + body.size();
  const auto [ptr, ec] = std::from_chars(body.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) ++i;
    const std::size_t start = i;
    while (i < text.size() && !is_space(text[i])) ++i;
    if (i > start) words.emplace_back(text.substr(start, i - start));
  }
  return words;
}

Expected<std::vector<std::uint64_t>> parse_u64_list(std::string_view text) {
  std::vector<std::uint64_t> values;
  for (const auto& word : split_words(text)) {
    const auto value = parse_u64(word);
    if (!value) {
      return make_error(ErrorKind::kInput, "\"" + word + "\" is not a non-negative integer");
    }
    values.push_back(*value);
  }
  return values;
}

Expected<std::string> parse_bracketed_choice(std::string_view text) {
  std::optional<std::string> choice;
  for (const auto& word : split_words(text)) {
    if (word.size() < 3 || word.front() != '[' || word.back() != ']') continue;
    if (choice) return make_error(ErrorKind::kInput, "more than one [choice]");
    choice = word.substr(1, word.size() - 2);
  }
  if (!choice) return make_error(ErrorKind::kInput, "no [choice]");
  return std::move(*choice);
}

std::optional<int> index_after_prefix(std::string_view name, std::string_view prefix) noexcept {
  if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) {
    return std::nullopt;
  }
  const std::string_view digits = name.substr(prefix.size());
  int value = 0;
  const char* end = digits.data() + digits.size();
  if (digits.front() < '0' || digits.front() > '9') return std::nullopt;
  const auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::string unavailable_line(std::string_view what, std::string_view reason) {
  std::string line = "unavailable: ";
  line += what;
  line += ": ";
  line += reason;
  return line;
}

Expected<std::string> read_text(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return file_error(path, errno);
  const FdCloser closer(fd);
  std::string text;
  char chunk[4096];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return file_error(path, errno);
    if (n == 0) break;
    if (text.size() + static_cast<std::size_t>(n) > kMaxTextBytes) {
      return make_error(ErrorKind::kIo, path.string() + ": longer than " +
                                            std::to_string(kMaxTextBytes) + " bytes");
    }
    text.append(chunk, static_cast<std::size_t>(n));
  }
  return text;
}

std::string malformed_line(const fs::path& path, std::string_view expected, std::string_view text) {
  constexpr std::size_t kShown = 40;
  std::string shown(trim(text).substr(0, kShown));
  for (char& c : shown) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  if (trim(text).size() > kShown) shown += "...";
  std::string reason = "malformed: expected ";
  reason += expected;
  reason += ", got \"" + shown + "\"";
  return unavailable_line(path.string(), reason);
}

std::optional<std::string> read_string(const fs::path& path, Presence presence,
                                       std::vector<std::string>& unavailable) {
  auto text = read_for_field(path, presence, unavailable);
  if (!text) return std::nullopt;
  return std::string(trim(*text));
}

std::optional<std::uint64_t> read_u64(const fs::path& path, std::string_view expected,
                                      Presence presence, std::vector<std::string>& unavailable) {
  const auto text = read_for_field(path, presence, unavailable);
  if (!text) return std::nullopt;
  const auto value = parse_u64(*text);
  if (!value) unavailable.push_back(malformed_line(path, expected, *text));
  return value;
}

std::optional<std::int64_t> read_i64(const fs::path& path, std::string_view expected,
                                     Presence presence, std::vector<std::string>& unavailable) {
  const auto text = read_for_field(path, presence, unavailable);
  if (!text) return std::nullopt;
  const auto value = parse_i64(*text);
  if (!value) unavailable.push_back(malformed_line(path, expected, *text));
  return value;
}

std::vector<std::uint64_t> read_u64_list(const fs::path& path, std::string_view expected,
                                         Presence presence, std::vector<std::string>& unavailable) {
  const auto text = read_for_field(path, presence, unavailable);
  if (!text) return {};
  auto values = parse_u64_list(*text);
  if (!values.ok()) {
    unavailable.push_back(malformed_line(path, expected, *text));
    return {};
  }
  return std::move(*values);
}

std::vector<std::string> read_words(const fs::path& path, Presence presence,
                                    std::vector<std::string>& unavailable) {
  const auto text = read_for_field(path, presence, unavailable);
  if (!text) return {};
  return split_words(*text);
}

Expected<std::vector<IndexedEntry>> list_indexed_dirs(const fs::path& dir,
                                                      std::string_view prefix) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return make_error(ErrorKind::kUnavailable, dir.string() + ": " + ec.message());
  std::vector<IndexedEntry> entries;
  for (const fs::directory_iterator end; !ec && it != end; it.increment(ec)) {
    const auto index = index_after_prefix(it->path().filename().native(), prefix);
    std::error_code type_ec;
    if (index && it->is_directory(type_ec)) entries.push_back(IndexedEntry{*index, it->path()});
  }
  std::sort(entries.begin(), entries.end(),
            [](const IndexedEntry& a, const IndexedEntry& b) { return a.index < b.index; });
  return entries;
}

Expected<std::vector<std::string>> list_dir_names(const fs::path& dir) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return make_error(ErrorKind::kUnavailable, dir.string() + ": " + ec.message());
  std::vector<std::string> names;
  for (const fs::directory_iterator end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (it->is_directory(type_ec)) names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace tokscope::platform::sysfs
