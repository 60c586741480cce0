// OutputGeometry: the 2-D view, tile grid and map cells shared by scan and compare.
#include <algorithm>
#include <string>

#include "tilescope/analysis/compare.h"

namespace tilescope {
namespace {

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

OutputGeometry OutputGeometry::make(const std::vector<std::int64_t>& shape,
                                    const std::vector<std::int64_t>& tileExtent) {
  OutputGeometry g;
  g.shape = shape;
  const std::size_t rank = shape.size();
  g.tile.resize(rank);
  g.tilesPerDim.resize(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    const std::int64_t ext = std::max<std::int64_t>(shape[d], 1);
    const std::int64_t t = d < tileExtent.size() && tileExtent[d] > 0 ? tileExtent[d] : ext;
    g.tile[d] = std::min(t, ext);
    g.tilesPerDim[d] = ceilDiv(std::max<std::int64_t>(shape[d], 0), g.tile[d]);
  }
  g.rows = 1;
  g.tileRows = 1;
  for (std::size_t d = 0; d + 1 < rank; ++d) {
    g.rows *= shape[d];
    g.tileRows *= g.tilesPerDim[d];
  }
  g.cols = rank ? shape.back() : 1;
  g.tileCols = rank ? g.tilesPerDim.back() : 1;
  g.cellH = std::max<std::int64_t>(1, ceilDiv(g.rows, kMaxMapCells));
  g.cellW = std::max<std::int64_t>(1, ceilDiv(g.cols, kMaxMapCells));
  g.mapRows = ceilDiv(g.rows, g.cellH);
  g.mapCols = ceilDiv(g.cols, g.cellW);
  return g;
}

std::vector<std::int64_t> OutputGeometry::index(std::int64_t row, std::int64_t col) const {
  std::vector<std::int64_t> idx(shape.size());
  if (shape.empty()) return idx;
  idx.back() = col;
  for (std::size_t d = shape.size() - 1; d-- > 0;) {
    idx[d] = row % shape[d];
    row /= shape[d];
  }
  return idx;
}

std::vector<std::int64_t> OutputGeometry::tileIndex(std::int64_t row, std::int64_t col) const {
  auto idx = index(row, col);
  for (std::size_t d = 0; d < idx.size(); ++d) idx[d] /= tile[d];
  return idx;
}

std::int64_t OutputGeometry::tileRowOf(std::int64_t row) const {
  // Flattened tile row: the leading dimensions' tile indices in row-major order.
  std::int64_t tr = 0, mul = 1;
  for (std::size_t d = shape.size() - 1; shape.size() > 1 && d-- > 0;) {
    tr += (row % shape[d]) / tile[d] * mul;
    mul *= tilesPerDim[d];
    row /= shape[d];
  }
  return tr;
}

std::vector<std::int64_t> OutputGeometry::tileIndexOfGrid(std::int64_t tileRow, std::int64_t tileCol) const {
  std::vector<std::int64_t> t(shape.size());
  if (shape.empty()) return t;
  t.back() = tileCol;
  for (std::size_t d = shape.size() - 1; d-- > 0;) {
    t[d] = tileRow % tilesPerDim[d];
    tileRow /= tilesPerDim[d];
  }
  return t;
}

bool OutputGeometry::tileCrossesBounds(const std::vector<std::int64_t>& t) const {
  for (std::size_t d = 0; d < t.size() && d < shape.size(); ++d)
    if ((t[d] + 1) * tile[d] > shape[d]) return true;
  return false;
}

bool OutputGeometry::tileIsBoundary(const std::vector<std::int64_t>& t) const {
  for (std::size_t d = 0; d < t.size() && d < shape.size(); ++d)
    if (tilesPerDim[d] > 1 && t[d] == tilesPerDim[d] - 1) return true;
  return false;
}

std::int64_t OutputGeometry::tilesCrossing() const {
  // Tiles whose index is the last one in at least one dimension that does not divide evenly.
  std::int64_t full = 1, all = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    all *= tilesPerDim[d];
    full *= shape[d] % tile[d] == 0 ? tilesPerDim[d] : tilesPerDim[d] - 1;
  }
  return all - full;
}

std::vector<std::int64_t> OutputGeometry::ctaOf(const std::vector<std::int64_t>& t) const {
  if (t.empty() || t.size() > 3) return {};
  std::vector<std::int64_t> cta{0, 0, 0};
  for (std::size_t k = 0; k < t.size(); ++k) cta[k] = t[t.size() - 1 - k];  // last dim -> x
  return cta;
}

}  // namespace tilescope

namespace tilescope {

std::string describeElementBox(const std::vector<std::int64_t>& lo, const std::vector<std::int64_t>& hi) {
  auto range = [&](std::size_t d) {
    return lo[d] == hi[d] ? std::to_string(lo[d]) : std::to_string(lo[d]) + "\u2013" + std::to_string(hi[d]);
  };
  if (lo.size() != hi.size() || lo.empty()) return "";
  if (lo.size() == 1) return (lo[0] == hi[0] ? "element " : "elements ") + range(0);
  if (lo.size() == 2)
    return (lo[0] == hi[0] ? "row " : "rows ") + range(0) + (lo[1] == hi[1] ? ", col " : ", cols ") +
           range(1);
  std::string s = "[";
  for (std::size_t d = 0; d < lo.size(); ++d) s += (d ? ", " : "") + range(d);
  return s + "]";
}

}  // namespace tilescope

namespace tilescope {

TileTally::TileTally(std::int64_t tiles) : m_dense(tiles <= (std::int64_t{1} << 22)) {
  if (m_dense) m_denseEntries.resize(static_cast<std::size_t>(std::max<std::int64_t>(tiles, 0)));
}

void TileTally::add(std::int64_t tile, std::int64_t count, double err) {
  Entry& e = m_dense ? m_denseEntries[static_cast<std::size_t>(tile)] : m_sparse[tile];
  e.tile = tile;
  e.count += count;
  if (err > e.maxErr) e.maxErr = err;
}

std::vector<TileTally::Entry> TileTally::entries() const {
  std::vector<Entry> out;
  if (m_dense) {
    for (const auto& e : m_denseEntries)
      if (e.count > 0) out.push_back(e);
    return out;
  }
  for (const auto& [tile, e] : m_sparse)
    if (e.count > 0) out.push_back(e);
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return a.tile < b.tile; });
  return out;
}

}  // namespace tilescope
