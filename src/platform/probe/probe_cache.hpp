// The probe's result cached per machine. A full probe takes tens of seconds; the roofline wants
// its bandwidth on every run. A cached result stands only for the machine identity it was
// measured on (kernel release, cpu description, logical cpus): a new kernel, another board or a
// core taken offline invalidates it. Files: <cache dir>/probe-<16 hex digits>.json, where the
// cache dir is $XDG_CACHE_HOME/tokscope or ~/.cache/tokscope. Not thread-safe against a
// concurrent store of the same identity (the last rename wins; readers never see a torn file).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/expected.hpp"

namespace tokscope::platform::probe {

struct ProbeIdentity {
  std::string kernel_release;  // uname release
  std::string cpu;             // read_host_info().cpu: "4x Cortex-A55 + 4x Cortex-A76"
  unsigned logical_cpus = 0;
  bool operator==(const ProbeIdentity&) const = default;
};

// The identity of the machine under root (uname facts are always the running kernel's).
ProbeIdentity current_identity(const std::filesystem::path& root);

nlohmann::json to_json(const ProbeIdentity& identity);
// nullopt unless j is an object with the three fields of the right types.
std::optional<ProbeIdentity> identity_from_json(const nlohmann::json& j);

// 16 lowercase hex digits: 64-bit FNV-1a of the identity's fields. Stable across builds and
// compilers (std::hash is not), so a cache file outlives an upgrade of tokscope.
std::string identity_hash(const ProbeIdentity& identity);

// The cache dir from the values of $XDG_CACHE_HOME and $HOME (nullptr or "" = unset): xdg/tokscope,
// else home/.cache/tokscope, else nullopt. Pure.
std::optional<std::filesystem::path> cache_dir_from(const char* xdg_cache_home, const char* home);

// cache_dir_from() of the live environment; kUnavailable when neither variable is set.
Expected<std::filesystem::path> default_cache_dir();

// dir/probe-<identity_hash>.json
std::filesystem::path cache_file(const std::filesystem::path& dir, const ProbeIdentity& identity);

// cache_file(default_cache_dir(), identity).
Expected<std::filesystem::path> cache_path(const ProbeIdentity& identity);

// The cached probe for this identity, or nullopt when there is none, it does not parse, it is of
// another schema, a quick probe, or was measured on another identity.
std::optional<nlohmann::json> load_cached_probe(const ProbeIdentity& identity,
                                                const std::filesystem::path& dir);
std::optional<nlohmann::json> load_cached_probe(const ProbeIdentity& identity);  // default dir

// Writes a probe (run_probe's document, identity taken from its "identity") to its cache file via
// a temporary file and a rename, creating dir. Refuses a quick probe (kUsage: its small arrays
// may fit in the cache, so it is not the machine's bandwidth). Returns the file written.
Expected<std::filesystem::path> store_cached_probe(const nlohmann::json& probe,
                                                   const std::filesystem::path& dir);

}  // namespace tokscope::platform::probe
