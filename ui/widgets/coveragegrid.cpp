#include "widgets/coveragegrid.h"

#include <algorithm>
#include <cmath>

#include <QStringList>

#include "style/colors.h"
#include "tilescope/analysis/oob_extent.h"

namespace tilescope::ui {

namespace {
std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return b > 0 ? (a + b - 1) / b : 0; }

const CoverageInfo* findCoverage(const Point& p, const std::string& tensor) {
  for (const auto& c : p.coverage)
    if (tensor.empty() || c.tensor == tensor) return &c;
  return nullptr;
}

const TraceFootprint* footprintOf(const Point& p, const std::string& tensor) {
  if (!p.trace.traced()) return nullptr;
  for (const TraceFootprint& fp : p.trace.footprints)
    if (fp.tensor == tensor) return &fp;
  return nullptr;
}
}  // namespace

CoverageGrid::CoverageGrid(const Point& p, const std::string& tensor, const View& view) : m_view(view) {
  const CoverageInfo* cov = findCoverage(p, tensor);
  // An input the trace measured (A and B of a GEMM) has a footprint and no coverage:
  // one tile over the whole tensor, no state map, its reads and faults drawn.
  CoverageInfo traced;
  if ((!cov || cov->shape.empty()) && !tensor.empty())
    if (const TraceFootprint* fp = footprintOf(p, tensor); fp && !fp->shape.empty()) {
      traced.tensor = fp->tensor;
      traced.shape = fp->shape;
      cov = &traced;
    }
  if (!cov || cov->shape.empty()) return;
  m_declared = cov != &traced;
  m_tensor = cov->tensor;
  m_shape = cov->shape;
  m_rawShape = cov->shape;
  const int rank = static_cast<int>(m_shape.size());
  if (rank == 1) m_shape.insert(m_shape.begin(), 1);  // a vector is one row
  const int n = static_cast<int>(m_shape.size());
  if (m_view.rowDim < 0 || m_view.rowDim >= n) m_view.rowDim = n - 2;
  if (m_view.colDim < 0 || m_view.colDim >= n || m_view.colDim == m_view.rowDim) m_view.colDim = n - 1;
  if (m_view.colDim == m_view.rowDim) m_view.rowDim = (m_view.colDim + n - 1) % n;
  m_view.slice.resize(static_cast<size_t>(n), 0);
  for (int d = 0; d < n; ++d)
    m_view.slice[static_cast<size_t>(d)] = std::clamp<std::int64_t>(m_view.slice[static_cast<size_t>(d)], 0,
                                                                    m_shape[static_cast<size_t>(d)] - 1);
  m_rows = m_shape[static_cast<size_t>(m_view.rowDim)];
  m_cols = m_shape[static_cast<size_t>(m_view.colDim)];
  std::vector<std::int64_t> tile = cov->tile;
  if (rank == 1 && !tile.empty()) tile.insert(tile.begin(), 1);
  if (tile.size() == m_shape.size()) {
    m_tileH = std::max<std::int64_t>(1, tile[static_cast<size_t>(m_view.rowDim)]);
    m_tileW = std::max<std::int64_t>(1, tile[static_cast<size_t>(m_view.colDim)]);
  } else {
    m_tileH = m_rows;
    m_tileW = m_cols;
  }
  if (rank == 1) wrapVector(m_cols, tile.size() == 2 ? m_tileW : 0);
  if (cov->measured && cov->map) readMap(*cov->map);
  for (const auto& c : p.correctness)
    if (c.tensor.empty() || c.tensor == m_tensor) readCorrectness(c);
  readSamples(p.findings);
  readCrossingTiles(*cov);
  m_extentRows = std::max<std::int64_t>(m_rows, static_cast<std::int64_t>(tilesDown()) * m_tileH);
  m_extentCols = std::max<std::int64_t>(m_cols, static_cast<std::int64_t>(tilesAcross()) * m_tileW);
  readOob(p);
  readFootprint(p);
}

