#include "platform/probe/probe_cache.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <system_error>

#include "platform/host_info.hpp"
#include "platform/probe/probe.hpp"

namespace tokscope::platform::probe {
namespace {

namespace fs = std::filesystem;

void fnv1a(std::uint64_t& h, std::string_view bytes) {
  for (const char ch : bytes) {
    h ^= static_cast<unsigned char>(ch);
    h *= 0x100000001b3ULL;
  }
}

}  // namespace

ProbeIdentity current_identity(const fs::path& root) {
  const HostInfo host = read_host_info(root);
  return ProbeIdentity{host.kernel, host.cpu, host.logical_cpus};
}

nlohmann::json to_json(const ProbeIdentity& identity) {
  return {{"kernel_release", identity.kernel_release},
          {"cpu", identity.cpu},
          {"logical_cpus", identity.logical_cpus}};
}

std::optional<ProbeIdentity> identity_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  const auto kernel = j.find("kernel_release");
  const auto cpu = j.find("cpu");
  const auto cpus = j.find("logical_cpus");
  if (kernel == j.end() || !kernel->is_string() || cpu == j.end() || !cpu->is_string() ||
      cpus == j.end() || !cpus->is_number_unsigned()) {
    return std::nullopt;
  }
  return ProbeIdentity{kernel->get<std::string>(), cpu->get<std::string>(), cpus->get<unsigned>()};
}

std::string identity_hash(const ProbeIdentity& identity) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  fnv1a(h, identity.kernel_release);
  fnv1a(h, std::string_view("\n", 1));
  fnv1a(h, identity.cpu);
  fnv1a(h, std::string_view("\n", 1));
  fnv1a(h, std::to_string(identity.logical_cpus));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) out[static_cast<std::size_t>(i)] = kHex[h & 0xF];
  return out;
}

std::optional<fs::path> cache_dir_from(const char* xdg_cache_home, const char* home) {
  if (xdg_cache_home != nullptr && *xdg_cache_home != '\0') {
    return fs::path(xdg_cache_home) / "tokscope";
  }
  if (home != nullptr && *home != '\0') return fs::path(home) / ".cache" / "tokscope";
  return std::nullopt;
}

Expected<fs::path> default_cache_dir() {
  // getenv is safe here: tokscope never calls setenv.
  auto dir = cache_dir_from(std::getenv("XDG_CACHE_HOME"), std::getenv("HOME"));
  if (!dir) {
    return make_error(ErrorKind::kUnavailable,
                      "no cache directory: neither XDG_CACHE_HOME nor HOME is set");
  }
  return *dir;
}

fs::path cache_file(const fs::path& dir, const ProbeIdentity& identity) {
  return dir / ("probe-" + identity_hash(identity) + ".json");
}

Expected<fs::path> cache_path(const ProbeIdentity& identity) {
  auto dir = default_cache_dir();
  if (!dir.ok()) return dir.error();
  return cache_file(*dir, identity);
}

std::optional<nlohmann::json> load_cached_probe(const ProbeIdentity& identity,
                                                const fs::path& dir) {
  std::ifstream in(cache_file(dir, identity));
  if (!in) return std::nullopt;
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return std::nullopt;  // also a parse failure (discarded value)
  const auto schema = doc.find("schema");
  if (schema == doc.end() || *schema != kProbeSchema) return std::nullopt;
  const auto quick = doc.find("quick");
  if (quick == doc.end() || *quick != false) return std::nullopt;
  const auto peak = doc.find("peak_read_bandwidth_gbps");
  if (peak == doc.end() || !peak->is_number()) return std::nullopt;
  const auto id = doc.find("identity");
  if (id == doc.end() || identity_from_json(*id) != identity) return std::nullopt;
  return doc;
}

std::optional<nlohmann::json> load_cached_probe(const ProbeIdentity& identity) {
  auto dir = default_cache_dir();
  if (!dir.ok()) return std::nullopt;
  return load_cached_probe(identity, *dir);
}

Expected<fs::path> store_cached_probe(const nlohmann::json& probe, const fs::path& dir) {
  if (!probe.is_object() || probe.value("schema", "") != kProbeSchema) {
    return make_error(ErrorKind::kInternal, "not a probe document: nothing cached");
  }
  const auto quick = probe.find("quick");
  if (quick == probe.end() || *quick != false) {
    return make_error(ErrorKind::kUsage,
                      "a quick probe is not cached: its small arrays may fit in the cache, so "
                      "its bandwidth is not the memory's; run the probe without --quick");
  }
  const auto identity = identity_from_json(probe.value("identity", nlohmann::json()));
  if (!identity) return make_error(ErrorKind::kInternal, "probe document has no identity");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    return make_error(ErrorKind::kIo, "cannot create " + dir.string() + ": " + ec.message());
  }
  const fs::path target = cache_file(dir, *identity);
  fs::path tmp = target;
  tmp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << probe.dump(2) << '\n';
    out.flush();
    if (!out) return make_error(ErrorKind::kIo, "cannot write " + tmp.string());
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    const std::string why = ec.message();
    fs::remove(tmp, ec);
    return make_error(ErrorKind::kIo,
                      "cannot rename " + tmp.string() + " to " + target.string() + ": " + why);
  }
  return target;
}

}  // namespace tokscope::platform::probe
