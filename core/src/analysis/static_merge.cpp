// The static view of a point laid onto its capture (static_analysis.h: mergeStatic).
#include <algorithm>

#include "tilescope/analysis/static_analysis.h"

namespace tilescope {

namespace {

void mergeCoverage(CoverageInfo& measured, const CoverageInfo& declared) {
  measured.declaredCovered = declared.declaredCovered;
  measured.declaredUncovered = declared.declaredUncovered;
  measured.declaredOverlapped = declared.declaredOverlapped;
  measured.tile = declared.tile;
  measured.tilesTotal = declared.tilesTotal;
  measured.tilesCrossing = declared.tilesCrossing;
  if (measured.shape.empty()) measured.shape = declared.shape;
  if (measured.elements == 0) measured.elements = declared.elements;
  if (!measured.crossingTiles) measured.crossingTiles = declared.crossingTiles;
  if (!declared.extra.is_object()) return;
  if (!measured.extra.is_object()) measured.extra = nlohmann::json::object();
  for (const auto& [k, v] : declared.extra.items())
    if (!measured.extra.contains(k)) measured.extra[k] = v;
}

}  // namespace

void mergeStatic(Point& p, const Point& st) {
  p.occupancy = st.occupancy;
  for (const CoverageInfo& sc : st.coverage) {
    auto it = std::find_if(p.coverage.begin(), p.coverage.end(),
                           [&](const CoverageInfo& c) { return c.tensor == sc.tensor; });
    if (it == p.coverage.end())
      p.coverage.push_back(sc);
    else
      mergeCoverage(*it, sc);
  }
  for (const Finding& f : st.findings) {
    const bool measured = std::any_of(p.findings.begin(), p.findings.end(),
                                      [&](const Finding& g) { return g.category == f.category; });
    if (measured) continue;
    Finding g = f;
    g.evidence["source"] = "static analysis";
    p.findings.push_back(std::move(g));
  }
  p.verdict = worse(p.verdict, verdictForFindings(p.findings));
}

}  // namespace tilescope
