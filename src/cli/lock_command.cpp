#include "cli/lock_command.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <ctime>
#include <ostream>

#include "cli/output.hpp"
#include "platform/interrupt.hpp"
#include "platform/lock/freq_check.hpp"
#include "platform/lock/frequency_lock.hpp"
#include "platform/lock/lock_journal.hpp"

namespace tokscope::cli {

struct LockCommandOptions {
  LockFlags flags;
  std::string root = "/";
  bool hold = false;
  bool keep = false;
  bool dry_run = false;
  std::string format = "md";
};

struct UnlockCommandOptions {
  std::string root = "/";
  std::string journal;
  bool force = false;
  std::string format = "md";
};

namespace {

using nlohmann::json;
namespace lk = platform::lock;

constexpr const char* kLockFooter = R"(
What is locked (every channel found under --sysfs-root; absent ones are noted):
  CPU  cpufreq policy* (kHz): governor performance, or userspace + scaling_setspeed with
       --cpu-freq (min = max as fallback when the userspace governor is not offered)
  DDR  devfreq dmc (Hz): governor userspace + set_freq at --ddr-freq, else its highest frequency
  NPU  devfreq *.npu, GPU devfreq *.gpu (Hz): performance, or userspace + set_freq
Every frequency must be one the device lists in available_frequencies; a slip of scale
(211200000 for 2112000000) is refused with the value meant.

Before the first write the previous values go to the lock journal (atomic write); they are
restored in reverse order at exit, on Ctrl-C/SIGTERM, and after a kill -9 by the next
`tokscope lock` or `tokscope unlock`. Needs root on a real board.

Modes:
  (none)   lock, read every value back, report, restore: a check that the lock takes
  --hold   keep the lock until Ctrl-C or SIGTERM, then restore
  --keep   leave it locked; `tokscope unlock` restores

Examples (RK3588, the values of Rockchip's fix_freq_rk3588.sh):
  sudo tokscope lock --hold --ddr-freq 2112000000 --npu-freq 1000000000 \
       --gpu-freq 1000000000 --cpu-freq policy0=1800000,policy4=2352000,policy6=2352000
  tokscope lock --dry-run
  sudo tokscope unlock

Exit codes: 0 locked, held and restored; 1 a value did not hold or could not be restored;
2 bad usage (a frequency not offered, a path outside the root, not root).)";

Expected<std::optional<std::uint64_t>> optional_hz(const std::string& text, const char* flag) {
  if (text.empty()) return std::optional<std::uint64_t>();
  auto v = lk::parse_frequency_flag(flag, text, "Hz");
  if (!v) return v.error();
  return std::optional<std::uint64_t>(*v);
}

std::string freq_text(const json& value, const json& unit) {
  if (!value.is_number()) return "–";
  return fmt::format("{} {}", value.get<std::uint64_t>(),
                     unit.is_string() ? unit.get<std::string>() : "");
}

std::string render_notes(const json& doc) {
  std::string out;
  for (const auto& n : doc.value("notes", json::array())) {
    out += fmt::format("- Note: {}\n", n.is_string() ? n.get<std::string>() : n.dump());
  }
  return out;
}

std::string render_restore(const json& r, const char* what) {
  const auto restored = r.value("restored", json::array()).size();
  std::string out = fmt::format(
      "- **{}:** {} value(s) written back in reverse order, {} already "
      "had their previous value",
      what, restored, r.value("unchanged", 0));
  out += r.value("journal_removed", false) ? "; journal removed\n" : "; journal KEPT\n";
  for (const auto& f : r.value("failed", json::array())) {
    out += fmt::format("  - FAILED {}: {}\n", f.value("file", ""), f.value("error", ""));
  }
  return out;
}

std::string render_lock_md(const json& d) {
  std::string out = fmt::format("# Frequency lock{}\n\n",
                                d.value("dry_run", false) ? ": dry run (nothing written)" : "");
  out += fmt::format("- **Sysfs root:** {}\n- **Journal:** {}\n", d.value("sysfs_root", ""),
                     d.value("journal", ""));
  const json recovered = d.value("recovered", json());
  if (recovered.is_object()) {
    out += render_restore(recovered, fmt::format("Restored first (an earlier lock by pid {} was "
                                                 "left behind)",
                                                 recovered.value("pid", 0))
                                         .c_str());
  }
  const json leftover = d.value("leftover_journal", json());
  if (leftover.is_object()) {
    out += fmt::format(
        "- **Left-over journal** of pid {} ({}): it would be restored first\n",
        leftover.value("pid", 0),
        leftover.value("running", false) ? "still running: would be refused" : "not running");
  }
  out += "\n";
  if (d.value("dry_run", false)) {
    out += "| channel | mode | governor | locked to |\n|---|---|---|---:|\n";
    for (const auto& c : d.value("channels", json::array())) {
      out += fmt::format("| {} | {} | {} → {} | {} |\n", c.value("name", ""), c.value("mode", ""),
                         c.value("previous_governor", ""), c.value("governor", ""),
                         freq_text(c.value("target_freq", json()), c.value("unit", json())));
    }
    out += "\nWrites, in order (restore runs them backwards with the previous values):\n\n";
    for (const auto& c : d.value("channels", json::array())) {
      for (const auto& s : c.value("steps", json::array())) {
        const json value = s.value("value", json());
        out += value.is_string() ? fmt::format("- {}: '{}' → '{}'\n", s.value("file", ""),
                                               s.value("previous", ""), value.get<std::string>())
                                 : fmt::format("- {}: '{}' (kept for the restore, not written)\n",
                                               s.value("file", ""), s.value("previous", ""));
      }
    }
    return out + "\n" + render_notes(d);
  }
  out +=
      "| channel | mode | governor | locked to | current | held |\n|---|---|---|---:|---:|---|\n";
  for (const auto& c : d.value("channels", json::array())) {
    out +=
        fmt::format("| {} | {} | {} → {} | {} | {} | {} |\n", c.value("name", ""),
                    c.value("mode", ""), c.value("previous_governor", ""), c.value("governor", ""),
                    freq_text(c.value("locked_freq", json()), c.value("unit", json())),
                    freq_text(c.value("cur_freq", json()), c.value("unit", json())),
                    c.value("held", false) ? "yes" : "**NO**");
  }
  out += "\n";
  for (const auto& c : d.value("channels", json::array())) {
    const std::string reason = c.value("reason", "");
    if (!reason.empty()) out += fmt::format("- {}: {}\n", c.value("name", ""), reason);
  }
  out += d.value("held", false) ? "- **Held:** every value read back as written\n"
                                : "- **Held: NO**: see the channels above\n";
  const json release = d.value("release", json());
  if (release.is_object()) out += render_restore(release, "Restored");
  if (d.value("kept", false)) {
    out +=
        "- **Kept locked:** run `tokscope unlock` (same --sysfs-root and --lock-journal) to "
        "restore\n";
  }
  return out + render_notes(d);
}

std::string render_unlock_md(const json& r) {
  if (!r.value("found", false)) {
    return fmt::format("Nothing to restore: no lock journal at {}\n", r.value("journal", ""));
  }
  std::string out = fmt::format("# Unlock\n\n- **Journal:** {} (lock taken by pid {}, `{}`)\n",
                                r.value("journal", ""), r.value("pid", 0), r.value("command", ""));
  out += render_restore(r, "Restored");
  for (const auto& f : r.value("restored", json::array())) {
    out += fmt::format("  - {}: '{}' → '{}'\n", f.value("file", ""),
                       f.value("from", json()).is_string() ? f["from"].get<std::string>() : "?",
                       f.value("to", ""));
  }
  return out;
}

std::string render(const json& doc, const std::string& format, bool unlock) {
  if (format == "json") return doc.dump(2) + "\n";
  return unlock ? render_unlock_md(doc) : render_lock_md(doc);
}

// Sleeps until SIGINT/SIGTERM. nanosleep returns early with EINTR when the signal arrives (the
// guard installs its handlers without SA_RESTART), so the wait ends at once; the 200 ms bound
// covers a signal landing between the check and the sleep.
void wait_for_signal(const platform::InterruptGuard& guard) {
  while (!guard.flag().load()) {
    timespec ts{0, 200'000'000};
    ::nanosleep(&ts, nullptr);
  }
}

}  // namespace

void add_lock_frequency_flags(CLI::App& cmd, LockFlags& flags) {
  cmd.add_option("--ddr-freq", flags.ddr_freq_hz,
                 "DDR (devfreq dmc) frequency in Hz, e.g. 2112000000 (default: the highest)")
      ->type_name("HZ");
  cmd.add_option("--npu-freq", flags.npu_freq_hz,
                 "NPU frequency in Hz, e.g. 1000000000 (default: governor performance)")
      ->type_name("HZ");
  cmd.add_option("--gpu-freq", flags.gpu_freq_hz,
                 "GPU frequency in Hz, e.g. 1000000000 (default: governor performance)")
      ->type_name("HZ");
  cmd.add_option("--cpu-freq", flags.cpu_freq_khz,
                 "CPU frequency in kHz for every policy, or POLICY=KHZ,... "
                 "(default: governor performance)")
      ->type_name("KHZ");
  cmd.add_option("--lock-journal", flags.journal,
                 "Lock journal file (default $XDG_STATE_HOME/tokscope/lock-journal.json or "
                 "~/.local/state/tokscope/lock-journal.json)")
      ->type_name("FILE");
}

Expected<lk::LockRequest> make_lock_request(const LockFlags& flags, const std::string& sysfs_root,
                                            std::string command_hint) {
  lk::LockRequest req;
  req.sysfs_root = sysfs_root;
  req.command_hint = std::move(command_hint);
  auto ddr = optional_hz(flags.ddr_freq_hz, "--ddr-freq");
  if (!ddr) return ddr.error();
  req.ddr_freq_hz = *ddr;
  auto npu = optional_hz(flags.npu_freq_hz, "--npu-freq");
  if (!npu) return npu.error();
  req.npu_freq_hz = *npu;
  auto gpu = optional_hz(flags.gpu_freq_hz, "--gpu-freq");
  if (!gpu) return gpu.error();
  req.gpu_freq_hz = *gpu;
  if (!flags.cpu_freq_khz.empty()) {
    auto cpu = lk::parse_cpu_freq_flag(flags.cpu_freq_khz);
    if (!cpu) return cpu.error();
    req.cpu_freq_khz = cpu->all_khz;
    req.cpu_policy_freq_khz = std::move(cpu->per_policy_khz);
  }
  if (!flags.journal.empty()) {
    req.journal = flags.journal;
  } else {
    auto path = lk::default_journal_path();
    if (!path) return path.error();
    req.journal = *path;
  }
  return req;
}

std::shared_ptr<LockCommandOptions> add_lock_command(CLI::App& app) {
  auto o = std::make_shared<LockCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "lock", "Lock CPU/DDR/NPU/GPU frequencies (checked, journaled, read back, restored)");
  cmd->footer(kLockFooter);
  add_lock_frequency_flags(*cmd, o->flags);
  cmd->add_option("--sysfs-root", o->root, "Root of /sys (a copied tree for a rehearsal)")
      ->type_name("DIR")
      ->capture_default_str();
  auto* hold = cmd->add_flag("--hold", o->hold, "Keep the lock until Ctrl-C or SIGTERM");
  auto* keep = cmd->add_flag("--keep", o->keep, "Leave it locked; `tokscope unlock` restores");
  auto* dry = cmd->add_flag("--dry-run", o->dry_run, "Print the writes; write nothing");
  hold->excludes(keep);
  dry->excludes(hold)->excludes(keep);
  cmd->add_option("-o,--format", o->format, "md|json")
      ->check(CLI::IsMember({"md", "json"}))
      ->capture_default_str();
  return o;
}

