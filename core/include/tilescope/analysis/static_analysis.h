// Static findings of one config point (no GPU): launch geometry against the device's
// limits, the shared-memory budget, register use, theoretical occupancy and the declared
// tile coverage (finding categories smem_exceeded, invalid_launch, too_many_resources,
// coverage_gap, coverage_overlap, register_spill, low_occupancy).
#pragma once

#include "tilescope/config/config.h"
#include "tilescope/model/devices.h"
#include "tilescope/model/point.h"

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

/// Lays the static view of a point (analyzeStatic on the live device) onto its capture,
/// as the worker does before it reports the point. The measurement wins where both speak:
/// - occupancy is the static one (the capture computes none);
/// - a coverage entry of a tensor the capture measured takes the declared counts and
///   tiling, fills shape and elements only where the capture left them empty, and adds
///   only the `extra` keys the capture did not set; other tensors' entries are added;
/// - a static finding is dropped when the capture has a finding of its category, and
///   otherwise added with evidence.source = "static analysis";
/// - the verdict becomes the worse of the capture's and the findings'.
void mergeStatic(Point& measured, const Point& staticView);

}  // namespace tilescope
