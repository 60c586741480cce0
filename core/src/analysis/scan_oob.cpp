// inferOobReads: the oob_read inference from where an output's NaNs sit (compare.h).
#include <cstdio>

#include "tilescope/analysis/compare.h"

namespace tilescope {

std::vector<Finding> inferOobReads(const ScanResult& scan, const std::vector<GuardedInput>& inputs) {
  std::vector<std::string> candidates;
  for (const auto& in : inputs)
    if (in.nanGuard) candidates.push_back(in.name);
  // 90%: a few NaNs elsewhere (a real overflow, say) should not hide the pattern,
  // but NaNs spread over the whole output point at something else than a tail read.
  constexpr double kMinFraction = 0.9;
  if (candidates.empty() || scan.nanInf == 0) return {};
  const double fraction = static_cast<double>(scan.nanInfInCrossingTiles) / static_cast<double>(scan.nanInf);
  if (fraction < kMinFraction) return {};

  const OutputGeometry& g = scan.geometry;
  Location loc;
  loc.output = scan.coverage.tensor;
  std::int64_t crossingWithNan = 0;
  for (const auto& t : scan.nanInfTiles) {
    if (!g.tileCrossesBounds(t.tile)) continue;
    ++crossingWithNan;
    if (loc.tiles.size() >= kMaxLocationTiles) continue;
    loc.tiles.push_back(t.tile);
    if (auto cta = g.ctaOf(t.tile); !cta.empty()) loc.ctas.push_back(cta);
  }
  std::string names;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    names += (i == 0 ? "" : i + 1 == candidates.size() ? " or " : ", ") + candidates[i];
  char pct[16];
  std::snprintf(pct, sizeof pct, "%.0f%%", 100.0 * fraction);

  Finding f;
  f.category = "oob_read";
  f.severity = Severity::warning;  // inferred from the output, not observed on the inputs
  f.tensor = candidates.size() == 1 ? candidates[0] : "";
  f.treeNode = "fault.oob_read";
  f.message = scan.coverage.tensor + ": " + std::to_string(scan.nanInf) + " NaN/Inf elements, " + pct +
              " of them in " + std::to_string(crossingWithNan) +
              " output tiles that cross the tensor's bounds: unmasked loads past the end of " + names +
              " likely read their NaN guard zone (inferred)";
  if (!loc.ctas.empty()) loc.cta = loc.ctas.front();
  f.location = std::move(loc);
  f.evidence = {{"nan_inf", scan.nanInf},
                {"in_crossing_tiles", scan.nanInfInCrossingTiles},
                {"fraction", fraction},
                {"crossing_tiles_with_nan", crossingWithNan},
                {"tiles_crossing", g.tilesCrossing()},
                {"guard_payload_nans", scan.guardPayloadNans},
                {"candidates", candidates},
                {"inferred", true}};
  return {f};
}

}  // namespace tilescope
