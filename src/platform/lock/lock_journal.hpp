// The lock journal: the previous value of every file a frequency lock writes, on disk before the
// first write, so a lock never outlives tokscope silently. Written atomically (temporary file,
// fsync, rename, fsync of the directory): a reader sees the old journal or the new one, never a
// torn one. The lock removes it once everything is restored; a journal found later means a
// tokscope was killed while holding a lock (kill -9, power loss) and is restored first by the
// next `tokscope lock`, `bench --lock` or `tokscope unlock`.
//
// Default file: $XDG_STATE_HOME/tokscope/lock-journal.json, else
// ~/.local/state/tokscope/lock-journal.json. Run as root (sudo), HOME is normally root's, so the
// lock and the unlock of one user find the same journal.
//
// Format (schema tokscope.lock-journal/1): {"schema", "sysfs_root", "pid", "boot_id",
// "started_unix_s", "command", "steps": [{"file", "previous", "value", "restore"}]} with files
// relative to sysfs_root, in acquisition order. Restore only ever writes `previous` back, only
// to the sysfs attributes a lock writes (scaling_governor, scaling_setspeed, scaling_min_freq,
// scaling_max_freq, governor, set_freq, min_freq, max_freq), only inside the root.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "platform/lock/lock_plan.hpp"

namespace tokscope::platform::lock {

class SysfsRoot;

inline constexpr const char* kLockJournalSchema = "tokscope.lock-journal/1";

struct LockJournal {
  std::string sysfs_root;  // canonical root the step files are relative to
  std::int64_t pid = 0;    // the process that took the lock
  std::string boot_id;     // /proc/sys/kernel/random/boot_id then ("" when unknown)
  std::int64_t started_unix_s = 0;
  std::string command;  // "tokscope lock", "tokscope bench --lock"
  std::vector<LockStep> steps;
};

nlohmann::json to_json(const LockJournal& journal);
// kInput naming the file when a field is missing or of the wrong type.
Expected<LockJournal> journal_from_json(const nlohmann::json& j, const std::filesystem::path& file);

// The state dir from the values of $XDG_STATE_HOME and $HOME (nullptr or "" = unset):
// xdg/tokscope, else home/.local/state/tokscope, else nullopt. Pure.
std::optional<std::filesystem::path> state_dir_from(const char* xdg_state_home, const char* home);

// state dir/lock-journal.json of the live environment; kUsage when neither variable is set.
Expected<std::filesystem::path> default_journal_path();

// Atomic replace (see above), creating the directory. kIo naming the file on failure.
Expected<void> write_journal(const std::filesystem::path& file, const LockJournal& journal);

// nullopt when there is no journal; kInput when it does not parse.
Expected<std::optional<LockJournal>> read_journal(const std::filesystem::path& file);

// This boot's id ("" when /proc has none).
std::string current_boot_id();

// Whether the process that took the lock is still running: this process, or in the same boot a
// live pid named "tokscope" (an unreadable name counts as alive).
bool holder_alive(const LockJournal& journal);

// Writes back `previous` of every restore step, last step first, skipping files that already
// hold it. Best effort: a failed step does not stop the others. The report is
// {"restored": [{"file", "from", "to"}], "unchanged": N, "failed": [{"file", "error"}]}; error
// is the first failure.
struct RestoreOutcome {
  nlohmann::json report;
  std::optional<Error> error;
};
RestoreOutcome restore_steps(const SysfsRoot& root, const std::vector<LockStep>& steps,
                             std::string_view command_hint);

struct RestoreOptions {
  bool force = false;  // restore even when the journal's process still seems to run
  std::string command_hint = "tokscope unlock";
};

// Restores a journal under root and removes it. Report: {"journal", "found": false} when there
// is none; else {"journal", "found": true, "pid", "started_unix_s", "command", "restored",
// "unchanged", "failed": [], "journal_removed": true}. Errors (the journal is then kept): kUsage
// when the journal was written for another sysfs root, or its process still runs (without
// force); kInput when it does not parse; a failed write's error (EACCES → run as root).
Expected<nlohmann::json> restore_from_journal(const std::filesystem::path& journal,
                                              const std::filesystem::path& root,
                                              const RestoreOptions& options = {});

}  // namespace tokscope::platform::lock
