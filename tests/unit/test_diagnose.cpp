// diagnose: the planning and conclusion functions on hand-built points
// (the orchestration through real worker processes: test_diagnose_run.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <mutex>

#include "tilescope/diagnose/diagnose.h"
#include "tilescope/run/session.h"

namespace tilescope {
namespace {

const std::filesystem::path kDir = std::filesystem::path(TILESCOPE_TEST_DATA) / "diagnose";

Config pointConfig(const std::string& name) {
  return expandSweep(loadConfig(kDir / (name + ".tscfg.json"))).front().config;
}

Finding finding(const std::string& category, Location location = {}) {
  Finding f;
  f.category = category;
  f.message = category;
  f.location = std::move(location);
  return f;
}

Location atCta(Index cta) {
  Location l;
  l.cta = std::move(cta);
  return l;
}

Point okPoint() {
  Point p;
  CorrectnessInfo c;
  c.checked = true;
  c.tensor = "C";
  c.elements = 1 << 20;
  p.correctness.push_back(c);
  return p;
}

Point badPoint(Verdict v, const std::string& category, std::int64_t mismatches = 10, double err = 1.0) {
  Point p = okPoint();
  p.verdict = v;
  p.findings.push_back(finding(category, atCta({1, 2, 0})));
  if (v == Verdict::fault)
    p.correctness.clear();
  else {
    p.correctness[0].mismatches = mismatches;
    p.correctness[0].maxAbsErr = err;
  }
  return p;
}

ExperimentRun shiftRun(int shift, Point p) {
  Experiment e;
  e.kind = ExperimentKind::align_shift;
  e.alignShift = shift;
  e.name = "align_shift=" + std::to_string(shift);
  return {e, std::move(p)};
}

ExperimentRun namedRun(ExperimentKind kind, const std::string& name, Point p, const std::string& role = "") {
  Experiment e;
  e.kind = kind;
  e.name = name;
  e.role = role;
  return {e, std::move(p)};
}

std::vector<std::string> kinds(const std::vector<std::vector<Experiment>>& groups) {
  std::vector<std::string> out;
  for (const auto& g : groups) out.push_back(experimentKindName(g.front().kind));
  return out;
}

// ------------------------------------------------------------------ planning

TEST(DiagnosePlan, SizeParamsTakeTilesFromOutputsAndBlockDefines) {
  auto sizes = sizeParams(pointConfig("gemm_partial_tiles"));
  ASSERT_EQ(sizes.size(), 3u);
  std::map<std::string, SizeParam> by;
  for (const auto& s : sizes) by[s.name] = s;
  EXPECT_EQ(by["M"].tile, 64);
  EXPECT_EQ(by["N"].tile, 64);
  EXPECT_EQ(by["K"].tile, 32);  // no output dimension: BLOCK_K
  EXPECT_FALSE(by["M"].reduction);
  EXPECT_TRUE(by["K"].reduction);
  EXPECT_EQ(by["K"].value, 1020);
}

TEST(DiagnosePlan, ShiftsBelowTheElementSizeAreDropped) {
  Config cfg = pointConfig("gemm_whole_tiles");
  EXPECT_EQ(usableShifts(cfg, {64, 4, 8, 16, 3}), (std::vector<int>{4, 8, 16, 64}));
  cfg.tensors[0].dtype = DType::f64;
  EXPECT_EQ(usableShifts(cfg, {4, 8, 16, 64}), (std::vector<int>{8, 16, 64}));
}

TEST(DiagnosePlan, PassingBaselineGetsTrialsPoisonAlignmentAndPartialTiles) {
  DiagnoseOptions opts;
  auto groups = planExperiments(okPoint(), pointConfig("gemm_whole_tiles"), opts);
  EXPECT_EQ(kinds(groups),
            (std::vector<std::string>{"trials", "poison", "align_shift", "small_shapes", "input_scale"}));
  EXPECT_EQ(groups[0].size(), 4u);             // 5 trials with the baseline
  EXPECT_EQ(groups[4][0].name, "inputs x32");  // scaled up: a latent overflow
  EXPECT_EQ(groups[2].size(), 4u);
  ASSERT_EQ(groups[3].size(), 2u);
  EXPECT_EQ(groups[3][0].name, "shape M=65 N=65 K=33");
  EXPECT_EQ(groups[3][1].name, "shape M=63 N=63 K=31");
  auto args = groups[2][1].workerArgs();
  EXPECT_EQ(args, (std::vector<std::string>{"--align-shift", "8", "--no-timing", "--no-counters"}));
  EXPECT_EQ(groups[1][0].workerArgs(),
            (std::vector<std::string>{"--sentinel-variant", "1", "--no-timing", "--no-counters"}));
}

TEST(DiagnosePlan, FailingBaselineGetsRoundedAndSmallShapesAndWarps) {
  DiagnoseOptions opts;
  opts.trials = 3;
  auto groups =
      planExperiments(badPoint(Verdict::fault, "oob_write"), pointConfig("gemm_partial_tiles"), opts);
  EXPECT_EQ(kinds(groups), (std::vector<std::string>{"trials", "small_shapes", "warps"}));
  EXPECT_EQ(groups[0].size(), 2u);
  ASSERT_EQ(groups[1].size(), 3u);
  EXPECT_EQ(groups[1][0].name, "shape M=1024 N=1024 K=1024");
  EXPECT_EQ(groups[1][1].name, "shape M=128 N=128 K=64");
  EXPECT_EQ(groups[1][2].name, "shape K=64");
  EXPECT_EQ(groups[1][2].role, "reduction");
  ASSERT_EQ(groups[2].size(), 2u);
  EXPECT_EQ(groups[2][0].name, "NUM_WARPS=2");
  EXPECT_EQ(groups[2][1].name, "NUM_WARPS=8");
  EXPECT_EQ(groups[2][1].workerArgs(),
            (std::vector<std::string>{"--no-timing", "--no-counters", "--set", "NUM_WARPS=8"}));
}

TEST(DiagnosePlan, NanInTheOutputAddsScaledInputsAfterTheShapes) {
  DiagnoseOptions opts;
  Point nan = badPoint(Verdict::incorrect, "nan_inf");
  nan.correctness[0].nan = 10;
  auto groups = planExperiments(nan, pointConfig("gemm_whole_tiles"), opts);
  EXPECT_EQ(kinds(groups),
            (std::vector<std::string>{"trials", "poison", "small_shapes", "input_scale", "warps"}));
  ASSERT_EQ(groups[3].size(), 1u);
  EXPECT_EQ(groups[3][0].name, "inputs x0.0625");
  EXPECT_EQ(groups[3][0].workerArgs(),
            (std::vector<std::string>{"--input-scale", "0.0625", "--no-timing", "--no-counters"}));
  // Without NaN/Inf only the tree's request adds it.
  auto plain =
      planExperiments(badPoint(Verdict::incorrect, "mismatch"), pointConfig("gemm_whole_tiles"), opts);
  EXPECT_EQ(kinds(plain), (std::vector<std::string>{"trials", "poison", "small_shapes", "warps"}));
  auto asked = planExperiments(badPoint(Verdict::incorrect, "mismatch"), pointConfig("gemm_whole_tiles"),
                               opts, {"input_scale"});
  EXPECT_EQ(kinds(asked),
            (std::vector<std::string>{"trials", "poison", "small_shapes", "input_scale", "warps"}));
}

TEST(DiagnosePlan, ScalableInputsAreGeneratedFloatInputsOnly) {
  Config cfg = pointConfig("gemm_whole_tiles");
  EXPECT_EQ(scalableInputs(cfg), (std::vector<std::string>{"A", "B"}));
  const double before = cfg.tensors[0].scale;
  scaleInputs(cfg, 0.5);
  EXPECT_DOUBLE_EQ(cfg.tensors[0].scale, before * 0.5);
  for (auto& t : cfg.tensors)
    if (!t.output) t.dtype = DType::i32;
  EXPECT_TRUE(scalableInputs(cfg).empty());
  Point nan = badPoint(Verdict::incorrect, "nan_inf");
  EXPECT_EQ(kinds(planExperiments(nan, cfg, DiagnoseOptions{})),
            (std::vector<std::string>{"trials", "poison", "small_shapes", "warps"}));
}

TEST(DiagnosePlan, AnExpensiveBaselineIsRepeatedOnce) {
  DiagnoseOptions opts;
  Point slow = badPoint(Verdict::fault, "illegal_address");
  slow.wallSeconds = opts.expensiveCaptureS + 1;
  auto groups = planExperiments(slow, pointConfig("gemm_whole_tiles"), opts);
  ASSERT_FALSE(groups.empty());
  EXPECT_EQ(experimentKindName(groups[0].front().kind), std::string("trials"));
  EXPECT_EQ(groups[0].size(), 1u);
  slow.wallSeconds = opts.expensiveCaptureS - 1;
  EXPECT_EQ(planExperiments(slow, pointConfig("gemm_whole_tiles"), opts)[0].size(), 4u);
}

// Trials repeat the baseline's timing (the device memory around the tensors
// stays the same) but not its profiling pass, which comes after the output is
// judged and queues on the device's profiler lock.
TEST(DiagnosePlan, TrialsTimeButReadNoCounters) {
  Point base = badPoint(Verdict::incorrect, "mismatch");
  base.timing.measured = true;
  auto groups = planExperiments(base, pointConfig("gemm_whole_tiles"), DiagnoseOptions{});
  ASSERT_FALSE(groups.empty());
  ASSERT_EQ(experimentKindName(groups[0].front().kind), std::string("trials"));
  EXPECT_EQ(groups[0].front().workerArgs(), std::vector<std::string>{"--no-counters"});
  base.timing.measured = false;
  groups = planExperiments(base, pointConfig("gemm_whole_tiles"), DiagnoseOptions{});
  EXPECT_EQ(groups[0].front().workerArgs(), (std::vector<std::string>{"--no-timing", "--no-counters"}));
}

TEST(DiagnosePlan, NothingRunsAfterACompileError) {
  DiagnoseOptions opts;
  EXPECT_TRUE(planExperiments(badPoint(Verdict::compile_error, "compile_error"),
                              pointConfig("gemm_whole_tiles"), opts)
                  .empty());
}

// --------------------------------------------------------------- conclusions

TEST(DiagnoseConclude, AlignmentNamesFailingShiftsAndRequiredAlignment) {
  Point fault = badPoint(Verdict::fault, "misaligned_access");
  Conclusion c =
      concludeAlignment(okPoint(), {shiftRun(4, fault), shiftRun(8, fault), shiftRun(16, okPoint())});
  ASSERT_EQ(c.findings.size(), 1u);
  const Finding& f = c.findings[0];
  EXPECT_EQ(f.category, "misaligned_access");
  EXPECT_EQ(f.experiment, "align_shift=4");
  EXPECT_EQ(f.location.extra["required_alignment"], 16);
  EXPECT_EQ(f.location.extra["failing_shifts"], nlohmann::json({4, 8}));
  EXPECT_EQ(f.location.cta, (Index{1, 2, 0}));  // where the shifted run faulted
  EXPECT_TRUE(c.settled);
}

TEST(DiagnoseConclude, AlignmentPassingFirstShiftSettlesWithoutFinding) {
  Conclusion c = concludeAlignment(okPoint(), {shiftRun(4, okPoint())});
  EXPECT_TRUE(c.findings.empty());
  EXPECT_TRUE(c.settled);
  // All shifts failing: at least twice the largest failing alignment.
  Point fault = badPoint(Verdict::fault, "misaligned_access");
  c = concludeAlignment(okPoint(), {shiftRun(16, fault), shiftRun(64, fault)});
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].location.extra["required_alignment"], 128);
  EXPECT_FALSE(c.settled);
}

