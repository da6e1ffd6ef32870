#include "cli/run_provenance.hpp"

#include <ctime>

#include "platform/host_info.hpp"
#include "tokscope/build_info.hpp"

namespace tokscope::cli {

std::string utc_stamp(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

nlohmann::json tool_json() {
  return {{"name", "tokscope"},
          {"version", std::string(build::kVersion)},
          {"git_commit", std::string(build::kGitCommit)},
          {"build_type", TOKSCOPE_BUILD_TYPE},
          {"sanitizer", TOKSCOPE_SANITIZER}};
}

nlohmann::json host_environment(const std::string& root, const platform::Clock& clock) {
  const platform::HostInfo host = platform::read_host_info(root);
  return {{"host", host.host},
          {"kernel", host.kernel},
          {"arch", host.arch},
          {"cpu", host.cpu},
          {"logical_cpus", host.logical_cpus},
          {"clock", clock.name()},
          {"sysfs_root", root}};
}

}  // namespace tokscope::cli
