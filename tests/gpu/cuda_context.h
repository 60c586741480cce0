// For GPU tests that call core/cuda in-process: device 0's primary context made
// current, or a clean skip where there is no GPU (the driver is resolved at run
// time, so this also runs, and skips, on hosts without a driver).
#pragma once

#include <cuda.h>

#include <gtest/gtest.h>

namespace tilescope::cuda {

inline bool gpuReady() {
  int n = 0;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGetCount(&n) != CUDA_SUCCESS || n == 0) return false;
  CUcontext ctx = nullptr;
  CUdevice dev = 0;
  if (cuDeviceGet(&dev, 0) != CUDA_SUCCESS || cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS)
    return false;
  return cuCtxSetCurrent(ctx) == CUDA_SUCCESS;
}

}  // namespace tilescope::cuda

#define REQUIRE_GPU() \
  if (!::tilescope::cuda::gpuReady()) GTEST_SKIP() << "no CUDA GPU available"
