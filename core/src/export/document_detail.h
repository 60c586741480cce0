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

}  // namespace tilescope::doc_detail
