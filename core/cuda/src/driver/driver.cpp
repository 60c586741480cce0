// Driver-API basics: errors, the primary context, live limits.
#include "tilescope/cuda/driver.h"

namespace tilescope::cuda {

std::string cuErrorName(CUresult r) {
  const char* name = nullptr;
  if (cuGetErrorName(r, &name) != CUDA_SUCCESS || !name) return "CUDA error " + std::to_string(int(r));
  return name;
}

std::string cuErrorText(CUresult r) {
  const char* text = nullptr;
  std::string s = cuErrorName(r);
  if (cuGetErrorString(r, &text) == CUDA_SUCCESS && text) s += std::string(": ") + text;
  return s;
}

std::string pciBusId(CUdevice device) {
  char bus[64] = {};  // "dddddddd:bb:dd.f" at most; the last byte stays the terminator
  if (cuDeviceGetPCIBusId(bus, sizeof bus - 1, device) != CUDA_SUCCESS) return {};
  return bus;
}

bool isStickyError(CUresult r) {
  switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
      return true;
    default:
      return false;
  }
}

ErrorClass classifyCuError(CUresult r) {
  switch (r) {
    case CUDA_ERROR_MISALIGNED_ADDRESS:
      return {"misaligned_access", Verdict::fault};
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:  // __trap() lands here
      return {"device_assert", Verdict::fault};
    case CUDA_ERROR_LAUNCH_TIMEOUT:
      return {"hang", Verdict::hang};
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
      return {"too_many_resources", Verdict::launch_error};
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_INVALID_HANDLE:
    case CUDA_ERROR_NOT_FOUND:
      return {"invalid_launch", Verdict::launch_error};
    default:
      break;
  }
  if (isStickyError(r)) return {"illegal_address", Verdict::fault};
  return {"invalid_launch", Verdict::launch_error};
}

std::string LiveLimits::arch() const { return "sm_" + std::to_string(ccMajor * 10 + ccMinor); }

bool openDevice(int ordinal, CUcontext* ctx, LiveLimits* l, std::string* error) {
  CUresult r = cuInit(0);
  if (r != CUDA_SUCCESS) {
    *error = "cuInit failed (no driver or no GPU): " + cuErrorText(r);
    return false;
  }
  int count = 0;
  cuDeviceGetCount(&count);
  if (ordinal < 0 || ordinal >= count) {
    *error =
        "device " + std::to_string(ordinal) + " does not exist (" + std::to_string(count) + " CUDA devices)";
    return false;
  }
  cuDeviceGet(&l->device, ordinal);
  if ((r = cuDevicePrimaryCtxRetain(ctx, l->device)) != CUDA_SUCCESS ||
      (r = cuCtxSetCurrent(*ctx)) != CUDA_SUCCESS) {
    *error = "cannot create a context on device " + std::to_string(ordinal) + ": " + cuErrorText(r);
    return false;
  }
  char name[256] = {};
  cuDeviceGetName(name, sizeof name, l->device);
  l->name = name;
  auto attr = [&](CUdevice_attribute a) {
    int v = 0;
    cuDeviceGetAttribute(&v, a, l->device);
    return v;
  };
  l->ccMajor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  l->ccMinor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  l->smCount = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  l->maxThreadsPerBlock = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  l->maxBlock[0] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
  l->maxBlock[1] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
  l->maxBlock[2] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
  l->maxGrid[0] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
  l->maxGrid[1] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
  l->maxGrid[2] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
  l->smemPerBlock = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  l->smemPerBlockOptin = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  l->regsPerBlock = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  return true;
}

}  // namespace tilescope::cuda
