// libpfm4 event names ("arm_ac76::L2D_CACHE_REFILL", "icl::MEM_LOAD_RETIRED:L3_MISS",
// "perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS") → the perf_event_attr type and config words, via
// pfm_get_os_event_encoding(PFM_OS_PERF_EVENT_EXT). This file and its .cpp are the only ones that
// include libpfm's headers.
//
// libpfm keeps its tables in process-global state of its own: pfm_initialize() fills them once
// per process (a second call returns the first call's result without doing anything, and is not
// atomic), and pfm_terminate() would tear them down under every other user in the process, so it
// is never called. PfmEncoder calls pfm_initialize() on its first encode() and remembers the
// result; tokscope itself keeps no global state.
//
// Known limits of libpfm itself, reported in the error text:
//  - it only encodes events of PMUs it detected, and it detects an ARM core from the first cpu's
//    "CPU part", so on RK3588 only the Cortex-A55 PMU is active; arm_ac76::… needs
//    LIBPFM_ENCODE_INACTIVE=1 in the environment before the first encode;
//  - Debian bookworm's libpfm 4.13 has no arm_ac55/arm_ac76 tables at all (added later). The
//    kernel's own event names (l2d_cache_refill) and raw codes (r17) need no libpfm and count on
//    every cluster.
#pragma once

#include <cstdint>
#include <string>

#include "core/expected.hpp"
#include "platform/perf/pmu.hpp"

namespace tokscope::platform::perf {

struct PfmEncoding {
  std::uint32_t type = 0;  // perf_event_attr.type (PERF_TYPE_RAW for most core PMU events)
  ConfigWords words;
  std::string canonical;  // libpfm's fully qualified name ("perf::PERF_COUNT_HW_INSTRUCTIONS:u=1…")
};

// Thread-safety: not thread-safe, and not safe alongside any other libpfm user in the process
// during encode() (libpfm's tables are process-global). Encode on one thread, before measuring.
class PfmEncoder {
 public:
  // include_kernel selects libpfm's privilege levels (PFM_PLM3, plus PFM_PLM0 when true); the
  // caller still sets exclude_kernel itself. kUnavailable with libpfm's reason when libpfm
  // cannot encode the name (kUnavailable from initialization failure too).
  Expected<PfmEncoding> encode(const std::string& name, bool include_kernel);

 private:
  bool initialized_ = false;
  int init_status_ = 0;  // pfm_initialize()'s result (PFM_SUCCESS = 0)
};

}  // namespace tokscope::platform::perf
