// The classes of mismatch (tail tiles, transposed, plain) and the per-tile summary.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "compare_classify.h"

namespace tilescope {
namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string indexText(const std::vector<std::int64_t>& idx) {
  std::string s = "[";
  for (std::size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + std::to_string(idx[i]);
  return s + "]";
}

// Worst first: most wrong elements, then the largest error (a non-finite one counts as largest).
std::vector<TileTally::Entry> worstFirst(std::vector<TileTally::Entry> tiles) {
  auto key = [](const TileTally::Entry& e) { return e.maxErr < 0 ? HUGE_VAL : e.maxErr; };
  std::sort(tiles.begin(), tiles.end(), [&](const auto& a, const auto& b) {
    return a.count != b.count ? a.count > b.count : key(a) > key(b);
  });
  return tiles;
}

bool hasFinding(const ScanResult* scan, const char* category) {
  if (!scan) return false;
  return std::any_of(scan->findings.begin(), scan->findings.end(),
                     [&](const Finding& f) { return f.category == category; });
}

}  // namespace

TileSummary tileSummary(const OutputGeometry& g, const std::vector<TileTally::Entry>& bad) {
  TileSummary s;
  const auto sorted = worstFirst(bad);
  for (std::size_t i = 0; i < sorted.size() && i < kMaxTileList; ++i) {
    const auto& e = sorted[i];
    s.bad.push_back({e.tile / g.tileCols, e.tile % g.tileCols, e.count, e.maxErr});
  }
  s.tileShape = g.tile;
  s.grid = {g.tileRows, g.tileCols};
  s.badTiles = static_cast<std::int64_t>(bad.size());
  s.tilesTotal = g.tilesTotal();
  s.capped = bad.size() > kMaxTileList;
  return s;
}

bool equalsTransposed(const HostTensor& out, const HostTensor& ref, double rtol, double atol,
                      const ScanResult* scan) {
  if (out.shape.size() != 2) return false;
  const std::int64_t R = out.shape[0], C = out.shape[1];
  const bool skip = scan && scan->hasSentinel;
  // 64x64 blocks: out is read along its rows j, ref along its rows i, both contiguous.
  constexpr std::int64_t B = 64;
  std::vector<double> ov(B * B), rv(B * B);
  std::vector<std::uint64_t> ob(B * B);
  std::int64_t compared = 0;
  for (std::int64_t i0 = 0; i0 < R; i0 += B) {
    const std::int64_t ni = std::min(B, R - i0);
    for (std::int64_t j0 = 0; j0 < C; j0 += B) {
      const std::int64_t nj = std::min(B, C - j0);
      for (std::int64_t j = 0; j < nj; ++j)  // out as [C, R]: element (j, i) is flat (j0+j)*R + i0+i
        decodeRange(out, (j0 + j) * R + i0, ni, ov.data() + j * B, ob.data() + j * B);
      for (std::int64_t i = 0; i < ni; ++i)
        decodeRange(ref, (i0 + i) * C + j0, nj, rv.data() + i * B, nullptr);
      for (std::int64_t i = 0; i < ni; ++i)
        for (std::int64_t j = 0; j < nj; ++j) {
          if (skip && ob[j * B + i] == scan->sentinel) continue;
          const double o = ov[j * B + i], x = rv[i * B + j];
          ++compared;
          if (o == x) continue;
          if (!(std::fabs(o - x) <= atol + rtol * std::fabs(x))) return false;
        }
    }
  }
  return compared > 0;
}

std::optional<Finding> classifyMismatch(const HostTensor& out, const HostTensor& ref, double rtol,
                                        double atol, const OutputGeometry& g, const MismatchStats& st,
                                        const std::vector<TileTally::Entry>& badTiles,
                                        const ScanResult* scan) {
  // One bug, one finding: an all-zero output is all_zero, not also a mismatch; NaN/Inf
  // already reported as nan_inf leave only the finite wrong values to report here.
  if (scan && scan->allZero) return std::nullopt;
  const bool nanReported = hasFinding(scan, "nan_inf");
  const std::int64_t count = nanReported ? st.valueMismatches : st.mismatches;
  if (count == 0) return std::nullopt;
  const bool inBoundary = nanReported ? st.valueInBoundary : st.allInBoundary;
  const std::int64_t firstRow = nanReported ? st.firstValueRow : st.firstRow;
  const std::int64_t firstCol = nanReported ? st.firstValueCol : st.firstCol;

  Finding f;
  f.category = "mismatch";
  f.severity = Severity::error;
  f.tensor = out.name;
  const auto worst = worstFirst(badTiles);
  for (std::size_t i = 0; i < worst.size() && i < kMaxLocationTiles; ++i) {
    const auto t = g.tileIndexOfGrid(worst[i].tile / g.tileCols, worst[i].tile % g.tileCols);
    f.location.tiles.push_back(t);
    if (auto cta = g.ctaOf(t); !cta.empty()) f.location.ctas.push_back(cta);
  }
  const auto first = g.index(firstRow, firstCol);
  f.location.elements = ElementRange{first, g.index(st.lastRow, st.lastCol), {}, {}, {}};
  if (!f.location.ctas.empty()) f.location.cta = f.location.ctas.front();
  f.evidence = {{"mismatches", count},
                {"all_mismatches", st.mismatches},
                {"compared", st.compared},
                {"max_abs_err", st.maxAbs},
                {"max_rel_err", st.maxRel},
                {"rtol", rtol},
                {"atol", atol},
                {"bad_tiles", badTiles.size()},
                {"tiles_total", g.tilesTotal()},
                {"tile", g.tile}};

  const std::string where = " in " + std::to_string(badTiles.size()) + " of " +
                            std::to_string(g.tilesTotal()) + " tiles; first at " + indexText(first);
  if (inBoundary) {
    f.detail = "tail_tiles";
    f.treeNode = "wrong.mismatch.tail_tiles";
    f.message = out.name + ": " + std::to_string(count) +
                " wrong elements, all in boundary tiles (the last tile row/column)" + where;
  } else if (out.shape.size() == 2 && g.rows > 1 && g.cols > 1 &&
             equalsTransposed(out, ref, rtol, atol, scan)) {
    f.detail = "transposed";
    f.treeNode = "wrong.mismatch.transposed";
    f.message = out.name + ": the output equals the reference transposed (" +
                (g.rows == g.cols ? std::string("out[i][j] == ref[j][i]")
                                  : "the buffer read as [" + std::to_string(g.cols) + ", " +
                                        std::to_string(g.rows) + "] equals ref^T") +
                "); " + std::to_string(count) + " elements differ as stored";
    f.evidence["transposed_matches"] = true;
  } else {
    f.treeNode = "wrong.mismatch";
    f.message = out.name + ": " + std::to_string(count) + " of " + std::to_string(st.compared) +
                " elements differ beyond tolerance (rtol " + num(rtol) + ", atol " + num(atol) +
                "), max abs err " + num(st.maxAbs) + where;
  }
  return f;
}

}  // namespace tilescope
