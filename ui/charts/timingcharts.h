// Timing charts: one point's kernel vs baseline duration distribution, and a
// sweep's time per point against the baseline. Shared by TimingPanel and exports.
#pragma once

#include <QString>

#include "tilescope/document.h"  // pointLabel: how points are named everywhere
#include "tilescope/report.h"

class QCustomPlot;

namespace tilescope::ui {

/// "1.84× faster than cublas" / "0.5× (2.0× slower) than cublas" / "" when unknown.
QString speedupText(const Point& p);

/// Box plots (whiskers min..max, box p10..p90, median line) at key 1 (kernel)
/// and key 2 (baseline, when measured). Returns the number of boxes drawn.
int plotDurationBoxes(QCustomPlot* plot, const Point& p);

/// Median time per point (graph 0: kernel, graph 1: baseline) with p10/p90 error
/// bars, x = position in r.points; CV on the right axis (graph 2, percent).
/// `selected` (index into r.points, -1: none) is marked. Returns points drawn.
int plotSweepTimes(QCustomPlot* plot, const Report& r, int selected);

}  // namespace tilescope::ui
