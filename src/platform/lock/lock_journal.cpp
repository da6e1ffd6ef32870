#include "platform/lock/lock_journal.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "platform/lock/sysfs_access.hpp"

namespace tokscope::platform::lock {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The only attributes a lock writes, hence the only ones a restore may write.
constexpr std::array<std::string_view, 8> kRestorable = {
    "scaling_governor", "scaling_setspeed", "scaling_min_freq", "scaling_max_freq",
    "governor",         "set_freq",         "min_freq",         "max_freq"};

// A governor name or a number: what a lock ever needs to write back.
bool plain_token(std::string_view text) {
  return !text.empty() && text.size() <= 64 && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

Error journal_error(const fs::path& file, const std::string& why) {
  return make_error(ErrorKind::kInput,
                    fmt::format("lock journal {}: {}; it lists the values to restore: fix or "
                                "restore them by hand, then remove it",
                                file.string(), why));
}

Error io_error(const fs::path& file, const char* what, int err) {
  return make_error(ErrorKind::kIo, fmt::format("lock journal {}: {}: {}", file.string(), what,
                                                std::strerror(err)));
}

void fsync_directory(const fs::path& file) {
  const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);  // best effort: makes the rename durable
    ::close(fd);
  }
}

std::string read_small_file(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  return trim(ss.str());
}

}  // namespace

json to_json(const LockJournal& journal) {
  json steps = json::array();
  for (const auto& s : journal.steps) steps.push_back(to_json(s));
  return {{"schema", kLockJournalSchema},
          {"sysfs_root", journal.sysfs_root},
          {"pid", journal.pid},
          {"boot_id", journal.boot_id},
          {"started_unix_s", journal.started_unix_s},
          {"command", journal.command},
          {"steps", steps}};
}

Expected<LockJournal> journal_from_json(const json& j, const fs::path& file) {
  if (!j.is_object()) return journal_error(file, "not a JSON object");
  if (j.value("schema", "") != kLockJournalSchema) {
    return journal_error(file, fmt::format("schema is not {}", kLockJournalSchema));
  }
  LockJournal out;
  const auto root = j.find("sysfs_root");
  const auto pid = j.find("pid");
  const auto steps = j.find("steps");
  if (root == j.end() || !root->is_string() || pid == j.end() || !pid->is_number_integer() ||
      steps == j.end() || !steps->is_array()) {
    return journal_error(file, "sysfs_root, pid or steps missing or of the wrong type");
  }
  out.sysfs_root = root->get<std::string>();
  out.pid = pid->get<std::int64_t>();
  const auto boot = j.find("boot_id");
  if (boot != j.end() && boot->is_string()) out.boot_id = boot->get<std::string>();
  const auto started = j.find("started_unix_s");
  if (started != j.end() && started->is_number_integer()) {
    out.started_unix_s = started->get<std::int64_t>();
  }
  const auto command = j.find("command");
  if (command != j.end() && command->is_string()) out.command = command->get<std::string>();
  for (const auto& s : *steps) {
    if (!s.is_object()) return journal_error(file, "a step is not an object");
    const auto f = s.find("file");
    const auto prev = s.find("previous");
    const auto value = s.find("value");
    const auto restore = s.find("restore");
    if (f == s.end() || !f->is_string() || prev == s.end() || !prev->is_string() ||
        value == s.end() || !(value->is_string() || value->is_null()) || restore == s.end() ||
        !restore->is_boolean()) {
      return journal_error(file, "a step lacks file, previous, value or restore");
    }
    LockStep step;
    step.file = f->get<std::string>();
    step.previous = prev->get<std::string>();
    if (value->is_string()) step.value = value->get<std::string>();
    step.restore = restore->get<bool>();
    out.steps.push_back(std::move(step));
  }
  return out;
}

std::optional<fs::path> state_dir_from(const char* xdg_state_home, const char* home) {
  if (xdg_state_home != nullptr && *xdg_state_home != '\0') {
    return fs::path(xdg_state_home) / "tokscope";
  }
  if (home != nullptr && *home != '\0') return fs::path(home) / ".local" / "state" / "tokscope";
  return std::nullopt;
}

Expected<fs::path> default_journal_path() {
  // getenv is safe here: tokscope never calls setenv.
  auto dir = state_dir_from(std::getenv("XDG_STATE_HOME"), std::getenv("HOME"));
  if (!dir) {
    return make_error(ErrorKind::kUsage,
                      "no state directory for the lock journal: neither XDG_STATE_HOME nor HOME "
                      "is set; give --lock-journal FILE");
  }
  return *dir / "lock-journal.json";
}

Expected<void> write_journal(const fs::path& file, const LockJournal& journal) {
  std::error_code ec;
  if (file.has_parent_path()) fs::create_directories(file.parent_path(), ec);
  fs::path tmp = file;
  tmp += ".tmp." + std::to_string(::getpid());
  const std::string text = to_json(journal).dump(2) + "\n";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return io_error(file, "cannot create the temporary file", errno);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      fs::remove(tmp, ec);
      return io_error(file, "write failed", err);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    fs::remove(tmp, ec);
    return io_error(file, "fsync failed", err);
  }
  ::close(fd);
  if (::rename(tmp.c_str(), file.c_str()) != 0) {
    const int err = errno;
    fs::remove(tmp, ec);
    return io_error(file, "rename failed", err);
  }
  fsync_directory(file);
  return {};
}

