// Comparing two results (`tilescope-run compare`, the workbench's File ▸ Compare
// with…; docs/compare.md): one point of report A beside one point of report B
// (two reports, or two points of one sweep), as a typed ReportDiff: the
// verdicts, the timings with their spread, the compiled resources, the
// correctness counts and the error maps' difference, the counters and speed of
// light, and the findings that stayed, moved, appeared or went away. Pure
// functions over two Reports; the CLI, the workbench and the exports read the
// same diff (schema tilescope.compare/1).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/export/document.h"
#include "tilescope/model/report.h"

namespace tilescope {

inline constexpr const char* kCompareSchema = "tilescope.compare/1";

/// A comparison that cannot be made (a report without points, a point index out
/// of range). what() names the file and the problem.
class CompareError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One compared quantity: A's and B's value, absent where that side did not
/// measure it. Units: ns | B | B/s | FLOP/s | FLOP/B | % (0..100) | fraction
/// (0..1) | count | x (a factor) | "" (a plain number) | metric (a hardware
/// counter, formatted by its ncu name: counters.h formatMetric).
struct DiffValue {
  std::string key;    ///< "kernel_ns.median", "sol.sm_pct", an ncu metric name
  std::string label;  ///< what a person reads
  std::string unit;
  std::optional<double> a = {}, b = {};
  bool both() const { return a.has_value() && b.has_value(); }
  /// Measured on both sides and not equal (or measured on one side only).
  bool changed() const;
  double delta() const;     ///< b − a; NaN unless both
  double relative() const;  ///< (b − a) / |a|; NaN unless both and a ≠ 0
  bool operator==(const DiffValue&) const = default;
};

/// Which point of which report one side is.
struct DiffSide {
  std::string file;    ///< as the user named it
  std::string name;    ///< the config's name
  std::string entry;   ///< kernel.entry
  std::string verb;    ///< the report's verb
  std::string device;  ///< the device's name
  int points = 0;      ///< points the report holds
  int point = 0;       ///< the compared point's position in `points`
  int sweepIndex = 0, trial = 0;
  std::string label;  ///< pointLabel() of the point
  Verdict verdict = Verdict::ok;
  bool operator==(const DiffSide&) const = default;
};

struct TimingDiff {
  bool measuredA = false, measuredB = false;
  /// kernel_ns median, p10, p90, min, max, n; cv; event_ns median; the
  /// baseline's median; the speedup over it.
  std::vector<DiffValue> values;
  /// Both measured and the p10..p90 ranges do not overlap: the change is larger
  /// than either run's spread.
  bool significant = false;
  bool operator==(const TimingDiff&) const = default;
};

/// A cell of the error maps' difference.
enum class MapCell : std::uint8_t {
  same = 0,    ///< both finite and within `tolerance` of each other
  worse = 1,   ///< B's error is larger by more than `tolerance`, or not finite where A's is
  better = 2,  ///< the opposite
  bothBad = 3  ///< not finite in both
};

/// The difference of two error maps of one tensor, on A's grid (B's map is
/// resampled onto it when the grids differ: each of B's cells goes to the cell
/// of A that holds its first element, the maximum kept).
struct ErrorMapDiff {
  std::int64_t rows = 0, cols = 0;
  std::array<std::int64_t, 2> cell{1, 1};  ///< elements per cell (rows, columns), A's
  bool resampled = false;                  ///< B's grid differed from A's
  double tolerance = 0;                    ///< the larger atol: smaller changes are `same`
  std::vector<std::uint8_t> cells;         ///< rows × cols MapCell codes, row-major
  std::int64_t same = 0, worse = 0, better = 0, bothBad = 0;
  double maxGrowth = 0;  ///< the largest finite increase of a cell's max |error|
  double maxShrink = 0;  ///< the largest finite decrease
  bool operator==(const ErrorMapDiff&) const = default;
};

/// One output's correctness, matched by tensor name.
struct CorrectnessDiff {
  std::string tensor;
  bool inA = false, inB = false;  ///< checked on that side
  /// mismatches, nan, inf, max_abs_err, max_rel_err, bad_tiles, elements.
  std::vector<DiffValue> values;
  std::optional<ErrorMapDiff> map = {};  ///< when both have error maps
  std::string mapNote;                   ///< why there is no map difference, or ""
  bool operator==(const CorrectnessDiff&) const = default;
};

/// One output's bytes on both sides, from the digests the workers wrote
/// (`extra.output_digest`: FNV-1a 64 of its 8-byte words, then its last bytes):
/// equal digests mean the two outputs are the same bit for bit, whatever the
/// reference says of either.
struct OutputBytesDiff {
  std::string tensor;
  std::string digestA, digestB;  ///< "" where that side wrote none
  bool identical = false;        ///< both present and equal
  bool operator==(const OutputBytesDiff&) const = default;
};

struct CountersDiff {
  bool collectedA = false, collectedB = false;
  std::vector<DiffValue> speedOfLight;  ///< counterFigures(): SOL %, caches, occupancy, FLOPs, ...
  std::vector<DiffValue> metrics;       ///< every metric either side read, A's order first (unit "metric")
  bool operator==(const CountersDiff&) const = default;
};

enum class FindingChange {
  same,      ///< the category at the same location
  moved,     ///< the category on both sides, at another location
  appeared,  ///< only in B
  gone       ///< only in A
};
const char* findingChangeName(FindingChange c);
/// Throws std::invalid_argument naming the known names.
FindingChange parseFindingChange(const std::string& s);

/// A finding of A matched with one of B by category and location: equal
/// locations first, then locations that agree on every part both name (output,
/// tile, CTA, file, line), then the rest of the category in order.
struct FindingDiff {
  FindingChange change = FindingChange::same;
  std::string category;
  std::optional<Severity> severityA = {}, severityB = {};
  std::string messageA, messageB;
  std::optional<Location> locationA = {}, locationB = {};
  bool operator==(const FindingDiff&) const = default;
};

struct ReportDiff {
  std::string schema = kCompareSchema;
  DiffSide a, b;
  bool sameKernel = true;             ///< the same config name and kernel entry
  std::vector<std::string> warnings;  ///< other kernels, other devices, other shapes
  TimingDiff timing;
  /// Compiled and launched resources: registers, shared and local memory,
  /// spills, threads per block, theoretical occupancy.
  std::vector<DiffValue> resources;
  std::vector<CorrectnessDiff> correctness;
  std::vector<OutputBytesDiff> outputs;  ///< per output either side digested
  CountersDiff counters;
  std::vector<FindingDiff> findings;
  bool operator==(const ReportDiff&) const = default;
};

/// The point compared when none is named: the first with the report's verdict
/// (focusPoint), 0 for a report without a worst one; -1 for a report without points.
int defaultComparePoint(const Report& r);

/// Point `pointA` of `a` against point `pointB` of `b`; `fileA` and `fileB` name
/// the reports in messages and in the sides. Throws CompareError ("FILE: point 7
/// out of range: the report holds 3 points (0..2)", "FILE: the report holds no
/// points") when an index is out of range.
ReportDiff diffReports(const Report& a, const std::string& fileA, int pointA, const Report& b,
                       const std::string& fileB, int pointB);

/// tilescope.compare/1 (docs/compare.md). The reader throws ReportError naming
/// the JSON path of a wrong value, or "schema" for another schema.
nlohmann::json toJson(const ReportDiff& d);
ReportDiff reportDiffFromJson(const nlohmann::json& j);

/// A value in its unit, "–" when absent (format.h's ladders; counters' units for "metric").
std::string formatDiffValue(const DiffValue& v, std::optional<double> x);
/// "+3.4 µs (+1.2 %)", "−5 352", "0", "–" (absent on a side), "new" / "gone" (one side).
std::string formatDiffDelta(const DiffValue& v);

/// The comparison as an export document (Markdown, HTML, the GUI's PDF):
/// sections summary (the two sides, the warnings), timing, resources,
/// correctness (with each map difference's counts), counters, findings.
/// Rows that did not change are kept, so a table reads side by side.
Document buildCompareDocument(const ReportDiff& d);
/// The same document as plain text for a terminal: headings and column-aligned
/// tables (widths counted in code points).
std::string renderPlainText(const Document& doc);

}  // namespace tilescope
