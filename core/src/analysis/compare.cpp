// compareOutputs: element errors against the reference, per-tile summary and
// error map in one row-by-row pass (in chunks of rows over threads); the classes of mismatch are in
// compare_classify.cpp.
#include <algorithm>
#include <cmath>
#include <mutex>
#include <stdexcept>

#include "compare_classify.h"
#include "row_chunks.h"

namespace tilescope {
namespace {

// The within-tolerance path keeps the largest relative error with a multiply, not a
// divide, per element: d > bar * |ref| filters the candidates, with the bar a hair
// under the running maximum so that no element whose d / |ref| exceeds it is
// filtered out (the rounding of two products stays under 2^-51). The maximum is
// then exact, and so the same whichever order the elements come in.
constexpr double kRelBarScale = 1.0 - 0x1p-50;

// One pass over the rows, in fixed chunks (row_chunks.h) on several threads: a
// chunk's counts go to its own MismatchStats (merged in chunk order), its tally
// additions to the shared tally under a lock, its map cells (whole cell rows) are
// its own.
struct Comparer {
  const HostTensor& out;
  const HostTensor& ref;
  const OutputGeometry& g;
  double rtol, atol;
  bool skipUnwritten;
  std::uint64_t sentinel;

  MismatchStats st;
  TileTally tally;  // per tile: mismatches and largest error (-1: non-finite)
  std::vector<double> cellMax;
  std::vector<std::uint8_t> cellNonFinite;
  std::vector<std::uint32_t> cellMis;
  std::mutex tallyMutex;

  Comparer(const HostTensor& o, const HostTensor& r, const OutputGeometry& geo, double rt, double at,
           const ScanResult* scan)
      : out(o),
        ref(r),
        g(geo),
        rtol(rt),
        atol(at),
        skipUnwritten(scan && scan->hasSentinel && scan->coverage.unwritten > 0),
        sentinel(scan ? scan->sentinel : 0),
        tally(geo.tilesTotal()),
        cellMax(static_cast<std::size_t>(geo.mapRows * geo.mapCols), 0.0),
        cellNonFinite(cellMax.size(), 0),
        cellMis(cellMax.size(), 0) {}

  void run(int threads) {
    const RowChunks rc = rowChunks(g, threads);
    std::vector<MismatchStats> parts(static_cast<std::size_t>(rc.count));
    parallelChunks(rc.count, rc.threads, [&](std::int64_t c) {
      ChunkState cs{parts[static_cast<std::size_t>(c)], {}};
      std::vector<double> v(static_cast<std::size_t>(g.cols)), rv(v.size());
      std::vector<std::uint64_t> bits(skipUnwritten ? v.size() : 0);
      for (std::int64_t r = rc.begin(c); r < rc.end(c); ++r) {
        decodeRange(out, r * g.cols, g.cols, v.data(), skipUnwritten ? bits.data() : nullptr);
        decodeRange(ref, r * g.cols, g.cols, rv.data(), nullptr);
        compareRow(cs, r, v.data(), rv.data(), skipUnwritten ? bits.data() : nullptr);
      }
      const std::lock_guard<std::mutex> lock(tallyMutex);
      cs.adds.flushInto(tally);
    });
    for (const auto& p : parts) st.append(p);
  }

  struct ChunkState {
    MismatchStats& st;
    TallyBuffer adds;
  };

  // A row is a boundary row when a leading dimension sits in its last tile (of several).
  bool rowIsBoundary(std::int64_t r) const {
    const auto idx = g.index(r, 0);
    for (std::size_t d = 0; d + 1 < idx.size(); ++d)
      if (g.tilesPerDim[d] > 1 && idx[d] / g.tile[d] == g.tilesPerDim[d] - 1) return true;
    return false;
  }

  // Iterates map cells, not tiles: the common case (within tolerance) touches only
  // locals; mismatches take the out-of-line path, which finds their tile.
  void compareRow(ChunkState& cs, std::int64_t r, const double* v, const double* rv,
                  const std::uint64_t* bits) {
    MismatchStats& s = cs.st;
    const std::size_t cellRowBase = static_cast<std::size_t>(r / g.cellH * g.mapCols);
    RowContext row{r, g.tileRowOf(r), rowIsBoundary(r)};
    for (std::int64_t cc = 0; cc < g.mapCols; ++cc) {
      const std::int64_t c0 = cc * g.cellW, c1 = std::min(g.cols, c0 + g.cellW);
      const std::size_t cell = cellRowBase + static_cast<std::size_t>(cc);
      double cmax = 0, maxRel = s.maxRel, relBar = maxRel * kRelBarScale;
      std::int64_t compared = 0;
      for (std::int64_t c = c0; c < c1; ++c) {
        if (bits && bits[c] == sentinel) continue;  // reported by the scan as unwritten
        ++compared;
        const double o = v[c], x = rv[c];
        if (o == x) {
          if (!std::isfinite(o)) ++s.inf;  // the same infinity on both sides
          continue;
        }
        const double d = std::fabs(o - x), ax = std::fabs(x);
        if (d <= atol + rtol * ax) {  // false for NaN and infinite errors
          cmax = std::max(cmax, d);
          if (ax > 0 && d > relBar * ax) maxRel = std::max(maxRel, d / ax), relBar = maxRel * kRelBarScale;
          continue;
        }
        outOfTolerance(cs, row, c, o, x, d, ax, cell, cmax, maxRel);
        relBar = maxRel * kRelBarScale;
      }
      s.compared += compared;
      s.maxRel = maxRel;
      cellMax[cell] = std::max(cellMax[cell], cmax);
      s.maxAbs = std::max(s.maxAbs, cmax);
    }
  }

