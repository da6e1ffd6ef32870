#include "platform/probe/probe.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <ctime>
#include <fstream>
#include <sstream>
#include <thread>

#include "platform/host_info.hpp"
#include "platform/probe/compute_kernels.hpp"
#include "platform/probe/memory_kernels.hpp"
#include "platform/topology.hpp"
#include "tokscope/build_info.hpp"

namespace tokscope::platform::probe {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kFloorBytes = 64 * kMiB;
constexpr std::uint64_t kQuickBytes = 2 * kMiB;

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

std::string mib(std::uint64_t bytes) {
  return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / static_cast<double>(kMiB));
}

// A group of cpus the kernels run on.
struct Group {
  std::string name;       // "all" or the core type's name
  std::string core_type;  // the core type it is, or "mixed" for "all" over several types
  std::vector<int> cpus;
};

json topology_json(const Topology& topo) {
  json types = json::array();
  for (const auto& t : topo.core_types.types) {
    json j = {{"name", t.name}, {"role", t.role}, {"cpus", format_cpu_list(t.cpus)}};
    if (t.capacity) j["capacity"] = *t.capacity;
    if (!t.part.empty()) j["part"] = t.part;
    // The group's highest cpuinfo_max_freq, when its cpus have one.
    std::optional<std::uint64_t> freq;
    for (const auto& f : topo.cpus) {
      if (f.max_freq_khz && std::find(t.cpus.begin(), t.cpus.end(), f.cpu) != t.cpus.end()) {
        freq = std::max(freq.value_or(0), *f.max_freq_khz);
      }
    }
    if (freq) j["max_freq_khz"] = *freq;
    types.push_back(std::move(j));
  }
  json out = {{"online_cpus", format_cpu_list(topo.online_cpus)},
              {"grouping", topo.core_types.basis},
              {"core_types", std::move(types)},
              {"notes", topo.notes}};
  if (!topo.online_unavailable.empty()) out["online_unavailable"] = topo.online_unavailable;
  if (topo.llc) {
    out["llc"] = {{"level", topo.llc->level}, {"type", topo.llc->type}, {"bytes", topo.llc->bytes}};
  } else {
    out["llc"] = topo.llc_unavailable;
  }
  return out;
}

json memory_group_json(const Group& g, const MemoryRunResult& r) {
  json kernels = json::object();
  for (const auto& k : r.kernels) {
    kernels[to_string(k.kernel)] = {{"bytes_per_pass", k.bytes_per_pass},
                                    {"best_gbps", k.best_gbps},
                                    {"avg_gbps", k.avg_gbps},
                                    {"min_gbps", k.min_gbps},
                                    {"max_gbps", k.max_gbps},
                                    {"seconds", k.seconds}};
  }
  return {{"name", g.name},
          {"core_type", g.core_type},
          {"cpus", format_cpu_list(g.cpus)},
          {"threads", r.threads},
          {"pin_failures", r.pin_failures},
          {"checksum", r.checksum},
          {"kernels", std::move(kernels)}};
}

json compute_json(const ComputeRunResult& r) {
  const std::string unit = r.kind == ComputeKind::kFp32Fma ? "gflops" : "gops";
  return {{"isa", to_string(r.isa)},        {"best_" + unit, r.best_gops},
          {"avg_" + unit, r.avg_gops},      {"min_" + unit, r.min_gops},
          {"max_" + unit, r.max_gops},      {"per_core_best_" + unit, r.per_core_best_gops},
          {"threads", r.threads},           {"iterations", r.iterations},
          {"ops_per_pass", r.ops_per_pass}, {"seconds", r.seconds},
          {"pin_failures", r.pin_failures}};
}

json isa_names(ComputeKind kind) {
  json out = json::array();
  for (const ComputeIsa isa : available_isas(kind)) out.push_back(to_string(isa));
  return out;
}

