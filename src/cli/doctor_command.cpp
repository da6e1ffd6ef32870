#include "cli/doctor_command.hpp"

#include <fmt/format.h>

#include <ostream>
#include <string>
#include <vector>

#include "cli/output.hpp"
#include "platform/doctor/checks.hpp"
#include "platform/doctor/gather.hpp"

namespace tokscope::cli {

struct DoctorCommandOptions {
  std::string root = "/";
  double interval_s = 1.0;
  std::string model_file;
  std::vector<std::string> skip;
  std::string format = "md";
  std::string out;
};

namespace {

using nlohmann::json;
namespace dr = platform::doctor;

constexpr const char* kDoctorFooter = R"(
Checks (each prints a finding every time, `ok` when fine):
  build      debug or sanitizer build                  thermal    headroom to the passive trip
  cpu-load   other processes using CPU (--interval-s)  governors  cpufreq governors not locked
  ddr        DDR (devfreq dmc) not at its highest      npu        NPU devfreq not locked
  swap       zram swap on, or swappiness > 10          cpuidle    deep idle states enabled
  counters   hardware counters unavailable             memlock    RLIMIT_MEMLOCK < 1 GiB / model

Severities:
  blocking  measurements taken now would be wrong: a debug/sanitizer build, a thermal zone at or
            over its passive trip, other processes using more than 50% of a core in total
  warning   valid but less repeatable or comparable: apply the fix before a run you publish
  info      the check could not run here ("unavailable: reason") or was --skip'ped
  ok        checked and fine
Every fix is the exact command for the machine the tree belongs to (board paths /sys/..., also
under --sysfs-root). A missing source (no cpufreq, thermal or PMU in a VM) is info, never an
error.

Examples:
  tokscope doctor                                   # this machine, 1 s CPU sample
  tokscope doctor --model-file qwen2.5-1.5b.rkllm   # mlock limit checked against the model size
  tokscope doctor --sysfs-root ./board-copy --interval-s 0 -o json
  tokscope doctor --skip build                      # a debug build on purpose: not blocking

Exit codes: 0 no blocking finding; 1 a blocking finding; 2 bad usage.)";

std::string cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += "<br>";
    } else {
      out += c;
    }
  }
  return out;
}

std::string fix_cell(const std::vector<std::string>& fix) {
  std::string out;
  for (const auto& cmd : fix) {
    if (!out.empty()) out += "<br>";
    out += "`" + cell(cmd) + "`";
  }
  return out.empty() ? "–" : out;
}

std::string severity_cell(dr::Severity s) {
  switch (s) {
    case dr::Severity::kBlocking:
      return "**BLOCKING**";
    case dr::Severity::kWarning:
      return "warning";
    case dr::Severity::kInfo:
      return "info";
    case dr::Severity::kOk:
      return "ok";
  }
  return "info";
}

std::string summary(const std::vector<dr::Finding>& findings) {
  const auto blocking = dr::count(findings, dr::Severity::kBlocking);
  return fmt::format("{} blocking, {} warning(s), {} info, {} ok: {}", blocking,
                     dr::count(findings, dr::Severity::kWarning),
                     dr::count(findings, dr::Severity::kInfo),
                     dr::count(findings, dr::Severity::kOk),
                     blocking > 0 ? "measurements taken now would be wrong (exit 1)"
                                  : "no blocking finding (exit 0)");
}

std::string render_md(const std::string& root, const std::vector<dr::Finding>& findings) {
  std::string out = fmt::format("# tokscope doctor: {}\n\n", root);
  out += "| severity | check | finding | fix |\n|---|---|---|---|\n";
  for (const auto& f : findings) {
    const std::string detail = f.detail.empty() ? "" : "<br><sub>" + cell(f.detail) + "</sub>";
    out += fmt::format("| {} | {} | {}{} | {} |\n", severity_cell(f.severity), f.id, cell(f.title),
                       detail, fix_cell(f.fix));
  }
  return out + "\n**" + summary(findings) + "**\n";
}

json render_json(const std::string& root, const std::vector<dr::Finding>& findings) {
  json list = json::array();
  for (const auto& f : findings) list.push_back(dr::to_json(f));
  return {{"schema", "tokscope.doctor/1"},
          {"root", root},
          {"findings", list},
          {"blocking", dr::count(findings, dr::Severity::kBlocking)},
          {"warnings", dr::count(findings, dr::Severity::kWarning)},
          {"info", dr::count(findings, dr::Severity::kInfo)},
          {"ok", dr::count(findings, dr::Severity::kOk)}};
}

}  // namespace

std::shared_ptr<DoctorCommandOptions> add_doctor_command(CLI::App& app) {
  auto o = std::make_shared<DoctorCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "doctor", "Pre-flight checklist of the platform, with the exact fix for each finding");
  cmd->footer(kDoctorFooter);
  cmd->add_option("--sysfs-root", o->root, "Root of /sys and /proc (a tree copied from a board)")
      ->type_name("DIR")
      ->capture_default_str();
  cmd->add_option("--interval-s", o->interval_s,
                  "Seconds between the two /proc/<pid>/stat snapshots (0: skip cpu-load)")
      ->type_name("S")
      ->capture_default_str();
  cmd->add_option("--model-file", o->model_file,
                  "Model file to be run: the mlock limit must cover its size")
      ->type_name("FILE");
  cmd->add_option("--skip", o->skip, "Report this check as skipped (info); repeatable")
      ->type_name("CHECK");
  cmd->add_option("-o,--format", o->format, "md|json")
      ->check(CLI::IsMember({"md", "json"}))
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Write to FILE instead of stdout")->type_name("FILE");
  return o;
}

int run_doctor_command(const DoctorCommandOptions& o, std::ostream& out, std::ostream& err) {
  const auto fail = [&](const Error& e) {
    err << "tokscope doctor: error: " << e.message << "\n";
    return exit_code_for(e);
  };
  dr::GatherOptions go;
  go.root = o.root;
  go.interval_s = o.interval_s;
  if (!o.model_file.empty()) go.model_file = o.model_file;
  auto inputs = dr::gather_inputs(go);
  if (!inputs) return fail(inputs.error());
  auto findings = dr::apply_skips(dr::run_checks(*inputs), o.skip);
  if (!findings) return fail(findings.error());
  dr::sort_by_severity(*findings);
  const std::string text = o.format == "json" ? render_json(o.root, *findings).dump(2) + "\n"
                                              : render_md(o.root, *findings);
  if (auto w = write_text(text, o.out, out); !w) return fail(w.error());
  return dr::count(*findings, dr::Severity::kBlocking) > 0 ? 1 : 0;
}

}  // namespace tokscope::cli
