#include "platform/lock/lock_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "platform/lock/freq_check.hpp"
#include "platform/lock/sysfs_access.hpp"

namespace tokscope::platform::lock {
namespace {

using nlohmann::json;

constexpr const char* kCpufreqDir = "sys/devices/system/cpu/cpufreq";
constexpr const char* kDevfreqDir = "sys/class/devfreq";

std::optional<std::uint64_t> to_u64(const std::string& text) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> read_number(const SysfsRoot& root, const std::string& file) {
  auto text = root.read(file);
  return text ? to_u64(*text) : std::nullopt;
}

// The words of an available_governors file contain name. An unreadable file counts as yes: the
// governor write then fails with the kernel's own answer.
bool offers_governor(const SysfsRoot& root, const std::string& file, std::string_view name) {
  auto text = root.read(file);
  if (!text) return true;
  std::size_t i = 0;
  const std::string& t = *text;
  while (i < t.size()) {
    const std::size_t j = std::min(t.find_first_of(" \t\n", i), t.size());
    if (std::string_view(t).substr(i, j - i) == name) return true;
    i = j + 1;
  }
  return false;
}

std::vector<std::uint64_t> available_frequencies(const SysfsRoot& root, const std::string& file) {
  auto text = root.read(file);
  if (!text) return {};
  auto list = parse_frequency_list(*text);
  return list ? std::move(*list) : std::vector<std::uint64_t>{};
}

Expected<std::string> read_required(const SysfsRoot& root, const std::string& file,
                                    const std::string& channel) {
  auto text = root.read(file);
  if (text) return std::move(*text);
  if (text.error().kind == ErrorKind::kUsage) return text.error();  // outside the root
  return make_error(ErrorKind::kUnavailable,
                    fmt::format("cannot lock {}: {}", channel, text.error().message));
}

// Steps that keep min <= max at every moment: raising → max first, lowering → min first.
Expected<void> add_pin_steps(const SysfsRoot& root, ChannelPlan& ch, const std::string& min_file,
                             const std::string& max_file, std::uint64_t freq) {
  auto prev_min = read_required(root, min_file, ch.name);
  if (!prev_min) return prev_min.error();
  auto prev_max = read_required(root, max_file, ch.name);
  if (!prev_max) return prev_max.error();
  const std::string value = std::to_string(freq);
  LockStep min_step{min_file, *prev_min, value, true};
  LockStep max_step{max_file, *prev_max, value, true};
  const auto old_max = to_u64(*prev_max);
  if (old_max && freq > *old_max) {
    ch.steps.push_back(std::move(max_step));
    ch.steps.push_back(std::move(min_step));
  } else {
    ch.steps.push_back(std::move(min_step));
    ch.steps.push_back(std::move(max_step));
  }
  return {};
}

// Checks freq against the list, or against [min, max] when the device publishes no list.
Expected<void> check_against(const SysfsRoot& root, ChannelPlan& ch, const std::string& flag,
                             std::uint64_t freq, const std::vector<std::uint64_t>& available,
                             const std::string& min_file, const std::string& max_file) {
  if (!available.empty()) return check_frequency(flag, ch.name, freq, available, ch.unit);
  const auto lo = read_number(root, min_file);
  const auto hi = read_number(root, max_file);
  if ((lo && freq < *lo) || (hi && freq > *hi)) {
    return make_error(
        ErrorKind::kUsage,
        fmt::format("{} {}: outside the range of {} ({} to {} {})", flag, freq, ch.name,
                    lo ? std::to_string(*lo) : "?", hi ? std::to_string(*hi) : "?", ch.unit));
  }
  ch.notes.push_back(
      fmt::format("no list of available frequencies: {} {} checked against the "
                  "range only",
                  freq, ch.unit));
  return {};
}

// Under the userspace governor the kernel clamps the set frequency to [min, max].
void note_clamp(const SysfsRoot& root, ChannelPlan& ch, std::uint64_t freq,
                const std::string& min_file, const std::string& max_file) {
  const auto lo = read_number(root, min_file);
  const auto hi = read_number(root, max_file);
  if ((lo && freq < *lo) || (hi && freq > *hi)) {
    ch.notes.push_back(
        fmt::format("the kernel limits {} to {}..{} {}: {} {} will be clamped and "
                    "the lock will not hold",
                    ch.name, lo ? std::to_string(*lo) : "?", hi ? std::to_string(*hi) : "?",
                    ch.unit, freq, ch.unit));
  }
}

// A channel already under the userspace governor: its set frequency, restored last.
void add_userspace_snapshot(const SysfsRoot& root, ChannelPlan& ch, const std::string& file) {
  if (ch.previous_governor != "userspace") return;
  auto text = root.read(file);
  if (!text) return;
  const auto freq = to_u64(*text);
  if (freq && *freq > 0) ch.steps.push_back(LockStep{file, *text, std::nullopt, true});
}

struct Files {
  std::string governor, available_governors, available_freqs, set_freq, min, max, cur;
};

Expected<ChannelPlan> plan_channel(const SysfsRoot& root, ChannelPlan ch, const Files& f,
                                   std::optional<std::uint64_t> want, const std::string& flag,
                                   bool default_userspace_at_max) {
  auto gov = read_required(root, f.governor, ch.name);
  if (!gov) return gov.error();
  ch.previous_governor = *gov;
  ch.cur_file = f.cur;
  const auto available = available_frequencies(root, f.available_freqs);
  if (want) {
    if (auto ok = check_against(root, ch, flag, *want, available, f.min, f.max); !ok) {
      return ok.error();
    }
  } else if (default_userspace_at_max) {
    want = !available.empty() ? std::optional(available.back()) : read_number(root, f.max);
    if (!want) ch.notes.push_back("no available frequencies and no max: governor performance");
  }
  add_userspace_snapshot(root, ch, f.set_freq);
  if (!want) {
    ch.mode = LockMode::kPerformance;
    ch.governor = "performance";
    ch.target_freq = read_number(root, f.max);
    ch.steps.push_back(LockStep{f.governor, *gov, ch.governor, true});
    return ch;
  }
  ch.target_freq = want;
  if (offers_governor(root, f.available_governors, "userspace")) {
    ch.mode = LockMode::kUserspace;
    ch.governor = "userspace";
    note_clamp(root, ch, *want, f.min, f.max);
    ch.steps.push_back(LockStep{f.governor, *gov, ch.governor, true});
    // Before the switch the file may be absent (devfreq) or read "<unsupported>" (cpufreq); it
    // is never written back (the governor is, and a userspace snapshot above when there was one).
    auto prev = root.read(f.set_freq);
    ch.steps.push_back(LockStep{f.set_freq, prev ? *prev : "", std::to_string(*want), false});
    return ch;
  }
  ch.mode = LockMode::kPin;
  ch.governor = "performance";
  ch.notes.push_back(
      "no userspace governor offered: pinned with governor performance and "
      "min = max");
  ch.steps.push_back(LockStep{f.governor, *gov, ch.governor, true});
  if (auto ok = add_pin_steps(root, ch, f.min, f.max, *want); !ok) return ok.error();
  return ch;
}

// policy0, policy4, policy6, policy10: numeric order.
std::vector<std::string> cpufreq_policies(const SysfsRoot& root) {
  auto names = root.list(kCpufreqDir);
  std::vector<std::string> out;
  if (!names) return out;
  for (const auto& n : *names) {
    if (n.size() > 6 && n.starts_with("policy") && to_u64(n.substr(6))) out.push_back(n);
  }
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
    return to_u64(a.substr(6)).value_or(0) < to_u64(b.substr(6)).value_or(0);
  });
  return out;
}

