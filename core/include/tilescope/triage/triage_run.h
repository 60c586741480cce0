// Running a triage (docs/triage.md): every planned entry in processes of its
// own — `tilescope-run check`, `run` or `diagnose` for a config; the Python
// runner (resources/python/tilescope/triage) for a problem, then `capture` of
// the candidate and `diagnose` of its kernels that fail — spread over the local
// GPUs, each with a watchdog, the output rewritten atomically after every entry.
// Core code: it never touches the GPU itself. The summaries that turn a report
// or the runner's answer into an entry are pure functions (tested on hand-built data).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/base/process.h"

#include "tilescope/model/report.h"
#include "tilescope/triage/triage.h"
#include "tilescope/triage/triage_inputs.h"

namespace tilescope {

struct Tree;

inline constexpr const char* kRunnerSchema = "tilescope.triage.runner/1";
/// The kernels of PyTorch and its libraries (cuBLAS, cuDNN, CUTLASS, ...) by name, mangled
/// or not: launches that are not the candidate's own (isLibraryKernel). The Python
/// runner uses the same pattern (common/constants.py LIBRARY_KERNELS; a test checks).
inline constexpr const char* kLibraryKernelPattern =
    "^(void "
    ")?(at|c10|cub|cub_[A-Za-z0-9_]+|thrust|cutlass|cute|flash|pytorch_flash|cudnn|cublas[A-Za-z0-9_]*|nvte):"
    ":|^_ZN(2at|3c10|3cub|6thrust|7cutlass|4cute|5flash)|^(ampere|volta|turing|hopper|sm[0-9]+|nvjet|cutlass)"
    "_|cublas|cudnn|(^|[^A-Za-z0-9_])gemv|gemmk|splitKreduce|elementwise_kernel|reduce_kernel|indexSelect|"
    "CatArrayBatched|Memset|memcpy|fill_kernel|softmax_warp_(forward|backward)|cunn_[A-Za-z]+";

/// How deep a config entry is judged: `check` (no GPU: validation, compile,
/// static analysis), `run` (one capture), `diagnose` (the capture and the
/// follow-up experiments). Problems always run the runner; `check` stops them there.
enum class TriageDepth { check, run, diagnose };
const char* triageDepthName(TriageDepth d);
TriageDepth parseTriageDepth(const std::string& s);  ///< throws std::invalid_argument

/// When a problem's candidate runs again under `tilescope-run capture`:
/// `launched` (the default: every candidate the runner judged, healthy-looking
/// ones included, so that each one's own kernels are traced once; not a compile
/// error, a hang or a crash), `failed` (`--fast`: only where the runner's finding
/// is about memory accesses — out of bounds, an illegal address, misalignment,
/// NaN, a device assert — which the replay's guard zones and trace locate; or it
/// launched none of its own kernels as the runner counted them: the capture's
/// count then decides), `always`, `never`.
enum class CaptureWhen { launched, failed, always, never };
CaptureWhen parseCaptureWhen(const std::string& s);  ///< throws std::invalid_argument

struct TriageProgress {
  int done = 0, total = 0;  ///< entries finished in this run / to run in this run
  int skipped = 0;          ///< entries already finished in the output (--resume)
  double elapsedS = 0;
  std::optional<double> etaS;          ///< from the mean time per finished entry and the job count
  const TriageEntry* entry = nullptr;  ///< the entry that finished (nullptr: a start notice)
  std::string message;                 ///< one line for stderr
};

/// What a problem's runner (and its capture) may use, as rlimits the runner sets
/// on itself before it imports the problem (docs/triage.md, "The sandbox"):
/// 0 leaves a limit as it was. The report names the one that fired.
struct RunnerLimits {
  std::uint64_t fileBytes = 8ull << 30;  ///< RLIMIT_FSIZE: the largest file it may write
  double cpuS = 0;                       ///< RLIMIT_CPU (0: 4 × the watchdog's seconds)
  std::uint64_t memoryBytes = 0;         ///< RLIMIT_DATA (0: the machine's memory / jobs, at least 16 GiB)
};

/// The runner arguments that set `l` for an entry with watchdog `timeoutS` among `jobs`.
std::vector<std::string> runnerLimitArgs(const RunnerLimits& l, double timeoutS, int jobs);

struct TriageOptions {
  std::vector<std::string> exe;     ///< tilescope-run (argv prefix: {"/path/tilescope-run"})
  std::vector<std::string> python;  ///< the runner's interpreter (pythonInterpreter())
  std::filesystem::path runner;     ///< resources/python/tilescope/triage/__main__.py
  std::filesystem::path output;     ///< the triage file; entry folders go beside it (OUTPUT.d/)
  int jobs = 1;
  /// CUDA_VISIBLE_DEVICES values to spread entries over (slot % size); empty:
  /// leave the environment alone.
  std::vector<std::string> gpus;
  TriageDepth depth = TriageDepth::diagnose;
  CaptureWhen capture = CaptureWhen::launched;
  double entryTimeoutS = 600;         ///< each child process's watchdog
  double timeLimitS = 0;              ///< > 0: no entry starts after this many seconds (resume later)
  int seeds = 3;                      ///< input seeds per problem shape
  int maxDiagnosed = 2;               ///< captured kernels of one problem that get diagnosed
  std::string device;                 ///< check --device
  std::vector<std::string> verbArgs;  ///< passed to check/run/diagnose (consent)
  /// --allow-commands: where no sandbox can start, a problem's Python runs
  /// unconfined (with a sandbox it is confined all the same: docs/security.md).
  bool allowUnconfined = false;
  RunnerLimits limits;  ///< the resource limits of a problem's runner
  std::function<void(const TriageProgress&)> onProgress;
};

/// Runs the entries of `report` that are pending (the others are kept: --resume
/// loads the earlier output and marks what it had finished), writes `opts.output`
/// after each, and returns the report. Each entry's own reports go to
/// OUTPUT.d/<slug>/.
TriageReport runTriage(TriageReport report, const TriageOptions& opts);

/// The plan merged with an earlier output (--resume): entries the earlier output
/// finished (done, or not_run for a reason the plan still has) are kept as they
/// were; the rest start pending. Entries of the earlier output that the plan
/// does not have are kept at the end.
std::vector<TriageEntry> mergeWithPrevious(const std::vector<TriageInput>& plan,
                                           const TriageReport* previous);

// ---------------------------------------------------------------- pure summaries

/// The finding an entry is named after: the error finding of the lowest category
/// rank (root causes first, as diagnose names the bug; among equals the first
/// located at a line), else the first warning of a wrong-results category (a
/// trap), else nullptr.
const Finding* leadFinding(const std::vector<Finding>& findings);
/// The lead finding of `e`, a symptom of the output's values with no line (a
/// mismatch, NaN, race, all-zero or constant output, an unwritten element),
/// located at the traced kernel's busiest global store: its kernel, file and
/// line, with `evidence.line_from` saying so. False when there is nothing to
/// locate (another category, a line already, no traced store).
bool locateSymptom(TriageEntry& e, const Report& traced);

/// Fills the judged fields of `e` from an entry report (check, run, diagnose):
/// verdict, lead finding (category, detail, message, location, source line),
/// the walk's leaf and fix (from the lead finding's node; `tree` may be null),
/// and the speed of the first point against its baseline.
void summarizeReport(TriageEntry& e, const Report& report, const Tree* tree);

/// The findings of a runner answer (docs/triage.md, "The runner"): its traps and
/// comparisons, plus one finding for an exception, classified by the error-log
/// classifier (the Python and compile-error sub-categories) and located at the
/// candidate's line the runner read off the traceback.
std::vector<Finding> runnerFindings(const nlohmann::json& runner);

/// The line a person reads first of an exception: "TYPE: first line", and for
/// Triton's CompilationError, whose message starts "at L:C:" and quotes the
/// source down to a caret, the cause line after the caret, its repr form
/// `ValueError("x")` read as "ValueError: x", then where:
/// "ValueError: x (CompilationError at L:C)" ("CompilationError: at 11:15:"
/// alone says nothing; docs/triage.md, "Exceptions"). `text`, the whole
/// traceback, supplies the cause when the message has none (a CompilationError
/// raised `from` the callee's error, or a message that is only the header line).
/// Bounded in time and length.
std::string exceptionHeadline(const std::string& type, const std::string& message,
                              const std::string& text = "");

/// The runner's answer for a runner that ended without one: stopped by a limit
/// (the watchdog's wall clock: `hang`; RLIMIT_CPU, RLIMIT_FSIZE; SIGKILL that is
/// not the watchdog's: the OOM killer), each finding naming the limit (evidence
/// "limit") and its value, with what the runner saw ("last progress: phase P,
/// N cases judged" from `partial`, its progress file, and the last line of its
/// stderr); an exception read off its stderr; or the runner's own failure
/// (status "error"). `limits`: the sandbox's description (max_cpu_s,
/// max_file_bytes, max_memory_bytes).
nlohmann::json runnerWithoutAnswer(const ChildResult& r, const nlohmann::json& limits, double timeoutS,
                                   const std::string& candidate, const nlohmann::json& partial);

/// A tilescope.report/1 for a problem (verb "triage"): one point per case the
/// runner checked, the exception's text as the compile log (so the tree's log
/// predicates answer), the findings, the timing against the reference, and the
/// walked tree. This is what the Triage view opens for the entry.
Report problemReport(const TriageEntry& e, const nlohmann::json& runner, const Tree* tree);

/// Whether a captured kernel belongs to a library rather than the candidate
/// (ATen, cuBLAS, cuDNN, CUTLASS, ... by its mangled or demangled name).
bool isLibraryKernel(const std::string& name);

/// Seconds left: the entries left, `jobs` at a time, each as long as the
/// finished ones took on average (elapsed x jobs / done); nullopt before the
/// first finishes.
std::optional<double> triageEta(double elapsedS, int done, int total, int jobs);

/// "17_relu_new.py" → "17_relu_new-1a2b3c4d": a folder name for an entry.
std::string entrySlug(const std::string& id);

}  // namespace tilescope
