#include "model/non_gguf.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <fstream>
#include <string>
#include <system_error>

namespace tokscope::model {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kLeadingBytes = 16;
constexpr std::string_view kEstimatedNote =
    "the file's header is not publicly documented: nothing is read from it; W must come from "
    "--model-shape and --quant, and the ceiling is estimated";

std::string lower_extension(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

// Up to n leading bytes; fewer when the file is shorter.
Expected<std::string> leading_bytes(const fs::path& path, std::size_t n) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return make_error(ErrorKind::kInput,
                      fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  }
  std::string bytes(n, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(n));
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  return bytes;
}

std::string hex(std::string_view bytes) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i > 0) out += ' ';
    out += fmt::format("{:02x}", static_cast<unsigned char>(bytes[i]));
  }
  return out;
}

}  // namespace

std::string_view to_string(ModelFileFormat format) {
  switch (format) {
    case ModelFileFormat::kGguf:
      return "gguf";
    case ModelFileFormat::kRkllm:
      return "rkllm";
    case ModelFileFormat::kAxmodel:
      return "axmodel";
    case ModelFileFormat::kUnknown:
      return "unknown";
  }
  return "unknown";
}

Expected<ModelFileFormat> detect_model_format(const fs::path& path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    return make_error(ErrorKind::kInput, fmt::format("{}: no such file", path.string()));
  }
  if (fs::is_directory(status)) {
    for (const auto& entry : fs::directory_iterator(path, ec)) {
      if (entry.is_regular_file(ec) && lower_extension(entry.path()) == ".axmodel") {
        return ModelFileFormat::kAxmodel;
      }
    }
    return ModelFileFormat::kUnknown;
  }
  const auto head = leading_bytes(path, 4);
  if (!head) return head.error();
  if (*head == "GGUF") return ModelFileFormat::kGguf;
  const std::string ext = lower_extension(path);
  if (ext == ".rkllm") return ModelFileFormat::kRkllm;
  if (ext == ".axmodel") return ModelFileFormat::kAxmodel;
  return ModelFileFormat::kUnknown;
}

Expected<nlohmann::json> describe_non_gguf(const fs::path& path) {
  const auto format = detect_model_format(path);
  if (!format) return format.error();
  if (*format == ModelFileFormat::kGguf) {
    return make_error(
        ErrorKind::kInput,
        fmt::format("{}: is a GGUF file; read it with the GGUF reader", path.string()));
  }
  if (*format == ModelFileFormat::kUnknown) {
    return make_error(ErrorKind::kInput,
                      fmt::format("{}: not a GGUF file (no GGUF magic) and not .rkllm or .axmodel "
                                  "(nor a directory of .axmodel files)",
                                  path.string()));
  }
  std::error_code ec;
  std::uint64_t size = 0;
  std::uint64_t files = 0;
  fs::path first = path;
  if (fs::is_directory(path, ec)) {
    for (const auto& entry : fs::directory_iterator(path, ec)) {
      const std::string ext = lower_extension(entry.path());
      if (!entry.is_regular_file(ec) || (ext != ".axmodel" && ext != ".rkllm")) continue;
      if (files == 0 || entry.path() < first) first = entry.path();
      size += entry.file_size(ec);
      ++files;
    }
  } else {
    size = fs::file_size(path, ec);
    files = 1;
  }
  if (ec) {
    return make_error(ErrorKind::kInput,
                      fmt::format("{}: cannot stat: {}", path.string(), ec.message()));
  }
  const auto head = leading_bytes(first, kLeadingBytes);
  if (!head) return head.error();
  return nlohmann::json{{"format", to_string(*format)},
                        {"path", path.string()},
                        {"size_bytes", size},
                        {"file_count", files},
                        {"identified_by", "extension only (no public documentation of the header)"},
                        {"leading_bytes_hex", hex(*head)},
                        {"ceiling_estimated", true},
                        {"note", kEstimatedNote}};
}

}  // namespace tokscope::model
