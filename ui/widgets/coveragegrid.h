// The measured state of one output tensor, as a 2-D view the coverage and mask
// views draw: element extents, the declared tiles, the downsampled state map of
// CoverageInfo.map ({rows, cols, cell:[r,c], states:[...]}), the per-tile
// correctness summary (CorrectnessInfo.tiles) and the error map.
//
// Rank > 2: the map is taken to be over the tensor flattened to
// [prod(shape[0..n-2]), shape[n-1]]; the view shows two chosen dimensions at a
// fixed index of every other dimension (the "slice").
//
// Rank 1: a long vector drawn as one row is a line a pixel high once fitted, so it
// is wrapped into rows of wrapWidth() elements (a whole number of tiles): view
// element (r, c) is index r·W + c; the last row's tail past the end is masked.
#pragma once

#include <QString>
#include <QStringList>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "tilescope/model/point.h"

namespace tilescope::ui {

/// Which two dimensions a view shows, and the index of every other one.
struct CoverageSlice {
  int rowDim = -1, colDim = -1;     ///< -1: the last two dimensions
  std::vector<std::int64_t> slice;  ///< index per dimension (view dims ignored)
};

/// Elements a point's oob_write/oob_read findings name, as a box of the view
/// (inclusive, may lie past the tensor's edge: that is the point).
struct OobRegion {
  std::int64_t row0 = 0, col0 = 0, row1 = 0, col1 = 0;
  bool write = true;  ///< oob_write (else oob_read)
  int finding = -1;   ///< index into the point's findings
  std::int64_t elements() const { return (row1 - row0 + 1) * (col1 - col0 + 1); }
  bool contains(std::int64_t r, std::int64_t c) const {
    return r >= row0 && r <= row1 && c >= col0 && c <= col1;
  }
};

/// What the coverage view colours: the measured state, or the trace's footprint
/// (which CTA wrote / read each cell, docs/report.md "trace").
enum class CoverageLayer { state, writes, reads };

class CoverageGrid {
 public:
  using View = CoverageSlice;

  CoverageGrid() = default;
  /// Builds the grid of `tensor` ("" = the first covered tensor) of point p.
  CoverageGrid(const Point& p, const std::string& tensor, const View& view = {});

  bool valid() const { return m_rows > 0 && m_cols > 0; }
  /// Elements per row of a wrapped vector (0: not wrapped).
  std::int64_t wrapWidth() const { return m_wrap; }
  /// Whether view element (r, c) is an element of the tensor (false past its edge or end).
  bool contains(std::int64_t r, std::int64_t c) const;
  /// The index a view row starts at, for the row axis: r, or r·W for a wrapped vector.
  std::int64_t rowStartIndex(std::int64_t r) const { return m_wrap > 0 ? r * m_wrap : r; }
  /// How many elements of a declared tile lie in the tensor.
  std::int64_t tileElementsInBounds(int tileRow, int tileCol) const;
  const std::string& tensor() const { return m_tensor; }
  const std::vector<std::int64_t>& shape() const { return m_shape; }
  const View& view() const { return m_view; }
  std::int64_t rows() const { return m_rows; }  ///< elements along the view's row dimension
  std::int64_t cols() const { return m_cols; }
  std::int64_t tileRows() const { return m_tileH; }  ///< declared tile extent (elements)
  std::int64_t tileCols() const { return m_tileW; }
  int tilesDown() const;
  int tilesAcross() const;
  bool measured() const { return !m_states.empty(); }
  int mapRows() const { return m_mapRows; }
  int mapCols() const { return m_mapCols; }
  /// Map state code of map cell (mr, mc) in view coordinates; kStateUnknown when not measured.
  int mapCellState(int mr, int mc) const;
  /// Elements per map cell along the view's rows / cols.
  double cellRows() const { return m_viewCellH; }
  double cellCols() const { return m_viewCellW; }

  /// State code of element (r, c) of the view: kStateOob outside the tensor, kStateUnknown without data.
  int stateAt(std::int64_t r, std::int64_t c) const;
  /// Worst state over the tile's elements (map cells it touches and the correctness tile summary).
  int tileState(int tileRow, int tileCol) const;
  /// Mismatch count and max error of a tile from CorrectnessInfo.tiles, when listed.
  std::optional<std::pair<std::int64_t, double>> tileErrors(int tileRow, int tileCol) const;
  /// The error map's max |error| at element (r, c), when present.
  std::optional<double> errorAt(std::int64_t r, std::int64_t c) const;
  /// Expected and actual values of element (r, c), when a finding's evidence sampled it.
  std::optional<std::pair<double, double>> valuesAt(std::int64_t r, std::int64_t c) const;
  /// Tiles that reach past the tensor's edge (declared tiling).
  std::vector<std::pair<int, int>> boundaryTiles() const;
  /// Tooltip text: element, tile, CTA, state and the expected vs actual value where known.
  QString hoverText(std::int64_t r, std::int64_t c) const;

