// diagnose: the whole orchestration through real worker processes:
// fake_worker.py stands in for `tilescope-run worker` and behaves like the
// zoo's planted bugs do on a GPU (the planning and conclusions on hand-built
// points: test_diagnose.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <mutex>

#include "tilescope/diagnose/diagnose.h"
#include "tilescope/run/session.h"

namespace tilescope {
namespace {

const std::filesystem::path kDir = std::filesystem::path(TILESCOPE_TEST_DATA) / "diagnose";

struct DiagRun {
  Report report;
  std::vector<StreamEvent> events;
};

DiagRun diagnoseWith(const std::string& scenario, const std::string& config, int maxCaptures = 16,
                     bool useTree = false, const std::function<void(DiagnoseOptions&)>& tweak = {}) {
  DiagRun r;
  DiagnoseOptions opts;
  opts.useTree = useTree;  // the tree may ask for more; tested below on its own
  opts.maxCaptures = maxCaptures;
  opts.session.workerCommand = {"python3", (kDir / "fake_worker.py").string(), "--scenario", scenario};
  opts.session.configPath = (kDir / (config + ".tscfg.json")).string();
  opts.session.timeoutS = 30;
  opts.session.launchTimeoutS = 1;
  std::mutex mu;
  opts.session.onEvent = [&](const StreamEvent& e) {
    std::lock_guard<std::mutex> lock(mu);
    r.events.push_back(e);
  };
  if (tweak) tweak(opts);
  r.report = diagnose(loadConfig(opts.session.configPath), opts);
  return r;
}

/// The tree walk over a diagnose report ends at `leaf`. The shipped tree must load
/// and walk: a tree that throws fails the test instead of skipping it.
void expectWalkEndsAt(const Report& r, const std::string& leaf) {
  ASSERT_TRUE(r.diagnose);
  ASSERT_EQ(r.diagnose->treeError, "") << "the tree did not load or walk";
  ASSERT_FALSE(r.treePath.empty());
  EXPECT_EQ(r.treePath.back(), leaf);
}

std::vector<std::string> experiments(const Report& r) {
  std::vector<std::string> out;
  for (const auto& p : r.points) out.push_back(p.experiment);
  return out;
}

TEST(DiagnoseRun, MisalignedVectorLoadFoundByShiftingPointers) {
  DiagRun r = diagnoseWith("misaligned", "gemm_whole_tiles");
  ASSERT_FALSE(r.report.findings.empty());
  const Finding& f = r.report.findings.front();
  EXPECT_EQ(f.category, "misaligned_access");
  EXPECT_EQ(f.experiment, "align_shift=4");
  EXPECT_EQ(f.location.extra["required_alignment"], 16);
  EXPECT_EQ(
      experiments(r.report),
      (std::vector<std::string>{"baseline", "trial 2/5", "trial 3/5", "trial 4/5", "trial 5/5",
                                "poison variant 1", "align_shift=4", "align_shift=8", "align_shift=16"}));
  EXPECT_EQ(r.report.verdict, Verdict::fault);
  EXPECT_EQ(r.report.verb, "diagnose");
  EXPECT_EQ(r.report.device.name, "Fake GPU");
}

// A kernel that hangs hangs in every experiment: after the baseline's full
// watchdog each follow-up gets the short one (docs/diagnose.md, "Time"), and
// the trace, which the watchdog would kill before it is read back, is skipped
// with the reason.
TEST(DiagnoseRun, AfterAHangFollowUpsGetTheShortWatchdog) {
  DiagRun r = diagnoseWith("hang", "gemm_whole_tiles", 16, false, [](DiagnoseOptions& o) {
    o.trace = true;
    o.hangFollowupS = 0.3;
    o.hangBudgetS = 120;  // not cut here: the budget is tested below
  });
  ASSERT_GE(r.report.points.size(), 2u) << "no follow-up ran";
  ASSERT_TRUE(r.report.diagnose);
  EXPECT_EQ(r.report.diagnose->budgetS, 120);
  for (const Point& p : r.report.points) {
    EXPECT_EQ(p.verdict, Verdict::hang) << p.experiment;
    const Finding* hang = nullptr;
    for (const Finding& f : p.findings)
      if (f.category == "hang") hang = &f;
    ASSERT_NE(hang, nullptr) << p.experiment;
    EXPECT_DOUBLE_EQ(hang->evidence.value("limit_s", 0.0), p.experiment == "baseline" ? 1.0 : 0.3)
        << p.experiment;
  }
  bool traceSkipped = false;
  for (const auto& s : r.report.diagnose->skipped) traceSkipped |= s.group == "trace";
  EXPECT_TRUE(traceSkipped);
  for (const auto& e : experiments(r.report)) EXPECT_NE(e, "trace");
}

// No experiment starts past the budget, and the report lists what it cut.
TEST(DiagnoseRun, ABudgetListsWhatItDidNotRun) {
  DiagRun r =
      diagnoseWith("clean", "gemm_whole_tiles", 16, false, [](DiagnoseOptions& o) { o.budgetS = 0.001; });
  ASSERT_TRUE(r.report.diagnose);
  EXPECT_EQ(experiments(r.report), std::vector<std::string>{"baseline"});
  EXPECT_NE(r.report.diagnose->stopped.find("time budget"), std::string::npos) << r.report.diagnose->stopped;
  const auto& notRun = r.report.diagnose->notRun;
  EXPECT_NE(std::find(notRun.begin(), notRun.end(), "trial 2/5"), notRun.end());
  EXPECT_EQ(toJson(r.report)["extra"]["diagnose"]["not_run"].size(), notRun.size());
}

// A baseline slower than expensiveCaptureS (a 2^31-element problem) gets the
// expensive budget without --max-seconds: one repeated trial, what does not fit
// listed as not run.
TEST(DiagnoseRun, AnExpensiveBaselineGetsABudget) {
  DiagRun r = diagnoseWith("slow", "gemm_whole_tiles", 16, false, [](DiagnoseOptions& o) {
    o.expensiveCaptureS = 0.3;  // each run takes 0.5 s and more
    o.expensiveBudgetS = 2.5;
  });
  ASSERT_TRUE(r.report.diagnose);
  EXPECT_EQ(r.report.diagnose->budgetS, 2.5);
  EXPECT_NE(r.report.diagnose->stopped.find("time budget"), std::string::npos) << r.report.diagnose->stopped;
  EXPECT_NE(r.report.diagnose->stopped.find("expensive"), std::string::npos) << r.report.diagnose->stopped;
  EXPECT_FALSE(r.report.diagnose->notRun.empty());
  int trials = 0;
  for (const auto& e : experiments(r.report)) trials += e.rfind("trial", 0) == 0;
  EXPECT_LE(trials, 1);
  // Without the expensive limit the same kernel gets no budget.
  DiagRun free = diagnoseWith("slow", "gemm_whole_tiles", 3, false,
                              [](DiagnoseOptions& o) { o.expensiveCaptureS = 100; });
  ASSERT_TRUE(free.report.diagnose);
  EXPECT_EQ(free.report.diagnose->budgetS, 0);
}

// Under a budget the trace's launch gets what the budget leaves: a traced launch
// that would take 30 s is cut, and its conclusion says so.
TEST(DiagnoseRun, UnderABudgetTheTraceGetsWhatIsLeft) {
  const auto t0 = std::chrono::steady_clock::now();
  DiagRun r = diagnoseWith("slow_trace", "gemm_whole_tiles", 16, false, [](DiagnoseOptions& o) {
    o.trace = true;
    o.budgetS = 3;
    o.hangFollowupS = 0.5;
    o.session.launchTimeoutS = 20;
  });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r.report.diagnose);
  const Point* trace = nullptr;
  for (const Point& p : r.report.points)
    if (p.experiment == "trace") trace = &p;
  ASSERT_NE(trace, nullptr) << "the trace did not run";
  EXPECT_EQ(trace->verdict, Verdict::hang);
  std::string summary;
  for (const auto& c : r.report.diagnose->conclusions)
    if (c.group == "trace") summary = c.summary;
  EXPECT_NE(summary.find("trace cut"), std::string::npos) << summary;
  EXPECT_LT(seconds, 15) << "the traced launch kept the session's 20 s watchdog";
}

// A traced run that spends its time before the launch (the tracer patching a
// module, a 2^31-element problem allocating) is cut by the budget too: the whole
// worker gets what is left, not only its launch phase.
TEST(DiagnoseRun, UnderABudgetTheTracedWorkerAsAWholeIsCut) {
  const auto t0 = std::chrono::steady_clock::now();
  DiagRun r = diagnoseWith("slow_trace_setup", "gemm_whole_tiles", 16, false, [](DiagnoseOptions& o) {
    o.trace = true;
    o.budgetS = 3;
    o.hangFollowupS = 0.5;
    o.session.launchTimeoutS = 20;
  });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r.report.diagnose);
  const Point* trace = nullptr;
  for (const Point& p : r.report.points)
    if (p.experiment == "trace") trace = &p;
  ASSERT_NE(trace, nullptr) << "the trace did not run";
  EXPECT_EQ(trace->verdict, Verdict::hang);
  std::string summary;
  for (const auto& c : r.report.diagnose->conclusions)
    if (c.group == "trace") summary = c.summary;
  EXPECT_NE(summary.find("trace cut"), std::string::npos) << summary;
  EXPECT_LT(seconds, 15) << "the traced worker kept its default total limit";
}

