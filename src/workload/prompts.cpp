#include "workload/prompts.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace tokscope::workload {
namespace {

std::uint64_t mix(std::uint64_t z) noexcept {  // splitmix64 finalizer
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// One dataset element → prompt text, or an error naming where it came from.
Expected<std::string> text_of(const nlohmann::json& element, const std::string& where) {
  if (element.is_string()) return element.get<std::string>();
  if (element.is_object()) {
    for (const char* key : {"prompt", "text", "content"}) {
      if (auto it = element.find(key); it != element.end() && it->is_string()) {
        return it->get<std::string>();
      }
    }
  }
  return make_error(ErrorKind::kInput,
                    fmt::format("{}: expected a string or an object with a \"prompt\" or \"text\" "
                                "string field",
                                where));
}

}  // namespace

std::vector<std::int32_t> synthetic_prompt_ids(std::uint64_t seed, std::uint32_t stratum,
                                               std::uint32_t index, std::uint32_t length,
                                               std::uint32_t vocab_size, std::uint32_t first_id) {
  std::vector<std::int32_t> ids(length);
  std::uint64_t state = mix(seed ^ mix((static_cast<std::uint64_t>(stratum) << 32) | index));
  const std::uint64_t span = vocab_size > first_id ? vocab_size - first_id : 1;
  for (auto& id : ids) {
    state += 0x9e3779b97f4a7c15ULL;
    id = static_cast<std::int32_t>(first_id + mix(state) % span);
  }
  return ids;
}

Expected<std::vector<std::string>> load_text_dataset(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) {
    return make_error(
        ErrorKind::kInput,
        fmt::format("--dataset {}: cannot open the file (check the path)", path.string()));
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string content = buffer.str();
  std::vector<std::string> texts;
  const auto first = content.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && content[first] == '[') {  // one JSON array
    nlohmann::json doc = nlohmann::json::parse(content, nullptr, false);
    if (doc.is_discarded() || !doc.is_array()) {
      return make_error(ErrorKind::kInput,
                        fmt::format("--dataset {}: not valid JSON (expected an array of prompt "
                                    "strings, or JSONL with one prompt per line)",
                                    path.string()));
    }
    for (std::size_t i = 0; i < doc.size(); ++i) {
      auto text = text_of(doc[i], fmt::format("--dataset {} element {}", path.string(), i));
      if (!text) return text.error();
      texts.push_back(std::move(*text));
    }
  } else {  // JSONL
    std::istringstream lines(content);
    std::string line;
    for (std::size_t n = 1; std::getline(lines, line); ++n) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      nlohmann::json element = nlohmann::json::parse(line, nullptr, false);
      const std::string where = fmt::format("--dataset {} line {}", path.string(), n);
      if (element.is_discarded()) {
        return make_error(ErrorKind::kInput, where + ": not valid JSON");
      }
      auto text = text_of(element, where);
      if (!text) return text.error();
      texts.push_back(std::move(*text));
    }
  }
  if (texts.empty()) {
    return make_error(ErrorKind::kInput,
                      fmt::format("--dataset {}: no prompts found", path.string()));
  }
  return texts;
}

Expected<std::vector<std::int32_t>> fit_to_length(std::span<const std::int32_t> ids,
                                                  std::uint32_t length) {
  if (ids.empty() && length > 0) {
    return make_error(ErrorKind::kInput,
                      "a dataset prompt tokenized to 0 tokens and cannot be "
                      "padded; remove empty prompts from the dataset");
  }
  std::vector<std::int32_t> out(length);
  for (std::uint32_t i = 0; i < length; ++i) out[i] = ids[i % ids.size()];
  return out;
}

}  // namespace tokscope::workload
