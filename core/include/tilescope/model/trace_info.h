// The report's `trace` section of a point (docs/report.md, "trace"): what a
// traced launch measured, as typed structs that the CLI, the exports and the
// GUI read. Filled by analyzeTrace (trace.h).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tilescope {

inline constexpr const char* kTraceSchema = "tilescope.trace/1";

using Dim3 = std::array<std::uint32_t, 3>;

/// A place in the kernel's code.
struct TraceSite {
  std::uint64_t pc = 0;
  std::string function;
  std::uint64_t sassOffset = 0;
  std::string file;
  int line = 0;  ///< 0: no line information
  bool operator==(const TraceSite&) const = default;
};

/// How a CTA maps onto a declared tile (for locations). May be absent.
struct TraceTileHint {
  std::string tensor;
  std::vector<std::int64_t> origin, extent;
  bool operator==(const TraceTileHint&) const = default;
};

/// The first bad access of one kind at one instruction.
struct TraceFault {
  std::string kind;              ///< oob_read oob_write misaligned wild shared_oob uninit_read
  std::string category;          ///< vocabulary.h: oob_read, oob_write, misaligned_access, illegal_address,
                                 ///< uninitialized_read
  std::string space = "global";  ///< global | shared
  /// wild: the generic window the address lies in, past this thread's or
  /// block's part of it ("local", "shared"), or "" (none)
  std::string window;
  std::string tensor;  ///< the tensor it belongs to (wild: the nearest one)
  TraceSite site;
  std::vector<std::int64_t> element;  ///< index per dimension (may lie outside the shape)
  std::int64_t elementLinear = 0;
  std::optional<std::int64_t> bytesPastEnd;      ///< 0 = the first byte after the tensor
  std::optional<std::int64_t> bytesBeforeStart;  ///< 1 = the last byte before it
  std::uint32_t size = 0;
  bool write = false, atomic = false;
  std::uint64_t address = 0;
  Dim3 thread{}, block{};
  std::optional<TraceTileHint> tile;
  std::uint64_t count = 0;  ///< bad accesses of this kind at this instruction
  bool stopped = false;     ///< the warp was exited instead of faulting
  bool exact = true;        ///< block/thread are the lowest that did it, address theirs
  bool operator==(const TraceFault&) const = default;
};

struct TraceHazardInfo {
  std::string kind;         ///< RAW, WAW, WAR
  TraceSite first, second;  ///< the earlier access and the one that collided with it
  Dim3 firstThread{}, secondThread{}, block{};
  std::uint32_t count = 0;
  std::uint32_t sharedOffset = 0;
  bool operator==(const TraceHazardInfo&) const = default;
};

/// Per source line (or per instruction where there is no line information).
struct TraceLine {
  std::string file;
  int line = 0;
  std::vector<std::uint64_t> sassOffsets;
  std::uint64_t executions = 0, accesses = 0, bytes = 0;
  std::vector<std::string> spaces;  ///< global, shared, local, barrier
  bool read = false, write = false, atomic = false;
  std::uint64_t faults = 0, uninit = 0, hazards = 0;
  std::uint64_t wavefronts = 0, ideal = 0;
  std::uint32_t maxWays = 0;
  bool operator==(const TraceLine&) const = default;
};

struct TraceCtaBox {
  std::int64_t cta = 0;  ///< linear
  std::int64_t rowMin = 0, rowMax = 0, colMin = 0, colMax = 0, count = 0;
  bool operator==(const TraceCtaBox&) const = default;
};

/// Measured footprint of one tensor: who read and wrote each map cell.
struct TraceFootprint {
  std::string tensor;
  std::vector<std::int64_t> shape;
  std::int64_t pitch = 1, rows = 1;  ///< the map spans rows x pitch elements
  int cellH = 1, cellW = 1;
  std::int64_t cellRows = 0, cellCols = 0;
  bool exact = true;                                               ///< one element per cell
  std::vector<std::int64_t> readMin, readMax, writeMin, writeMax;  ///< CTA linear per cell, -1 none
  std::int64_t cellsRead = 0, cellsWritten = 0, cellsMultiWriter = 0;
  std::vector<TraceCtaBox> readBoxes, writeBoxes;
  std::int64_t ctasListed = 0, ctasTotal = 0;
  bool operator==(const TraceFootprint&) const = default;
};

struct TraceCounts {
  std::uint64_t globalAccesses = 0, sharedAccesses = 0, localAccesses = 0, barriers = 0;
  std::uint64_t badAccesses = 0, uninitReads = 0, hazards = 0, stoppedWarps = 0;
  std::uint64_t sharedWavefronts = 0, sharedIdeal = 0;
  /// mbarrier operations (cuda::barrier, TMA and wgmma pipelines): an ordering
  /// the hazard tracker does not follow, so its hazards are not proof.
  std::uint64_t mbarrierOps = 0;
  bool operator==(const TraceCounts&) const = default;
};

struct TraceLimits {
  std::uint32_t recordsSeen = 0, maxRecords = 0, hazardOverflow = 0;
  std::uint32_t maxCtas = 0, untrackedCtas = 0, untrackedSlots = 0;
  std::uint64_t outsidePcs = 0;
  bool operator==(const TraceLimits&) const = default;
};

/// The report's `trace` section of a point (docs/report.md).
struct TraceInfo {
  std::string status;  ///< "" (not traced), ok, unavailable, failed
  std::string reason;  ///< why not, or what went wrong
  std::string mode;    ///< full | memory
  std::string kernel, file;
  bool lineInfo = false;
  Dim3 grid{1, 1, 1}, block{1, 1, 1};
  TraceCounts counts;
  std::vector<TraceFault> faults;
  std::vector<TraceHazardInfo> hazards;
  std::vector<TraceLine> lines;
  std::vector<TraceFootprint> footprints;
  TraceLimits limits;
  bool traced() const { return status == "ok"; }
  bool operator==(const TraceInfo&) const = default;
};
/// Run-length encoding used by the report's footprint maps: [value, run, value, run, ...].
std::vector<std::int64_t> rleEncode(const std::vector<std::int64_t>& values);
std::vector<std::int64_t> rleDecode(const std::vector<std::int64_t>& runs);

/// The section's JSON (docs/report.md); the reader throws ReportError (report.h)
/// naming the JSON path of a value of the wrong type or out of range.
nlohmann::json toJson(const TraceInfo& t);
TraceInfo traceInfoFromJson(const nlohmann::json& j, const std::string& path = "trace");

}  // namespace tilescope
