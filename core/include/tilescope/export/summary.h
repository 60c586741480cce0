// The human-readable summary every verb prints on stderr. The exports (Markdown,
// HTML, PDF) are rendered from document.h's model.
#pragma once

#include <ostream>

#include "tilescope/base/format.h"
#include "tilescope/model/report.h"

namespace tilescope {

void printSummary(const Report& report, std::ostream& out);

}  // namespace tilescope