  struct RowContext {
    std::int64_t r, tileRow;
    bool boundary;
  };

  [[gnu::noinline]] void outOfTolerance(ChunkState& cs, const RowContext& row, std::int64_t c, double o,
                                        double x, double d, double ax, std::size_t cell, double& cmax,
                                        double& maxRel) {
    MismatchStats& s = cs.st;
    if (!std::isfinite(o)) std::isnan(o) ? ++s.nan : ++s.inf;
    if (std::isfinite(d)) {
      cmax = std::max(cmax, d);
      if (ax > 0) maxRel = std::max(maxRel, d / ax);
    } else if (std::isnan(o) && std::isnan(x)) {
      return;  // NaN where the reference is NaN too: not this kernel's error
    }
    const std::int64_t tileW = g.tile.empty() ? 1 : g.tile.back();
    const std::int64_t tc = c / tileW;
    const bool boundaryTile = row.boundary || (g.tileCols > 1 && tc == g.tileCols - 1);
    cs.adds.add(row.tileRow * g.tileCols + tc, 1, std::isfinite(d) ? d : kNonFiniteErr);
    ++cellMis[cell];
    if (!std::isfinite(d)) cellNonFinite[cell] = 1;
    s.noteMismatch(row.r, c, std::isfinite(o), boundaryTile);
  }
};

}  // namespace

CompareResult compareOutputs(const HostTensor& out, const HostTensor& ref, double rtol, double atol,
                             const std::vector<std::int64_t>& tileExtent, const ScanResult* scan,
                             int threads) {
  if (out.shape != ref.shape)
    throw std::invalid_argument("compareOutputs: output " + out.name + " and reference " + ref.name +
                                " have different shapes");
  CompareResult res;
  res.geometry = OutputGeometry::make(out.shape, tileExtent);
  const OutputGeometry& g = res.geometry;
  Comparer cmp(out, ref, g, rtol, atol, scan);
  if (g.elements() > 0) cmp.run(threads);
  const MismatchStats& st = cmp.st;

  CorrectnessInfo& info = res.info;
  info.checked = true;
  info.tensor = out.name;
  info.rtol = rtol;
  info.atol = atol;
  info.elements = st.compared;
  info.maxAbsErr = st.maxAbs;
  info.maxRelErr = st.maxRel;
  info.mismatches = st.mismatches;
  info.nan = st.nan;
  info.inf = st.inf;
  info.firstMismatch[0] = st.firstRow;
  info.firstMismatch[1] = st.firstCol;
  const auto badTiles = cmp.tally.entries();
  info.tiles = tileSummary(g, badTiles);
  ErrorMap map;
  // Three significant digits are plenty for a colour scale and keep the map a
  // quarter of the size in the report.
  auto round3 = [](double v) {
    if (v == 0.0 || !std::isfinite(v)) return v;
    double scale = std::pow(10.0, 2 - static_cast<int>(std::floor(std::log10(std::fabs(v)))));
    return std::round(v * scale) / scale;
  };
  for (std::size_t i = 0; i < cmp.cellMax.size(); ++i)
    map.maxAbs.push_back(cmp.cellNonFinite[i] ? kNonFiniteErr : round3(cmp.cellMax[i]));
  map.rows = g.mapRows;
  map.cols = g.mapCols;
  map.cell = {g.cellH, g.cellW};
  info.errorMap = std::move(map);
  res.cellMismatches = std::move(cmp.cellMis);
  res.valueMismatches = st.valueMismatches;

  if (auto f = classifyMismatch(out, ref, rtol, atol, g, st, badTiles, scan)) res.findings.push_back(*f);
  return res;
}

void applyMismatchStates(ScanResult& scan, const CompareResult& cmp) {
  if (!scan.coverage.map || scan.coverage.map->states.size() != cmp.cellMismatches.size())
    throw std::invalid_argument("applyMismatchStates: the scan's map and the comparison differ in size");
  auto& states = scan.coverage.map->states;
  for (std::size_t i = 0; i < states.size(); ++i)
    if (cmp.cellMismatches[i] > 0 && states[i] < static_cast<std::uint8_t>(CellState::mismatch))
      states[i] = static_cast<std::uint8_t>(CellState::mismatch);
}

void raiseCellState(CoverageInfo& coverage, const OutputGeometry& g, const std::vector<std::int64_t>& index,
                    CellState state) {
  if (index.size() != g.shape.size())
    throw std::invalid_argument("raiseCellState: index rank differs from the tensor's");
  std::int64_t row = 0;
  for (std::size_t d = 0; d + 1 < index.size(); ++d) row = row * g.shape[d] + index[d];
  const std::int64_t col = index.empty() ? 0 : index.back();
  const std::size_t cell = static_cast<std::size_t>(row / g.cellH * g.mapCols + col / g.cellW);
  if (!coverage.map || cell >= coverage.map->states.size())
    throw std::out_of_range("raiseCellState: index outside the map");
  auto& s = coverage.map->states[cell];
  if (s < static_cast<std::uint8_t>(state)) s = static_cast<std::uint8_t>(state);
}

}  // namespace tilescope