TEST(DiagnoseConclude, TrialsThatDisagreeAreARace) {
  Point base = badPoint(Verdict::incorrect, "mismatch", 10, 1.0);
  Conclusion same = concludeTrials(base, {namedRun(ExperimentKind::trials, "t", base)});
  EXPECT_TRUE(same.findings.empty());
  Conclusion c = concludeTrials(
      base, {namedRun(ExperimentKind::trials, "t2", base),
             namedRun(ExperimentKind::trials, "t3", badPoint(Verdict::incorrect, "mismatch", 11, 1.0))});
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].category, "race");
  EXPECT_EQ(c.findings[0].detail, "nondeterministic");
  EXPECT_EQ(c.findings[0].experiment, "trials x3");
  EXPECT_TRUE(c.settled);
  Conclusion mix = concludeTrials(
      okPoint(), {namedRun(ExperimentKind::trials, "t2", badPoint(Verdict::fault, "illegal_address"))});
  ASSERT_EQ(mix.findings.size(), 1u);
  EXPECT_EQ(mix.findings[0].detail, "intermittent_fault");
  EXPECT_EQ(mix.findings[0].location.cta, (Index{1, 2, 0}));  // where the failing trial was
}

TEST(DiagnoseConclude, PoisonThatChangesTheOutputIsAnUninitializedRead) {
  Point base = badPoint(Verdict::incorrect, "mismatch", 100, 3e38);
  Conclusion c = concludePoison(base, {namedRun(ExperimentKind::poison, "poison variant 1",
                                                badPoint(Verdict::incorrect, "mismatch", 100, 1e30))});
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].category, "uninitialized_read");
  EXPECT_EQ(c.findings[0].experiment, "poison variant 1");
  EXPECT_TRUE(concludePoison(base, {namedRun(ExperimentKind::poison, "p", base)}).findings.empty());
  // Unwritten elements hold the poison itself: a different error there proves nothing.
  CoverageInfo gap;
  gap.tensor = "C";
  gap.measured = true;
  gap.unwritten = 64;
  Point gapped = base, gapped1 = badPoint(Verdict::incorrect, "mismatch", 100, 1e30);
  gapped.coverage.push_back(gap);
  gapped1.coverage.push_back(gap);
  EXPECT_TRUE(concludePoison(gapped, {namedRun(ExperimentKind::poison, "p", gapped1)}).findings.empty());
  // Nor do the output bytes' digests, which differ wherever the poison shows.
  gapped.status.outputDigest = {{"C", "0123"}};
  gapped1 = gapped;
  gapped1.status.outputDigest = {{"C", "4567"}};
  EXPECT_TRUE(concludePoison(gapped, {namedRun(ExperimentKind::poison, "p", gapped1)}).findings.empty());
}