// The cpus to run on: the requested ones (each must be online) or every online cpu.
Expected<std::vector<int>> select_cpus(const ProbeOptions& options, const Topology& topo,
                                       std::vector<std::string>& notes) {
  std::vector<int> online = topo.online_cpus;
  if (online.empty()) {
    const unsigned n = std::max(1U, std::thread::hardware_concurrency());
    for (unsigned i = 0; i < n; ++i) online.push_back(static_cast<int>(i));
    notes.push_back("no online cpu list under the root: ran on cpus 0-" + std::to_string(n - 1) +
                    " (std::thread::hardware_concurrency)");
  }
  if (options.cpus.empty()) return online;
  std::vector<int> chosen = options.cpus;
  std::sort(chosen.begin(), chosen.end());
  chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
  for (const int cpu : chosen) {
    if (!std::binary_search(online.begin(), online.end(), cpu)) {
      return make_error(ErrorKind::kUsage,
                        "cpu " + std::to_string(cpu) +
                            " is not online (online: " + format_cpu_list(online) + ")");
    }
  }
  return chosen;
}

std::vector<Group> make_groups(const ProbeOptions& options, const Topology& topo,
                               const std::vector<int>& cpus) {
  const auto& types = topo.core_types.types;
  std::vector<Group> groups;
  groups.push_back(Group{"all", types.size() == 1 ? types.front().name : "mixed", cpus});
  if (!options.per_core_type || types.size() < 2) return groups;
  for (const auto& t : types) {
    std::vector<int> members;
    std::set_intersection(t.cpus.begin(), t.cpus.end(), cpus.begin(), cpus.end(),
                          std::back_inserter(members));
    if (!members.empty() && members != cpus) groups.push_back(Group{t.name, t.name, members});
  }
  return groups;
}

std::optional<std::uint64_t> read_mem_available(const fs::path& root) {
  std::ifstream in(root / "proc/meminfo");
  if (!in) return std::nullopt;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_mem_available(buffer.str());
}

}  // namespace

std::optional<std::uint64_t> parse_mem_available(std::string_view text) {
  constexpr std::string_view kKey = "MemAvailable:";
  const auto at = text.find(kKey);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(at + kKey.size());
  rest.remove_prefix(std::min(rest.find_first_not_of(" \t"), rest.size()));
  std::uint64_t kb = 0;
  const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), kb);
  if (ec != std::errc() || ptr == rest.data()) return std::nullopt;
  return kb * 1024;
}

ArraySize choose_array_bytes(std::optional<std::uint64_t> llc_bytes, std::uint64_t requested,
                             bool quick, std::optional<std::uint64_t> mem_available_bytes) {
  ArraySize out;
  if (requested > 0) {
    out = {requested, "requested"};
  } else if (quick) {
    out = {kQuickBytes,
           "quick: " + mib(kQuickBytes) + " (may fit in cache; not a bandwidth figure)"};
  } else if (!llc_bytes) {
    out = {kFloorBytes, "64 MiB floor (last-level cache size unknown)"};
  } else if (4 * *llc_bytes > kFloorBytes) {
    out = {4 * *llc_bytes, "4 x last-level cache (" + mib(*llc_bytes) + ")"};
  } else {
    out = {kFloorBytes, "64 MiB floor (above 4 x last-level cache of " + mib(*llc_bytes) + ")"};
  }
  if (mem_available_bytes && 3 * out.bytes > *mem_available_bytes / 2) {
    const std::uint64_t capped = std::max(*mem_available_bytes / 6 / kMiB * kMiB, kMiB);
    out.reason += "; capped to " + mib(capped) + " so the 3 arrays take at most half of " +
                  "MemAvailable (" + mib(*mem_available_bytes) + ")";
    if (llc_bytes && capped < 4 * *llc_bytes) {
      out.reason += ", below 4 x last-level cache: bandwidth may read high";
    }
    out.bytes = capped;
  }
  return out;
}

