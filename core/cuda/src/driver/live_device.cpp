#include "tilescope/cuda/live_device.h"

#include <cuda.h>

#include <cstdio>

#include "tilescope/cuda/driver.h"
#include "tilescope/cuda/nvml_clock.h"

namespace tilescope::cuda {

namespace {

std::string errorText(CUresult rc) {
  const char* name = nullptr;
  const char* text = nullptr;
  cuGetErrorName(rc, &name);
  cuGetErrorString(rc, &text);
  return std::string(name ? name : "CUDA error") + ": " + (text ? text : "");
}

int attr(CUdevice dev, CUdevice_attribute a) {
  int v = -1;
  if (cuDeviceGetAttribute(&v, a, dev) != CUDA_SUCCESS) return -1;
  return v;
}

}  // namespace

bool queryLiveDevice(int ordinal, DeviceSpec* spec, std::string* error) {
  CUresult rc = cuInit(0);
  if (rc != CUDA_SUCCESS) {
    *error = "cannot initialise the CUDA driver (" + errorText(rc) + ")";
    return false;
  }
  int count = 0;
  rc = cuDeviceGetCount(&count);
  if (rc != CUDA_SUCCESS || count == 0) {
    *error = rc != CUDA_SUCCESS ? "cannot count GPUs (" + errorText(rc) + ")" : "no CUDA GPU found";
    return false;
  }
  if (ordinal < 0 || ordinal >= count) {
    *error = "GPU " + std::to_string(ordinal) + " does not exist (" + std::to_string(count) + " found)";
    return false;
  }
  CUdevice dev;
  cuDeviceGet(&dev, ordinal);
  char name[256] = {};
  cuDeviceGetName(name, sizeof name - 1, dev);

  LiveAttributes live;
  live.name = name;
  live.ccMajor = attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  live.ccMinor = attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  live.smCount = attr(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  live.warpSize = attr(dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  live.maxThreadsPerBlock = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  live.maxThreadsPerSm = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  live.maxBlocksPerSm = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  live.maxBlockDim = {attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X),
                      attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
                      attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)};
  live.maxGridDim = {attr(dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X),
                     attr(dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
                     attr(dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)};
  live.regsPerSm = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  live.regsPerBlock = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  live.smemPerSm = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  live.smemPerBlock = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  live.smemPerBlockOptin = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  live.smemReservedPerBlock = attr(dev, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
  live.l2Bytes = attr(dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  live.memoryBusWidthBits = attr(dev, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  live.memoryClockKHz = attr(dev, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);

  DeviceDb db = DeviceDb::loadDefault();
  const DeviceSpec* base = db.find(live.name);
  if (!base && live.ccMajor > 0) {
    // "NVIDIA H100 80GB HBM3" is not a key: match the database by architecture.
    base = db.find("sm_" + std::to_string(live.ccMajor * 10 + live.ccMinor));
    if (base && base->name.find("H1") != std::string::npos && live.name.find("H200") != std::string::npos)
      base = db.find("h200");
  }
  *spec = base ? withLive(*base, live) : specFromLive(db, live);
  return true;
}

GpuRecord describeGpu(int ordinal) {
  GpuRecord g;
  g.ordinal = ordinal;
  CUdevice dev;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, ordinal) != CUDA_SUCCESS) return g;
  char text[256] = {};
  if (cuDeviceGetName(text, sizeof text - 1, dev) == CUDA_SUCCESS) g.name = text;
  if (CUuuid id; cuDeviceGetUuid(&id, dev) == CUDA_SUCCESS) {
    // nvidia-smi's spelling: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx
    g.uuid = "GPU-";
    for (int i = 0; i < 16; ++i) {
      char hex[3];
      std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(id.bytes[i]));
      g.uuid += hex;
      if (i == 3 || i == 5 || i == 7 || i == 9) g.uuid += '-';
    }
  }
  g.pciBusId = pciBusId(dev);
  if (const int khz = attr(dev, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE); khz > 0) g.memClockMHz = khz / 1000.0;
  if (const ClockSample c = sampleSmClock(dev); c.ok) {
    g.smClockMHz = c.smMHz;
    g.smMaxClockMHz = c.smMaxMHz;
  }
  return g;
}

std::string contextError(int ordinal) {
  CUdevice dev;
  CUcontext ctx = nullptr;
  CUresult rc = cuDeviceGet(&dev, ordinal);
  if (rc == CUDA_SUCCESS) rc = cuDevicePrimaryCtxRetain(&ctx, dev);
  if (rc == CUDA_SUCCESS) rc = cuCtxSetCurrent(ctx);
  if (rc == CUDA_SUCCESS) rc = cuCtxSynchronize();  // returns a sticky error the context holds
  if (ctx) cuDevicePrimaryCtxRelease(dev);
  return rc == CUDA_SUCCESS ? std::string() : errorText(rc);
}

}  // namespace tilescope::cuda
