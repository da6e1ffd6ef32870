#include "platform/perf/pfm_encoder.hpp"

#include <perfmon/pfmlib_perf_event.h>

#include <cstdlib>
#include <cstring>

namespace tokscope::platform::perf {

Expected<PfmEncoding> PfmEncoder::encode(const std::string& name, bool include_kernel) {
  if (!initialized_) {
    init_status_ = pfm_initialize();
    initialized_ = true;
  }
  if (init_status_ != PFM_SUCCESS) {
    return make_error(ErrorKind::kUnavailable,
                      std::string("libpfm failed to initialize: ") + pfm_strerror(init_status_));
  }
  perf_event_attr attr{};
  char* canonical = nullptr;
  pfm_perf_encode_arg_t arg{};
  arg.attr = &attr;
  arg.fstr = &canonical;
  arg.size = sizeof(arg);
  const int plm = include_kernel ? (PFM_PLM3 | PFM_PLM0) : PFM_PLM3;
  const int status = pfm_get_os_event_encoding(name.c_str(), plm, PFM_OS_PERF_EVENT_EXT, &arg);
  if (status != PFM_SUCCESS) {
    std::string why = std::string("libpfm: ") + pfm_strerror(status);
    if (status == PFM_ERR_NOTFOUND && name.find("::") != std::string::npos) {
      why +=
          " (libpfm encodes only PMUs it knows and detected: on ARM it detects the first cpu's "
          "core only, LIBPFM_ENCODE_INACTIVE=1 lifts that, and Debian bookworm's libpfm 4.13 "
          "has no Cortex-A55/A76 tables; the kernel's names such as l2d_cache_refill or raw "
          "codes such as r17 need no libpfm)";
    }
    std::free(canonical);  // NOLINT(cppcoreguidelines-no-malloc): libpfm allocates with malloc
    return make_error(ErrorKind::kUnavailable, std::move(why));
  }
  PfmEncoding out;
  out.type = attr.type;
  out.words.config = attr.config;
  out.words.config1 = attr.config1;
  out.words.config2 = attr.config2;
  if (canonical != nullptr) out.canonical = canonical;
  std::free(canonical);  // NOLINT(cppcoreguidelines-no-malloc): libpfm allocates with malloc
  return out;
}

}  // namespace tokscope::platform::perf
