#include "cli/output.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <ostream>

#include "report/writers.hpp"

namespace tokscope::cli {

Expected<void> emit(const nlohmann::json& result, report::Format format,
                    const std::string& out_path, std::ostream& out) {
  return write_text(report::render(result, format), out_path, out);
}

Expected<void> write_text(const std::string& text, const std::string& out_path, std::ostream& out) {
  if (out_path.empty() || out_path == "-") {
    out << text;
    out.flush();
    return {};
  }
  const std::filesystem::path path(out_path);
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream file(tmp, std::ios::binary | std::ios::trunc);
    if (!file) {
      return make_error(ErrorKind::kIo, fmt::format("--out {}: cannot write the file (check the "
                                                    "directory exists and is writable)",
                                                    out_path));
    }
    file << text;
    if (!file.flush())
      return make_error(ErrorKind::kIo, fmt::format("--out {}: write failed", out_path));
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) return make_error(ErrorKind::kIo, fmt::format("--out {}: {}", out_path, ec.message()));
  return {};
}

int exit_code_for(const Error& error) {
  return error.kind == ErrorKind::kUsage || error.kind == ErrorKind::kInput ? 2 : 1;
}

}  // namespace tokscope::cli