Expected<std::optional<LockJournal>> read_journal(const fs::path& file) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::optional<LockJournal>();
  std::ifstream in(file);
  if (!in) return journal_error(file, "cannot be read");
  const json doc = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return journal_error(file, "not valid JSON");
  auto journal = journal_from_json(doc, file);
  if (!journal) return journal.error();
  return std::optional<LockJournal>(std::move(*journal));
}

std::string current_boot_id() {
  return read_small_file("/proc/sys/kernel/random/boot_id");
}

bool holder_alive(const LockJournal& journal) {
  if (journal.pid <= 0) return false;
  if (journal.pid == ::getpid()) return true;
  const std::string boot = current_boot_id();
  if (!journal.boot_id.empty() && !boot.empty() && journal.boot_id != boot) return false;
  if (::kill(static_cast<pid_t>(journal.pid), 0) != 0 && errno != EPERM) return false;
  const fs::path comm = fs::path("/proc") / std::to_string(journal.pid) / "comm";
  std::error_code ec;
  if (!fs::exists(comm, ec)) return true;
  return read_small_file(comm) == "tokscope";
}

RestoreOutcome restore_steps(const SysfsRoot& root, const std::vector<LockStep>& steps,
                             std::string_view command_hint) {
  RestoreOutcome out;
  out.report = {{"restored", json::array()}, {"unchanged", 0}, {"failed", json::array()}};
  const auto fail = [&](const LockStep& step, Error e) {
    out.report["failed"].push_back({{"file", step.file}, {"error", e.message}});
    if (!out.error) out.error = std::move(e);
  };
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    const LockStep& step = *it;
    if (!step.restore) continue;
    const std::string name = fs::path(step.file).filename().string();
    if (std::find(kRestorable.begin(), kRestorable.end(), name) == kRestorable.end()) {
      fail(step, make_error(ErrorKind::kInput,
                            fmt::format("{}: not a frequency attribute a lock writes: refused",
                                        step.file)));
      continue;
    }
    if (!plain_token(step.previous)) {
      fail(step, make_error(ErrorKind::kInput,
                            fmt::format("{}: previous value '{}' is not a governor name or a "
                                        "number: refused",
                                        step.file, step.previous)));
      continue;
    }
    auto now = root.read(step.file);
    if (!now && now.error().kind == ErrorKind::kUsage) {  // outside the root
      fail(step, now.error());
      continue;
    }
    if (now && *now == step.previous) {
      out.report["unchanged"] = out.report["unchanged"].get<int>() + 1;
      continue;
    }
    if (auto w = root.write(step.file, step.previous, command_hint); !w) {
      fail(step, w.error());
      continue;
    }
    out.report["restored"].push_back(
        {{"file", step.file}, {"from", now ? json(*now) : json(nullptr)}, {"to", step.previous}});
  }
  return out;
}

Expected<json> restore_from_journal(const fs::path& journal_file, const fs::path& root_dir,
                                    const RestoreOptions& options) {
  auto root = SysfsRoot::open(root_dir);
  if (!root) return root.error();
  auto read = read_journal(journal_file);
  if (!read) return read.error();
  if (!read->has_value()) return json{{"journal", journal_file.string()}, {"found", false}};
  const LockJournal& journal = **read;
  if (journal.sysfs_root != root->path().string()) {
    return make_error(
        ErrorKind::kUsage,
        fmt::format("lock journal {} was written for --sysfs-root {}, not {}: restore it with "
                    "`tokscope unlock --sysfs-root {} --lock-journal {}`",
                    journal_file.string(), journal.sysfs_root, root->path().string(),
                    journal.sysfs_root, journal_file.string()));
  }
  if (!options.force && holder_alive(journal)) {
    return make_error(ErrorKind::kUsage,
                      fmt::format("lock journal {}: the lock is held by a running tokscope (pid "
                                  "{}); stop it (kill -TERM {}) and it restores by itself, or "
                                  "give --force to restore anyway",
                                  journal_file.string(), journal.pid, journal.pid));
  }
  RestoreOutcome outcome = restore_steps(*root, journal.steps, options.command_hint);
  if (outcome.error) {
    Error e = *outcome.error;
    e.message = fmt::format("restoring lock journal {} (kept; nothing lost): {}",
                            journal_file.string(), e.message);
    return e;
  }
  std::error_code ec;
  fs::remove(journal_file, ec);
  if (ec) return io_error(journal_file, "cannot remove after restoring", ec.value());
  fsync_directory(journal_file);
  json report = {{"journal", journal_file.string()},
                 {"found", true},
                 {"pid", journal.pid},
                 {"started_unix_s", journal.started_unix_s},
                 {"command", journal.command},
                 {"journal_removed", true}};
  report.update(outcome.report);
  return report;
}

}  // namespace tokscope::platform::lock