Expected<json> run_probe(const ProbeOptions& options) {
  const auto t_start = std::chrono::steady_clock::now();
  const std::string started_at = utc_now();
  const HostInfo host = read_host_info(options.root);
  const Topology topo = read_topology(options.root);
  std::vector<std::string> notes;

  auto selected = select_cpus(options, topo, notes);
  if (!selected.ok()) return selected.error();
  const std::vector<Group> groups = make_groups(options, topo, *selected);

  const std::optional<std::uint64_t> llc =
      topo.llc ? std::optional<std::uint64_t>(topo.llc->bytes) : std::nullopt;
  const ArraySize size =
      choose_array_bytes(llc, options.array_bytes, options.quick, read_mem_available(options.root));
  const int repetitions = options.repetitions > 0 ? options.repetitions : (options.quick ? 3 : 10);

  json memory_groups = json::array();
  double peak_read = 0;
  for (const auto& g : groups) {
    MemoryRunOptions mo;
    mo.cpus = g.cpus;
    mo.elements = static_cast<std::size_t>(size.bytes / sizeof(double));
    mo.repetitions = repetitions;
    auto r = run_memory_kernels(mo);
    if (!r.ok()) return r.error();
    for (const auto& p : r->pin_failures) notes.push_back("memory, group " + g.name + ": " + p);
    if (g.name == "all") peak_read = r->kernels.front().best_gbps;  // kSum comes first
    memory_groups.push_back(memory_group_json(g, *r));
  }

  json doc = {
      {"schema", kProbeSchema},
      {"tokscope_version", build::kVersion},
      {"git_commit", build::kGitCommit},
      {"started_at", started_at},
      {"quick", options.quick},
      {"identity", to_json(ProbeIdentity{host.kernel, host.cpu, host.logical_cpus})},
      {"machine",
       {{"hostname", host.host},
        {"kernel_release", host.kernel},
        {"arch", host.arch},
        {"cpu", host.cpu},
        {"logical_cpus", host.logical_cpus}}},
      {"topology", topology_json(topo)},
      {"memory",
       {{"array_bytes", size.bytes},
        {"elements", size.bytes / sizeof(double)},
        {"array_size_reason", size.reason},
        {"repetitions", repetitions},
        {"warmup_passes", 1},
        {"bytes_counted",
         "as STREAM: 8 bytes per element of each array the kernel names (sum 1, copy/scale 2, "
         "add/triad 3), write-allocate traffic not counted"},
        {"gb", "1e9 bytes"},
        {"groups", std::move(memory_groups)}}},
      {"peak_read_bandwidth_gbps", peak_read},
  };

  if (options.compute) {
    const double seconds =
        options.compute_seconds > 0 ? options.compute_seconds : (options.quick ? 0.01 : 0.2);
    json compute_groups = json::array();
    for (const auto& g : groups) {
      json entry = {{"name", g.name}, {"cpus", format_cpu_list(g.cpus)}};
      for (const ComputeKind kind : {ComputeKind::kFp32Fma, ComputeKind::kInt8Dot}) {
        ComputeRunOptions co;
        co.cpus = g.cpus;
        co.kind = kind;
        co.isa = best_isa(kind);
        co.target_seconds = seconds;
        co.repetitions = 3;
        auto r = run_compute_kernel(co);
        if (!r.ok()) return r.error();
        for (const auto& p : r->pin_failures) {
          notes.push_back(std::string("compute ") + to_string(kind) + ", group " + g.name + ": " +
                          p);
        }
        if (g.name == "all") {
          doc[kind == ComputeKind::kFp32Fma ? "peak_fp32_gflops" : "peak_int8_gops"] = r->best_gops;
        }
        entry[to_string(kind)] = compute_json(*r);
      }
      compute_groups.push_back(std::move(entry));
    }
    doc["compute"] = {{"groups", std::move(compute_groups)},
                      {"isas_available",
                       {{"fp32_fma", isa_names(ComputeKind::kFp32Fma)},
                        {"int8_dot", isa_names(ComputeKind::kInt8Dot)}}}};
  } else {
    doc["compute"] = {{"skipped", "compute measurement turned off"}};
  }

  if (options.quick)
    notes.push_back("quick probe: arrays may fit in cache; not a bandwidth figure");
  if (size.reason.find("capped") != std::string::npos) notes.push_back("array size " + size.reason);
  doc["notes"] = notes;
  doc["finished_at"] = utc_now();
  doc["duration_s"] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  return doc;
}

}  // namespace tokscope::platform::probe