Expected<void> plan_cpus(const SysfsRoot& root, const LockRequest& req, LockPlan& plan) {
  const auto policies = cpufreq_policies(root);
  for (const auto& [name, khz] : req.cpu_policy_freq_khz) {
    if (std::find(policies.begin(), policies.end(), name) == policies.end()) {
      return make_error(
          ErrorKind::kUsage,
          fmt::format("--cpu-freq {}={}: no cpufreq {} under {} (found: {})", name, khz, name,
                      (root.path() / kCpufreqDir).string(),
                      policies.empty() ? "none" : fmt::format("{}", fmt::join(policies, " "))));
    }
  }
  if (policies.empty()) {
    if (req.cpu_freq_khz) {
      return make_error(ErrorKind::kUsage, fmt::format("--cpu-freq: no cpufreq policy under {}",
                                                       (root.path() / kCpufreqDir).string()));
    }
    plan.notes.push_back(fmt::format("CPU not locked: no cpufreq policy under {}",
                                     (root.path() / kCpufreqDir).string()));
    return {};
  }
  for (const auto& policy : policies) {
    const std::string dir = std::string(kCpufreqDir) + "/" + policy;
    ChannelPlan ch;
    ch.name = "cpufreq." + policy;
    ch.kind = ChannelKind::kCpu;
    ch.dir = dir;
    ch.unit = "kHz";
    const Files f{dir + "/scaling_governor",
                  dir + "/scaling_available_governors",
                  dir + "/scaling_available_frequencies",
                  dir + "/scaling_setspeed",
                  dir + "/scaling_min_freq",
                  dir + "/scaling_max_freq",
                  dir + "/scaling_cur_freq"};
    std::optional<std::uint64_t> want = req.cpu_freq_khz;
    std::string flag = "--cpu-freq";
    if (auto it = req.cpu_policy_freq_khz.find(policy); it != req.cpu_policy_freq_khz.end()) {
      want = it->second;
      flag = "--cpu-freq " + policy + "=";
    }
    auto planned = plan_channel(root, std::move(ch), f, want, flag, false);
    if (!planned) {
      Error e = planned.error();
      if (e.kind == ErrorKind::kUsage && req.cpu_freq_khz && req.cpu_policy_freq_khz.empty() &&
          policies.size() > 1) {
        std::vector<std::string> example;
        for (const auto& p : policies) {
          const auto list = available_frequencies(
              root, std::string(kCpufreqDir) + "/" + p + "/scaling_available_frequencies");
          if (!list.empty()) example.push_back(fmt::format("{}={}", p, list.back()));
        }
        e.message += fmt::format(
            "; the policies offer different frequencies: give one per policy, e.g. "
            "--cpu-freq {}",
            fmt::join(example, ","));
      }
      return e;
    }
    plan.channels.push_back(std::move(*planned));
  }
  return {};
}

