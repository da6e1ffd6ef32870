// The journal: an append-only JSONL file, the run's source of truth on disk.
//   line 1:  {"type":"header", "schema":"tokscope.journal/1", "settings":{...}, "engine":{...},
//             "model":{...}, "environment":{...}, "ceiling_inputs":{...}, ...}
//   then:    {"type":"request", ...one completed request, same fields as result requests[]...}
//            {"type":"telemetry", "t_ns":[…], "values":[[…]…], …}  sampler rows taken since the
//            previous telemetry line (run/telemetry_stamper.hpp), after the request it follows
//   finally: {"type":"end", "interrupted":bool, "sampler_cost":{…}}  (absent after a crash or
//            kill -9)
// Every line is written whole and fsync'ed before the next request starts, so a crash loses at
// most the request in flight. A torn last line (killed mid-write) is ignored on reading.
// Thread-safety: JournalWriter::append is safe to call from several threads.
#pragma once

#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/expected.hpp"

namespace tokscope::run {

inline constexpr const char* kJournalSchema = "tokscope.journal/1";

class JournalWriter {
 public:
  // Creates the file (and its directory) for a new run; refuses to overwrite an existing one.
  static Expected<JournalWriter> create(const std::filesystem::path& path);
  // Opens an existing journal for appending (--resume).
  static Expected<JournalWriter> open_append(const std::filesystem::path& path);
  JournalWriter(JournalWriter&& other) noexcept;
  JournalWriter& operator=(JournalWriter&&) = delete;
  JournalWriter(const JournalWriter&) = delete;
  ~JournalWriter();

  // Appends one line (compact JSON + '\n') and fsyncs. Errors name the file.
  Expected<void> append(const nlohmann::json& line);
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

 private:
  JournalWriter(std::filesystem::path path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::filesystem::path path_;
  int fd_ = -1;
  std::mutex mutex_;
};

struct JournalContents {
  nlohmann::json header;
  std::vector<nlohmann::json> requests;
  std::vector<nlohmann::json> telemetry;  // "telemetry" lines, in order
  bool ended = false;                     // an "end" line was found
  bool interrupted = false;               // from the end line
  nlohmann::json end;                     // the end line itself (null when absent)
  bool torn_tail = false;                 // the last line was incomplete and ignored
};

// Reads and checks a journal. Errors name the file, the line and the fix.
Expected<JournalContents> read_journal(const std::filesystem::path& path);

}  // namespace tokscope::run
