// Exact-length prompts. Two sources:
//  - synthetic token ids, a pure function of (seed, stratum, request index), so a resumed run
//    feeds exactly the prompts the interrupted one would have;
//  - a text dataset (JSON array or JSONL of strings or of objects with "prompt"/"text"), used
//    when the engine can tokenize: each text is tokenized by the engine and trimmed or padded
//    (by repeating its own tokens) to the exact length, and the count is verified.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "core/expected.hpp"

namespace tokscope::workload {

// Token ids in [first_id, vocab_size); deterministic for the arguments.
std::vector<std::int32_t> synthetic_prompt_ids(std::uint64_t seed, std::uint32_t stratum,
                                               std::uint32_t index, std::uint32_t length,
                                               std::uint32_t vocab_size = 32000,
                                               std::uint32_t first_id = 100);

// Loads prompt texts. Errors name the file, the line or element, and the expected shape.
Expected<std::vector<std::string>> load_text_dataset(const std::filesystem::path& path);

// Trims ids to `length`, or pads by cycling through its own tokens. Empty ids cannot be padded:
// an Error names the dataset entry.
Expected<std::vector<std::int32_t>> fit_to_length(std::span<const std::int32_t> ids,
                                                  std::uint32_t length);

}  // namespace tokscope::workload
