#include "engines/rkllm/rkllm_abi.hpp"

#include <fmt/format.h>

namespace tokscope::engines::rkllm {

std::string_view to_string(Abi abi) noexcept {
  switch (abi) {
    case Abi::k1_2_1:
      return "1.2.1";
    case Abi::k1_2_2:
      return "1.2.2";
    case Abi::k1_2_3:
      return "1.2.3";
    case Abi::k1_3_0:
      return "1.3.0";
  }
  return "?";
}

Expected<Abi> parse_abi(std::string_view text) {
  std::string_view v = text;
  if (!v.empty() && (v.front() == 'v' || v.front() == 'V')) v.remove_prefix(1);
  for (const Abi abi : {Abi::k1_2_1, Abi::k1_2_2, Abi::k1_2_3, Abi::k1_3_0}) {
    if (v == to_string(abi)) return abi;
  }
  std::string why;
  if (v.empty()) {
    why =
        "no ABI given; librkllmrt.so exports no version symbol, so the release the library "
        "came from must be named";
  } else if (v.starts_with("1.0") || v.starts_with("1.1") || v == "1.2.0") {
    why = fmt::format(
        "{} is not supported: its structs and callback differ from 1.2.1 (callback "
        "returned void before 1.2.1; RKLLMInput had no role; 1.0.x is another API)",
        v);
  } else {
    why = fmt::format(
        "{} is unknown: the layouts of other releases are not documented here, and "
        "a wrong layout corrupts memory",
        v);
  }
  return make_error(ErrorKind::kUsage,
                    fmt::format("--rkllm-abi {}: {}; give one of 1.2.1, 1.2.2, 1.2.3, 1.3.0 (the "
                                "release of the rknn-llm SDK librkllmrt.so came from)",
                                text, why));
}

}  // namespace tokscope::engines::rkllm
