// librkllmrt.so opened at run time (dlopen), so tokscope builds and runs without the Rockchip
// SDK and one binary can drive any supported release. RAII: the library is closed when the
// RkllmLibrary is destroyed; every RKLLM handle made through it must be destroyed first.
// Symbols are resolved once, at open(); the function pointers are typed per ABI by the caller
// (rkllm_abi.hpp). Thread-safety: immutable after open().
#pragma once

#include <memory>
#include <string>

#include "core/expected.hpp"
#include "engines/rkllm/rkllm_abi.hpp"

namespace tokscope::engines::rkllm {

class RkllmLibrary {
 public:
  // Opens `path` (RTLD_NOW | RTLD_LOCAL) and resolves the symbols tokscope calls. Errors are
  // kUsage and name the path, the missing symbol and the fix `--rkllm-lib PATH`.
  static Expected<std::unique_ptr<RkllmLibrary>> open(const std::string& path);

  RkllmLibrary(const RkllmLibrary&) = delete;
  RkllmLibrary& operator=(const RkllmLibrary&) = delete;
  ~RkllmLibrary();

  // Refuses a library older than 1.2.1, recognised by a missing rkllm_get_kv_cache_size (added
  // in 1.2.1, §1.7). 1.2.1–1.3.0 cannot be told apart from the exports (no version symbol, and
  // no documented symbol was added in 1.3.0), so this is a floor check, not a detection.
  [[nodiscard]] Expected<void> check_abi_floor() const;

  [[nodiscard]] const std::string& path() const noexcept { return path_; }

  // Raw addresses; never null after open() except the optional ones.
  struct Symbols {
    void* create_default_param = nullptr;  // rkllm_createDefaultParam
    void* init = nullptr;                  // rkllm_init
    void* run = nullptr;                   // rkllm_run
    void* abort = nullptr;                 // rkllm_abort
    void* destroy = nullptr;               // rkllm_destroy
    void* clear_kv_cache = nullptr;        // rkllm_clear_kv_cache
    void* get_kv_cache_size = nullptr;     // optional: the 1.2.1 marker
  };
  [[nodiscard]] const Symbols& symbols() const noexcept { return symbols_; }

  // A symbol address as the function type of the chosen ABI (POSIX guarantees that dlsym's
  // object pointer converts to a function pointer).
  template <class Fn>
  [[nodiscard]] static Fn as(void* address) noexcept {
    return reinterpret_cast<Fn>(address);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
  }

 private:
  RkllmLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  void* handle_;
  std::string path_;
  Symbols symbols_;
};

}  // namespace tokscope::engines::rkllm
