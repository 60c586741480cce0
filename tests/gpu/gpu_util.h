// Helpers shared by the end-to-end GPU tests that drive tilescope-run.
#pragma once

#include <dlfcn.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tilescope/base/format.h"

namespace tilescope::gputest {

/// A CUDA GPU usable here: the driver loads, initialises and counts one or more devices.
/// Asked of the driver directly, so these tests need no CUDA headers.
inline bool gpuPresent() {
  static const bool present = [] {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return false;
    using InitFn = int (*)(unsigned);
    using CountFn = int (*)(int*);
    auto init = reinterpret_cast<InitFn>(dlsym(lib, "cuInit"));
    auto count = reinterpret_cast<CountFn>(dlsym(lib, "cuDeviceGetCount"));
    int n = 0;
    return init && count && init(0) == 0 && count(&n) == 0 && n > 0;  // the library stays loaded
  }();
  return present;
}

/// How many CUDA GPUs this process sees (0 without a driver).
inline int gpuCount() {
  if (!gpuPresent()) return 0;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  using CountFn = int (*)(int*);
  auto count = lib ? reinterpret_cast<CountFn>(dlsym(lib, "cuDeviceGetCount")) : nullptr;
  int n = 0;
  return count && count(&n) == 0 ? n : 0;
}

/// Device 0's compute capability as major * 10 + minor (90 for an H100), or 0 without a GPU.
inline int gpuComputeCapability() {
  static const int cc = [] {
    if (!gpuPresent()) return 0;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    using AttrFn = int (*)(int*, int, int);
    auto attr = lib ? reinterpret_cast<AttrFn>(dlsym(lib, "cuDeviceGetAttribute")) : nullptr;
    int major = 0, minor = 0;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / _MINOR (75, 76) of device 0
    if (!attr || attr(&major, 75, 0) != 0 || attr(&minor, 76, 0) != 0) return 0;
    return major * 10 + minor;
  }();
  return cc;
}

using tilescope::shellQuote;  // one quoting rule, core's

inline std::string readFile(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace tilescope::gputest