int run_lock_command(const LockCommandOptions& o, std::ostream& out, std::ostream& err) {
  const auto fail = [&](const Error& e) {
    err << "tokscope lock: error: " << e.message << "\n";
    return exit_code_for(e);
  };
  auto request = make_lock_request(o.flags, o.root, "tokscope lock");
  if (!request) return fail(request.error());
  if (o.dry_run) {
    auto doc = lk::describe_lock(*request);
    if (!doc) return fail(doc.error());
    if (auto w = write_text(render(*doc, o.format, false), "", out); !w) return fail(w.error());
    return 0;
  }
  // Installed before acquire: a Ctrl-C during the writes is seen right after them and restores.
  const platform::InterruptGuard interrupt;
  auto lock = lk::FrequencyLock::acquire(*request);
  if (!lock) return fail(lock.error());
  const json recovered = lock->report()["recovered"];
  if (recovered.is_object()) {
    err << fmt::format(
        "tokscope lock: a lock left behind by pid {} ({}) was found in {}: restored {} value(s) "
        "first\n",
        recovered.value("pid", 0), recovered.value("command", ""), request->journal.string(),
        recovered.value("restored", json::array()).size());
  }
  const bool held = lock->held();
  if (!held) err << "tokscope lock: warning: the lock did not hold everywhere (see the report)\n";
  if (o.keep) {
    lock->keep();
    if (auto w = write_text(render(lock->report(), o.format, false), "", out); !w) {
      return fail(w.error());
    }
    err << "tokscope lock: left locked; `tokscope unlock";
    if (o.root != "/") err << " --sysfs-root " << o.root;
    err << " --lock-journal " << request->journal.string() << "` restores\n";
    return held ? 0 : 1;
  }
  if (o.hold) {
    if (auto w = write_text(render(lock->report(), o.format, false), "", out); !w) {
      return fail(w.error());
    }
    err << fmt::format(
        "tokscope lock: holding until Ctrl-C or `kill -TERM {}` (the journal {} restores after a "
        "kill -9)\n",
        ::getpid(), request->journal.string());
    err.flush();
    wait_for_signal(interrupt);
    auto released = lock->release();
    if (!released) return fail(released.error());
    err << fmt::format("tokscope lock: signal {}: restored {} value(s), journal removed\n",
                       interrupt.signal_number(),
                       lock->report()["release"].value("restored", json::array()).size());
    return held ? 0 : 1;
  }
  auto released = lock->release();
  if (auto w = write_text(render(lock->report(), o.format, false), "", out); !w) {
    return fail(w.error());
  }
  if (!released) return fail(released.error());
  return held ? 0 : 1;
}

