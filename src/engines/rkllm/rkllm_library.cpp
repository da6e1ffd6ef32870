#include "engines/rkllm/rkllm_library.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <utility>

namespace tokscope::engines::rkllm {
namespace {

constexpr const char* kFix =
    "give the runtime of the rknn-llm release with --rkllm-lib PATH (e.g. "
    "rkllm-runtime/Linux/librkllm_api/aarch64/librkllmrt.so; it also needs libomp.so)";

}  // namespace

Expected<std::unique_ptr<RkllmLibrary>> RkllmLibrary::open(const std::string& path) {
  if (path.empty()) {
    return make_error(ErrorKind::kUsage, fmt::format("--rkllm-lib: no library given; {}", kFix));
  }
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return make_error(ErrorKind::kUsage, fmt::format("--rkllm-lib {}: cannot load: {}; {}", path,
                                                     why != nullptr ? why : "dlopen failed", kFix));
  }
  std::unique_ptr<RkllmLibrary> lib(new RkllmLibrary(handle, path));
  struct Required {
    const char* name;
    void** slot;
  };
  Symbols& s = lib->symbols_;
  const Required required[] = {{"rkllm_createDefaultParam", &s.create_default_param},
                               {"rkllm_init", &s.init},
                               {"rkllm_run", &s.run},
                               {"rkllm_abort", &s.abort},
                               {"rkllm_destroy", &s.destroy},
                               {"rkllm_clear_kv_cache", &s.clear_kv_cache}};
  for (const Required& r : required) {
    dlerror();
    *r.slot = dlsym(handle, r.name);
    if (*r.slot == nullptr) {
      return make_error(ErrorKind::kUsage,
                        fmt::format("--rkllm-lib {}: symbol {} not found: this is not an RKLLM "
                                    "runtime of release 1.2.1 or later; {}",
                                    path, r.name, kFix));
    }
  }
  s.get_kv_cache_size = dlsym(handle, "rkllm_get_kv_cache_size");
  return lib;
}

RkllmLibrary::~RkllmLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

Expected<void> RkllmLibrary::check_abi_floor() const {
  if (symbols_.get_kv_cache_size == nullptr) {
    return make_error(ErrorKind::kUsage,
                      fmt::format("--rkllm-lib {}: symbol rkllm_get_kv_cache_size not found, so "
                                  "the library is older than 1.2.1, whose structs tokscope does "
                                  "not drive; {}",
                                  path_, kFix));
  }
  return {};
}

}  // namespace tokscope::engines::rkllm
