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
/// The SASS of the source line finding `f` names (run/check --stages: the focus
/// point's stages, else the first point's that summarise that line): its summary
/// in one paragraph; nothing when no point has stages for it.
std::vector<DocBlock> findingSass(const Report& r, const Finding& f);
/// "SASS of the findings' lines": each source line the report's findings name
/// (the first 8), its summary and its instructions from the SASS stage, those a
/// finding or the trace names by offset marked "<- label"; no blocks without stages.
DocSection sassSection(const Report& r);

}  // namespace tilescope::doc_detail
