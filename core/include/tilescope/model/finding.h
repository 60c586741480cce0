// A finding of tilescope.report/1 (docs/report.md#findings): what is wrong,
// where, and the measurement behind it; the error a report reader throws; the
// verdict findings imply.
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/model/location.h"
#include "tilescope/model/vocabulary.h"

namespace tilescope {

/// A report (or stream) value of the wrong type or out of range. `path()` is its
/// JSON path ("points[3].timing.kernel_ns.median"); what() reads
/// "points[3].timing.kernel_ns.median: expected a number, found a string".
class ReportError : public std::runtime_error {
 public:
  ReportError(std::string path, const std::string& problem);
  const std::string& path() const { return m_path; }

 private:
  std::string m_path;
};

/// A finding (docs/report.md#findings). `evidence` holds the measurement behind it.
struct Finding {
  std::string category;  ///< a name of the category registry (vocabulary.h)
  Severity severity = Severity::error;
  std::string message;
  std::string detail;  ///< sub-class (compile_error, mismatch)
  std::string tensor;
  Location location;        ///< where, as far as the evidence reaches (empty: nowhere)
  nlohmann::json evidence;  ///< the measurement (open: read by a person)
  std::string treeNode;     ///< the troubleshooting-tree node to start from
  std::string experiment;   ///< the experiment that proved it (diagnose), or ""
  bool operator==(const Finding&) const = default;
};

/// One element a comparison found wrong, as a finding's evidence lists it
/// (evidence.samples[]: {index, expected, actual}; `element` is an older
/// writer's name for `index`).
struct MismatchSample {
  std::vector<std::int64_t> index;                             ///< per dimension of the tensor
  double expected = std::numeric_limits<double>::quiet_NaN();  ///< NaN where the report holds none
  double actual = std::numeric_limits<double>::quiet_NaN();
  bool operator==(const MismatchSample&) const = default;
};
/// The samples of a finding's evidence; entries that are not samples are passed over
/// (the evidence is open JSON, written by hand as often as not).
std::vector<MismatchSample> mismatchSamples(const Finding& f);

/// The finding's JSON (docs/report.md#findings); the reader throws ReportError.
nlohmann::json toJson(const Finding& f);
Finding findingFromJson(const nlohmann::json& j, const std::string& path = "finding");

/// The verdict a finding implies on its own (the category registry's verdict for
/// severity error; warnings and infos imply ok, except slow_vs_baseline → slow).
/// Throws std::invalid_argument for a category the registry does not know.
Verdict verdictForFinding(const Finding& f);
/// Worst verdict over a point's findings.
Verdict verdictForFindings(const std::vector<Finding>& findings);

}  // namespace tilescope
