// Private to compare*.cpp: the statistics of one comparison pass and the
// classification of its mismatches into a finding.
#pragma once

#include <algorithm>
#include <optional>

#include "tilescope/analysis/compare.h"

namespace tilescope {

/// Stands for a non-finite error in tile and cell maxima (JSON cannot hold inf/NaN).
inline constexpr double kNonFiniteErr = -1.0;

/// The counts of a comparison pass (the per-tile tally is kept apart: compare.cpp).
/// A chunk of rows fills its own; append() merges a later chunk's into an earlier
/// one's, so that the merge in chunk order gives what one pass over all rows gives.
struct MismatchStats {
  std::int64_t compared = 0, mismatches = 0, valueMismatches = 0, nan = 0, inf = 0;
  double maxAbs = 0, maxRel = 0;
  std::int64_t firstRow = -1, firstCol = -1, lastRow = -1, lastCol = -1;
  std::int64_t firstValueRow = -1, firstValueCol = -1;
  bool allInBoundary = true, valueInBoundary = true;

  void noteMismatch(std::int64_t r, std::int64_t c, bool finiteOut, bool boundaryTile) {
    if (mismatches++ == 0) firstRow = r, firstCol = c;
    lastRow = r, lastCol = c;
    allInBoundary = allInBoundary && boundaryTile;
    if (finiteOut) {
      if (valueMismatches++ == 0) firstValueRow = r, firstValueCol = c;
      valueInBoundary = valueInBoundary && boundaryTile;
    }
  }

  void append(const MismatchStats& later) {
    compared += later.compared;
    nan += later.nan;
    inf += later.inf;
    maxAbs = std::max(maxAbs, later.maxAbs);
    maxRel = std::max(maxRel, later.maxRel);
    if (later.mismatches > 0) {
      if (mismatches == 0) firstRow = later.firstRow, firstCol = later.firstCol;
      lastRow = later.lastRow, lastCol = later.lastCol;
    }
    if (later.valueMismatches > 0 && valueMismatches == 0)
      firstValueRow = later.firstValueRow, firstValueCol = later.firstValueCol;
    mismatches += later.mismatches;
    valueMismatches += later.valueMismatches;
    allInBoundary = allInBoundary && later.allInBoundary;
    valueInBoundary = valueInBoundary && later.valueInBoundary;
  }
};

/// CorrectnessInfo.tiles: bad tiles worst first (capped at kMaxTileList).
TileSummary tileSummary(const OutputGeometry& g, const std::vector<TileTally::Entry>& bad);

/// The mismatch finding (tail_tiles | transposed | plain), or none when there is
/// nothing left to report after the scan's findings (compare.h).
std::optional<Finding> classifyMismatch(const HostTensor& out, const HostTensor& ref, double rtol,
                                        double atol, const OutputGeometry& g, const MismatchStats& st,
                                        const std::vector<TileTally::Entry>& badTiles,
                                        const ScanResult* scan);

/// True when `out`'s buffer read as the [cols, rows] matrix equals ref^T within
/// tolerance (rank 2; unwritten elements skipped). Stops at the first miss.
bool equalsTransposed(const HostTensor& out, const HostTensor& ref, double rtol, double atol,
                      const ScanResult* scan);

}  // namespace tilescope
