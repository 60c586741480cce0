// What a capture measured, one struct per part of a report's point
// (docs/report.md#points): compile, launch, timing, baseline, correctness,
// coverage and occupancy. The point that holds them is point.h's.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/model/location.h"

namespace tilescope {

struct Stats {
  double median = 0, p10 = 0, p90 = 0, min = 0, max = 0, mean = 0;
  int n = 0;
  bool operator==(const Stats&) const = default;
};

struct CompileInfo {
  bool attempted = false;
  bool ok = false;
  std::string compiler;  ///< nvrtc | nvcc | prebuilt
  std::string arch;      ///< sm_90
  std::string log;
  int regs = -1;                                   ///< per thread (-1: unknown)
  std::int64_t smemStatic = -1;                    ///< bytes
  std::int64_t localBytes = -1;                    ///< per thread
  std::int64_t spillStores = -1, spillLoads = -1;  ///< bytes
  int maxThreadsPerBlock = -1;
  double seconds = 0;
  bool cached = false;
  bool operator==(const CompileInfo&) const = default;
};

struct LaunchInfo {
  std::int64_t grid[3] = {1, 1, 1};
  std::int64_t block[3] = {1, 1, 1};
  std::int64_t sharedBytes = 0;
  bool attempted = false;
  bool ok = false;
  std::string error;  ///< CUDA error name and string, or ""
  bool operator==(const LaunchInfo&) const = default;
};

/// The geometry part of a launch, as a location names it.
LaunchGeometry launchGeometry(const LaunchInfo& l);

struct TimingInfo {
  bool measured = false;
  Stats kernelNs;  ///< CUPTI kernel durations
  double cv = 0;   ///< coefficient of variation
  Stats eventNs;   ///< cudaEvent durations of the same launches
  int regs = -1;   ///< as launched (CUPTI record)
  std::int64_t smemStatic = -1, smemDynamic = -1, localPerThread = -1;
  double smClockBeforeMHz = 0, smClockAfterMHz = 0;
  bool throttled = false;
  std::string note;
  bool operator==(const TimingInfo&) const = default;
};

struct BaselineInfo {
  std::string name;  ///< cublas | sdpa | sdpa_math | command | none
  bool measured = false;
  Stats kernelNs;
  int kernels = 0;  ///< kernels summed per call
  std::string error;
  bool operator==(const BaselineInfo&) const = default;
};

/// One tile with wrong elements: its position in the tile grid, how many, the worst error.
/// JSON: [row, col, count, max_err].
struct BadTile {
  std::int64_t row = 0, col = 0, count = 0;
  double maxErr = 0;
  bool operator==(const BadTile&) const = default;
};

/// Per-tile summary of a comparison over the output's 2-D view.
struct TileSummary {
  std::vector<std::int64_t> tileShape;     ///< the declared tile extent per dimension
  std::array<std::int64_t, 2> grid{0, 0};  ///< tile rows, tile columns
  std::vector<BadTile> bad;                ///< worst first, capped at kMaxTileList (compare.h)
  std::int64_t badTiles = 0, tilesTotal = 0;
  bool capped = false;  ///< `bad` lists fewer than badTiles
  bool operator==(const TileSummary&) const = default;
};

/// The comparison's downsampled error map: the largest |error| per cell, -1 where
/// a cell holds NaN/Inf. `cell` is the extent of one cell (rows, columns of elements).
struct ErrorMap {
  std::int64_t rows = 0, cols = 0;
  std::array<std::int64_t, 2> cell{1, 1};
  std::vector<double> maxAbs;  ///< rows × cols, row-major
  bool operator==(const ErrorMap&) const = default;
};

struct CorrectnessInfo {
  bool checked = false;
  std::string reference;  ///< gemm(cublas) | sdpa(cudnn) | sdpa_math | kernel | npy
  std::string tensor;
  double maxAbsErr = 0, maxRelErr = 0;
  std::int64_t mismatches = 0, nan = 0, inf = 0, elements = 0;
  std::int64_t firstMismatch[2] = {-1, -1};  ///< row, column in the 2-D view
  double rtol = 0, atol = 0;
  std::optional<TileSummary> tiles;
  std::optional<ErrorMap> errorMap;
  bool operator==(const CorrectnessInfo&) const = default;
};

/// What a coverage cell shows: the worst state of its elements. Codes are the
/// report's (docs/report.md); 4 and 5 come from the access tracer.
enum class CellState : std::uint8_t {
  ok = 0,
  mismatch = 1,
  unwritten = 2,
  nan_inf = 3,
  overlapped = 4,
  oob = 5
};
inline constexpr int kLastCellState = static_cast<int>(CellState::oob);

/// The measured coverage, downsampled to rows × cols cells of `cell` elements each.
struct CellMap {
  std::int64_t rows = 0, cols = 0;
  std::array<std::int64_t, 2> cell{1, 1};
  std::vector<std::string> legend;   ///< the names of the state codes, in code order
  std::vector<std::uint8_t> states;  ///< rows × cols CellState codes, row-major
  CellState at(std::int64_t row, std::int64_t col) const {
    return static_cast<CellState>(states[static_cast<std::size_t>(row * cols + col)]);
  }
  bool operator==(const CellMap&) const = default;
};

/// A declared tile that crosses the tensor's bounds: the CTA that owns it, where
/// it lies and the part inside (the mask). JSON: coverage's extra.crossing_tiles[].
struct CrossingTile {
  std::array<std::int64_t, 3> cta{};                        ///< blockIdx (x, y, z)
  std::vector<std::int64_t> origin, extent;                 ///< as declared, per dimension
  std::vector<std::int64_t> inBoundsBegin, inBoundsExtent;  ///< the part inside the tensor
  bool operator==(const CrossingTile&) const = default;
};

struct CoverageInfo {
  std::string tensor;
  std::vector<std::int64_t> shape;
  std::int64_t elements = 0;
  // declared (static analysis)
  std::int64_t declaredCovered = 0, declaredUncovered = 0, declaredOverlapped = 0;
  std::vector<std::int64_t> tile;  ///< declared tile extent
  std::int64_t tilesTotal = 0, tilesCrossing = 0;
  // measured (GPU)
  bool measured = false;
  std::int64_t written = 0, unwritten = 0;
  std::optional<CellMap> map;  ///< when measured
  /// The first tiles that cross the bounds (static analysis; absent when not analysed).
  std::optional<std::vector<CrossingTile>> crossingTiles;
  nlohmann::json extra;  ///< the rest of `extra`: gap regions, method, ... (open)
  bool operator==(const CoverageInfo&) const = default;
};

/// One point of an occupancy curve. JSON: [x, occupancy].
struct CurvePoint {
  std::int64_t x = 0;
  double occupancy = 0;
  bool operator==(const CurvePoint&) const = default;
};

/// The occupancy calculator's curves and where the kernel sits on them.
struct OccupancyCurves {
  std::vector<CurvePoint> blockSize, registers, sharedMemory;
  std::int64_t currentBlockSize = 0, currentRegisters = 0, currentSharedMemory = 0;
  double currentOccupancy = 0;
  bool operator==(const OccupancyCurves&) const = default;
};

struct OccupancyInfo {
  bool computed = false;
  double theoretical = 0;  ///< 0..1
  std::string limiter;     ///< warps | registers | shared_memory | blocks | threads
  int blocksPerSm = 0, warpsPerSm = 0, maxWarpsPerSm = 0;
  int blocksLimitWarps = 0, blocksLimitRegs = 0, blocksLimitSmem = 0, blocksLimitSlots = 0;
  std::int64_t smemPerBlock = 0;  ///< static + dynamic + reserved
  int regsPerThread = 0;
  int threadsPerBlock = 0;
  std::optional<OccupancyCurves> curves;
  bool operator==(const OccupancyInfo&) const = default;
};

}  // namespace tilescope
