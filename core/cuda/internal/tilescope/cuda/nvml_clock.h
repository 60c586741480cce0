// SM clock and throttle reasons through NVML, loaded with dlopen so that the
// tool runs (with a note) where libnvidia-ml.so.1 is missing.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>

namespace tilescope::cuda {

struct ClockSample {
  bool ok = false;
  double smMHz = 0;           ///< current SM clock
  double smMaxMHz = 0;        ///< the device's maximum SM clock
  std::uint64_t reasons = 0;  ///< NVML clocks-event (throttle) reason bits
  bool throttled = false;     ///< a power, thermal or hardware slowdown reason is active
  std::string throttleText;   ///< "sw_power_cap hw_slowdown", or ""
  std::string error;          ///< why no sample ("" when ok)
};

/// Samples the SM clock of `device` (located in NVML by PCI bus id).
ClockSample sampleSmClock(CUdevice device);

}  // namespace tilescope::cuda
