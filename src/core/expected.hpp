// Expected<T>: the typed result returned at every boundary (files, flags, engines, sysfs).
// std::expected is C++23; this is the small subset tokscope needs. Errors carry a kind (which
// becomes the exit code at the CLI) and a message that names the file/flag and the fix.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace tokscope {

enum class ErrorKind {
  kUsage,        // bad flag or flag combination (exit 2)
  kInput,        // malformed or missing input file (exit 2)
  kEngine,       // the engine failed a request or could not load (recorded, run goes on)
  kTimeout,      // per-request deadline passed
  kCancelled,    // Ctrl-C / SIGTERM asked the run to stop
  kIo,           // write/fsync failed
  kUnavailable,  // a platform source does not exist here
  kInternal,     // an invariant broke: a bug in tokscope
};

const char* to_string(ErrorKind kind) noexcept;

struct Error {
  ErrorKind kind = ErrorKind::kInternal;
  std::string message;
};

inline Error make_error(ErrorKind kind, std::string message) {
  return Error{kind, std::move(message)};
}

template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Expected(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool ok() const noexcept { return std::holds_alternative<T>(v_); }
  explicit operator bool() const noexcept { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<T>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<T>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<T>(std::move(v_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const& {
    assert(!ok());
    return std::get<Error>(v_);
  }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Expected<void> {
 public:
  Expected() = default;
  Expected(Error error)
      : error_(std::move(error)), ok_(false) {}  // NOLINT(google-explicit-constructor)
  [[nodiscard]] bool ok() const noexcept { return ok_; }
  explicit operator bool() const noexcept { return ok_; }
  const Error& error() const& {
    assert(!ok_);
    return error_;
  }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace tokscope
