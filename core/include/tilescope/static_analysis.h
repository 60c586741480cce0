// Static findings of one config point (no GPU): launch geometry against the device's
// limits, the shared-memory budget, register use, theoretical occupancy and the declared
// tile coverage (SPEC §4 categories smem_exceeded, invalid_launch, too_many_resources,
// coverage_gap, coverage_overlap, register_spill, low_occupancy).
#pragma once

#include "tilescope/config.h"
#include "tilescope/devices.h"
#include "tilescope/report.h"

namespace tilescope {

/// low_occupancy is reported below this theoretical occupancy (25%: below 16 of 64 warps per SM
/// an SM rarely has enough warps in flight to hide memory latency).
inline constexpr double kLowOccupancyThreshold = 0.25;
/// Crossing tiles and gap/overlap boxes listed in a coverage entry (the counts are complete).
inline constexpr std::size_t kListedTiles = 32;

/// Fills a Point's defines/params, launch geometry, compile info, occupancy, declared coverage
/// and findings. `compile` may be !attempted (no CUDA): register checks are skipped and static
/// shared memory counts as 0. Throws ConfigError when an expression cannot be evaluated.
Point analyzeStatic(const Config& pointConfig, const DeviceSpec& dev, const CompileInfo& compile);

}  // namespace tilescope
