// The triage report (schema tilescope.triage/1, docs/triage.md): many kernels
// judged at once, one entry per config, captured launch or reference/candidate
// problem, each with its verdict, first finding, located line, the tree's fix and
// its speed; and the taxonomy over them. `tilescope-run triage` writes it
// progressively; the GUI's Triage view and the exports read it through this one
// codec. Pure data and pure functions: tested on hand-built entries.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/model/finding.h"

namespace tilescope {

inline constexpr const char* kTriageSchema = "tilescope.triage/1";

/// What an entry is.
enum class EntryKind {
  config,   ///< a .tscfg.json
  capture,  ///< one config of a capture folder (tilescope-run capture)
  problem   ///< a KernelBench-style reference + candidate pair
};
const char* entryKindName(EntryKind k);
EntryKind parseEntryKind(const std::string& s);  ///< throws std::invalid_argument

/// Where an entry stands: planned, judged, or not judgeable here (no GPU for a
/// GPU-only entry, no PyTorch, an input that does not load).
enum class EntryStatus { pending, done, not_run };
const char* entryStatusName(EntryStatus s);
EntryStatus parseEntryStatus(const std::string& s);  ///< throws std::invalid_argument

/// The speed of an entry against what it replaces (the reference module for a
/// problem, the config's baseline for a config). Times in ns (medians).
struct TriageSpeed {
  std::optional<double> kernelNs;    ///< the candidate / kernel
  std::optional<double> baselineNs;  ///< the reference / baseline
  std::string against;               ///< reference | cublas | sdpa | sdpa_math | command | ""
  std::optional<double> speedup;     ///< baselineNs / kernelNs (> 1: faster)
  bool operator==(const TriageSpeed&) const = default;
};

struct TriageEntry {
  std::string id;  ///< stable key (resume): the input path, or capture dir + config
  EntryKind kind = EntryKind::config;
  std::string name;                 ///< what a person calls it (the config or problem name)
  std::vector<std::string> inputs;  ///< the files: a config; a reference and a candidate
  EntryStatus status = EntryStatus::pending;
  Verdict verdict = Verdict::ok;
  std::string level;  ///< what judged it: check | run | diagnose | runner (+capture)
  // The first finding (the report's lead error, else its lead warning).
  std::string category;         ///< a registry category; "" when there is none
  std::string detail, message;  ///< message: the cause line ("ValueError: ..."), not a header
  /// The lead failure in the seed's top-level taxonomy (failureClass): "" when none.
  std::string errorClass{}, errorSubclass{};
  std::string treeNode;  ///< where the troubleshooting walk ended (a leaf when it could)
  std::string fix;       ///< that leaf's fix, or ""
  std::string file;      ///< the located source file ("" when not located)
  std::optional<int> line;
  std::string sourceLine;  ///< the text of that line
  TriageSpeed speed;
  std::vector<Finding> findings;  ///< every finding of the entry, lead first
  std::string report;  ///< the entry's full report (tilescope.report/1), relative to the triage file
  int launches = -1;   ///< kernels of the candidate's own that ran (-1: not counted)
  double seconds = 0;  ///< wall time of the entry
  std::string gpu;     ///< CUDA_VISIBLE_DEVICES it ran with ("" when not set)
  std::string note;    ///< why not run, what was left out
  nlohmann::json extra = nlohmann::json::object();
  bool operator==(const TriageEntry&) const = default;
};

struct TriageReport {
  std::string schema = kTriageSchema;
  std::string toolVersion, createdAt, updatedAt, host;
  std::vector<std::string> inputs;                    ///< the command line's inputs
  nlohmann::json options = nlohmann::json::object();  ///< jobs, depth, seeds, ...
  std::vector<TriageEntry> entries;                   ///< in plan order
  bool complete = false;                              ///< every entry has ended (none pending)
  double seconds = 0;                                 ///< wall time of the runs that wrote it, summed
  nlohmann::json extra = nlohmann::json::object();
  bool operator==(const TriageReport&) const = default;
};

// ---------------------------------------------------------------- the taxonomy

/// The taxonomy key of an entry: its lead finding's category; `ok` for a judged
/// entry without one; `checked` for one that passed `check` but could not run
/// further (no GPU); `not_run`; `pending`.
std::string taxonomyKey(const TriageEntry& e);

/// A failure in the top-level taxonomy of seed 000 (479 generated Triton
/// kernels): the class (compile_error, cuda_memory_error, runtime_error,
/// type_error, value_error, missing_dependency, assertion, resource_limit,
/// other_error, wrong_result, slow) and its sub-class ("arange_constexpr",
/// "shape_mismatch", "illegal_address", "oom_killer", ...). docs/triage.md lists them.
struct FailureClass {
  std::string errorClass, subclass;
  bool operator==(const FailureClass&) const = default;
};
/// The class of a finding: from its category and detail, the exception's type
/// (evidence "exception"; else the message's "Type:" prefix), the limit that
/// fired (evidence "limit") and the cause line in its message. Pure.
FailureClass failureClass(const Finding& f);
/// The entry's class: the stored one, else derived from its category, detail
/// and message (an older triage file); {} for an entry without a failure.
FailureClass entryFailureClass(const TriageEntry& e);

/// One row: a category (`detail` "") or one of its details.
struct TaxonomyRow {
  std::string category, detail;
  int count = 0;
  double percent = 0;  ///< of the finished entries (done + not_run)
  double share = 0;    ///< detail rows: of their category's entries; category rows: 100
  bool operator==(const TaxonomyRow&) const = default;
};

/// Category rows by count (ties by name), each followed by its detail rows by
/// count; `ok` and `not_run` are rows like the others. Pending entries are left out.
std::vector<TaxonomyRow> taxonomy(const std::vector<TriageEntry>& entries);
/// The seed's taxonomy over the entries: rows keyed by class (`category`) and
/// sub-class (`detail`), ordered as taxonomy(); entries without a failure under
/// their taxonomyKey (ok, checked, not_run).
std::vector<TaxonomyRow> failureTaxonomy(const std::vector<TriageEntry>& entries);

/// The speedups of the correct entries (verdict ok, a speedup measured).
struct SpeedupBin {
  double lo = 0, hi = 0;  ///< [lo, hi); 0 and infinity at the ends
  std::string label;      ///< "1–1.25×"
  int count = 0;
  bool operator==(const SpeedupBin&) const = default;
};
struct SpeedupSummary {
  int n = 0;       ///< correct entries with a speedup
  int faster = 0;  ///< of them, speedup > 1
  double min = 0, p10 = 0, median = 0, p90 = 0, max = 0, geomean = 0;
  std::vector<SpeedupBin> bins;  ///< a fixed ladder around 1× (docs/triage.md)
  bool operator==(const SpeedupSummary&) const = default;
};
SpeedupSummary speedupSummary(const std::vector<TriageEntry>& entries);

/// Counts per status and verdict ("done", "not_run", "pending", "ok", "fault", ...).
std::map<std::string, int> triageCounts(const std::vector<TriageEntry>& entries);

// ---------------------------------------------------------------- the codec

/// The JSON document: the stored fields plus the derived `taxonomy`, `speedups`
/// and `counts` (for other tools; a reader recomputes them, so they never drift).
nlohmann::json toJson(const TriageReport& r);
/// Throws ReportError naming the JSON path of a wrong value, or a wrong schema.
TriageReport triageFromJson(const nlohmann::json& j);
nlohmann::json toJson(const TriageEntry& e);
TriageEntry triageEntryFromJson(const nlohmann::json& j, const std::string& path = "entry");

/// Whether a parsed document is a triage report (its schema is tilescope.triage/N).
bool isTriageDocument(const nlohmann::json& j);
/// Reads a triage report; errors name the file and the JSON path.
TriageReport loadTriage(const std::filesystem::path& file);
/// Writes atomically (a temporary file renamed over the target).
void saveTriage(const TriageReport& r, const std::filesystem::path& file);

/// The entry's report path resolved against the triage file's folder ("" when none).
std::filesystem::path entryReportPath(const TriageEntry& e, const std::filesystem::path& triageFile);

}  // namespace tilescope