void CoverageGrid::wrapVector(std::int64_t length, std::int64_t tile) {
  // About twice as wide as high (the view is wider than tall), a whole number of
  // tiles per row so that every tile stays on one row; short vectors stay one row.
  const std::int64_t unit = tile > 0 ? tile : 32;
  std::int64_t w = static_cast<std::int64_t>(std::ceil(std::sqrt(2.0 * static_cast<double>(length))));
  w = std::max<std::int64_t>(unit, ceilDiv(w, unit) * unit);
  if (w >= length) return;
  m_wrap = w;
  m_length = length;
  m_rows = ceilDiv(length, w);
  m_cols = w;
  m_tileH = tile > 0 ? 1 : m_rows;
  m_tileW = tile > 0 ? tile : w;
}

bool CoverageGrid::contains(std::int64_t r, std::int64_t c) const {
  if (r < 0 || c < 0 || r >= m_rows || c >= m_cols) return false;
  return m_wrap == 0 || wrappedIndex(r, c) < m_length;
}

std::int64_t CoverageGrid::tileElementsInBounds(int tileRow, int tileCol) const {
  const std::int64_t r0 = tileRow * m_tileH, c0 = tileCol * m_tileW;
  const std::int64_t h = std::clamp<std::int64_t>(m_rows - r0, 0, m_tileH),
                     w = std::clamp<std::int64_t>(m_cols - c0, 0, m_tileW);
  if (m_wrap == 0 || h == 0 || w == 0) return h * w;
  std::int64_t n = 0;  // a wrapped vector: rows of the tile, each cut at the vector's end
  for (std::int64_t r = r0; r < r0 + h; ++r)
    n += std::clamp<std::int64_t>(m_length - wrappedIndex(r, c0), 0, w);
  return n;
}

void CoverageGrid::readFootprint(const Point& p) {
  // The footprint layers draw the trace's cells as laid out on the device: not for a wrapped vector.
  const bool plain = m_shape.size() == 2 && m_view.rowDim == 0 && m_view.colDim == 1 && m_wrap == 0;
  if (!plain || !p.trace.traced()) return;
  for (const TraceFootprint& fp : p.trace.footprints) {
    if (fp.tensor != m_tensor || fp.cellRows <= 0 || fp.cellCols <= 0 || fp.cellH < 1 || fp.cellW < 1)
      continue;
    const auto n = static_cast<size_t>(fp.cellRows * fp.cellCols);
    // The reader decoded the run-length lists; a list of another length is not this map.
    auto take = [n](const std::vector<std::int64_t>& v) {
      return v.size() == n ? v : std::vector<std::int64_t>(n, -1);
    };
    m_writeMin = take(fp.writeMin), m_writeMax = take(fp.writeMax), m_readMin = take(fp.readMin),
    m_readMax = take(fp.readMax);
    // The device keeps the maximum as ~cta, and ~0 is its "none" (trace_engine.cpp,
    // decodeMax): a cell whose only CTA is 0 arrives as min 0, max -1. Read it as 0.
    for (size_t i = 0; i < n; ++i) {
      if (m_writeMin[i] >= 0 && m_writeMax[i] < m_writeMin[i]) m_writeMax[i] = m_writeMin[i];
      if (m_readMin[i] >= 0 && m_readMax[i] < m_readMin[i]) m_readMax[i] = m_readMin[i];
    }
    m_fpRows = fp.cellRows, m_fpCols = fp.cellCols, m_fpCellH = fp.cellH, m_fpCellW = fp.cellW;
    m_fpMulti = fp.cellsMultiWriter;
    for (int i = 0; i < 3; ++i)
      m_traceGrid[static_cast<size_t>(i)] = std::max<std::int64_t>(1, p.trace.grid[static_cast<size_t>(i)]);
    return;
  }
}

