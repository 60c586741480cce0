// The compile_error finding of a Triton or TileLang kernel: Triton's message at its
// .py line, the error-log classifier's category and detail, and the troubleshooting
// tree's node with its fix and before/after example (docs/triton.md).
#pragma once

#include <string>

#include "tilescope/config/config.h"
#include "tilescope/model/finding.h"
#include "tilescope/model/measurements.h"

namespace tilescope {

/// A compile_error finding for a failed compile of `cfg`'s Python kernel. `line` (0:
/// unknown) and `firstError` come from the compile log's first error line; `column`
/// likewise (0: unknown).
Finding pythonCompileErrorFinding(const Config& cfg, const CompileInfo& ci, int line, int column,
                                  const std::string& firstError);

/// "FILE:LINE:COL: error: MESSAGE" → (line, column); (0, 0) when the log's first line
/// is not of that form.
std::pair<int, int> compileErrorPosition(const std::string& log);

}  // namespace tilescope