TEST(DiagnoseRun, MisalignedAtARaggedSizeFoundByRoundingTheShape) {
  DiagRun r = diagnoseWith("misaligned", "gemm_partial_tiles");
  ASSERT_FALSE(r.report.findings.empty());
  EXPECT_EQ(r.report.findings.front().category, "misaligned_access");
  EXPECT_EQ(r.report.findings.front().experiment, "shape M=1024 N=1024 K=1024");
  EXPECT_EQ(r.report.points.back().params["K"], 1024);  // the worker really got --set K=1024
}

TEST(DiagnoseRun, MissingMaskFoundWithPartialTiles) {
  DiagRun r = diagnoseWith("no_mask", "gemm_whole_tiles");
  ASSERT_FALSE(r.report.findings.empty());
  EXPECT_EQ(r.report.findings.front().category, "oob_write");
  EXPECT_EQ(r.report.findings.front().experiment, "shape M=65 N=65 K=33");
  ASSERT_TRUE(r.report.findings.front().location.bytesPastEnd);
  EXPECT_EQ(r.report.findings.front().location.bytesPastEnd->first, 24);
}

TEST(DiagnoseRun, RaceStopsAtTheFirstDisagreeingTrial) {
  DiagRun r = diagnoseWith("race", "gemm_whole_tiles");
  EXPECT_EQ(experiments(r.report), (std::vector<std::string>{"baseline", "trial 2/5"}));
  ASSERT_FALSE(r.report.findings.empty());
  EXPECT_EQ(r.report.findings.front().category, "race");
  EXPECT_EQ(r.report.findings.front().location.tiles, (std::vector<Index>{{1, 2}}));
  ASSERT_TRUE(r.report.diagnose);
  EXPECT_EQ(r.report.diagnose->stopped, "conclusive: race");
}

