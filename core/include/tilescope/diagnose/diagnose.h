// `diagnose`: a baseline capture of a config's first point, then follow-up
// experiments, each an isolated worker run, chosen from the baseline's findings
// and the troubleshooting tree: repeated trials (intermittency), shifted base
// pointers (alignment assumptions), a second output poison (reads of memory the
// kernel never wrote), boundary and small shapes (masks, large-size-only
// failures) and other warp counts. Each experiment's result is concluded into
// findings that name the experiment that proved them. NaN/Inf in the output
// add a run with every generated float input scaled down (overflow of exp() and
// friends vanishes, a division by zero or NaN read from memory does not); a
// passing baseline gets one scaled up (a latent overflow the reference
// survives). Core code: no GPU here, every capture is a `tilescope-run worker`
// child (docs/diagnose.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tilescope/config/config.h"
#include "tilescope/model/report.h"
#include "tilescope/run/session.h"

namespace tilescope {

/// Experiment groups, in the tree's vocabulary (tree.h knownExperiments()).
enum class ExperimentKind { baseline, trials, align_shift, small_shapes, poison, input_scale, warps, trace };
const char* experimentKindName(ExperimentKind k);  ///< "trials", "align_shift", ...

/// One worker run of diagnose.
struct Experiment {
  ExperimentKind kind = ExperimentKind::baseline;
  std::string
      name;  ///< "baseline", "trial 3", "align_shift=8", "shape M=65 N=65", "poison variant 1", "NUM_WARPS=8"
  std::string why;  ///< the evidence that asked for it
  int trial = 0;
  int alignShift = 0;       ///< bytes every tensor's base pointer moves (--align-shift)
  int sentinelVariant = 0;  ///< --sentinel-variant
  double inputScale = 1.0;  ///< --input-scale: generated float inputs multiplied by this
  bool timing = false;      ///< experiments skip timing (--no-timing); the baseline times
  /// With timing: whether the profiling pass runs too (--no-counters when not).
  /// Repeated trials time but read no counters: the counters come after the
  /// output is judged, and the profiler is one lock per device that parallel
  /// diagnoses would queue on.
  bool counters = true;
  std::vector<std::pair<std::string, std::int64_t>> overrides;  ///< --set NAME=VALUE
  std::string role;    ///< shapes: rounded | small | reduction | odd | under
  bool trace = false;  ///< --trace: the Compute Sanitizer API trace (docs/report.md, "trace")
  /// How the worker builds the kernel for what this experiment changes, as the
  /// kernel's own launcher would (experimentBuild); "" when it runs the baseline's build.
  std::string compiled;
  /// --tolerance R A: the tolerance the run is judged at, when not the config's.
  /// A bit-exact config (a capture's rtol = atol = 0) recompiled into another
  /// specialisation rounds differently (a reduction's order follows the layout
  /// the vector width picks): judged at the default tolerance (experimentTolerance).
  std::optional<Tolerance> tolerance;
  /// The worker arguments after `--gpu G`.
  std::vector<std::string> workerArgs() const;
};

/// An experiment and what its worker produced.
struct ExperimentRun {
  Experiment experiment;
  Point point;
};

/// What one group of experiments proved. `settled`: no further run of the group
/// can change the answer (stop early).
struct Conclusion {
  std::vector<Finding> findings;
  bool settled = false;
  std::string summary;  ///< one line for progress and report.extra
};

/// A size parameter of the config (a param used in some tensor's shape) and the
/// tile it is cut into: the declared tile extent of the output dimension it sizes,
/// else the value of a define named BLOCK_<NAME>, else 0 (unknown). `reduction`:
/// it sizes inputs only (a summed dimension such as GEMM's K).
struct SizeParam {
  std::string name;
  std::int64_t value = 0;
  std::int64_t tile = 0;
  bool reduction = false;
};
std::vector<SizeParam> sizeParams(const Config& pointConfig);

/// Defines that set a warp count (names containing "WARPS"), and a Triton config's num_warps.
std::vector<std::pair<std::string, std::int64_t>> warpDefines(const Config& pointConfig);

/// Alignment shifts worth running: multiples of the largest element size among the
/// tensors (a smaller shift misaligns plain scalar accesses, which proves nothing),
/// ascending.
std::vector<int> usableShifts(const Config& pointConfig, const std::vector<int>& shifts);

/// Why the config's kernel is a binary TileScope cannot rebuild (a cubin, fatbin
/// or PTX file: a captured program's module image, or a prebuilt kernel), or ""
/// when its source is here (.cu, or a Triton/TileLang .py). A binary may carry
/// what its compiler assumed about the program's launch: Triton's JIT specialises
/// on 16-byte aligned pointers and integers divisible by 16, TileLang compiles
/// for fixed shapes and aligned buffers, the block size is compiled in. Shifted
/// pointers, other shapes or warp counts under it would test that promise, not
/// the kernel, so those experiments are skipped (skippedExperiments).
std::string prebuiltBinaryReason(const Config& pointConfig);

/// How the worker builds the kernel for experiment `e`, as the kernel's own
/// launcher would: a Triton kernel is recompiled from its .py with the
/// specialisation Triton's JIT picks for the shifted pointers (tt.divisibility=16
/// only on 16-byte aligned ones) or the new integer arguments and num_warps; a
/// CUDA C++ kernel is rebuilt with changed defines. "" when the baseline's build runs.
std::string experimentBuild(const Config& pointConfig, const Experiment& e);

/// The tolerance experiment `e` is judged at when it is not the config's: the
/// default (config.h Tolerance{}) for a shift that recompiles a Triton kernel
/// into another specialisation while the config asks for tighter (a capture's
/// bit-exact rtol = atol = 0); nothing otherwise.
std::optional<Tolerance> experimentTolerance(const Config& pointConfig, const Experiment& e);

/// True when an experiment point passed (ok or slow), failed (incorrect, fault,
/// hang) or could not be judged (the worker rejected the experiment: a
/// configuration error, or a compile/launch error the baseline did not have).
bool pointPassed(const Point& p);
bool pointInapplicable(const Point& p, const Point& base);

/// The most specific error finding of a point (tables in diagnose_conclude.cpp), or nullptr.
const Finding* primaryFinding(const Point& p);
/// Rank for ordering findings: lower is more specific (root causes first).
int categoryRank(const std::string& category);

struct DiagnoseOptions {
  SessionOptions session;  ///< worker command, config path, timeouts, devices[0], onEvent
  int trials = 5;          ///< trials in all, the baseline included
  std::vector<int> alignShifts{4, 8, 16, 64};
  double inputScale = 1.0 / 16;  ///< input_scale's factor after NaN/Inf: do they vanish?
  /// input_scale's factor after a passing baseline: does the output stay finite
  /// where the reference does? 32 takes unit logits past exp()'s f32 limit (88.7)
  /// in most rows of a softmax, and f16 values stay far below 65504.
  double inputScaleUp = 32;
  /// A baseline capture slower than this (seconds) gets one repeated trial, not
  /// trials - 1: each trial costs as much as the baseline did; and, without
  /// budgetS, the budget expensiveBudgetS (docs/diagnose.md, "Time").
  double expensiveCaptureS = 10;
  double expensiveBudgetS = 45;
  int maxCaptures = 16;  ///< worker runs in all, the baseline included
  /// No experiment starts when the time since the baseline started, plus what
  /// the next one is expected to take (the baseline's wall time), would pass
  /// this (seconds); the report lists what was not run. 0: no budget, except
  /// after a baseline that hung (hangBudgetS) or was expensive (expensiveBudgetS).
  /// Under a budget the trace's launch watchdog is what the budget leaves it.
  double budgetS = 0;
  /// After a baseline that hung: every later run's launch watchdog (a hang
  /// repeats in each experiment, and each would cost the full limit), and the
  /// budget unless budgetS is set.
  double hangFollowupS = 5;
  double hangBudgetS = 30;
  bool useTree = true;  ///< consult resources/tree.json when it loads
  /// Add a traced run when the evidence calls for it (traceCalledFor); the
  /// command line turns it on.
  bool trace = false;
};

/// Why a traced run would answer what the evidence asks, or nothing: the
/// baseline faulted (where?), NaN sit only in partial tiles (which loads?), the
/// kernel is slow with shared memory in use (bank conflicts?), trials disagree
/// (which shared-memory hazard?).
std::optional<std::string> traceCalledFor(const Point& base, const std::vector<Finding>& conclusions);

/// The findings a traced run proved (evidence.source "trace"), as conclusions of
/// the experiment "trace".
std::vector<Finding> traceConclusions(const Point& traced);

/// The traced reads outside every tensor of the launch ("wild") that the
/// untraced baseline survived with a passing verdict are not proven faults:
/// they read memory the tracer does not know (a by-value struct read through a
/// pointer in the parameter window, a workspace of the program's own) and
/// neither faulted nor spoiled the output. They become warnings that say so
/// (evidence "baseline": "ok"); wild writes, and every wild access of a
/// baseline that failed, stay errors.
void weighWildReads(std::vector<Finding>& traced, const Point& base);

/// The groups the baseline's findings call for, in the order they run, each with
/// its experiments (shapes and alignment are staged: later runs of a group only
/// happen while the group is not settled). `requested` adds groups the tree asked
/// for (names of knownExperiments()); groups that cannot apply are left out.
std::vector<std::vector<Experiment>> planExperiments(const Point& base, const Config& pointConfig,
                                                     const DiagnoseOptions& opts,
                                                     const std::vector<std::string>& requested = {});

/// The experiments the evidence calls for (the groups planExperiments would add)
/// that cannot run on this kernel, each with its reason: shifted pointers, other
/// shapes and other warp counts under a binary without source (prebuiltBinaryReason).
/// Repeated trials, the second poison, scaled inputs and the trace change nothing
/// the binary assumes: they run.
std::vector<DiagnoseSkipped> skippedExperiments(const Point& base, const Config& pointConfig,
                                                const DiagnoseOptions& opts,
                                                const std::vector<std::string>& requested = {});

// Pure conclusions over experiment results (tested on hand-built points).
Conclusion concludeTrials(const Point& base, const std::vector<ExperimentRun>& runs);
Conclusion concludeAlignment(const Point& base, const std::vector<ExperimentRun>& runs);
Conclusion concludePoison(const Point& base, const std::vector<ExperimentRun>& runs);
Conclusion concludeShapes(const Point& base, const Config& pointConfig,
                          const std::vector<ExperimentRun>& runs);
Conclusion concludeWarps(const Point& base, const std::vector<ExperimentRun>& runs);
Conclusion concludeInputScale(const Point& base, const std::vector<ExperimentRun>& runs);
Conclusion conclude(ExperimentKind kind, const Point& base, const Config& pointConfig,
                    const std::vector<ExperimentRun>& runs);

/// Report findings: experiment-confirmed conclusions first, then by severity and
/// category rank; the baseline's findings after (stable within equals).
std::vector<Finding> orderFindings(std::vector<Finding> conclusions, const std::vector<Finding>& baseline);

/// Runs the baseline and the experiments (at most opts.maxCaptures worker runs)
/// and returns the report (verb "diagnose"): points = baseline + every experiment
/// (Point.experiment set), findings ordered by orderFindings, tree_path from the
/// walk when the tree loads, extra.diagnose = the experiment log. When the
/// baseline's worker reports no GPU, the report has that one point with
/// extra.no_gpu and nothing else runs.
Report diagnose(const Config& config, const DiagnoseOptions& opts);

}  // namespace tilescope
