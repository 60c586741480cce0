// Colours and icons shared by every view, so a verdict or a coverage state looks
// the same in the matrix, the coverage grid, the legend and the exports.
#pragma once

#include <QColor>
#include <QIcon>
#include <QString>

#include "tilescope/report.h"

namespace tilescope::ui {

/// Measured coverage state codes of CoverageInfo.map (report.cpp): 0 ok, 1 mismatch,
/// 2 unwritten, 3 nan_inf, 4 overlapped, 5 oob. kStateUnknown marks "no data".
enum CoverageState : int {
  kStateOk = 0,
  kStateMismatch = 1,
  kStateUnwritten = 2,
  kStateNanInf = 3,
  kStateOverlapped = 4,
  kStateOob = 5,
  kStateCount = 6,
  kStateUnknown = 255,
};

QColor verdictColor(Verdict v);
QColor stateColor(int state);
QString stateName(int state);
/// Severity ranks worse states higher when several cells merge into one tile.
int stateSeverity(int state);
QIcon severityIcon(Severity s);

}  // namespace tilescope::ui
