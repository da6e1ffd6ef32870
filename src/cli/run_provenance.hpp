// What every run's journal header says about where it came from, shared by `bench` and `soak`:
// the tool build, UTC time stamps, and the host part of the environment.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "platform/clock.hpp"

namespace tokscope::cli {

// The current UTC time in strftime format ("%Y-%m-%dT%H:%M:%SZ" for the header,
// "%Y%m%dT%H%M%SZ" for file names).
std::string utc_stamp(const char* format);

// {"name", "version", "git_commit", "build_type", "sanitizer"} of this binary.
nlohmann::json tool_json();

// {"host", "kernel", "arch", "cpu", "logical_cpus", "clock", "sysfs_root"}: the host facts read
// under root and the harness clock's name.
nlohmann::json host_environment(const std::string& root, const platform::Clock& clock);

}  // namespace tokscope::cli
