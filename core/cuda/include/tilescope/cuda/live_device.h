// The GPU a worker runs on, read through the driver API and laid over the
// device database entry (live values take precedence).
#pragma once

#include <string>

#include "tilescope/model/devices.h"
#include "tilescope/model/point.h"

namespace tilescope::cuda {

/// Initialises the driver and reads device `ordinal`. Returns false with a
/// readable reason (no driver, no device, ordinal out of range) in *error.
bool queryLiveDevice(int ordinal, DeviceSpec* spec, std::string* error);

/// Which GPU `ordinal` is (name, UUID, PCI bus id) and its clocks now: a point's
/// `gpu` record but for the host. What cannot be read stays empty or 0.
GpuRecord describeGpu(int ordinal);

/// Whether device `ordinal`'s primary context still works (a warm worker asks
/// between captures): "" when it does, else the error that broke it.
std::string contextError(int ordinal);

}  // namespace tilescope::cuda
