// Reading sysfs/procfs/debugfs files under an injectable root, and the pure text rules every
// platform reader shares (trimming, integers, word lists, bracketed selectors).
//
// Contract of every reader built on this: nothing throws and nothing aborts. A file that does not
// exist or cannot be read leaves its value absent and appends one line
// "unavailable: <path>: <reason>" (the reason is errno's text) to the caller's list; a file whose
// text is not what the kernel documents leaves its value absent and appends
// "unavailable: <path>: malformed: expected <what>, got "<text>"". Nothing here is cached or
// global; every call reads the files again. Thread-safety: the functions are reentrant (no shared
// state); the caller's `unavailable` vector must not be shared between threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"

namespace tokscope::platform::sysfs {

// Whitespace (space, tab, CR, LF) stripped from both ends. Pure.
std::string_view trim(std::string_view text) noexcept;

// A non-negative decimal integer filling all of trim(text) ("1800000\n"); nullopt otherwise
// (empty, sign, other characters, overflow). Pure, no allocation.
std::optional<std::uint64_t> parse_u64(std::string_view text) noexcept;

// A decimal integer with an optional leading '-' filling all of trim(text) ("-5000"); nullopt
// otherwise. Pure, no allocation.
std::optional<std::int64_t> parse_i64(std::string_view text) noexcept;

// Whitespace-separated words ("performance powersave\n" → {"performance", "powersave"}). Pure.
std::vector<std::string> split_words(std::string_view text);

// Whitespace-separated non-negative decimals ("408000 600000 816000 \n"; "" → empty list). A word
// that is not one is a kInput error naming it. Pure.
Expected<std::vector<std::uint64_t>> parse_u64_list(std::string_view text);

// The selected choice of a sysfs selector file: the one word in brackets
// ("always [madvise] never" → "madvise"). kInput error unless exactly one word is bracketed. Pure.
Expected<std::string> parse_bracketed_choice(std::string_view text);

// N of a directory name "<prefix>N" ("policy4" with "policy" → 4, "thermal_zone12" → 12);
// nullopt for any other name ("policy", "policyX", "cooling_device0"). Pure, no allocation.
std::optional<int> index_after_prefix(std::string_view name, std::string_view prefix) noexcept;

// "unavailable: <what>: <reason>", the one format of every missing-fact line.
std::string unavailable_line(std::string_view what, std::string_view reason);

// Largest text read_text returns. A sysfs attribute is at most one page, /proc/meminfo a few KiB.
inline constexpr std::size_t kMaxTextBytes = std::size_t{1} << 20;

// The whole text of a file, read with open(2)/read(2) so that a failure carries errno's reason.
// Errors: kUnavailable when the file does not exist (ENOENT, ENOTDIR), kIo when it exists and
// cannot be read (EACCES for a root-only file, EIO/ENODEV from a driver, EISDIR, longer than
// kMaxTextBytes). The message is "<path>: <reason>".
Expected<std::string> read_text(const std::filesystem::path& path);

// Whether a missing file is worth a line: a required file is part of the interface on every
// kernel that has the directory; an optional one exists only with some drivers or configs
// (scaling_available_frequencies, cpuinfo_cur_freq, *_label), so only its being present but
// unreadable or malformed is reported.
enum class Presence { kRequired, kOptional };

// Field readers: the value of one file, or nullopt with a line appended to `unavailable` (see
// the contract at the top). `expected` names what the file should hold, for the malformed
// message ("an integer in kHz").
std::optional<std::string> read_string(const std::filesystem::path& path, Presence presence,
                                       std::vector<std::string>& unavailable);
std::optional<std::uint64_t> read_u64(const std::filesystem::path& path, std::string_view expected,
                                      Presence presence, std::vector<std::string>& unavailable);
std::optional<std::int64_t> read_i64(const std::filesystem::path& path, std::string_view expected,
                                     Presence presence, std::vector<std::string>& unavailable);
// Whitespace-separated unsigned decimals; empty on failure (and a line appended).
std::vector<std::uint64_t> read_u64_list(const std::filesystem::path& path,
                                         std::string_view expected, Presence presence,
                                         std::vector<std::string>& unavailable);
// Whitespace-separated words; empty on failure (and a line appended).
std::vector<std::string> read_words(const std::filesystem::path& path, Presence presence,
                                    std::vector<std::string>& unavailable);

// The malformed-value line: unavailable: <path>: malformed: expected <expected>, got "<text>"
// (the text shortened to 40 characters, control characters shown as '?').
std::string malformed_line(const std::filesystem::path& path, std::string_view expected,
                           std::string_view text);

// A directory entry "<prefix>N" and its path under the listed directory (not resolved: sysfs
// class entries are symlinks, and paths through them work as they are).
struct IndexedEntry {
  int index = 0;
  std::filesystem::path path;
};

// The entries "<prefix>N" of dir that are directories (symlinks followed: /sys/class/* entries
// are relative symlinks into /sys/devices, fixture trees may use either), sorted by N.
// kUnavailable error "<dir>: <reason>" when dir cannot be listed.
Expected<std::vector<IndexedEntry>> list_indexed_dirs(const std::filesystem::path& dir,
                                                      std::string_view prefix);

// The names of the entries of dir that are directories (symlinks followed), sorted.
// kUnavailable error "<dir>: <reason>" when dir cannot be listed.
Expected<std::vector<std::string>> list_dir_names(const std::filesystem::path& dir);

}  // namespace tokscope::platform::sysfs
