// How far an out-of-bounds finding's evidence reaches: the elements a view or an
// export draws past a tensor's edge. One answer for the workbench's coverage and
// mask views and the exports' figures, so a traced report draws what its guard
// zone measured (docs/report.md, "trace": a traced finding names its first access
// in location.elements and keeps the guard zone's count in evidence.guard_zone).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tilescope/model/finding.h"

namespace tilescope {

/// The run of elements a guard zone saw changed (evidence.guard_zone: the guard
/// zone's own finding, or a traced finding that replaced it), as indices of a tensor
/// of `shape` (the leading dimension unbounded: past the end is row M, M+1, …);
/// nullopt when the evidence holds no guard zone or does not fit the shape.
std::optional<ElementRange> guardZoneElements(const Finding& f, const std::vector<std::int64_t>& shape);

/// The elements an oob_write/oob_read finding proves were touched: the guard zone's
/// run where it holds more elements than location.elements, else location.elements.
std::optional<ElementRange> oobElements(const Finding& f, const std::vector<std::int64_t>& shape);

/// Elements in a range: the box's where it has one, else the row-major run's.
std::int64_t elementCount(const ElementRange& e, const std::vector<std::int64_t>& shape);

}  // namespace tilescope
