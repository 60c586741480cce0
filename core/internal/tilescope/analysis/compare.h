// Host-side evidence about an output tensor: the measured coverage scan (sentinel
// left behind, NaN/Inf, all zero), the comparison against a reference (errors,
// per-tile summary, error map, mismatch classes) and the out-of-bounds read
// inference. Plain C++: the capture code copies tensors to the host and calls these.
//
// Tiling assumption: the declared tiling of an output is given by its tile
// extents only; tiles are taken to sit at multiples of the extent (tile t of
// dimension d covers [t*extent, (t+1)*extent)), which is what
// `origin: pid * extent` declares in every config of the zoo. A missing or
// non-positive extent makes that dimension one tile.
//
// The 2-D view: maps and tile summaries are 2-D. A rank-1 tensor is one row; for
// rank > 2 the leading dimensions are flattened into rows (row-major), the last
// dimension is the columns. Element and tile positions in findings are full
// multi-dimensional indices.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/config/tensor.h"
#include "tilescope/model/finding.h"
#include "tilescope/model/measurements.h"

namespace tilescope {

// CellState (measurements.h) codes the coverage map: scanOutput sets ok, unwritten and
// nan_inf; applyMismatchStates sets mismatch; overlapped and oob come from the
// access tracer (raiseCellState).

/// At most this many cells per map side (rows and columns are downsampled
/// separately; a cell covers cellH x cellW elements).
inline constexpr std::int64_t kMaxMapCells = 256;
/// Lists of tiles in per-tile summaries are capped here; counts stay exact.
inline constexpr std::size_t kMaxTileList = 4096;
/// Lists of tiles in a finding's location are capped here (the evidence has counts).
inline constexpr std::size_t kMaxLocationTiles = 64;

/// The geometry shared by scan, compare and the GUI's maps.
struct OutputGeometry {
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> tile;           ///< extent per dimension, clamped to [1, shape]
  std::vector<std::int64_t> tilesPerDim;    ///< ceil(shape / tile)
  std::int64_t rows = 1, cols = 1;          ///< the 2-D element view
  std::int64_t tileRows = 1, tileCols = 1;  ///< the 2-D tile grid (leading tile dims flattened)
  std::int64_t cellH = 1, cellW = 1;        ///< elements per map cell
  std::int64_t mapRows = 1, mapCols = 1;

  static OutputGeometry make(const std::vector<std::int64_t>& shape,
                             const std::vector<std::int64_t>& tileExtent);
  std::int64_t elements() const { return rows * cols; }
  /// Multi-dimensional index of 2-D position (row, col).
  std::vector<std::int64_t> index(std::int64_t row, std::int64_t col) const;
  /// Multi-dimensional tile index holding (row, col).
  std::vector<std::int64_t> tileIndex(std::int64_t row, std::int64_t col) const;
  /// Row of the 2-D tile grid holding element row `row`.
  std::int64_t tileRowOf(std::int64_t row) const;
  /// Multi-dimensional tile index of 2-D tile grid position (tileRow, tileCol).
  std::vector<std::int64_t> tileIndexOfGrid(std::int64_t tileRow, std::int64_t tileCol) const;
  /// True when the tile reaches past the tensor's end in some dimension (a partial tile).
  bool tileCrossesBounds(const std::vector<std::int64_t>& tileIdx) const;
  /// True when the tile is the last one of some dimension that has more than one
  /// tile (a boundary tile: it crosses or touches the tensor's end).
  bool tileIsBoundary(const std::vector<std::int64_t>& tileIdx) const;
  /// Tiles that cross the bounds (partial tiles).
  std::int64_t tilesCrossing() const;
  std::int64_t tilesTotal() const { return tileRows * tileCols; }
  /// The CTA that owns a tile under the zoo's convention origin = [.., pid_z, pid_y, pid_x] * tile
  /// (last dimension x, the one before y, the one before that z); empty for rank > 3.
  std::vector<std::int64_t> ctaOf(const std::vector<std::int64_t>& tileIdx) const;
};

/// "rows 4032–4095, cols 0–63" (rank 2), "elements 5–9" (rank 1),
/// "[0–1, 4032–4095, 0–63]" (other ranks) for the inclusive box lo..hi.
std::string describeElementBox(const std::vector<std::int64_t>& lo, const std::vector<std::int64_t>& hi);

/// Per-tile counts and largest error over the flattened tile grid: dense up to
/// 2^22 tiles, a hash map beyond (tiny tiles over huge outputs).
class TileTally {
 public:
  explicit TileTally(std::int64_t tiles);
  void add(std::int64_t tile, std::int64_t count, double err = 0);
  struct Entry {
    std::int64_t tile = 0, count = 0;
    double maxErr = 0;
  };
  /// Tiles with a non-zero count, in tile order.
  std::vector<Entry> entries() const;