TEST(DiagnoseRun, UninitializedOutputFoundByTheSecondPoison) {
  DiagRun r = diagnoseWith("no_init", "gemm_whole_tiles");
  ASSERT_FALSE(r.report.findings.empty());
  EXPECT_EQ(r.report.findings.front().category, "uninitialized_read");
  EXPECT_EQ(r.report.points.back().experiment, "poison variant 1");
}

TEST(DiagnoseRun, LargeOnlyFailuresClassified) {
  DiagRun big = diagnoseWith("int32", "gemm_large");
  ASSERT_FALSE(big.report.findings.empty());
  EXPECT_EQ(big.report.findings.front().category, "int_overflow");
  DiagRun acc = diagnoseWith("fp16_acc", "gemm_long_k");
  ASSERT_FALSE(acc.report.findings.empty());
  EXPECT_EQ(acc.report.findings.front().category, "accumulator_overflow");
  EXPECT_EQ(acc.report.findings.front().experiment, "shape K=64");
}

TEST(DiagnoseRun, ExpOverflowFoundByScalingTheInputs) {
  DiagRun r = diagnoseWith("exp_overflow", "gemm_whole_tiles", 16, true);
  ASSERT_FALSE(r.report.findings.empty());
  const Finding& f = r.report.findings.front();
  EXPECT_EQ(f.category, "nan_inf");
  EXPECT_EQ(f.detail, "input_magnitude");
  EXPECT_EQ(f.experiment, "inputs x0.0625");
  EXPECT_EQ(r.report.points.back().experiment, "inputs x0.0625");
  EXPECT_EQ(r.report.points.back().inputs.inputScale, 0.0625);
  expectWalkEndsAt(r.report, "wrong.nan_inf.softmax_max");
}