struct DevfreqWanted {
  ChannelKind kind;
  std::optional<std::uint64_t> freq_hz;
  const char* flag;
  const char* label;
};

bool matches(ChannelKind kind, const std::string& name) {
  switch (kind) {
    case ChannelKind::kDdr:
      return name == "dmc";
    case ChannelKind::kNpu:
      return name.ends_with(".npu");
    case ChannelKind::kGpu:
      return name.ends_with(".gpu");
    case ChannelKind::kCpu:
      return false;
  }
  return false;
}

Expected<void> plan_devfreq(const SysfsRoot& root, const LockRequest& req, LockPlan& plan) {
  const auto listed = root.list(kDevfreqDir);
  const std::vector<std::string> names = listed ? *listed : std::vector<std::string>{};
  const DevfreqWanted wanted[] = {
      {ChannelKind::kDdr, req.ddr_freq_hz, "--ddr-freq", "DDR (devfreq dmc)"},
      {ChannelKind::kNpu, req.npu_freq_hz, "--npu-freq", "NPU (devfreq *.npu)"},
      {ChannelKind::kGpu, req.gpu_freq_hz, "--gpu-freq", "GPU (devfreq *.gpu)"}};
  for (const auto& w : wanted) {
    bool found = false;
    for (const auto& name : names) {
      if (!matches(w.kind, name)) continue;
      found = true;
      const std::string dir = std::string(kDevfreqDir) + "/" + name;
      ChannelPlan ch;
      ch.name = "devfreq." + name;
      ch.kind = w.kind;
      ch.dir = dir;
      ch.unit = "Hz";
      const Files f{dir + "/governor",
                    dir + "/available_governors",
                    dir + "/available_frequencies",
                    dir + "/userspace/set_freq",
                    dir + "/min_freq",
                    dir + "/max_freq",
                    dir + "/cur_freq"};
      auto planned =
          plan_channel(root, std::move(ch), f, w.freq_hz, w.flag, w.kind == ChannelKind::kDdr);
      if (!planned) return planned.error();
      plan.channels.push_back(std::move(*planned));
    }
    if (found) continue;
    const std::string where = (root.path() / kDevfreqDir).string();
    if (w.freq_hz) {
      return make_error(ErrorKind::kUsage,
                        fmt::format("{} {}: no {} under {}{}", w.flag, *w.freq_hz, w.label, where,
                                    w.kind == ChannelKind::kDdr
                                        ? " (some RK3588 UEFI/ATF firmware builds expose no dmc)"
                                        : ""));
    }
    plan.notes.push_back(fmt::format("{} not locked: none under {}", w.label, where));
  }
  for (const auto& name : names) {
    if (!matches(ChannelKind::kDdr, name) && !matches(ChannelKind::kNpu, name) &&
        !matches(ChannelKind::kGpu, name)) {
      plan.notes.push_back(fmt::format("devfreq {} not locked: not DDR, NPU or GPU", name));
    }
  }
  return {};
}

}  // namespace