std::pair<std::int64_t, std::int64_t> CoverageGrid::footprintCell(bool write, int cr, int cc) const {
  if (cr < 0 || cc < 0 || cr >= m_fpRows || cc >= m_fpCols) return {-1, -1};
  const auto i = static_cast<size_t>(cr * m_fpCols + cc);
  return write ? std::make_pair(m_writeMin[i], m_writeMax[i]) : std::make_pair(m_readMin[i], m_readMax[i]);
}

std::pair<std::int64_t, std::int64_t> CoverageGrid::footprintAt(bool write, std::int64_t r,
                                                                std::int64_t c) const {
  if (!hasFootprint() || r < 0 || c < 0) return {-1, -1};
  return footprintCell(write, static_cast<int>(r / m_fpCellH), static_cast<int>(c / m_fpCellW));
}

std::vector<std::int64_t> CoverageGrid::ctaIndex(std::int64_t linear) const {
  const std::int64_t gx = m_traceGrid[0], gy = m_traceGrid[1];
  return {linear % gx, (linear / gx) % gy, linear / (gx * gy)};
}

namespace {
/// The boxes of a finding's elements in a [rows, cols] view. A box where the
/// producer gave one (lo..hi) or where a column lies past the edge (a tile's
/// masked columns); else a run in row-major order, as guard zones measure bytes
/// past the end: the rest of the first row, whole rows, the start of the last.
std::vector<OobRegion> boxesOf(const ElementRange& e, std::int64_t cols) {
  const bool box = e.lo.size() >= 2 && e.hi.size() == e.lo.size();
  const Index& a = box ? e.lo : e.first;
  const Index& b = box ? e.hi : (e.last.size() == e.first.size() ? e.last : e.first);
  if (a.size() < 2 || b.size() != a.size()) return {};
  const std::int64_t r0 = a[a.size() - 2], c0 = a.back(), r1 = b[b.size() - 2], c1 = b.back();
  auto rect = [](std::int64_t ra, std::int64_t ca, std::int64_t rb, std::int64_t cb) {
    OobRegion o;
    o.row0 = std::min(ra, rb), o.row1 = std::max(ra, rb), o.col0 = std::min(ca, cb),
    o.col1 = std::max(ca, cb);
    return o;
  };
  const auto inside = [cols](std::int64_t c) { return c >= 0 && c < cols; };
  if (box || r0 == r1 || !inside(c0) || !inside(c1) || r1 < r0) return {rect(r0, c0, r1, c1)};
  std::vector<OobRegion> out;
  const std::int64_t midFirst = c0 == 0 ? r0 : r0 + 1, midLast = c1 == cols - 1 ? r1 : r1 - 1;
  if (c0 != 0) out.push_back(rect(r0, c0, r0, cols - 1));
  if (midLast >= midFirst) out.push_back(rect(midFirst, 0, midLast, cols - 1));
  if (c1 != cols - 1) out.push_back(rect(r1, 0, r1, c1));
  return out;
}
}  // namespace

void CoverageGrid::addOobRegions(ElementRange e, bool write, int finding) {
  if (m_wrap > 0) {  // a wrapped vector: index i is (i / W, i % W), past the end too
    for (Index* idx : {&e.first, &e.last, &e.lo, &e.hi})
      if (idx->size() == 1) *idx = Index{(*idx)[0] / m_wrap, (*idx)[0] % m_wrap};
  } else if (m_shape[0] == 1 && e.first.size() == 1) {  // a vector: one row
    e.first.insert(e.first.begin(), 0);
    if (!e.last.empty()) e.last.insert(e.last.begin(), 0);
  }
  for (OobRegion o : boxesOf(e, m_cols)) {
    o.write = write;
    o.finding = finding;
    // Never draw an absurd extent from a wild index: at most one more tensor's worth.
    if (o.row0 > 2 * m_extentRows || o.col0 > 2 * m_extentCols || o.row1 < -m_extentRows ||
        o.col1 < -m_extentCols)
      continue;
    m_extentRows = std::max(m_extentRows, std::min(o.row1 + 1, 2 * m_extentRows));
    m_extentCols = std::max(m_extentCols, std::min(o.col1 + 1, 2 * m_extentCols));
    m_oob.push_back(o);
  }
}