TEST(DiagnoseRun, LatentOverflowFoundByScalingTheInputsUp) {
  DiagRun r = diagnoseWith("latent_exp", "gemm_whole_tiles", 16, true);
  ASSERT_FALSE(r.report.findings.empty());
  EXPECT_EQ(r.report.findings.front().detail, "input_magnitude");
  EXPECT_EQ(r.report.findings.front().experiment, "inputs x32");
  EXPECT_EQ(r.report.verdict, Verdict::incorrect);
  expectWalkEndsAt(r.report, "wrong.nan_inf.softmax_max");
}

TEST(DiagnoseRun, ScaleIndependentNanWalksToDivisionByZero) {
  DiagRun r = diagnoseWith("div_zero", "gemm_whole_tiles", 16, true);
  bool found = false;
  for (const auto& f : r.report.findings) found = found || f.detail == "magnitude_independent";
  EXPECT_TRUE(found);
  expectWalkEndsAt(r.report, "wrong.nan_inf.division_by_zero");
}

TEST(DiagnoseRun, NanAtPartialTilesWalksToTheLoadMask) {
  DiagRun r = diagnoseWith("tail_nan", "gemm_partial_tiles", 16, true);
  ASSERT_FALSE(r.report.findings.empty());
  EXPECT_EQ(r.report.findings.front().category, "oob_read");
  EXPECT_EQ(r.report.findings.front().experiment, "shape M=1024 N=1024 K=1024");
  expectWalkEndsAt(r.report, "fault.oob_read");
}

TEST(DiagnoseRun, WarpCountDependenceReported) {
  DiagRun r = diagnoseWith("warps", "gemm_whole_tiles");
  ASSERT_FALSE(r.report.findings.empty());
  EXPECT_EQ(r.report.findings.front().detail, "warp_count");
  EXPECT_EQ(r.report.findings.front().experiment, "NUM_WARPS=2");
}

TEST(DiagnoseRun, CleanKernelRunsEveryGroupWithinTheBudget) {
  DiagRun r = diagnoseWith("clean", "gemm_whole_tiles");
  EXPECT_EQ(r.report.verdict, Verdict::ok);
  EXPECT_TRUE(r.report.findings.empty());
  // 1 + 4 trials + poison + one shift (4 passes: larger ones keep that alignment) + 2 shapes
  // + inputs scaled up.
  EXPECT_EQ(r.report.points.size(), 10u);
  for (const auto& p : r.report.points) EXPECT_FALSE(p.experiment.empty());
  bool tagged = false, progress = false;
  for (const auto& e : r.events) {
    tagged = tagged || (std::holds_alternative<PointEvent>(e.body) && e.tags.experiment == "align_shift=4");
    const auto* pr = std::get_if<ProgressEvent>(&e.body);
    progress = progress || (pr && pr->stage == "diagnose");
  }
  EXPECT_TRUE(tagged);
  EXPECT_TRUE(progress);
}

TEST(DiagnoseRun, CaptureLimitHonoured) {
  DiagRun r = diagnoseWith("clean", "gemm_whole_tiles", 3);
  EXPECT_EQ(r.report.points.size(), 3u);
  ASSERT_TRUE(r.report.diagnose);
  EXPECT_NE(r.report.diagnose->stopped.find("capture limit"), std::string::npos);
}

TEST(DiagnoseRun, CrashUnderShiftIsAnAlignmentFault) {
  DiagRun r = diagnoseWith("crash", "gemm_whole_tiles");
  ASSERT_FALSE(r.report.findings.empty());
  EXPECT_EQ(r.report.findings.front().category, "misaligned_access");
  EXPECT_EQ(r.report.findings.front().detail, "fault");
  EXPECT_EQ(r.report.findings.front().location.extra["required_alignment"], 8);
}

