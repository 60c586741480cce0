// The report model (schema tilescope.report/1, docs/report.md): what every verb
// writes, what the worker streams, what the GUI and the exports read. Every part
// a reader interprets is a typed field; `evidence` and the `extra` objects stay
// open JSON for what only a person reads. One field list per struct
// (report_json.cpp) drives both directions of the serialisation.
//
// This header is the umbrella: the parts have headers of their own, for code
// that needs one part only: finding.h (Finding, ReportError), measurements.h
// (compile, launch, timing, correctness, coverage, occupancy), point.h (Point),
// device_info.h, diagnose_info.h (extra.diagnose), run_info.h (shard, workers,
// Slurm); base/json_text.h and base/atomic_write.h the JSON text and file writing.
// Here: the Report itself, its codec and loadReport/saveReport.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/base/atomic_write.h"
#include "tilescope/base/json_input.h"
#include "tilescope/base/json_text.h"
#include "tilescope/model/counters_model.h"
#include "tilescope/model/device_info.h"
#include "tilescope/model/diagnose_info.h"
#include "tilescope/model/finding.h"
#include "tilescope/model/location.h"
#include "tilescope/model/measurements.h"
#include "tilescope/model/point.h"
#include "tilescope/model/run_info.h"
#include "tilescope/model/stages_info.h"
#include "tilescope/model/trace_info.h"
#include "tilescope/model/vocabulary.h"

namespace tilescope {

inline constexpr const char* kReportSchema = "tilescope.report/1";

struct TreeStep {
  std::string node;
  std::string question;
  std::string answer;
  nlohmann::json evidence;
  bool automatic = true;
  bool operator==(const TreeStep&) const = default;
};

/// A sweep's result matrix: a row per sweep point, a column per trial.
struct ResultMatrix {
  std::vector<std::string> points;  ///< labels
  int trials = 1;
  std::vector<std::vector<Verdict>> verdicts;  ///< [point][trial]
  bool operator==(const ResultMatrix&) const = default;
};

struct Report {
  std::string schema = kReportSchema;
  std::string toolVersion;
  std::string createdAt;
  std::string host;
  std::string verb;  ///< check | run | sweep | diagnose
  DeviceInfo device;
  nlohmann::json config;  ///< the resolved config document (docs/config.md)
  std::vector<Point> points;
  Verdict verdict = Verdict::ok;
  std::vector<Finding> findings;
  std::vector<std::string> treePath;
  std::vector<TreeStep> treeSteps;
  std::optional<ResultMatrix> matrix;
  bool noGpu = false;                               ///< extra.no_gpu: diagnose found no GPU for its baseline
  std::optional<DiagnoseInfo> diagnose;             ///< extra.diagnose: the `diagnose` verb's experiments
  RunInfo run;                                      ///< extra.shard, extra.workers, extra.slurm
  nlohmann::json extra = nlohmann::json::object();  ///< the rest of `extra` (open)

  /// Recomputes verdict (worst over points) and the merged findings.
  void finalize();
  bool operator==(const Report&) const = default;
};

/// The parts of a report's `config` (docs/config.md) the exports show, as the
/// config wrote them (names, expressions, numbers): each a JSON value, null
/// where absent.
struct ConfigHeadline {
  nlohmann::json name, description;
  nlohmann::json entry, source, compiler, defines;  ///< kernel.*
  nlohmann::json params;
  nlohmann::json grid, block, sharedBytes;  ///< launch.*
  nlohmann::json reference, baseline, sweep;
};
/// Reads what it can: a `kernel` or `launch` that is not an object leaves its parts null.
ConfigHeadline configHeadline(const nlohmann::json& config);

/// Serialisation. Readers accept the shapes earlier versions wrote (docs/report.md
/// lists them), ignore unknown keys outside the open `extra` objects, and throw
/// ReportError naming the JSON path of a value of the wrong type.
nlohmann::json toJson(const Report& r);
Report reportFromJson(const nlohmann::json& j);  ///< also throws ReportError on a wrong schema
/// A report's text decoded without building a document (one pass indexes the text,
/// one decodes it: a 20,000-point sweep of 209 MB reads in a fifth of the time,
/// docs/report.md, "Reading and writing"); loadReport and openDocument read files with it. nullopt where
/// the text is not a tilescope.report/1 object this reader takes on its own (not
/// JSON, over a limit of reportJsonLimits(), another schema, a byte-order mark):
/// reportFromJson(parseJson(text)) then reads it or says why. A report with a
/// wrong value throws the ReportError reportFromJson would.
std::optional<Report> reportFromText(const std::string& text);
/// The parts' codecs are declared beside them, with the same rules: toJson and
/// pointFromJson (point.h), findingFromJson (finding.h), deviceInfoFromJson
/// (device_info.h), locationFromJson (location.h).

/// Reads a report (a regular file with reportJsonLimits()); errors name the file
/// and where: "FILE: line L, column C: ..." or "FILE: JSON.PATH: ...".
Report loadReport(const std::filesystem::path& file);
/// Writes to a temporary file beside `file` and renames it over: `file` is either
/// the old content or the whole new report, never truncated (writeFileAtomically).
void saveReport(const Report& r, const std::filesystem::path& file);

/// Exit status for a completed run (docs/report.md#exit-status): kExitOk when the
/// verdict is ok, kExitFindings otherwise.
int exitCodeFor(const Report& r);

std::string nowIso8601();
std::string hostName();
std::string toolVersion();

}  // namespace tilescope
