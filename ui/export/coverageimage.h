// A picture of a measured coverage map (CoverageInfo.map), drawn directly with
// QPainter so it needs no widget, with the out-of-bounds evidence past the
// tensor's edge drawn as the coverage view draws it (CoverageGrid's regions).
#pragma once

#include <QImage>

#include "tilescope/model/point.h"

namespace tilescope::ui {

/// Cells as squares (at most `maxSide` px for the map), the elements written or read
/// past the edge (a 2-D tensor's, point `p`'s findings and trace) hatched in the
/// coverage view's colours beyond it, a title above and a legend of the states
/// present (with cell counts) below. Null image when there is no map. `oobRect`
/// (tests): where the out-of-bounds evidence was drawn, empty when none.
QImage coverageImage(const Point& p, const CoverageInfo& coverage, int maxSide = 480,
                     QRect* oobRect = nullptr);

/// Cell counts per state code (index = code 0..5) of a map; empty when no map.
QVector<int> coverageStateCounts(const CellMap& map);

}  // namespace tilescope::ui