 private:
  bool m_dense;
  std::vector<Entry> m_denseEntries;
  std::unordered_map<std::int64_t, Entry> m_sparse;
};

/// A tile and a count (unwritten or NaN elements in it).
struct TileCount {
  std::vector<std::int64_t> tile;
  std::int64_t count = 0;
};

struct ScanResult {
  CoverageInfo
      coverage;  ///< measured fields filled: written, unwritten, map; tile, tilesTotal, tilesCrossing
  std::vector<Finding> findings;  ///< coverage_gap, nan_inf, all_zero
  OutputGeometry geometry;
  bool hasSentinel = false;  ///< sentinel scanned for (false: the output had an init)
  std::uint64_t sentinel = 0;
  // NaN/Inf evidence kept for inferOobReads (elements where the reference is finite or absent).
  std::int64_t nanInf = 0;
  std::int64_t nanInfInCrossingTiles = 0;
  std::int64_t guardPayloadNans = 0;   ///< NaNs whose bits equal the guard pattern of the dtype
  std::vector<TileCount> nanInfTiles;  ///< capped at kMaxTileList
  std::vector<TileCount> gapTiles;     ///< capped at kMaxTileList
  bool allZero = false;
};

/// Scans an output copied back from the device. `sentinelBits` is the pattern the
/// output started with (tensor.h sentinelBits); use scanOutputNoSentinel when the
/// output started from an `init`. Unwritten = element bits still equal to the sentinel. NaN/Inf counts where
/// `reference` is finite, or everywhere when `reference` is null. all_zero needs
/// a reference: every written element is 0 while some reference element at a
/// written position is not. One pass over the data, no per-element allocation.
///
/// Threads (scanOutput, scanOutputNoSentinel, compareOutputs): the rows are split
/// into fixed chunks of whole map-cell rows, about 2^18 elements each, run on
/// several threads and merged in chunk order, so the result is the same, bit for
/// bit, for any number of threads. `threads` 0: the calling thread alone below
/// 2^20 elements, else std::thread::hardware_concurrency() threads (16 at most);
/// n > 0 forces n threads (at most 16, at most one per chunk): tests and benches.
ScanResult scanOutput(const HostTensor& out, std::uint64_t sentinelBits,
                      const std::vector<std::int64_t>& tileExtent, const HostTensor* reference,
                      int threads = 0);
/// The same without a sentinel (the output started from an `init`): no coverage_gap.
ScanResult scanOutputNoSentinel(const HostTensor& out, const std::vector<std::int64_t>& tileExtent,
                                const HostTensor* reference, int threads = 0);

struct CompareResult {
  CorrectnessInfo info;
  std::vector<Finding> findings;  ///< mismatch (detail tail_tiles | transposed | "")
  OutputGeometry geometry;
  std::vector<std::uint32_t> cellMismatches;  ///< mapRows x mapCols, for applyMismatchStates
  std::int64_t valueMismatches = 0;           ///< mismatches whose output is finite
};

/// Compares `out` with `ref` (same shape). An element mismatches when
/// |out - ref| > atol + rtol * |ref|; a NaN output mismatches unless the reference
/// is NaN too, an Inf unless the reference is the same Inf. maxAbsErr/maxRelErr
/// are over finite errors (rel: |out-ref|/|ref| where ref != 0).
/// With `scan`, elements the scan found unwritten are skipped (not compared, not
/// counted in `elements`), so a coverage gap is not reported again as a mismatch
/// and NaN; a mismatch finding is emitted only for finite wrong values when the
/// scan already reported nan_inf, and not at all when it reported all_zero (the
/// numbers stay in `info`).
/// info.tiles: the per-tile summary (bad tiles capped, worst first); info.errorMap: a
/// cell holds its largest finite |out-ref| over mismatching and matching elements, and
/// -1 when it holds a non-finite mismatch.
/// Classes: `tail_tiles` when every mismatching element lies in boundary tiles
/// (and some tile is not a boundary tile); `transposed` when rank 2 and the output's
/// buffer, read as the [cols, rows] matrix, equals ref^T within tolerance
/// (for square outputs: out[i][j] == ref[j][i]).
/// `threads`: as for scanOutput. maxRelErr is the exact largest |out-ref|/|ref|
/// (before the threads, a multiply-based filter could leave it one rounding off
/// in the last place, depending on the order of the elements).
CompareResult compareOutputs(const HostTensor& out, const HostTensor& ref, double rtol, double atol,
                             const std::vector<std::int64_t>& tileExtent, const ScanResult* scan,
                             int threads = 0);

/// Marks cells with mismatches as CellState::mismatch (when not already worse)
/// in scan.coverage.map. The two results must come from the same shape and tiling.
void applyMismatchStates(ScanResult& scan, const CompareResult& cmp);
/// Raises the state of the cell holding element `index` (multi-dimensional) in a
/// coverage map built by scanOutput; for the access tracer (overlapped, oob).
void raiseCellState(CoverageInfo& coverage, const OutputGeometry& g, const std::vector<std::int64_t>& index,
                    CellState state);

/// An input tensor as the oob_read inference sees it.
struct GuardedInput {
  std::string name;
  DType dtype = DType::f32;
  bool nanGuard = false;  ///< its guard zone holds quiet NaNs (floating dtype, guards enabled)
};

/// Heuristic oob_read inference (severity warning: indirect evidence). Fires when
/// (1) some input has a NaN-poisoned guard zone, (2) the output has NaN/Inf where
/// the reference is finite, and (3) at least 90% of those elements sit in output
/// tiles that cross the output's bounds: a tile past the end reads rows/columns of
/// its inputs past their end unless the loads are masked, and those reads return
/// the guard NaNs. NaNs carrying the guard's exact payload (copied, not computed)
/// are counted as extra evidence. The finding names the inputs that could be the
/// source (all NaN-guarded ones: which one cannot be told from the output alone).
std::vector<Finding> inferOobReads(const ScanResult& scan, const std::vector<GuardedInput>& inputs);

}  // namespace tilescope