  // --- the trace's measured footprint of this tensor (plain 2-D views)
  bool hasFootprint() const { return m_fpRows > 0; }
  int footprintRows() const { return static_cast<int>(m_fpRows); }  ///< cells
  int footprintCols() const { return static_cast<int>(m_fpCols); }
  int footprintCellRows() const { return m_fpCellH; }  ///< elements per cell
  int footprintCellCols() const { return m_fpCellW; }
  /// Lowest and highest linear CTA that wrote (read) footprint cell (cr, cc); -1 none.
  std::pair<std::int64_t, std::int64_t> footprintCell(bool write, int cr, int cc) const;
  /// The same at element (r, c) of the view.
  std::pair<std::int64_t, std::int64_t> footprintAt(bool write, std::int64_t r, std::int64_t c) const;
  /// blockIdx of a linear CTA of the traced launch (x + gx·(y + gy·z)).
  std::vector<std::int64_t> ctaIndex(std::int64_t linear) const;
  std::int64_t footprintMultiWriterCells() const { return m_fpMulti; }

  // --- out-of-bounds evidence (outside the tensor, in the declared tiles' masked area)
  const std::vector<OobRegion>& oobRegions() const { return m_oob; }
  /// Elements the out-of-bounds findings name (writes, reads), overlaps counted once per finding.
  std::int64_t oobElements(bool write) const;
  /// Bad accesses the trace counted on this tensor (writes, reads), and at how many instructions.
  std::int64_t oobAccesses(bool write) const { return m_oobAccesses[write]; }
  std::int64_t oobInstructions(bool write) const { return m_oobInstructions[write]; }
  /// False for a tensor the report declares no tiling for (an input drawn from its trace footprint).
  bool declared() const { return m_declared; }
  /// The out-of-bounds region at element (r, c) of the view (writes first), or nullptr.
  const OobRegion* oobAt(std::int64_t r, std::int64_t c) const;
  /// Declared tiles whose area holds out-of-bounds elements: the tiles (CTAs) that wrote or read them.
  std::vector<std::pair<int, int>> oobTiles(bool write) const;
  /// The CTA that owns a declared tile: the report's crossing-tile list where it names
  /// one, else the convention of docs/config.md's example (pid_x = tile column, pid_y = tile row).
  std::vector<std::int64_t> ctaOfTile(int tileRow, int tileCol) const;
  /// The drawn extent: the declared tiles (which reach past the edge) and the evidence.
  std::int64_t extentRows() const { return m_extentRows; }
  std::int64_t extentCols() const { return m_extentCols; }

 private:
  void readMap(const CellMap& map);
  void readCorrectness(const CorrectnessInfo& c);
  void readSamples(const std::vector<Finding>& findings);
  void readOob(const Point& p);
  void addOobRegions(ElementRange e, bool write, int finding);
  void readCrossingTiles(const CoverageInfo& cov);
  void readFootprint(const Point& p);
  void wrapVector(std::int64_t length, std::int64_t tile);
  QString wrappedHoverText(std::int64_t r, std::int64_t c) const;
  void appendFootprintLines(QStringList& lines, std::int64_t r, std::int64_t c) const;
  std::int64_t wrappedIndex(std::int64_t r, std::int64_t c) const { return r * m_wrap + c; }
  /// View element → the (row, col) of the flattened 2-D tensor the maps are over.
  std::pair<std::int64_t, std::int64_t> flatten(std::int64_t r, std::int64_t c) const;

  std::string m_tensor;
  std::vector<std::int64_t> m_shape;
  std::vector<std::int64_t> m_rawShape;  ///< the tensor's own shape (m_shape is a vector's [1, N])
  View m_view;
  std::int64_t m_rows = 0, m_cols = 0, m_tileH = 1, m_tileW = 1;
  std::int64_t m_wrap = 0, m_length = 0;  ///< a wrapped vector: elements per row, and in all
  // The state map over the flattened tensor.
  int m_mapRows = 0, m_mapCols = 0;
  std::int64_t m_cellH = 1, m_cellW = 1;
  double m_viewCellH = 1, m_viewCellW = 1;
  std::vector<std::uint8_t> m_states;
  // The error map.
  int m_errRows = 0, m_errCols = 0;
  std::int64_t m_errCellH = 1, m_errCellW = 1;
  std::vector<float> m_errors;
  std::map<std::pair<int, int>, std::pair<std::int64_t, double>> m_badTiles;
  std::map<std::pair<std::int64_t, std::int64_t>, std::pair<double, double>> m_samples;
  std::vector<OobRegion> m_oob;
  std::array<std::int64_t, 2> m_oobAccesses{0, 0}, m_oobInstructions{0, 0};  ///< [read, write]
  bool m_declared = true;
  std::map<std::pair<int, int>, std::vector<std::int64_t>> m_tileCtas;
  std::int64_t m_extentRows = 0, m_extentCols = 0;
  std::int64_t m_fpRows = 0, m_fpCols = 0, m_fpMulti = 0;
  int m_fpCellH = 1, m_fpCellW = 1;
  std::vector<std::int64_t> m_writeMin, m_writeMax, m_readMin, m_readMax;
  std::array<std::int64_t, 3> m_traceGrid{1, 1, 1};
};

}  // namespace tilescope::ui