TEST(DiagnoseConclude, ShapesRoundedToTilesPassingNameTheMask) {
  Config cfg = pointConfig("gemm_partial_tiles");
  Point base = badPoint(Verdict::fault, "oob_write");
  Conclusion c = concludeShapes(
      base, cfg,
      {namedRun(ExperimentKind::small_shapes, "shape M=1024 N=1024 K=1024", okPoint(), "rounded")});
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].category, "oob_write");
  EXPECT_EQ(c.findings[0].experiment, "shape M=1024 N=1024 K=1024");
  EXPECT_EQ(c.findings[0].location.cta, (Index{1, 2, 0}));
  EXPECT_EQ(c.findings[0].location.extra["sizes"]["K"]["tile"], 32);
  EXPECT_TRUE(c.settled);
}

TEST(DiagnoseConclude, SmallShapesPassingClassifyLargeOnlyFailures) {
  Point fault = badPoint(Verdict::fault, "illegal_address");
  Conclusion c =
      concludeShapes(fault, pointConfig("gemm_large"),
                     {namedRun(ExperimentKind::small_shapes, "shape M=128 K=64", okPoint(), "small")});
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].category, "int_overflow");
  EXPECT_EQ(c.findings[0].tensor, "A");
  EXPECT_EQ(c.findings[0].location.extra["first_index_past_2^31"],
            nlohmann::json({32768, 0}));  // 32768 * 65536 = 2^31
  EXPECT_TRUE(c.settled);                 // the sizes prove it: no run at the large reduction size

  Point inf = badPoint(Verdict::incorrect, "nan_inf");
  inf.correctness[0].inf = 5;
  Config longK = pointConfig("gemm_long_k");
  ExperimentRun small = namedRun(ExperimentKind::small_shapes, "shape M=128 N=128 K=64", okPoint(), "small");
  small.experiment.overrides = {{"M", 128}, {"N", 128}, {"K", 64}};
  ExperimentRun reduction = namedRun(ExperimentKind::small_shapes, "shape K=64", okPoint(), "reduction");
  reduction.experiment.overrides = {{"K", 64}};
  c = concludeShapes(inf, longK, {small});
  EXPECT_FALSE(c.settled);  // the reduction-only run is still to come
  c = concludeShapes(inf, longK, {small, reduction});
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].category, "accumulator_overflow");
  EXPECT_EQ(c.findings[0].experiment, "shape K=64");

  Point wrong = badPoint(Verdict::incorrect, "mismatch");
  c = concludeShapes(wrong, longK,
                     {namedRun(ExperimentKind::small_shapes, "shape M=128 N=128 K=64", okPoint(), "small")});
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].category, "mismatch");
  EXPECT_EQ(c.findings[0].detail, "large_only");
}

