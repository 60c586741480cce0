// Internals shared by trace*.cpp (not a public header).
#pragma once

#include "tilescope/trace/trace.h"

namespace tilescope::trace_detail {

TraceSite siteOf(const TraceCapture& c, const LineTable& lines, std::uint64_t pc, const std::string& source);
std::uint64_t keyOf(const Dim3& block, const Dim3& thread, const Dim3& grid, const Dim3& blockDim);
Dim3 unlinear(std::uint64_t linear, const Dim3& extent);

/// Per-line aggregates of the per-PC counters (sorted by file, line, offset).
std::vector<TraceLine> foldLines(const TraceCapture& c, const LineTable& lines, const std::string& source);
/// The report's footprints, downsampled to at most `cells` cells per tensor.
std::vector<TraceFootprint> footprints(const TraceCapture& c, std::size_t cells, std::size_t ctas);
/// A bank_conflicts finding when the shared accesses took `threshold` more
/// wavefronts than ideal; nothing otherwise.
std::optional<Finding> bankConflictFinding(const TraceInfo& info, double threshold);
/// A race finding for the shared-memory hazards; nothing when there are none.
std::optional<Finding> raceFinding(const TraceInfo& info);

std::string siteText(const TraceSite& s);   ///< "gemm_tiled.cu:123" or "gemm_tiled+0x1a0"
Location siteLocation(const TraceSite& s);  ///< function, sass offset, file, line
std::string dim3Text(const Dim3& d);        ///< "(3, 1, 0)"

}  // namespace tilescope::trace_detail
