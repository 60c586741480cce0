#include "models/qtconv.h"

#include "tilescope/base/format.h"
#include "tilescope/model/report.h"

namespace tilescope::ui {

QString formatNs(double ns) { return ns <= 0 ? QStringLiteral("-") : qs(formatDuration(ns)); }

}  // namespace tilescope::ui
