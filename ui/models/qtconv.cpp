#include "models/qtconv.h"

#include "tilescope/base/format.h"

namespace tilescope::ui {

QString formatNs(double ns) { return ns <= 0 ? QStringLiteral("-") : qs(formatDuration(ns)); }

}  // namespace tilescope::ui