void CoverageGrid::readOob(const Point& p) {
  // Only the plain 2-D view (and vectors, drawn as one row) can place an element past the edge.
  const bool plain = m_view.rowDim == static_cast<int>(m_shape.size()) - 2 &&
                     m_view.colDim == static_cast<int>(m_shape.size()) - 1;
  if (!plain || m_shape.size() != 2) return;
  for (size_t i = 0; i < p.findings.size(); ++i) {
    const Finding& f = p.findings[i];
    if (f.category != "oob_write" && f.category != "oob_read") continue;
    const std::string& tensor = !f.tensor.empty() ? f.tensor : f.location.output;
    if (!tensor.empty() && tensor != m_tensor) continue;
    // As far as the evidence reaches: a traced finding names its first access and
    // keeps the guard zone's whole run (core's oobElements, the exports' answer too).
    if (const std::optional<ElementRange> reach = tilescope::oobElements(f, m_rawShape))
      addOobRegions(*reach, f.category == "oob_write", static_cast<int>(i));
  }
  // The trace's first bad access at each instruction: where no finding's run holds it already.
  for (const TraceFault& tf : p.trace.faults) {
    const bool write = tf.category == "oob_write";
    if (tf.tensor != m_tensor || (!write && tf.category != "oob_read") || tf.element.empty()) continue;
    m_oobAccesses[write] += static_cast<std::int64_t>(tf.count);
    ++m_oobInstructions[write];
    ElementRange e;
    e.first = e.last = tf.element;
    const std::vector<OobRegion> before = m_oob;
    addOobRegions(e, write, -1);
    if (m_oob.size() == before.size() + 1)
      for (const OobRegion& o : before)
        if (o.write == write && o.contains(m_oob.back().row0, m_oob.back().col0)) {
          m_oob.pop_back();
          break;
        }
  }
  // Writes first: oobAt answers with the worse of two overlapping regions.
  std::stable_sort(m_oob.begin(), m_oob.end(),
                   [](const OobRegion& a, const OobRegion& b) { return a.write && !b.write; });
}

void CoverageGrid::readCrossingTiles(const CoverageInfo& cov) {
  if (!cov.crossingTiles) return;
  for (const CrossingTile& t : *cov.crossingTiles) {
    if (t.origin.size() < 2) continue;
    const int tr = static_cast<int>(t.origin[t.origin.size() - 2] / m_tileH),
              tc = static_cast<int>(t.origin.back() / m_tileW);
    m_tileCtas[{tr, tc}] = {t.cta.begin(), t.cta.end()};
  }
}

std::int64_t CoverageGrid::oobElements(bool write) const {
  std::int64_t n = 0;
  for (const OobRegion& o : m_oob)
    if (o.write == write) n += o.elements();
  return n;
}

const OobRegion* CoverageGrid::oobAt(std::int64_t r, std::int64_t c) const {
  for (const OobRegion& o : m_oob)
    if (o.contains(r, c)) return &o;
  return nullptr;
}

