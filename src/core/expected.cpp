#include "core/expected.hpp"

namespace tokscope {

const char* to_string(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::kUsage:
      return "usage";
    case ErrorKind::kInput:
      return "input";
    case ErrorKind::kEngine:
      return "engine";
    case ErrorKind::kTimeout:
      return "timeout";
    case ErrorKind::kCancelled:
      return "cancelled";
    case ErrorKind::kIo:
      return "io";
    case ErrorKind::kUnavailable:
      return "unavailable";
    case ErrorKind::kInternal:
      return "internal";
  }
  return "internal";
}

}  // namespace tokscope
