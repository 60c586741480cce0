// One line for a CUPTI error, with the fix where there is one (not a public header).
#pragma once

#include <cupti_result.h>

#include <string>

namespace tilescope::cuda::detail {

inline std::string cuptiWhy(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  std::string why = s ? s : "unknown CUPTI error";
  switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return why +
             " (the driver restricts GPU performance counters to administrators, RmProfilingAdminOnly: "
             "run as root or load nvidia with NVreg_RestrictProfilingToAdminUsers=0)";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_HARDWARE_BUSY:
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
      return why + " (another profiler, e.g. Nsight Compute or Nsight Systems, holds the GPU's counters)";
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_INVALID_CHIP_NAME:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
      return why + " (this GPU or its configuration does not support CUPTI profiling)";
    default:
      return why;
  }
}

}  // namespace tilescope::cuda::detail
