// Default locations for findings whose evidence names no element, tile or byte:
// the config value a person must change (launch.shared_bytes for shared memory,
// launch.block for the block size) or, for a fault, the launch that faulted.
#pragma once

#include "tilescope/config/config.h"
#include "tilescope/model/point.h"

namespace tilescope {

/// Fills `location` of each finding of `p` that has none, from the point's launch
/// geometry and the config's expressions. Findings with a location keep it.
void fillDefaultLocations(Point& p, const Config& pointConfig);

}  // namespace tilescope
