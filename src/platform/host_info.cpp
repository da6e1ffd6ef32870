#include "platform/host_info.hpp"

#include <sys/utsname.h>

#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include "platform/topology.hpp"

namespace tokscope::platform {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

}  // namespace

std::string describe_cpuinfo(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::string model_name;
  std::map<std::string, int> parts;  // ARM: part code -> core count
  std::vector<std::string> order;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon));
    const std::string value = trim(line.substr(colon + 1));
    if (key == "model name" && model_name.empty()) model_name = value;
    if (key == "CPU part") {
      if (parts[value]++ == 0) order.push_back(value);
    }
  }
  if (!order.empty()) {  // ARM: "4x Cortex-A55 + 4x Cortex-A76"
    std::string out;
    for (const auto& part : order) {
      if (!out.empty()) out += " + ";
      const std::string name = arm_part_name(part);
      out += std::to_string(parts[part]) + "x " + (name.empty() ? "part " + part : name);
    }
    return out;
  }
  if (!model_name.empty()) return model_name;
  return "unavailable: no \"model name\" or \"CPU part\" in cpuinfo";
}

HostInfo read_host_info(const std::filesystem::path& root) {
  HostInfo info;
  utsname u{};
  if (uname(&u) == 0) {
    info.host = u.nodename;
    info.kernel = u.release;
    info.arch = u.machine;
  }
  std::ifstream in(root / "proc/cpuinfo");
  if (in) {
    std::stringstream buffer;
    buffer << in.rdbuf();
    info.cpu = describe_cpuinfo(buffer.str());
  } else {
    info.cpu = "unavailable: cannot read " + (root / "proc/cpuinfo").string();
  }
  info.logical_cpus = std::thread::hardware_concurrency();
  return info;
}

}  // namespace tokscope::platform
