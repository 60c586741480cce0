// diagnose respects how the kernel was compiled (docs/capture.md): the plan over
// hand-built configs shaped like captured ones. A captured Triton launch (its
// .py copied) is recompiled for shifted pointers as Triton's JIT would; a
// captured cubin without source is not shifted, reshaped or re-warped, and the
// report says why; a zoo CUDA C++ config plans as before. Findings from
// experiments say what a caller must do.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "tilescope/diagnose/diagnose.h"
#include "tilescope/run/session.h"

namespace tilescope {
namespace {

const std::filesystem::path kDir = std::filesystem::path(TILESCOPE_TEST_DATA) / "diagnose";

Config pointConfig(const std::string& name) {
  return expandSweep(loadConfig(kDir / (name + ".tscfg.json"))).front().config;
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

Point failing(Verdict v, const std::string& category) {
  Point p = okPoint();
  p.verdict = v;
  Finding f;
  f.category = category;
  f.message = category;
  p.findings.push_back(f);
  if (v == Verdict::fault) p.correctness.clear();
  return p;
}

/// The tensors a capture writes: every one the program's bytes, outputs checked
/// against the program's result (so shapes and input scales cannot change).
void asCaptured(Config& cfg) {
  for (auto& t : cfg.tensors) {
    t.init = "npy:launches/t1-0000/" + t.name + ".before.npy";
    if (t.output) t.expected = "npy:launches/t1-0000/" + t.name + ".after.npy";
  }
  cfg.reference = ReferenceSpec{};
  cfg.reference.op = "npy";
  cfg.tolerance = Tolerance{0, 0};  // the replay is the same kernel on the same bytes
}

/// A captured Triton launch: kernel.language triton, source the copied .py.
Config capturedTriton() {
  Config cfg = pointConfig("gemm_whole_tiles");
  cfg.kernel.language = "triton";
  cfg.kernel.source = "sources/gemm.py";
  cfg.kernel.sourcePath = kDir / "sources/gemm.py";
  cfg.kernel.entry = "gemm_kernel";
  asCaptured(cfg);
  return cfg;
}

/// A launch the CUDA recorder captured: the program's module image, no source.
Config capturedCubin() {
  Config cfg = pointConfig("gemm_cubin");
  asCaptured(cfg);
  return cfg;
}

std::vector<std::string> kinds(const std::vector<std::vector<Experiment>>& groups) {
  std::vector<std::string> out;
  for (const auto& g : groups) out.push_back(experimentKindName(g.front().kind));
  return out;
}

const std::vector<Experiment>* group(const std::vector<std::vector<Experiment>>& groups,
                                     ExperimentKind kind) {
  for (const auto& g : groups)
    if (g.front().kind == kind) return &g;
  return nullptr;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// ------------------------------------------------------------------ planning

TEST(DiagnoseBinary, CapturedTritonShiftsAreRecompiledAsTheJitWould) {
  const Config cfg = capturedTriton();
  EXPECT_EQ(prebuiltBinaryReason(cfg), "");
  const auto groups = planExperiments(okPoint(), cfg, DiagnoseOptions{});
  // The program's bytes: no poison (outputs start from them), no shapes, no scaling.
  EXPECT_EQ(kinds(groups), (std::vector<std::string>{"trials", "align_shift"}));
  const auto* shifts = group(groups, ExperimentKind::align_shift);
  ASSERT_NE(shifts, nullptr);
  ASSERT_EQ(shifts->size(), 4u);
  // 4- and 8-byte aligned pointers: Triton's JIT drops tt.divisibility=16, so the
  // shifted run is a specialisation without 16-byte vector accesses.
  EXPECT_EQ((*shifts)[0].alignShift, 4);
  EXPECT_EQ((*shifts)[0].compiled,
            "recompiled from sources/gemm.py for 4-byte aligned pointers, as Triton's JIT compiles them: "
            "no tt.divisibility=16 on the pointers; judged at rtol 0.01, atol 0.01, not bit-exact: another "
            "specialisation rounds differently");
  EXPECT_TRUE(contains((*shifts)[1].compiled, "for 8-byte aligned pointers")) << (*shifts)[1].compiled;
  // 16 and 64 keep the baseline's specialisation.
  EXPECT_TRUE(contains((*shifts)[2].compiled, "16-byte aligned pointers")) << (*shifts)[2].compiled;
  EXPECT_TRUE(contains((*shifts)[2].compiled, "tt.divisibility=16 on every pointer, as in the baseline"));
  EXPECT_TRUE(contains((*shifts)[3].compiled, "64-byte aligned")) << (*shifts)[3].compiled;
  // The worker still gets the shift: it compiles for it (capture.cpp).
  // Without 16-byte vectors a reduction's order changes: not bit-exact against
  // the program's result, but within the default tolerance.
  EXPECT_EQ((*shifts)[0].workerArgs(),
            (std::vector<std::string>{"--align-shift", "4", "--no-timing", "--no-counters", "--tolerance",
                                      "0.01", "0.01"}));
  // The baseline's specialisation (16-byte aligned): its bits must match.
  EXPECT_FALSE((*shifts)[2].tolerance.has_value());
  EXPECT_EQ((*shifts)[2].workerArgs(),
            (std::vector<std::string>{"--align-shift", "16", "--no-timing", "--no-counters"}));
  // Trials repeat the baseline's build.
  EXPECT_EQ(groups[0][0].compiled, "");
  EXPECT_TRUE(skippedExperiments(okPoint(), cfg, DiagnoseOptions{}).empty());
}

TEST(DiagnoseBinary, TritonWarpsAreRecompiledWithTheNewNumWarps) {
  // Generated inputs (a captured config's .npy files are not here to resolve).
  Config cfg = pointConfig("gemm_whole_tiles");
  cfg.kernel.language = "triton";
  cfg.kernel.source = "sources/gemm.py";
  const auto groups = planExperiments(failing(Verdict::incorrect, "mismatch"), cfg, DiagnoseOptions{});
  const auto* warps = group(groups, ExperimentKind::warps);
  ASSERT_NE(warps, nullptr);
  bool sawNumWarps = false;
  for (const auto& e : *warps) {
    if (e.overrides.front().first != "num_warps") continue;
    sawNumWarps = true;
    EXPECT_TRUE(contains(e.compiled, "recompiled from sources/gemm.py with " + e.name)) << e.compiled;
  }
  EXPECT_TRUE(sawNumWarps);
  EXPECT_TRUE(skippedExperiments(failing(Verdict::incorrect, "mismatch"), cfg, DiagnoseOptions{}).empty());
}

TEST(DiagnoseBinary, CapturedCubinIsNotShiftedAndSaysWhy) {
  const Config cfg = capturedCubin();
  const std::string why = prebuiltBinaryReason(cfg);
  EXPECT_TRUE(contains(why, "modules/00aa.cubin")) << why;
  EXPECT_TRUE(contains(why, "no source TileScope can recompile")) << why;
  const auto groups = planExperiments(okPoint(), cfg, DiagnoseOptions{});
  // Repeated trials change nothing the binary assumes: they run on it.
  EXPECT_EQ(kinds(groups), (std::vector<std::string>{"trials"}));
  EXPECT_EQ(groups[0][0].compiled, "");
  const auto skipped = skippedExperiments(okPoint(), cfg, DiagnoseOptions{});
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].group, "align_shift");
  EXPECT_EQ(skipped[0].reason, why);
  EXPECT_TRUE(contains(skipped[0].why, "align_shift=4, align_shift=8, align_shift=16, align_shift=64: "))
      << skipped[0].why;
}

TEST(DiagnoseBinary, HandWrittenCubinKeepsPoisonAndScalingButNotShapesOrWarps) {
  // A prebuilt binary with generated inputs: the poison and scaled inputs change
  // values only and run; shifted pointers, shapes and warp counts do not.
  const Config cfg = pointConfig("gemm_cubin");
  auto groups = planExperiments(okPoint(), cfg, DiagnoseOptions{});
  EXPECT_EQ(kinds(groups), (std::vector<std::string>{"trials", "poison", "input_scale"}));
  auto skipped = skippedExperiments(okPoint(), cfg, DiagnoseOptions{});
  std::vector<std::string> names;
  for (const auto& s : skipped) names.push_back(s.group);
  EXPECT_EQ(names, (std::vector<std::string>{"align_shift", "small_shapes"}));

  const Point bad = failing(Verdict::incorrect, "mismatch");
  groups = planExperiments(bad, cfg, DiagnoseOptions{});
  EXPECT_EQ(group(groups, ExperimentKind::warps), nullptr);
  EXPECT_EQ(group(groups, ExperimentKind::small_shapes), nullptr);
  names.clear();
  for (const auto& s : skippedExperiments(bad, cfg, DiagnoseOptions{})) names.push_back(s.group);
  EXPECT_EQ(names, (std::vector<std::string>{"small_shapes", "warps"}));
}

TEST(DiagnoseBinary, PtxAndFatbinAreBinariesToo) {
  Config cfg = pointConfig("gemm_cubin");
  for (const char* src : {"k.ptx", "k.fatbin", "K.CUBIN"}) {
    cfg.kernel.source = src;
    EXPECT_NE(prebuiltBinaryReason(cfg), "") << src;
  }
  cfg.kernel.source = "k.cu";
  EXPECT_EQ(prebuiltBinaryReason(cfg), "");
}

TEST(DiagnoseBinary, ZooCudaConfigPlansAsBefore) {
  const Config cfg = pointConfig("gemm_whole_tiles");
  EXPECT_EQ(prebuiltBinaryReason(cfg), "");
  const auto groups = planExperiments(okPoint(), cfg, DiagnoseOptions{});
  EXPECT_EQ(kinds(groups),
            (std::vector<std::string>{"trials", "poison", "align_shift", "small_shapes", "input_scale"}));
  // nvcc/NVRTC do not specialise on a pointer's value: a shifted run is the same build.
  for (const auto& e : *group(groups, ExperimentKind::align_shift)) EXPECT_EQ(e.compiled, "");
  // Params are runtime arguments: the same build.
  for (const auto& e : *group(groups, ExperimentKind::small_shapes)) EXPECT_EQ(e.compiled, "");
  EXPECT_TRUE(skippedExperiments(okPoint(), cfg, DiagnoseOptions{}).empty());
  // A define is compiled in: another warp count is a rebuild.
  const auto bad = planExperiments(failing(Verdict::incorrect, "mismatch"), cfg, DiagnoseOptions{});
  const auto* warps = group(bad, ExperimentKind::warps);
  ASSERT_NE(warps, nullptr);
  EXPECT_EQ(warps->front().name, "NUM_WARPS=2");
  EXPECT_EQ(warps->front().compiled, "recompiled from fake.cu with -DNUM_WARPS=2");
}

// --------------------------------------------------------------- conclusions

ExperimentRun shiftRun(int shift, Point p, const std::string& compiled = "") {
  Experiment e;
  e.kind = ExperimentKind::align_shift;
  e.alignShift = shift;
  e.name = "align_shift=" + std::to_string(shift);
  e.compiled = compiled;
  return {e, std::move(p)};
}

TEST(DiagnoseBinary, AlignmentFindingSaysWhatCallersMustDo) {
  const Point fault = failing(Verdict::fault, "misaligned_access");
  Conclusion c =
      concludeAlignment(okPoint(), {shiftRun(4, fault), shiftRun(8, fault), shiftRun(16, okPoint())});
  ASSERT_EQ(c.findings.size(), 1u);
  const Finding& f = c.findings[0];
  EXPECT_TRUE(contains(f.message, "it assumes 16-byte aligned base pointers")) << f.message;
  EXPECT_TRUE(contains(f.message, ". Callers must pass 16-byte aligned tensors")) << f.message;
  EXPECT_TRUE(contains(f.message, "or the kernel must check the alignment")) << f.message;
  EXPECT_TRUE(contains(f.evidence.value("caller_must", ""), "pass 16-byte aligned tensors"));
  EXPECT_FALSE(f.evidence.contains("compiled"));  // a CUDA C++ build: nothing recompiled
}

TEST(DiagnoseBinary, AlignmentFailingWhenRecompiledIsTheKernelsOwnAssumption) {
  const std::string rebuilt =
      "recompiled from sources/k.py for 4-byte aligned pointers, as Triton's JIT compiles them: "
      "no tt.divisibility=16 on the pointers";
  const Point fault = failing(Verdict::fault, "misaligned_access");
  Conclusion c = concludeAlignment(okPoint(), {shiftRun(4, fault, rebuilt), shiftRun(8, okPoint())});
  ASSERT_EQ(c.findings.size(), 1u);
  const Finding& f = c.findings[0];
  EXPECT_EQ(f.location.extra["required_alignment"], 8);
  EXPECT_TRUE(contains(f.message, "the failing run was " + rebuilt)) << f.message;
  EXPECT_TRUE(contains(f.message, "the assumption is the kernel's own")) << f.message;
  EXPECT_EQ(f.evidence["compiled"], rebuilt);
  EXPECT_TRUE(contains(f.message, "Callers must pass 8-byte aligned tensors")) << f.message;
}

TEST(DiagnoseBinary, WarpAndPoisonFindingsSayWhatCallersMustDo) {
  Experiment w;
  w.kind = ExperimentKind::warps;
  w.name = "NUM_WARPS=2";
  Conclusion c = concludeWarps(failing(Verdict::incorrect, "mismatch"), {{w, okPoint()}});
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_TRUE(contains(c.findings[0].message, "Callers must launch it with NUM_WARPS=2"))
      << c.findings[0].message;
  EXPECT_EQ(c.findings[0].evidence["passing"], "NUM_WARPS=2");  // the evidence is kept
}

// ------------------------------------------- orchestration through real processes

TEST(DiagnoseBinary, HealthyCubinIsNotFaultedByShiftingItsPointers) {
  // The fake worker's "misaligned" kernel faults whenever the pointers are
  // shifted by less than 16 bytes, as a Triton cubin specialised on 16-byte
  // pointers does. Under a binary diagnose does not shift: no false fault.
  DiagnoseOptions opts;
  opts.useTree = false;
  opts.session.workerCommand = {"python3", (kDir / "fake_worker.py").string(), "--scenario", "misaligned"};
  opts.session.configPath = (kDir / "gemm_cubin.tscfg.json").string();
  opts.session.timeoutS = 30;
  opts.session.launchTimeoutS = 1;
  const Report r = diagnose(loadConfig(opts.session.configPath), opts);
  EXPECT_EQ(r.verdict, Verdict::ok);
  for (const auto& f : r.findings) EXPECT_NE(f.severity, Severity::error) << f.category << ": " << f.message;
  for (const auto& p : r.points) EXPECT_EQ(p.experiment.rfind("align_shift", 0), std::string::npos);
  ASSERT_TRUE(r.diagnose);
  std::vector<std::string> skipped;
  for (const auto& s : r.diagnose->skipped) skipped.push_back(s.group);
  EXPECT_EQ(skipped, (std::vector<std::string>{"align_shift", "small_shapes"}));
  // The skipped entries reach the report's JSON.
  const auto j = toJson(r);
  ASSERT_TRUE(j["extra"]["diagnose"].contains("skipped")) << j["extra"]["diagnose"].dump(1);
  EXPECT_EQ(j["extra"]["diagnose"]["skipped"][0]["group"], "align_shift");
}

}  // namespace
}  // namespace tilescope
