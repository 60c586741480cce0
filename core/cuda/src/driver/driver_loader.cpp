// The CUDA driver API, resolved from libcuda.so.1 at first use instead of at
// program start. A build host and CI have the toolkit but no driver: linking
// libcuda directly would stop tilescope-run (and every test binary) from even
// starting there, although `check`, `devices`, `classify` and `export` need no
// GPU. With this loader they run anywhere, and a verb that needs the GPU gets
// CUDA_ERROR_NO_DEVICE with a readable reason instead of a loader failure.
//
// Each wrapper is defined with the prototype cuda.h declares, so the versioned
// names that cuda.h maps to (cuMemAlloc -> cuMemAlloc_v2) are the ones resolved.
#include <cuda.h>
#include <dlfcn.h>

#include <mutex>
#include <string>

namespace {

void* driverHandle() {
  static void* handle = [] {
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!h) h = dlopen("libcuda.so", RTLD_NOW | RTLD_GLOBAL);
    return h;
  }();
  return handle;
}

void* driverSymbol(const char* name) {
  void* h = driverHandle();
  return h ? dlsym(h, name) : nullptr;
}

}  // namespace

#define TS_STR2(x) #x
#define TS_STR(x) TS_STR2(x)
#define TS_DRIVER(fn, params, args)                                                           \
  extern "C" CUresult CUDAAPI fn params {                                                     \
    using Fn = CUresult(CUDAAPI*) params;                                                     \
    static Fn tsResolved = reinterpret_cast<Fn>(driverSymbol(TS_STR(fn)));                    \
    if (!tsResolved) return driverHandle() ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_NO_DEVICE; \
    return tsResolved args;                                                                   \
  }

extern "C" CUresult CUDAAPI cuGetErrorName(CUresult error, const char** pStr) {
  using Fn = CUresult(CUDAAPI*)(CUresult, const char**);
  static Fn p = reinterpret_cast<Fn>(driverSymbol("cuGetErrorName"));
  if (p) return p(error, pStr);
  if (pStr) *pStr = error == CUDA_ERROR_NO_DEVICE ? "CUDA_ERROR_NO_DEVICE" : "CUDA_ERROR_UNKNOWN";
  return CUDA_SUCCESS;
}

extern "C" CUresult CUDAAPI cuGetErrorString(CUresult error, const char** pStr) {
  using Fn = CUresult(CUDAAPI*)(CUresult, const char**);
  static Fn p = reinterpret_cast<Fn>(driverSymbol("cuGetErrorString"));
  if (p) return p(error, pStr);
  if (pStr)
    *pStr = driverHandle()
                ? "driver entry point missing (driver older than the toolkit?)"
                : "no CUDA driver on this machine (libcuda.so.1 not found): install the NVIDIA driver "
                  "or run on a GPU host";
  return CUDA_SUCCESS;
}