TEST(DiagnoseConclude, NanOnlyWithPartialTilesIsAnOutOfBoundsRead) {
  Point nan = badPoint(Verdict::incorrect, "nan_inf");
  nan.correctness[0].nan = 64;
  Conclusion c = concludeShapes(
      nan, pointConfig("gemm_partial_tiles"),
      {namedRun(ExperimentKind::small_shapes, "shape M=1024 N=1024 K=1024", okPoint(), "rounded")});
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].category, "oob_read");
  EXPECT_EQ(c.findings[0].treeNode, "fault.oob_read");
  EXPECT_EQ(c.findings[0].location.cta, (Index{1, 2, 0}));
  EXPECT_EQ(c.findings[0].evidence["candidates"], nlohmann::json({"A", "B"}));
  EXPECT_TRUE(c.findings[0].evidence["inferred"].get<bool>());
}

TEST(DiagnoseConclude, ScaledInputsTellOverflowFromDivisionByZero) {
  Point nan = badPoint(Verdict::incorrect, "nan_inf");
  nan.correctness[0].nan = 64;
  auto scaled = [](Point p) {
    ExperimentRun r = namedRun(ExperimentKind::input_scale, "inputs x0.0625", std::move(p));
    r.experiment.inputScale = 0.0625;
    return r;
  };
  Conclusion gone = concludeInputScale(nan, {scaled(okPoint())});
  ASSERT_EQ(gone.findings.size(), 1u);
  EXPECT_EQ(gone.findings[0].category, "nan_inf");
  EXPECT_EQ(gone.findings[0].detail, "input_magnitude");
  EXPECT_EQ(gone.findings[0].severity, Severity::error);
  EXPECT_EQ(gone.findings[0].experiment, "inputs x0.0625");
  EXPECT_EQ(gone.findings[0].location.cta, (Index{1, 2, 0}));
  EXPECT_NE(gone.findings[0].message.find("0.0625"), std::string::npos);
  EXPECT_TRUE(gone.settled);

  Conclusion stays = concludeInputScale(nan, {scaled(nan)});
  ASSERT_EQ(stays.findings.size(), 1u);
  EXPECT_EQ(stays.findings[0].detail, "magnitude_independent");
  EXPECT_EQ(stays.findings[0].severity, Severity::warning);

  // A fault under scaling proves nothing.
  EXPECT_TRUE(
      concludeInputScale(nan, {scaled(badPoint(Verdict::fault, "illegal_address"))}).findings.empty());
}

