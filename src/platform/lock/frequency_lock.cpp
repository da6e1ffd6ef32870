#include "platform/lock/frequency_lock.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <ctime>

#include "platform/lock/sysfs_access.hpp"

namespace tokscope::platform::lock {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::optional<std::uint64_t> to_u64(const std::string& text) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

Expected<fs::path> journal_path(const LockRequest& request) {
  if (!request.journal.empty()) return request.journal;
  return default_journal_path();
}

// Reads back every written file of one channel, then its current frequency.
json verify_channel(const SysfsRoot& root, const ChannelPlan& ch, json& writes, bool& held) {
  bool writes_ok = true;
  std::string reason;
  for (const auto& step : ch.steps) {
    if (!step.value) continue;
    auto now = root.read(step.file);
    const bool ok = now && *now == *step.value;
    writes.push_back({{"file", step.file},
                      {"previous", step.previous},
                      {"value", *step.value},
                      {"read_back", now ? json(*now) : json(nullptr)},
                      {"ok", ok}});
    if (!ok && writes_ok) {
      writes_ok = false;
      reason = now ? fmt::format("{} reads '{}', not '{}'", step.file, *now, *step.value)
                   : fmt::format("{} cannot be read back: {}", step.file, now.error().message);
    }
  }
  std::optional<std::uint64_t> cur;
  if (auto text = root.read(ch.cur_file)) cur = to_u64(*text);
  bool cur_ok = true;
  if (writes_ok && cur && ch.target_freq && !frequency_matches(*cur, *ch.target_freq)) {
    cur_ok = false;
    reason = fmt::format("{} reads {} {}, locked to {} {}", ch.cur_file, *cur, ch.unit,
                         *ch.target_freq, ch.unit);
  }
  if (writes_ok && !cur)
    reason = fmt::format("{} unreadable: current frequency unchecked", ch.cur_file);
  const bool channel_held = writes_ok && cur_ok;
  held = held && channel_held;
  return {{"name", ch.name},
          {"kind", to_string(ch.kind)},
          {"mode", to_string(ch.mode)},
          {"previous_governor", ch.previous_governor},
          {"governor", ch.governor},
          {"locked_freq", ch.target_freq ? json(*ch.target_freq) : json(nullptr)},
          {"unit", ch.unit},
          {"cur_freq", cur ? json(*cur) : json(nullptr)},
          {"held", channel_held},
          {"reason", reason}};
}

}  // namespace

bool frequency_matches(std::uint64_t cur, std::uint64_t locked) noexcept {
  const std::uint64_t diff = cur > locked ? cur - locked : locked - cur;
  return diff <= locked / 100;
}

struct FrequencyLock::State {
  SysfsRoot root;
  fs::path journal;
  LockPlan plan;
  json report;
  bool held = false;
  bool done = false;  // released or kept
};

FrequencyLock::FrequencyLock(std::unique_ptr<State> state) : state_(std::move(state)) {}
FrequencyLock::FrequencyLock(FrequencyLock&& other) noexcept = default;
FrequencyLock& FrequencyLock::operator=(FrequencyLock&& other) noexcept {
  if (this != &other) {
    if (state_ && !state_->done) {
      auto released = release();
      (void)released;  // on error the journal stays behind for the next start
    }
    state_ = std::move(other.state_);
  }
  return *this;
}
FrequencyLock::~FrequencyLock() {
  if (state_ && !state_->done) {
    auto released = release();
    (void)released;  // on error the journal stays behind for the next start
  }
}

