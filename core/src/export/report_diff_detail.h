// Internals shared by report_diff*.cpp (not a public header).
#pragma once

#include <vector>

#include "tilescope/export/report_diff.h"

namespace tilescope::diff_detail {

/// Each output either side checked, matched by tensor name (A's order first).
std::vector<CorrectnessDiff> correctnessDiff(const Point& a, const Point& b);
std::vector<OutputBytesDiff> outputsDiff(const Point& a, const Point& b);
/// B's map against A's (on A's grid); nullopt with *note when they cannot be compared.
std::optional<ErrorMapDiff> errorMapDiff(const CorrectnessInfo& a, const CorrectnessInfo& b,
                                         std::string* note);
/// A's findings matched with B's (report_diff.h, FindingDiff).
std::vector<FindingDiff> findingsDiff(const std::vector<Finding>& a, const std::vector<Finding>& b);

}  // namespace tilescope::diff_detail
