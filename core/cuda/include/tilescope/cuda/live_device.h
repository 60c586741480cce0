// The GPU a worker runs on, read through the driver API and laid over the
// device database entry (live values take precedence).
#pragma once

#include <string>

#include "tilescope/devices.h"

namespace tilescope::cuda {

/// Initialises the driver and reads device `ordinal`. Returns false with a
/// readable reason (no driver, no device, ordinal out of range) in *error.
bool queryLiveDevice(int ordinal, DeviceSpec* spec, std::string* error);

}  // namespace tilescope::cuda