Expected<FrequencyLock> FrequencyLock::acquire(const LockRequest& request) {
  auto journal = journal_path(request);
  if (!journal) return journal.error();
  auto root = SysfsRoot::open(request.sysfs_root);
  if (!root) return root.error();

  // 1. A journal left behind: restore it before reading the "previous" values again.
  json recovered = nullptr;
  {
    RestoreOptions ro;
    ro.command_hint = request.command_hint;
    auto restored = restore_from_journal(*journal, root->path(), ro);
    if (!restored) {
      Error e = restored.error();
      e.message = "an earlier lock is not restored, so nothing was locked: " + e.message;
      return e;
    }
    if (restored->value("found", false)) recovered = std::move(*restored);
  }

  // 2. Plan: every check before any write.
  auto plan = plan_lock(request);
  if (!plan) return plan.error();
  const std::vector<LockStep> steps = plan->steps();

  // 3. Permission, for the files that exist now (userspace/set_freq appears with the governor).
  for (const auto& step : steps) {
    if (!step.value || !root->exists(step.file)) continue;
    if (auto ok = root->check_writable(step.file, *step.value, request.command_hint); !ok)
      return ok.error();
  }

  // 4. The journal, before the first write.
  LockJournal lj;
  lj.sysfs_root = root->path().string();
  lj.pid = ::getpid();
  lj.boot_id = current_boot_id();
  lj.started_unix_s = static_cast<std::int64_t>(std::time(nullptr));
  lj.command = request.command_hint;
  lj.steps = steps;
  if (auto ok = write_journal(*journal, lj); !ok) return ok.error();

  // 5. The writes; a failure undoes the ones done.
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (!steps[i].value) continue;
    auto written = root->write(steps[i].file, *steps[i].value, request.command_hint);
    if (written) continue;
    Error e = written.error();
    const std::vector<LockStep> done(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(i));
    RestoreOutcome undo = restore_steps(*root, done, request.command_hint);
    std::error_code ec;
    if (!undo.error) {
      fs::remove(*journal, ec);
      e.message += "; the values written before it were restored";
    } else {
      e.message += fmt::format(
          "; rolling back failed too ({}): the journal {} is kept, run "
          "`sudo tokscope unlock --sysfs-root {} --lock-journal {}`",
          undo.error->message, journal->string(), root->path().string(), journal->string());
    }
    return e;
  }

  // 6. Verify.
  auto state = std::make_unique<State>(State{*root, *journal, std::move(*plan), json(), true});
  json channels = json::array();
  json writes = json::array();
  json notes = state->plan.notes;
  for (const auto& ch : state->plan.channels) {
    channels.push_back(verify_channel(state->root, ch, writes, state->held));
    for (const auto& n : ch.notes) notes.push_back(ch.name + ": " + n);
  }
  state->report = {{"schema", kLockReportSchema},
                   {"dry_run", false},
                   {"sysfs_root", state->root.path().string()},
                   {"journal", state->journal.string()},
                   {"pid", lj.pid},
                   {"recovered", recovered},
                   {"channels", channels},
                   {"writes", writes},
                   {"held", state->held},
                   {"notes", notes},
                   {"released", false},
                   {"kept", false},
                   {"release", nullptr}};
  return FrequencyLock(std::move(state));
}

json FrequencyLock::report() const {
  return state_ ? state_->report : json(nullptr);
}

bool FrequencyLock::held() const noexcept {
  return state_ && state_->held;
}

bool FrequencyLock::active() const noexcept {
  return state_ && !state_->done;
}

std::vector<LockedChannel> FrequencyLock::locked_channels() const {
  std::vector<LockedChannel> out;
  if (!state_) return out;
  for (const auto& ch : state_->plan.channels) {
    if (!ch.target_freq) continue;
    out.push_back(LockedChannel{ch.name + (ch.unit == "Hz" ? ".cur_hz" : ".cur_khz"), ch.cur_file,
                                *ch.target_freq, ch.unit});
  }
  return out;
}

Expected<void> FrequencyLock::release() {
  if (!state_ || state_->done) return {};
  state_->done = true;
  RestoreOutcome outcome =
      restore_steps(state_->root, state_->plan.steps(), state_->plan.command_hint);
  json release = outcome.report;
  if (outcome.error) {
    release["journal_removed"] = false;
    state_->report["release"] = release;
    Error e = *outcome.error;
    e.message = fmt::format(
        "restoring the lock: {}; the journal {} is kept: the next `tokscope "
        "lock` or `tokscope unlock` retries",
        e.message, state_->journal.string());
    return e;
  }
  std::error_code ec;
  fs::remove(state_->journal, ec);
  release["journal_removed"] = !ec;
  state_->report["released"] = true;
  state_->report["release"] = release;
  if (ec) {
    return make_error(ErrorKind::kIo,
                      fmt::format("restored, but cannot remove the lock journal {}: {}",
                                  state_->journal.string(), ec.message()));
  }
  return {};
}

void FrequencyLock::keep() noexcept {
  if (!state_ || state_->done) return;
  state_->done = true;
  state_->report["kept"] = true;
}

Expected<json> describe_lock(const LockRequest& request) {
  auto journal = journal_path(request);
  if (!journal) return journal.error();
  auto plan = plan_lock(request);
  if (!plan) return plan.error();
  json leftover = nullptr;
  auto read = read_journal(*journal);
  if (!read) return read.error();
  if (read->has_value()) {
    const LockJournal& lj = **read;
    leftover = {{"pid", lj.pid},
                {"running", holder_alive(lj)},
                {"sysfs_root", lj.sysfs_root},
                {"steps", lj.steps.size()}};
  }
  json doc = to_json(*plan);
  json notes = doc["notes"];
  for (const auto& ch : plan->channels) {
    for (const auto& n : ch.notes) notes.push_back(ch.name + ": " + n);
  }
  doc["notes"] = notes;
  doc["schema"] = kLockReportSchema;
  doc["dry_run"] = true;
  doc["journal"] = journal->string();
  doc["leftover_journal"] = leftover;
  return doc;
}

}  // namespace tokscope::platform::lock
