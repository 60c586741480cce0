// A picture of a measured coverage map (CoverageInfo.map), drawn directly with
// QPainter so it needs no widget.
#pragma once

#include <QImage>

#include "tilescope/model/report.h"

namespace tilescope::ui {

/// Cells as squares (at most `maxSide` px for the map), a title above and a legend
/// of the states present (with cell counts) below. Null image when there is no map.
QImage coverageImage(const CoverageInfo& coverage, int maxSide = 480);

/// Cell counts per state code (index = code 0..5) of a map; empty when no map.
QVector<int> coverageStateCounts(const CellMap& map);

}  // namespace tilescope::ui