std::vector<std::pair<int, int>> CoverageGrid::oobTiles(bool write) const {
  std::vector<std::pair<int, int>> out;
  const int down = tilesDown(), across = tilesAcross();
  for (const OobRegion& o : m_oob) {
    if (o.write != write) continue;
    const int tr0 = static_cast<int>(std::max<std::int64_t>(0, o.row0) / m_tileH),
              tr1 = static_cast<int>(std::max<std::int64_t>(0, o.row1) / m_tileH);
    const int tc0 = static_cast<int>(std::max<std::int64_t>(0, o.col0) / m_tileW),
              tc1 = static_cast<int>(std::max<std::int64_t>(0, o.col1) / m_tileW);
    for (int tr = tr0; tr <= std::min(tr1, down - 1); ++tr)
      for (int tc = tc0; tc <= std::min(tc1, across - 1); ++tc) out.emplace_back(tr, tc);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::int64_t> CoverageGrid::ctaOfTile(int tileRow, int tileCol) const {
  auto it = m_tileCtas.find({tileRow, tileCol});
  if (it != m_tileCtas.end()) return it->second;
  if (m_wrap > 0)
    return {static_cast<std::int64_t>(tileRow) * tilesAcross() + tileCol, 0, 0};  // tile t of the vector
  return {tileCol, tileRow, 0};
}

void CoverageGrid::readMap(const CellMap& map) {
  // The reader checked the map: rows × cols states, each a known code, cells of >= 1 element.
  if (map.rows <= 0 || map.cols <= 0) return;
  m_mapRows = static_cast<int>(map.rows);
  m_mapCols = static_cast<int>(map.cols);
  m_cellH = map.cell[0];
  m_cellW = map.cell[1];
  m_states = map.states;
  // Image resolution in view coordinates: the map's own for the plain 2-D view,
  // a sampling of at most 1024 cells per axis for sliced higher-rank views.
  const bool plain = m_view.rowDim == static_cast<int>(m_shape.size()) - 2 &&
                     m_view.colDim == static_cast<int>(m_shape.size()) - 1 && m_shape.size() == 2 &&
                     m_wrap == 0;
  if (plain) {
    m_viewCellH = static_cast<double>(m_cellH);
    m_viewCellW = static_cast<double>(m_cellW);
  } else {
    m_viewCellH = std::max(1.0, static_cast<double>(m_rows) / 1024.0);
    m_viewCellW = std::max(1.0, static_cast<double>(m_cols) / 1024.0);
  }
}

void CoverageGrid::readCorrectness(const CorrectnessInfo& c) {
  if (c.errorMap && !c.errorMap->maxAbs.empty()) {
    const ErrorMap& em = *c.errorMap;  // rows × cols values (checked by the reader)
    m_errRows = static_cast<int>(em.rows);
    m_errCols = static_cast<int>(em.cols);
    m_errCellH = em.cell[0];
    m_errCellW = em.cell[1];
    for (double x : em.maxAbs) m_errors.push_back(static_cast<float>(x));
  }
  if (c.tiles)
    for (const BadTile& b : c.tiles->bad)
      m_badTiles[{static_cast<int>(b.row), static_cast<int>(b.col)}] = {b.count, b.maxErr};
}

void CoverageGrid::readSamples(const std::vector<Finding>& findings) {
  for (const auto& f : findings) {
    if (!f.tensor.empty() && f.tensor != m_tensor) continue;
    for (const MismatchSample& s : mismatchSamples(f)) {
      const std::vector<std::int64_t>* idx = &s.index;
      if (idx->empty()) continue;
      std::pair<std::int64_t, std::int64_t> flat;
      if (idx->size() == 1 && m_wrap > 0)
        flat = {0, (*idx)[0]};
      else if (idx->size() == 2 && m_shape.size() == 2)
        flat = {(*idx)[0], (*idx)[1]};
      else if (idx->size() == m_shape.size()) {
        std::int64_t row = 0;
        for (size_t d = 0; d + 1 < m_shape.size(); ++d) row = row * m_shape[d] + (*idx)[d];
        flat = {row, idx->back()};
      } else
        continue;
      m_samples[flat] = {s.expected, s.actual};
    }
  }
}

std::pair<std::int64_t, std::int64_t> CoverageGrid::flatten(std::int64_t r, std::int64_t c) const {
  const size_t n = m_shape.size();
  if (m_wrap > 0) return {0, wrappedIndex(r, c)};
  if (n == 2 && m_view.rowDim == 0) return {r, c};
  if (n == 2) return {c, r};
  std::vector<std::int64_t> idx = m_view.slice;
  idx[static_cast<size_t>(m_view.rowDim)] = r;
  idx[static_cast<size_t>(m_view.colDim)] = c;
  std::int64_t row = 0;
  for (size_t d = 0; d + 1 < n; ++d) row = row * m_shape[d] + idx[d];
  return {row, idx[n - 1]};
}

int CoverageGrid::tilesDown() const { return static_cast<int>(ceilDiv(m_rows, m_tileH)); }
int CoverageGrid::tilesAcross() const { return static_cast<int>(ceilDiv(m_cols, m_tileW)); }

int CoverageGrid::stateAt(std::int64_t r, std::int64_t c) const {
  if (r < 0 || c < 0 || r >= m_rows || c >= m_cols) return kStateOob;
  if (m_states.empty() || !contains(r, c)) return kStateUnknown;  // a wrapped vector's tail: masked, no data
  const auto [fr, fc] = flatten(r, c);
  const std::int64_t mr = fr / m_cellH, mc = fc / m_cellW;
  if (mr >= m_mapRows || mc >= m_mapCols) return kStateUnknown;
  return m_states[static_cast<size_t>(mr * m_mapCols + mc)];
}

int CoverageGrid::mapCellState(int mr, int mc) const {
  const auto r = static_cast<std::int64_t>((mr + 0.5) * m_viewCellH);
  const auto c = static_cast<std::int64_t>((mc + 0.5) * m_viewCellW);
  return stateAt(std::min(r, m_rows - 1), std::min(c, m_cols - 1));
}

int CoverageGrid::tileState(int tileRow, int tileCol) const {
  const std::int64_t r0 = tileRow * m_tileH, c0 = tileCol * m_tileW;
  if (r0 < 0 || c0 < 0 || r0 >= m_rows || c0 >= m_cols) return kStateOob;
  const std::int64_t r1 = std::min(r0 + m_tileH, m_rows);
  std::int64_t c1 = std::min(c0 + m_tileW, m_cols);
  if (m_wrap > 0) c1 = std::min(c1, m_length - wrappedIndex(r0, 0));  // the vector's last tile ends early
  int worst = kStateUnknown;
  auto consider = [&](int s) {
    if (stateSeverity(s) > stateSeverity(worst)) worst = s;
  };
  // Step through the tile one map cell at a time: the map holds no finer detail.
  const auto stepR = std::max<std::int64_t>(1, static_cast<std::int64_t>(m_viewCellH));
  const auto stepC = std::max<std::int64_t>(1, static_cast<std::int64_t>(m_viewCellW));
  if (!m_states.empty())
    for (std::int64_t r = r0; r < r1; r += stepR)
      for (std::int64_t c = c0; c < c1; c += stepC) consider(stateAt(r, c));
  if (tileErrors(tileRow, tileCol)) consider(kStateMismatch);
  return worst;
}

std::optional<std::pair<std::int64_t, double>> CoverageGrid::tileErrors(int tileRow, int tileCol) const {
  auto it = m_badTiles.find({tileRow, tileCol});
  if (it == m_badTiles.end()) return std::nullopt;
  return it->second;
}

std::optional<double> CoverageGrid::errorAt(std::int64_t r, std::int64_t c) const {
  if (m_errors.empty() || r < 0 || c < 0 || r >= m_rows || c >= m_cols) return std::nullopt;
  const auto [fr, fc] = flatten(r, c);
  const std::int64_t er = fr / m_errCellH, ec = fc / m_errCellW;
  if (er >= m_errRows || ec >= m_errCols) return std::nullopt;
  return m_errors[static_cast<size_t>(er * m_errCols + ec)];
}

std::optional<std::pair<double, double>> CoverageGrid::valuesAt(std::int64_t r, std::int64_t c) const {
  if (r < 0 || c < 0 || r >= m_rows || c >= m_cols) return std::nullopt;
  auto it = m_samples.find(flatten(r, c));
  if (it == m_samples.end()) return std::nullopt;
  return it->second;
}

std::vector<std::pair<int, int>> CoverageGrid::boundaryTiles() const {
  std::vector<std::pair<int, int>> out;
  if (m_wrap > 0) {  // the tile holding the vector's last element, when it reaches past the end
    if (m_tileH == 1 && m_length % m_tileW != 0)
      out.emplace_back(static_cast<int>((m_length - 1) / m_wrap),
                       static_cast<int>(((m_length - 1) % m_wrap) / m_tileW));
    return out;
  }
  const bool rowEdge = m_rows % m_tileH != 0, colEdge = m_cols % m_tileW != 0;
  const int down = tilesDown(), across = tilesAcross();
  for (int tr = 0; tr < down; ++tr)
    for (int tc = 0; tc < across; ++tc)
      if ((rowEdge && tr == down - 1) || (colEdge && tc == across - 1)) out.emplace_back(tr, tc);
  return out;
}

QString CoverageGrid::hoverText(std::int64_t r, std::int64_t c) const {
  if (!valid()) return {};
  if (m_wrap > 0) return wrappedHoverText(r, c);
  if (r >= m_rows || c >= m_cols) {
    // Past the edge: the masked part of a declared tile, and what went there.
    const int tr = static_cast<int>(r / m_tileH), tc = static_cast<int>(c / m_tileW);
    QStringList lines;
    lines << QStringLiteral("element [%1, %2]: past the edge of %3[%4, %5] (masked)")
                 .arg(r)
                 .arg(c)
                 .arg(QString::fromStdString(m_tensor))
                 .arg(m_rows)
                 .arg(m_cols);
    if (m_declared && tr < tilesDown() && tc < tilesAcross()) {
      const auto cta = ctaOfTile(tr, tc);
      QStringList idx;
      for (auto v : cta) idx << QString::number(v);
      lines << QStringLiteral("tile (%1, %2), CTA (%3)").arg(tr).arg(tc).arg(idx.join(QStringLiteral(", ")));
    }
    if (const OobRegion* o = oobAt(r, c))
      lines << (o->write ? QStringLiteral("WRITTEN out of bounds (oob_write)")
                         : QStringLiteral("read out of bounds (oob_read)"));
    return lines.join(QLatin1Char('\n'));
  }
  QString element;
  if (m_shape.size() == 2) {
    element = QStringLiteral("%1[%2, %3]").arg(QString::fromStdString(m_tensor)).arg(r).arg(c);
  } else {
    QStringList idx;
    for (size_t d = 0; d < m_shape.size(); ++d) {
      const std::int64_t v = static_cast<int>(d) == m_view.rowDim   ? r
                             : static_cast<int>(d) == m_view.colDim ? c
                                                                    : m_view.slice[d];
      idx << QString::number(v);
    }
    element = QStringLiteral("%1[%2]").arg(QString::fromStdString(m_tensor), idx.join(QStringLiteral(", ")));
  }
  const int tr = static_cast<int>(r / m_tileH), tc = static_cast<int>(c / m_tileW);
  QStringList lines;
  lines << QStringLiteral("element %1").arg(element);
  if (!m_declared) {  // an input: the trace's footprint is all there is
    lines << QStringLiteral("an input (no declared tiles): the trace's reads and faults");
    appendFootprintLines(lines, r, c);
    if (const OobRegion* o = oobAt(r, c))
      lines << (o->write ? QStringLiteral("WRITTEN out of bounds (oob_write)")
                         : QStringLiteral("read out of bounds (oob_read)"));
    return lines.join(QLatin1Char('\n'));
  }
  lines << QStringLiteral("tile (%1, %2): rows %3..%4, cols %5..%6")
               .arg(tr)
               .arg(tc)
               .arg(tr * m_tileH)
               .arg(std::min((tr + 1) * m_tileH, m_rows) - 1)
               .arg(tc * m_tileW)
               .arg(std::min((tc + 1) * m_tileW, m_cols) - 1);
  // The declared tiling's convention (tests/data/config/gemm_example.tscfg.json, docs/config.md `tiles`):
  // origin = (pid_y * tile_m, pid_x * tile_n).
  {
    const auto cta = ctaOfTile(tr, tc);
    lines << QStringLiteral("CTA blockIdx (%1, %2, %3)")
                 .arg(cta.size() > 0 ? cta[0] : tc)
                 .arg(cta.size() > 1 ? cta[1] : tr)
                 .arg(cta.size() > 2 ? cta[2] : 0);
  }
  lines << QStringLiteral("state: %1").arg(stateName(stateAt(r, c)));
  if (auto e = tileErrors(tr, tc))
    lines << QStringLiteral("tile mismatches: %1, max |err| %2").arg(e->first).arg(e->second, 0, 'g', 4);
  // -1 marks a cell holding NaN/Inf (report.h, ErrorMap), not an error of -1.
  if (auto err = errorAt(r, c))
    lines << (*err < 0 ? QStringLiteral("cell holds NaN/Inf")
                       : QStringLiteral("max |err| in cell: %1").arg(*err, 0, 'g', 4));
  if (auto v = valuesAt(r, c))
    lines << QStringLiteral("expected %1, actual %2").arg(v->first, 0, 'g', 6).arg(v->second, 0, 'g', 6);
  appendFootprintLines(lines, r, c);
  return lines.join(QLatin1Char('\n'));
}

void CoverageGrid::appendFootprintLines(QStringList& lines, std::int64_t r, std::int64_t c) const {
  for (bool write : {true, false}) {
    const auto [lo, hi] = footprintAt(write, r, c);
    if (!hasFootprint()) break;
    auto name = [this](std::int64_t l) {
      const auto b = ctaIndex(l);
      return QStringLiteral("CTA %1 (blockIdx %2, %3, %4)").arg(l).arg(b[0]).arg(b[1]).arg(b[2]);
    };
    const QString what = write ? QStringLiteral("written") : QStringLiteral("read");
    if (lo < 0)
      lines << QStringLiteral("trace: not %1 by any CTA").arg(what);
    else if (lo == hi)
      lines << QStringLiteral("trace: %1 by %2").arg(what, name(lo));
    else
      lines << QStringLiteral("trace: %1 by more than one CTA: %2 … %3").arg(what, name(lo), name(hi));
  }
}

QString CoverageGrid::wrappedHoverText(std::int64_t r, std::int64_t c) const {
  const std::int64_t i = wrappedIndex(r, c);
  const QString name = QString::fromStdString(m_tensor);
  QStringList lines;
  const int tr = static_cast<int>(r / m_tileH), tc = static_cast<int>(c / m_tileW);
  const std::int64_t t = static_cast<std::int64_t>(tr) * tilesAcross() + tc, first = t * m_tileW;
  if (!contains(r, c))
    lines << QStringLiteral("element %1: past the end of %2[%3] (masked)").arg(i).arg(name).arg(m_length);
  else
    lines << QStringLiteral("element %1[%2]").arg(name).arg(i);
  lines << QStringLiteral("tile %1: elements %2..%3, CTA blockIdx (%1, 0, 0)")
               .arg(t)
               .arg(first)
               .arg(std::min(first + m_tileW, m_length) - 1);
  if (contains(r, c)) lines << QStringLiteral("state: %1").arg(stateName(stateAt(r, c)));
  if (const OobRegion* o = oobAt(r, c))
    lines << (o->write ? QStringLiteral("WRITTEN out of bounds (oob_write)")
                       : QStringLiteral("read out of bounds (oob_read)"));
  if (auto err = errorAt(r, c))
    lines << (*err < 0 ? QStringLiteral("cell holds NaN/Inf")
                       : QStringLiteral("max |err| in cell: %1").arg(*err, 0, 'g', 4));
  if (auto v = valuesAt(r, c))
    lines << QStringLiteral("expected %1, actual %2").arg(v->first, 0, 'g', 6).arg(v->second, 0, 'g', 6);
  return lines.join(QLatin1Char('\n'));
}

}  // namespace tilescope::ui
