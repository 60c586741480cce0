// Where a finding is (docs/report.md#location): the tile, the CTA, the elements,
// the bytes past a tensor's end, the thread and the source line — as far as the
// evidence reaches. Every field is optional: empty means "the evidence does not
// say". Producers fill what they measured; the GUI and the exports read fields.
// To add a field: a member here, one line in the field list (report_json.cpp),
// a row in docs/report.md.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tilescope {

/// A multi-dimensional index in a tensor's own dimension order, or a CTA / thread
/// index (x, y, z) as blockIdx / threadIdx.
using Index = std::vector<std::int64_t>;

/// A run of elements: the first and last in row-major order, and the inclusive
/// box per dimension where the producer knows it.
struct ElementRange {
  Index first, last;
  Index lo, hi;      ///< the bounding box (inclusive), or empty
  std::string text;  ///< as a person reads it ("row 65 of C[65, 65], one past the last row … row 128")
  bool operator==(const ElementRange&) const = default;
};

/// A byte range relative to a tensor, inclusive. JSON: [first, last].
struct ByteRange {
  std::int64_t first = 0, last = 0;
  bool operator==(const ByteRange&) const = default;
};

/// A box of elements: begin and extent per dimension (row-major tensor order).
struct Region {
  Index begin, extent;
  std::int64_t elements() const;  ///< tiles.cpp
  bool operator==(const Region&) const = default;
};

/// The launch geometry a location names when nothing finer is known.
struct LaunchGeometry {
  std::array<std::int64_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  std::int64_t sharedBytes = 0;
  bool operator==(const LaunchGeometry&) const = default;
};

/// The memory access that faulted or went out of bounds (the access tracer's).
struct MemoryAccess {
  std::string kind;   ///< read | write | atomic
  int size = 0;       ///< bytes per access (a float4 load: 16); 0 when unknown
  std::string space;  ///< global | shared | local, or ""
  bool operator==(const MemoryAccess&) const = default;
};

struct Location {
  // --- the declared tiling
  std::string output;              ///< the output whose tiles are named (an inferred read names inputs)
  Index tile;                      ///< the tile of the first element
  std::vector<Index> tiles;        ///< tiles, worst first (capped at kMaxLocationTiles)
  Index cta;                       ///< the CTA of the first tile or element
  std::vector<Index> ctas;         ///< every CTA named (owners of the tiles or elements), first = cta
  std::vector<Index> nearestCtas;  ///< no CTA owns the element: the owners of the nearest one inside
  // --- elements and bytes
  std::optional<ElementRange> elements;
  std::vector<Region> regions;                ///< declared gaps or overlaps (static analysis)
  std::optional<ByteRange> bytesPastEnd;      ///< 0 = the first byte past the end
  std::optional<ByteRange> bytesBeforeStart;  ///< 1 = the last byte before the start
  // --- the access (the access tracer fills these)
  Index thread;                             ///< threadIdx of the access
  Index block;                              ///< blockIdx of the access
  std::string function;                     ///< the (demangled) function of the instruction
  std::string file;                         ///< source file
  std::optional<int> line;                  ///< source line (1-based)
  std::optional<std::uint64_t> pc;          ///< program counter of the instruction
  std::optional<std::uint64_t> sassOffset;  ///< offset of the SASS instruction in its function
  std::optional<MemoryAccess> access;
  // --- the configuration to change
  std::string kernel;      ///< entry point
  std::string config;      ///< the config key to change ("launch.shared_bytes")
  std::string expression;  ///< its expression as written (a list is joined with ", ")
  std::optional<LaunchGeometry> launch;
  std::string phase;         ///< the worker phase a hang happened in
  std::optional<int> point;  ///< the sweep point (trials that disagree)
  /// Anything else a producer names (diagnose's failing shifts, the sizes that
  /// fail): open JSON, merged into the same object when written.
  nlohmann::json extra = nlohmann::json::object();

  /// No field set.
  bool empty() const;
  bool operator==(const Location&) const = default;
};

/// One line a person reads, the most specific facts first: "tile [1,0], CTA [0,1,0],
/// elements [65,0]…[128,62], bytes 0–8315 past the end, kernel.cu:42". The CLI, the
/// exports and the GUI's findings table all print a location with it.
std::string locationText(const Location& l);

/// The location's JSON (docs/report.md); the reader throws ReportError (finding.h)
/// naming the JSON path of a value of the wrong type.
nlohmann::json toJson(const Location& l);
Location locationFromJson(const nlohmann::json& j, const std::string& path = "location");

}  // namespace tilescope
