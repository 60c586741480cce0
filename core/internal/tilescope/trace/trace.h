// The tracer's conclusions (docs/report.md, "trace"): what a traced launch measured, as raw
// aggregates copied back from the device (TraceCapture, filled by core/cuda's
// trace engine), turned into findings with a location and into the report's
// `trace` section (TraceInfo) by pure functions that need no GPU.
//
// PCs are absolute device addresses in TraceCapture; `functions` tells which
// function and SASS offset each belongs to, and a LineTable (from the cubin's
// .debug_line, see trace_lines.h) the source file and line.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/model/finding.h"
#include "tilescope/model/trace_info.h"
#include "tilescope/trace/trace_lines.h"

namespace tilescope {

/// What a bad access was (the device's record kinds).
enum class TraceFaultKind {
  oob_read = 1,
  oob_write = 2,
  misaligned = 3,
  wild = 4,
  shared_oob = 5,
  uninit = 6
};
const char* traceFaultKindName(TraceFaultKind k);  ///< "oob_read", ..., "uninit_read"
/// The finding category (vocabulary.h) a bad access proves.
const char* traceFaultCategory(TraceFaultKind k);

enum class HazardKind { raw = 1, waw = 2, war = 3 };
const char* hazardKindName(HazardKind k);  ///< "RAW", "WAW", "WAR"

/// A function of the traced module: where its code sits on the device.
struct TraceFunction {
  std::string name;
  std::uint64_t base = 0, size = 0;
};

/// A tensor as the trace saw it.
struct TraceTensor {
  std::string name;
  int elemSize = 4;
  bool output = false, trackInit = false;
  std::uint64_t base = 0, bytes = 0, allocBegin = 0, allocEnd = 0;
  std::vector<std::int64_t> shape;
  std::int64_t pitch = 1, rows = 1;  ///< the map's geometry: rows x pitch elements
  int cellH = 1, cellW = 1;          ///< elements per map cell
  std::int64_t cellRows = 0, cellCols = 0;
  /// Per cell (cellRows x cellCols): lowest and highest CTA (linear) that read /
  /// wrote an element of it, -1 where none did.
  std::vector<std::int64_t> readMin, readMax, writeMin, writeMax;
  /// Cells read, written and written by more than one CTA, counted by the device
  /// on its own map before it folded the map to the report's size (cellH/cellW
  /// then include the fold); absent: count them on this map.
  struct MapCounts {
    std::int64_t read = 0, written = 0, multiWriter = 0;
  };
  std::optional<MapCounts> deviceCounts;
  /// Per CTA (linear, up to maxCtas): bounding boxes of the elements it read
  /// and wrote (map coordinates), count 0 when it did not.
  struct Box {
    std::int64_t rowMin = 0, rowMax = -1, colMin = 0, colMax = -1, count = 0;
  };
  std::vector<Box> readBoxes, writeBoxes;
};

struct TraceRecord {
  TraceFaultKind kind = TraceFaultKind::oob_read;
  int tensor = -1;                    ///< index into tensors, -1 none
  std::uint32_t size = 0, flags = 0;  ///< flags: 1 read, 2 write (both: atomic), 0x100 shared memory,
                                      ///< 0x200 / 0x400 in the local / shared window (trace_abi.h)
  std::uint64_t pc = 0, addr = 0;     ///< addr: shared-window offset for shared_oob
  Dim3 block{}, thread{};
};

struct TracePc {
  std::uint64_t pc = 0;
  std::uint64_t execs = 0, threads = 0, bytes = 0, wavefronts = 0, ideal = 0;
  std::optional<std::uint64_t> firstFaultKey, firstUninitKey;  ///< block linear << 32 | thread linear
  std::uint32_t faults = 0, uninit = 0, hazards = 0, maxWays = 0, flags = 0, sizes = 0;
};

struct TraceHazard {
  HazardKind kind = HazardKind::raw;
  std::uint64_t pcFirst = 0, pcSecond = 0;
  std::uint32_t count = 0, offset = 0, tidFirst = 0, tidSecond = 0;
  Dim3 block{};
};

/// Everything copied back from one traced launch.
struct TraceCapture {
  std::string mode = "full";  ///< full | memory (no hazards)
  Dim3 grid{1, 1, 1}, block{1, 1, 1};
  std::vector<TraceFunction> functions;
  std::string kernel;  ///< the function under test
  std::vector<TraceTensor> tensors;
  std::vector<TracePc> pcs;  ///< non-empty slots only
  std::vector<TraceRecord> records;
  std::uint32_t recordsSeen = 0, maxRecords = 0;
  std::vector<TraceHazard> hazards;
  std::uint32_t hazardOverflow = 0;
  std::uint64_t globalAccesses = 0, sharedAccesses = 0, localAccesses = 0, barriers = 0;
  std::uint64_t outsidePcs = 0, stoppedWarps = 0;
  std::uint64_t mbarrierOps = 0;  ///< mbarrier operations seen (trace_abi.h)
  std::uint32_t maxCtas = 0, untrackedCtas = 0, untrackedSlots = 0;
  std::string launchError;  ///< the traced launch's CUDA error, "" on success
};

/// Block and thread of a first-access key.
void unpackKey(std::uint64_t key, const Dim3& grid, const Dim3& block, Dim3* blockIdx, Dim3* threadIdx);

/// Bank conflicts of one warp-wide shared access (the model the patch applies
/// with warp intrinsics, docs/report.md): `offsets[lane]` for lanes set in
/// `activeMask`, all of `size` bytes. Returns {wavefronts, ideal wavefronts}.
/// The fold of a map of cellRows x cellCols cells into at most `cells` blocks
/// (fh x fw cells each; the finer axis halves first): the report's footprints
/// and the device's reduction before the copy back use the same one.
std::pair<int, int> footprintFold(std::int64_t cellRows, std::int64_t cellCols, std::size_t cells);

std::pair<int, int> sharedWavefronts(const std::array<std::uint32_t, 32>& offsets, std::uint32_t activeMask,
                                     std::uint32_t size);

/// The declared tile of a CTA, for locations.
using TileLookup = std::function<std::optional<TraceTileHint>(const Dim3& block)>;

struct TraceOptionsForAnalysis {
  std::string source;                   ///< the config's kernel source, for file names
  double bankConflictThreshold = 0.10;  ///< extra wavefronts over ideal that make a finding
  std::size_t reportCells = 1 << 16;    ///< footprint cells per tensor in the report
  std::size_t reportCtas = 4096;        ///< per-CTA boxes listed per tensor
};

struct TraceAnalysis {
  std::vector<Finding> findings;
  TraceInfo info;
  /// Tensors the trace proved read or written past their bounds (the capture
  /// drops its guard-zone finding of the same kind for them).
  std::vector<std::string> oobWriteTensors, oobReadTensors;
  bool wouldFault = false;  ///< an access that was stopped (misaligned, wild, shared)
};

/// Folds a capture into findings (oob_read, oob_write, misaligned_access,
/// illegal_address, uninitialized_read, race, bank_conflicts) and the report section.
TraceAnalysis analyzeTrace(const TraceCapture& c, const LineTable& lines, const TileLookup& tiles,
                           const TraceOptionsForAnalysis& opts);

}  // namespace tilescope
