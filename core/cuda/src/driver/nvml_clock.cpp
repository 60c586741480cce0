// NVML through dlopen: the handful of entry points we need, declared with NVML's
// documented C signatures (nvml.h is not needed at build time).
#include "tilescope/cuda/nvml_clock.h"

#include <dlfcn.h>

#include <mutex>

#include "tilescope/cuda/driver.h"

namespace tilescope::cuda {
namespace {

using nvmlReturn = int;  // NVML_SUCCESS == 0
using nvmlDevice = void*;
constexpr int kNvmlClockSm = 1;  // NVML_CLOCK_SM

// nvmlClocksEventReasons bits (nvml.h): the ones that mean "slowed down", not "idle".
struct Reason {
  std::uint64_t bit;
  const char* name;
};
constexpr Reason kSlowdowns[] = {{0x4, "sw_power_cap"},
                                 {0x8, "hw_slowdown"},
                                 {0x20, "sw_thermal"},
                                 {0x40, "hw_thermal"},
                                 {0x80, "hw_power_brake"}};

struct Nvml {
  void* lib = nullptr;
  std::string error;
  nvmlReturn (*init)() = nullptr;
  nvmlReturn (*byPci)(const char*, nvmlDevice*) = nullptr;
  nvmlReturn (*clock)(nvmlDevice, int, unsigned*) = nullptr;
  nvmlReturn (*maxClock)(nvmlDevice, int, unsigned*) = nullptr;
  nvmlReturn (*reasons)(nvmlDevice, unsigned long long*) = nullptr;
  const char* (*errorString)(nvmlReturn) = nullptr;
};

template <typename F>
void bind(void* lib, F& fn, const char* name) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
}

Nvml& nvml() {
  static Nvml n;
  static std::once_flag once;
  std::call_once(once, [] {
    n.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!n.lib) {
      n.error = "NVML not available (libnvidia-ml.so.1 could not be loaded): SM clocks not sampled";
      return;
    }
    bind(n.lib, n.init, "nvmlInit_v2");
    bind(n.lib, n.byPci, "nvmlDeviceGetHandleByPciBusId_v2");
    bind(n.lib, n.clock, "nvmlDeviceGetClockInfo");
    bind(n.lib, n.maxClock, "nvmlDeviceGetMaxClockInfo");
    bind(n.lib, n.reasons, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!n.reasons) bind(n.lib, n.reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
    bind(n.lib, n.errorString, "nvmlErrorString");
    if (!n.init || !n.byPci || !n.clock) {
      n.error = "NVML lacks nvmlInit_v2/nvmlDeviceGetHandleByPciBusId_v2/nvmlDeviceGetClockInfo";
      return;
    }
    if (nvmlReturn r = n.init(); r != 0)
      n.error = std::string("nvmlInit failed: ") + (n.errorString ? n.errorString(r) : std::to_string(r));
  });
  return n;
}

}  // namespace

ClockSample sampleSmClock(CUdevice device) {
  ClockSample s;
  Nvml& n = nvml();
  if (!n.error.empty()) {
    s.error = n.error;
    return s;
  }
  const std::string bus = pciBusId(device);
  if (bus.empty()) {
    s.error = "cuDeviceGetPCIBusId failed: cannot find the device in NVML";
    return s;
  }
  nvmlDevice dev = nullptr;
  unsigned mhz = 0;
  if (n.byPci(bus.c_str(), &dev) != 0 || n.clock(dev, kNvmlClockSm, &mhz) != 0) {
    s.error = "NVML could not read the SM clock of " + bus;
    return s;
  }
  s.ok = true;
  s.smMHz = mhz;
  if (unsigned maxMhz = 0; n.maxClock && n.maxClock(dev, kNvmlClockSm, &maxMhz) == 0) s.smMaxMHz = maxMhz;
  unsigned long long bits = 0;
  if (n.reasons && n.reasons(dev, &bits) == 0) {
    s.reasons = bits;
    for (const Reason& r : kSlowdowns) {
      if (!(bits & r.bit)) continue;
      s.throttled = true;
      s.throttleText += (s.throttleText.empty() ? "" : " ") + std::string(r.name);
    }
  }
  return s;
}

}  // namespace tilescope::cuda