TS_DRIVER(cuInit, (unsigned int flags), (flags))
TS_DRIVER(cuDriverGetVersion, (int* v), (v))
TS_DRIVER(cuDeviceGet, (CUdevice * d, int ordinal), (d, ordinal))
TS_DRIVER(cuDeviceGetCount, (int* n), (n))
TS_DRIVER(cuDeviceGetName, (char* name, int len, CUdevice d), (name, len, d))
TS_DRIVER(cuDeviceGetAttribute, (int* v, CUdevice_attribute a, CUdevice d), (v, a, d))
TS_DRIVER(cuDeviceGetPCIBusId, (char* id, int len, CUdevice d), (id, len, d))
TS_DRIVER(cuDeviceGetUuid, (CUuuid * uuid, CUdevice d), (uuid, d))
TS_DRIVER(cuDeviceTotalMem, (size_t * bytes, CUdevice d), (bytes, d))
TS_DRIVER(cuDevicePrimaryCtxRetain, (CUcontext * c, CUdevice d), (c, d))
TS_DRIVER(cuDevicePrimaryCtxRelease, (CUdevice d), (d))
TS_DRIVER(cuCtxSetCurrent, (CUcontext c), (c))
TS_DRIVER(cuCtxGetCurrent, (CUcontext * c), (c))
TS_DRIVER(cuCtxGetDevice, (CUdevice * d), (d))
TS_DRIVER(cuCtxGetId, (CUcontext c, unsigned long long* id), (c, id))
TS_DRIVER(cuCtxSynchronize, (void), ())
TS_DRIVER(cuCtxSetLimit, (CUlimit l, size_t v), (l, v))
TS_DRIVER(cuCtxGetLimit, (size_t * v, CUlimit l), (v, l))
TS_DRIVER(cuMemAlloc, (CUdeviceptr * p, size_t bytes), (p, bytes))
TS_DRIVER(cuMemFree, (CUdeviceptr p), (p))
TS_DRIVER(cuMemGetInfo, (size_t * f, size_t* t), (f, t))
TS_DRIVER(cuMemcpyHtoD, (CUdeviceptr dst, const void* src, size_t n), (dst, src, n))
TS_DRIVER(cuMemcpyDtoH, (void* dst, CUdeviceptr src, size_t n), (dst, src, n))
TS_DRIVER(cuMemcpyDtoD, (CUdeviceptr dst, CUdeviceptr src, size_t n), (dst, src, n))
TS_DRIVER(cuMemcpyHtoDAsync, (CUdeviceptr dst, const void* src, size_t n, CUstream s), (dst, src, n, s))
TS_DRIVER(cuMemcpyDtoHAsync, (void* dst, CUdeviceptr src, size_t n, CUstream s), (dst, src, n, s))
TS_DRIVER(cuMemcpyDtoDAsync, (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s), (dst, src, n, s))
TS_DRIVER(cuMemsetD8, (CUdeviceptr p, unsigned char v, size_t n), (p, v, n))
TS_DRIVER(cuMemsetD32, (CUdeviceptr p, unsigned int v, size_t n), (p, v, n))
TS_DRIVER(cuMemsetD8Async, (CUdeviceptr p, unsigned char v, size_t n, CUstream s), (p, v, n, s))
TS_DRIVER(cuModuleLoadData, (CUmodule * m, const void* image), (m, image))
TS_DRIVER(cuModuleLoadDataEx, (CUmodule * m, const void* image, unsigned int n, CUjit_option* o, void** v),
          (m, image, n, o, v))
TS_DRIVER(cuModuleUnload, (CUmodule m), (m))
TS_DRIVER(cuModuleGetFunction, (CUfunction * f, CUmodule m, const char* name), (f, m, name))
TS_DRIVER(cuModuleGetGlobal, (CUdeviceptr * p, size_t* bytes, CUmodule m, const char* name),
          (p, bytes, m, name))
TS_DRIVER(cuFuncGetAttribute, (int* v, CUfunction_attribute a, CUfunction f), (v, a, f))
TS_DRIVER(cuFuncSetAttribute, (CUfunction f, CUfunction_attribute a, int v), (f, a, v))
TS_DRIVER(cuFuncSetCacheConfig, (CUfunction f, CUfunc_cache c), (f, c))
TS_DRIVER(cuLaunchKernel,
          (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,
           unsigned int bz, unsigned int smem, CUstream s, void** params, void** extra),
          (f, gx, gy, gz, bx, by, bz, smem, s, params, extra))
TS_DRIVER(cuLaunchKernelEx, (const CUlaunchConfig* config, CUfunction f, void** params, void** extra),
          (config, f, params, extra))
TS_DRIVER(cuOccupancyMaxActiveBlocksPerMultiprocessor, (int* n, CUfunction f, int block, size_t smem),
          (n, f, block, smem))
TS_DRIVER(cuStreamCreate, (CUstream * s, unsigned int flags), (s, flags))
TS_DRIVER(cuStreamDestroy, (CUstream s), (s))
TS_DRIVER(cuStreamSynchronize, (CUstream s), (s))
TS_DRIVER(cuStreamQuery, (CUstream s), (s))
TS_DRIVER(cuEventCreate, (CUevent * e, unsigned int flags), (e, flags))
TS_DRIVER(cuEventDestroy, (CUevent e), (e))
TS_DRIVER(cuEventRecord, (CUevent e, CUstream s), (e, s))
TS_DRIVER(cuEventSynchronize, (CUevent e), (e))
TS_DRIVER(cuEventQuery, (CUevent e), (e))
TS_DRIVER(cuEventElapsedTime, (float* ms, CUevent a, CUevent b), (ms, a, b))