const char* to_string(ChannelKind kind) noexcept {
  switch (kind) {
    case ChannelKind::kCpu:
      return "cpu";
    case ChannelKind::kDdr:
      return "ddr";
    case ChannelKind::kNpu:
      return "npu";
    case ChannelKind::kGpu:
      return "gpu";
  }
  return "?";
}

const char* to_string(LockMode mode) noexcept {
  switch (mode) {
    case LockMode::kPerformance:
      return "performance";
    case LockMode::kUserspace:
      return "userspace";
    case LockMode::kPin:
      return "pin";
  }
  return "?";
}

std::vector<LockStep> LockPlan::steps() const {
  std::vector<LockStep> out;
  for (const auto& ch : channels) out.insert(out.end(), ch.steps.begin(), ch.steps.end());
  return out;
}

Expected<LockPlan> plan_lock(const LockRequest& request) {
  auto root = SysfsRoot::open(request.sysfs_root);
  if (!root) return root.error();
  LockPlan plan;
  plan.sysfs_root = root->path();
  plan.command_hint = request.command_hint;
  if (auto ok = plan_cpus(*root, request, plan); !ok) return ok.error();
  if (auto ok = plan_devfreq(*root, request, plan); !ok) return ok.error();
  if (plan.channels.empty()) {
    return make_error(ErrorKind::kUnavailable,
                      fmt::format("nothing to lock under {}: no cpufreq policy and no DDR, NPU or "
                                  "GPU devfreq device",
                                  root->path().string()));
  }
  return plan;
}

json to_json(const LockStep& step) {
  return {{"file", step.file},
          {"previous", step.previous},
          {"value", step.value ? json(*step.value) : json(nullptr)},
          {"restore", step.restore}};
}

json to_json(const ChannelPlan& ch) {
  json steps = json::array();
  for (const auto& s : ch.steps) steps.push_back(to_json(s));
  return {{"name", ch.name},
          {"kind", to_string(ch.kind)},
          {"dir", ch.dir},
          {"mode", to_string(ch.mode)},
          {"previous_governor", ch.previous_governor},
          {"governor", ch.governor},
          {"target_freq", ch.target_freq ? json(*ch.target_freq) : json(nullptr)},
          {"unit", ch.unit},
          {"cur_file", ch.cur_file},
          {"notes", ch.notes},
          {"steps", steps}};
}

json to_json(const LockPlan& plan) {
  json channels = json::array();
  for (const auto& ch : plan.channels) channels.push_back(to_json(ch));
  return {{"sysfs_root", plan.sysfs_root.string()}, {"channels", channels}, {"notes", plan.notes}};
}

}  // namespace tokscope::platform::lock
