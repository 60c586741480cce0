// Driver-API basics for a capture: context setup, live device limits, and the
// meaning of CUDA errors (sticky faults vs launch errors) as findings (docs/report.md, Finding categories).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>

#include "tilescope/model/vocabulary.h"

namespace tilescope::cuda {

/// "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered".
std::string cuErrorText(CUresult r);
/// "CUDA_ERROR_ILLEGAL_ADDRESS" alone.
std::string cuErrorName(CUresult r);

/// The device's PCI bus id as the driver spells it ("0000:41:00.0"; NVML and
/// nvidia-smi name GPUs by it), or "" when the driver cannot say.
std::string pciBusId(CUdevice device);

/// Errors after which the context is unusable (the worker must exit).
bool isStickyError(CUresult r);

/// The finding category a launch or execution error maps to (vocabulary.h), and the
/// verdict it implies: fault for sticky errors, hang for a timeout, launch_error
/// otherwise.
struct ErrorClass {
  std::string category;
  Verdict verdict = Verdict::launch_error;
};
ErrorClass classifyCuError(CUresult r);

/// The limits of the live device that a launch is checked against.
struct LiveLimits {
  CUdevice device = 0;
  std::string name;
  int ccMajor = 0, ccMinor = 0, smCount = 0;
  int maxThreadsPerBlock = 0;
  int maxBlock[3] = {0, 0, 0};
  int maxGrid[3] = {0, 0, 0};
  std::int64_t smemPerBlock = 0;       ///< without opt-in (48 KiB)
  std::int64_t smemPerBlockOptin = 0;  ///< with CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
  int regsPerBlock = 0;
  std::string arch() const;  ///< "sm_90"
};

/// cuInit, the device `ordinal`, its primary context made current, and its
/// limits. Returns false with a readable reason in *error.
bool openDevice(int ordinal, CUcontext* ctx, LiveLimits* limits, std::string* error);

}  // namespace tilescope::cuda