TEST(DiagnoseConclude, ScaledUpInputsExposeALatentOverflow) {
  auto up = [](Point p) {
    ExperimentRun r = namedRun(ExperimentKind::input_scale, "inputs x32", std::move(p));
    r.experiment.inputScale = 32;
    return r;
  };
  EXPECT_TRUE(concludeInputScale(okPoint(), {up(okPoint())}).findings.empty());
  Point nan = badPoint(Verdict::incorrect, "nan_inf");
  nan.findings[0].evidence = {{"nan", 40}, {"inf", 0}};
  Conclusion c = concludeInputScale(okPoint(), {up(nan)});
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].detail, "input_magnitude");
  EXPECT_EQ(c.findings[0].severity, Severity::error);
  EXPECT_EQ(c.findings[0].location.cta, (Index{1, 2, 0}));  // where the scaled run had them
  EXPECT_NE(c.findings[0].message.find("scaled by 32"), std::string::npos);
  // Inf alone is an f16 output overflowing near 65504, as the reference may: not a finding.
  Point inf = badPoint(Verdict::incorrect, "nan_inf");
  inf.findings[0].evidence = {{"nan", 0}, {"inf", 12}};
  EXPECT_TRUE(concludeInputScale(okPoint(), {up(inf)}).findings.empty());
}

TEST(DiagnoseConclude, PartialTilesFailingAfterAPassingBaseline) {
  Conclusion c = concludeShapes(okPoint(), pointConfig("gemm_whole_tiles"),
                                {namedRun(ExperimentKind::small_shapes, "shape M=65 N=65 K=33",
                                          badPoint(Verdict::incorrect, "mismatch"), "odd")});
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].category, "mismatch");
  EXPECT_EQ(c.findings[0].detail, "tail_tiles");
  EXPECT_EQ(c.findings[0].experiment, "shape M=65 N=65 K=33");
}

TEST(DiagnoseConclude, ConfirmedFindingsComeFirst) {
  Finding confirmed = finding("uninitialized_read");
  confirmed.experiment = "poison variant 1";
  Finding warn = finding("low_occupancy");
  warn.severity = Severity::warning;
  auto out = orderFindings({confirmed}, {warn, finding("mismatch"), finding("oob_write")});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].category, "uninitialized_read");
  EXPECT_EQ(out[1].category, "oob_write");
  EXPECT_EQ(out[2].category, "mismatch");
  EXPECT_EQ(out[3].category, "low_occupancy");
}

TEST(DiagnoseConclude, AnOutOfBoundsWriteLeadsTheRaceItCauses) {
  Finding race = finding("race");
  race.experiment = "trials x2";
  auto out = orderFindings({race}, {finding("oob_write"), finding("nan_inf")});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].category, "oob_write");
  EXPECT_EQ(out[1].category, "race");
  EXPECT_EQ(out[1].evidence.value("explained_by", ""), "oob_write");
  // Without an out-of-bounds write the race stays first.
  auto alone = orderFindings({race}, {finding("nan_inf")});
  EXPECT_EQ(alone[0].category, "race");
}

}  // namespace
}  // namespace tilescope
