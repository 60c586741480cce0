// Internals shared by document*.cpp (not a public header).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/export/document.h"

namespace tilescope::doc_detail {

/// Compact text of a JSON value: strings unquoted, numbers via formatNumber,
/// objects as "k=v, k=v", arrays as "[a, b]".
std::string jsonText(const nlohmann::json& j);
/// The per-point sections: points, compile and launch, correctness, occupancy,
/// coverage, hardware counters (empty ones have no blocks).
std::vector<DocSection> pointSections(const Report& r, const DocumentOptions& o);
/// The trace section of the focus point (else the first traced point): source
/// excerpt, footprints, bad accesses, hazards; no blocks when nothing was traced.
DocSection traceSection(const Report& r, const DocumentOptions& o);
/// The SASS of the source line finding `f` names (run/check --stages: the first
/// point whose stages summarise that line): a summary line and the line's first
/// instructions; nothing when no point has stages for it.
std::vector<DocBlock> findingSass(const Report& r, const Finding& f);

}  // namespace tilescope::doc_detail
