// TileScope's vocabulary, each word defined once: severities, verdicts, the
// finding-category registry (name → verdict, rank, default tree node) and the
// exit statuses of the command line. Loaders of data that names a category (the
// troubleshooting tree, the log classifier, the worker stream) check names
// against the registry; docs/report.md lists it for people.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace tilescope {

enum class Severity { info, warning, error };
const char* severityName(Severity s);
/// Throws std::invalid_argument naming the known severities.
Severity parseSeverity(const std::string& s);

/// Verdicts, worst last: ok < slow < incorrect < hang < fault < launch_error < compile_error.
/// The order is the order in which a person must fix things.
enum class Verdict { ok, slow, incorrect, hang, fault, launch_error, compile_error };
const char* verdictName(Verdict v);
/// Throws std::invalid_argument naming the known verdicts.
Verdict parseVerdict(const std::string& s);
Verdict worse(Verdict a, Verdict b);

/// One finding category. Add a category by adding one row to the table in
/// vocabulary.cpp (and a line to docs/report.md): verdictForFinding, diagnose's
/// ranking, the tree and classifier loaders and the stream reader all read it.
struct CategoryInfo {
  std::string_view name;
  /// The verdict an error-severity finding of this category implies (`ok` for
  /// performance findings: they never fail a run; `slow` counts at any severity).
  Verdict verdict;
  /// Root causes rank first: diagnose names the lowest-ranked finding as the
  /// bug (a misaligned vector load explains the fault it causes).
  int rank;
  std::string_view treeNode;  ///< the troubleshooting-tree node a finding starts from
  std::string_view meaning;   ///< one line for people (docs, tooltips)
};

/// Every registered category, in rank order.
std::span<const CategoryInfo> findingCategories();
/// The registry's entry, or nullptr for a name it does not know.
const CategoryInfo* findCategory(std::string_view name);
bool isKnownCategory(std::string_view name);
/// The registry's entry; throws std::invalid_argument ("unknown finding category 'x'
/// (known: ...)") for a name it does not know.
const CategoryInfo& categoryInfo(std::string_view name);

/// Exit statuses of tilescope-run (and the workers it starts).
enum ExitStatus : int {
  kExitOk = 0,        ///< completed, verdict ok
  kExitFindings = 1,  ///< completed with error findings (or another verdict than ok, such as slow)
  kExitUsage = 2,     ///< usage or configuration error: a clear message, nothing run
  kExitNoGpu = 3,     ///< no GPU/CUDA for a verb that needs one
  /// A warm worker (`worker --serve`) whose CUDA context broke between captures
  /// ends with this before answering: nothing of the request ran, a fresh worker
  /// takes it (EX_TEMPFAIL).
  kExitWorkerStale = 75,
};
/// "ok", "findings", "usage or configuration error", "no GPU" (or "exit status N").
std::string exitStatusText(int status);

}  // namespace tilescope