// A worker that dies in the profiling pass (after its checkpoint) keeps the
// checked, timed capture: the kernel is not blamed for the tool's crash.
TEST(DiagnoseRun, CrashInTheProfilingPassKeepsTheCapture) {
  SessionOptions opts;
  opts.workerCommand = {"python3", (kDir / "fake_worker.py").string(), "--scenario", "profile_crash"};
  opts.configPath = (kDir / "gemm_whole_tiles.tscfg.json").string();
  opts.timeoutS = 30;
  const Config cfg = loadConfig(opts.configPath);
  const Point p = runWorkerPoint(cfg, expandSweep(cfg).front(), 0, 0, opts, nullptr);
  EXPECT_EQ(p.verdict, Verdict::ok);
  EXPECT_TRUE(p.findings.empty()) << p.findings.front().message;
  ASSERT_FALSE(p.correctness.empty());
  EXPECT_NE(p.counters.note.find("Segmentation fault"), std::string::npos) << p.counters.note;
  EXPECT_NE(p.counters.note.find("profile the baseline: cublas"), std::string::npos) << p.counters.note;
  EXPECT_EQ(p.status.workerExit, 128 + 11);
  EXPECT_FALSE(p.counters.collected);
  EXPECT_TRUE(p.counters.passFailed);
  EXPECT_TRUE(needsFreshWorker(p));

  // Crashing while the baseline is profiled keeps the kernel's counters.
  opts.workerCommand.back() = "baseline_profile_crash";
  const Point q = runWorkerPoint(cfg, expandSweep(cfg).front(), 0, 0, opts, nullptr);
  EXPECT_EQ(q.verdict, Verdict::ok);
  ASSERT_TRUE(q.counters.collected);
  EXPECT_EQ(q.counters.kernel.metrics.at("gpu__time_duration.sum"), 1000.0);
  EXPECT_NE(q.counters.baselineNote.find("Segmentation fault"), std::string::npos) << q.counters.baselineNote;
  EXPECT_EQ(q.status.workerError, q.counters.baselineNote);
  EXPECT_TRUE(q.counters.passFailed);

  DiagRun r =
      diagnoseWith("crash", "gemm_whole_tiles");  // the same signal outside the pass is the kernel's fault
  EXPECT_EQ(r.report.verdict, Verdict::fault);
}

TEST(DiagnoseRun, FailedAssertIsLocatedFromTheWorkersStderr) {
  SessionOptions opts;
  opts.workerCommand = {"python3", (kDir / "fake_worker.py").string(), "--scenario", "assert"};
  opts.configPath = (kDir / "gemm_whole_tiles.tscfg.json").string();
  opts.timeoutS = 30;
  const Config cfg = loadConfig(opts.configPath);
  const Point p = runWorkerPoint(cfg, expandSweep(cfg).front(), 0, 0, opts, nullptr);
  EXPECT_EQ(p.verdict, Verdict::fault);
  ASSERT_EQ(p.findings.size(), 1u);
  const Finding& f = p.findings.front();
  EXPECT_EQ(f.location.file, "/k/gemm_tiled.cu");
  EXPECT_EQ(f.location.line, 171);
  EXPECT_EQ(f.location.block, (Index{6, 15, 0}));
  EXPECT_EQ(f.location.thread, (Index{96, 0, 0}));
  EXPECT_EQ(f.evidence["failed_asserts"], 2);
  EXPECT_NE(f.message.find("`r < M && c < N`"), std::string::npos) << f.message;
}

TEST(DiagnoseRun, TreeWalkedOverTheFinalEvidence) {
  DiagRun r = diagnoseWith("misaligned", "gemm_whole_tiles", 16, true);
  ASSERT_TRUE(r.report.diagnose);
  ASSERT_EQ(r.report.diagnose->treeError, "") << "the tree did not load or walk";
  ASSERT_FALSE(r.report.findings.empty());
  EXPECT_EQ(r.report.findings.front().category, "misaligned_access");
  ASSERT_FALSE(r.report.treePath.empty());
  EXPECT_EQ(r.report.treePath.size(), r.report.treeSteps.size() + 1);
}

TEST(DiagnoseRun, NoGpuStopsAfterTheBaseline) {
  DiagRun r = diagnoseWith("nogpu", "gemm_whole_tiles");
  EXPECT_EQ(r.report.points.size(), 1u);
  EXPECT_TRUE(r.report.noGpu);
}

TEST(DiagnoseRun, HangIsRepeatedOnceOnly) {
  DiagRun r = diagnoseWith("hang", "gemm_whole_tiles", 4);
  ASSERT_GE(r.report.points.size(), 2u);
  EXPECT_EQ(r.report.points[0].verdict, Verdict::hang);
  EXPECT_EQ(r.report.points[1].experiment, "trial 2/2");
}

}  // namespace
}  // namespace tilescope
