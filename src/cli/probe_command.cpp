#include "cli/probe_command.hpp"

#include <fmt/format.h>

#include <ostream>

#include "cli/output.hpp"
#include "platform/probe/probe.hpp"
#include "platform/topology.hpp"

namespace tokscope::cli {

struct ProbeCommandOptions {
  bool quick = false;
  std::string cpus;
  std::uint64_t array_mib = 0;
  bool no_compute = false;
  bool no_cache = false;
  bool cached = false;
  std::string root = "/";
  std::string format = "md";
  std::string out;
};

namespace {

using nlohmann::json;

std::string num(const json& j, const char* format = "{:.2f}") {
  return j.is_number() ? fmt::format(fmt::runtime(format), j.get<double>()) : "–";
}

std::string render_md(const json& d) {
  std::string out = "# Machine probe\n\n";
  const json m = d.value("machine", json::object());
  out += fmt::format("- **Machine:** {} ({}), kernel {}, {} logical cpus\n",
                     m.value("cpu", std::string("?")), m.value("arch", std::string("?")),
                     m.value("kernel_release", std::string("?")), m.value("logical_cpus", 0));
  out += fmt::format("- **Peak read bandwidth** (the roofline's B): **{} GB/s**\n",
                     num(d.value("peak_read_bandwidth_gbps", json())));
  out += fmt::format("- **Peak compute:** fp32 {} GFLOP/s, int8 {} GOP/s\n",
                     num(d.value("peak_fp32_gflops", json()), "{:.0f}"),
                     num(d.value("peak_int8_gops", json()), "{:.0f}"));
  if (d.value("quick", false)) {
    out += "- **QUICK run:** small arrays that may fit in cache; not a bandwidth figure\n";
  }
  const json mem = d.value("memory", json::object());
  out += fmt::format("- **Arrays:** {} MiB each ({}), best of {} passes\n\n",
                     mem.value("array_bytes", 0ULL) >> 20,
                     mem.value("array_size_reason", std::string()), mem.value("repetitions", 0));
  out += "| cpus | kernel | best GB/s | avg GB/s | min GB/s |\n|---|---|---:|---:|---:|\n";
  const json groups = mem.value("groups", json::array());
  for (const auto& g : groups) {
    const json kernels = g.value("kernels", json::object());
    for (const auto& [name, k] : kernels.items()) {
      out += fmt::format("| {} ({}) | {} | {} | {} | {} |\n", g.value("name", std::string()),
                         g.value("cpus", std::string()), name, num(k.value("best_gbps", json())),
                         num(k.value("avg_gbps", json())), num(k.value("min_gbps", json())));
    }
  }
  const json comp = d.value("compute", json::object());
  if (comp.contains("groups")) {
    out += "\n| cpus | fp32 FMA GFLOP/s (isa) | int8 dot GOP/s (isa) |\n|---|---:|---:|\n";
    for (const auto& g : comp.at("groups")) {
      const json f = g.value("fp32_fma", json::object());
      const json i = g.value("int8_dot", json::object());
      out +=
          fmt::format("| {} ({}) | {} ({}) | {} ({}) |\n", g.value("name", std::string()),
                      g.value("cpus", std::string()), num(f.value("best_gflops", json()), "{:.0f}"),
                      f.value("isa", std::string("?")), num(i.value("best_gops", json()), "{:.0f}"),
                      i.value("isa", std::string("?")));
    }
  }
  const json notes = d.value("notes", json::array());
  for (const auto& n : notes) {
    out += fmt::format("\n- Note: {}", n.is_string() ? n.get<std::string>() : n.dump());
  }
  out +=
      "\n\nBytes are counted as STREAM counts them; GB = 1e9 bytes. `sum` is read-only, what "
      "decode does to the weights. Use it with `tokscope roofline --probe`.\n";
  return out;
}

}  // namespace

std::shared_ptr<ProbeCommandOptions> add_probe_command(CLI::App& app) {
  auto o = std::make_shared<ProbeCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "probe", "Measure this machine: memory bandwidth (several kernels), compute peak, topology");
  cmd->footer(R"(
A full run takes tens of seconds (arrays of 4x the last-level cache, best of 10 passes) and is
cached per machine (kernel release + CPU + logical cpus) under ~/.cache/tokscope, where
`tokscope roofline --probe` finds it. Stop other work on the machine while it runs.)");
  cmd->add_flag("--quick", o->quick, "Small arrays, 3 passes: a smoke test, not a figure");
  cmd->add_option("--cpus", o->cpus, "Only these cpus, e.g. 4-7 (default: every online cpu)");
  cmd->add_option("--array-mib", o->array_mib, "Bytes per array in MiB (default 4 x LLC)");
  cmd->add_flag("--no-compute", o->no_compute, "Skip the fp32/int8 compute peaks");
  cmd->add_flag("--no-cache", o->no_cache, "Do not store the result in the cache");
  cmd->add_flag("--cached", o->cached, "Print the cached result for this machine; measure nothing");
  cmd->add_option("--sysfs-root", o->root, "Root of /sys and /proc for the topology")
      ->capture_default_str();
  cmd->add_option("-o,--format", o->format, "md|json")
      ->check(CLI::IsMember({"md", "json"}))
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Write to FILE instead of stdout");
  return o;
}

int run_probe_command(const ProbeCommandOptions& o, std::ostream& out, std::ostream& err) {
  namespace probe = platform::probe;
  const auto fail = [&](const Error& e) {
    err << "tokscope probe: error: " << e.message << "\n";
    return exit_code_for(e);
  };
  json doc;
  if (o.cached) {
    auto cached = probe::load_cached_probe(probe::current_identity(o.root));
    if (!cached) {
      return fail(make_error(ErrorKind::kUsage,
                             "--cached: no probe result is cached for this machine; run "
                             "`tokscope probe` first"));
    }
    doc = std::move(*cached);
  } else {
    probe::ProbeOptions po;
    po.root = o.root;
    po.quick = o.quick;
    po.compute = !o.no_compute;
    po.array_bytes = o.array_mib << 20;
    if (!o.cpus.empty()) {
      auto cpus = platform::parse_cpu_list(o.cpus);
      if (!cpus) {
        return fail(make_error(ErrorKind::kUsage,
                               fmt::format("--cpus {}: {}", o.cpus, cpus.error().message)));
      }
      po.cpus = std::move(*cpus);
    }
    err << "tokscope probe: measuring (stop other work on this machine)...\n";
    auto result = probe::run_probe(po);
    if (!result) return fail(result.error());
    doc = std::move(*result);
    if (!o.no_cache && !o.quick) {
      auto dir = probe::default_cache_dir();
      if (dir) {
        auto stored = probe::store_cached_probe(doc, *dir);
        if (stored) {
          err << "tokscope probe: cached as " << stored->string() << "\n";
        } else {
          err << "tokscope probe: warning: not cached: " << stored.error().message << "\n";
        }
      }
    }
  }
  const std::string text = o.format == "json" ? doc.dump(2) + "\n" : render_md(doc);
  if (auto e = write_text(text, o.out, out); !e) return fail(e.error());
  return 0;
}

}  // namespace tokscope::cli
