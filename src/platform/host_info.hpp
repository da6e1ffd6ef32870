// Facts about the machine for the result's "environment" object, read from procfs/uname under
// an injectable root (tests use fixture trees; users can analyse a tree copied from a board).
// Anything missing is reported as "unavailable: reason", never an abort.
#pragma once

#include <filesystem>
#include <string>

namespace tokscope::platform {

struct HostInfo {
  std::string host;    // nodename
  std::string kernel;  // release
  std::string arch;    // machine
  std::string cpu;     // "model name" (x86) or "CPU part" list (ARM), or "unavailable: ..."
  unsigned logical_cpus = 0;
};

// root: "/" on a live system. uname() facts are from the running kernel regardless of root.
HostInfo read_host_info(const std::filesystem::path& root);

// The CPU description from a cpuinfo file's text (x86 "model name", ARM "CPU part" codes named
// where known: 0xd05 Cortex-A55, 0xd0b Cortex-A76, ...). Pure, for tests.
std::string describe_cpuinfo(const std::string& cpuinfo_text);

}  // namespace tokscope::platform