std::shared_ptr<UnlockCommandOptions> add_unlock_command(CLI::App& app) {
  auto o = std::make_shared<UnlockCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "unlock", "Restore the frequencies of a lock left behind (after kill -9 or --keep)");
  cmd->footer(R"(
Writes back, in reverse order, the previous values recorded in the lock journal, then removes
it. Refuses while the tokscope that took the lock still runs (it restores by itself on Ctrl-C or
SIGTERM) unless --force. Nothing to restore is not an error.

Exit codes: 0 restored or nothing to restore; 1 a value could not be written back (the journal
is kept); 2 bad usage (another sysfs root, lock still held, not root).)");
  cmd->add_option("--sysfs-root", o->root, "Root of /sys the lock was taken under")
      ->type_name("DIR")
      ->capture_default_str();
  cmd->add_option("--lock-journal", o->journal,
                  "Lock journal file (default $XDG_STATE_HOME/tokscope/lock-journal.json or "
                  "~/.local/state/tokscope/lock-journal.json)")
      ->type_name("FILE");
  cmd->add_flag("--force", o->force, "Restore even if the locking process seems to run");
  cmd->add_option("-o,--format", o->format, "md|json")
      ->check(CLI::IsMember({"md", "json"}))
      ->capture_default_str();
  return o;
}

int run_unlock_command(const UnlockCommandOptions& o, std::ostream& out, std::ostream& err) {
  const auto fail = [&](const Error& e) {
    err << "tokscope unlock: error: " << e.message << "\n";
    return exit_code_for(e);
  };
  std::filesystem::path journal = o.journal;
  if (journal.empty()) {
    auto path = lk::default_journal_path();
    if (!path) return fail(path.error());
    journal = *path;
  }
  lk::RestoreOptions ro;
  ro.force = o.force;
  auto report = lk::restore_from_journal(journal, o.root, ro);
  if (!report) return fail(report.error());
  if (auto w = write_text(render(*report, o.format, true), "", out); !w) return fail(w.error());
  return 0;
}

}  // namespace tokscope::cli
