// reportHeadline: the cause before its symptoms and the walk's fix in the kernel's
// language, on reports recorded on a GPU.
#include <gtest/gtest.h>

#include <algorithm>

#include "tilescope/counters/counters.h"
#include "tilescope/diagnose/headline.h"

using namespace tilescope;

namespace {
Report sample(const char* name) {
  return loadReport(std::string(TILESCOPE_SOURCE_DIR "/resources/sample/") + name);
}
}  // namespace

TEST(Headline, TheTracedSampleLeadsWithItsOutOfBoundsWrite) {
  // Its findings list nan_inf first (the wrap-around of the unmasked last tile
  // column): the symptom. The located write is the cause, and the walk's fix is about it.
  const Report r = sample("traced.json");
  ASSERT_EQ(r.findings.front().category, "nan_inf");
  const Tree tree = loadDefaultTree();
  const Headline h = reportHeadline(r, &tree);
  ASSERT_NE(h.cause, nullptr);
  EXPECT_EQ(h.cause->category, "oob_write");
  EXPECT_EQ(h.cause->tensor, "C");
  EXPECT_EQ(h.point, 0);
  ASSERT_NE(h.leaf, nullptr);
  EXPECT_EQ(h.leaf->id, "fault.oob_write");
  EXPECT_NE(h.fix.find("missing store mask"), std::string::npos);
  EXPECT_EQ(h.language, "cuda");
  ASSERT_NE(h.example, nullptr);
  EXPECT_NE(h.example->after.find("row < M && col < N"), std::string::npos);
}

TEST(Headline, ATritonVectorGetsATritonOneDimensionalFix) {
  const Report r = sample("triton_session.json");
  const Tree tree = loadDefaultTree();
  const Headline h = reportHeadline(r, &tree);
  ASSERT_NE(h.cause, nullptr);
  EXPECT_EQ(h.cause->category, "oob_write");
  EXPECT_EQ(h.language, "triton");
  ASSERT_NE(h.example, nullptr);
  EXPECT_EQ(h.example->language, "triton");
  EXPECT_NE(h.example->after.find("mask=offs < n_elements"), std::string::npos);
  EXPECT_EQ(h.fix.find("CUDA"), std::string::npos);
  // It opens on a point that fails, not on the passing shape the conclusion contrasts with.
  const int p = headlinePoint(r);
  ASSERT_GE(p, 0);
  EXPECT_NE(r.points[static_cast<std::size_t>(p)].verdict, Verdict::ok);
}

TEST(Headline, RootCauseByRankWithoutATree) {
  Report r;
  Point p;
  Finding symptom, cause;
  symptom.category = "mismatch";
  symptom.severity = Severity::error;
  cause.category = "misaligned_access";
  cause.severity = Severity::error;
  p.findings = {symptom, cause};
  p.verdict = Verdict::fault;
  r.points.push_back(p);
  r.finalize();
  const Headline h = reportHeadline(r, nullptr);
  ASSERT_NE(h.cause, nullptr);
  EXPECT_EQ(h.cause->category, "misaligned_access");
  EXPECT_EQ(h.leaf, nullptr);
  EXPECT_TRUE(h.fix.empty());
}

TEST(Headline, AnEmptyReportHasNoCauseAndNoPoint) {
  const Report r;
  const Headline h = reportHeadline(r, nullptr);
  EXPECT_EQ(h.cause, nullptr);
  EXPECT_EQ(headlinePoint(r), -1);
}

// docs/diagnose.md: the cause a kernel developer would rank first. The tiled GEMM sample is
// 49.5x slower than cuBLAS with its tensor pipe idle against cuBLAS's 54%, and its
// grid leaves resident-block slots empty: the tensor cores are the larger gain.
TEST(Headline, ASlowGemmLeadsWithTheTensorCoresByEstimatedGain) {
  const Report r = sample("counters_gemm_tiled_f16.json");
  ASSERT_EQ(r.verdict, Verdict::slow);
  const Tree tree = loadDefaultTree();
  const Headline h = reportHeadline(r, &tree);
  ASSERT_NE(h.cause, nullptr);
  EXPECT_EQ(h.cause->category, "no_tensor_cores");
  ASSERT_NE(h.leaf, nullptr);
  EXPECT_EQ(h.leaf->id, "perf.no_tensor_cores");
  // The bound: cuBLAS's time caps it, and so does the device's tensor/FP32 peak ratio.
  const Point& p = r.points.front();
  const double slower = p.timing.kernelNs.median / p.baseline.kernelNs.median;
  const double peaks = *r.device.f16TensorTflops / *r.device.f32Tflops;
  EXPECT_NEAR(h.gain, std::min(slower, peaks), 1e-9);
  // Every other performance finding of the point promises less.
  for (const Finding& f : r.findings)
    if (&f != h.cause) {
      const double g = estimatedGain(f, p, &r.device);
      if (known(g)) {
        EXPECT_LT(g, h.gain) << f.category;
      }
    }
  const std::string text = headlineText(h);
  EXPECT_EQ(text.rfind("no_tensor_cores: " + gainText(h.gain) + ": ", 0), 0u) << text;
  EXPECT_NE(gainText(h.gain).find("×"), std::string::npos);
  // The fix speaks of this report's device and shows CUDA code.
  EXPECT_EQ(h.example ? h.example->language : "cuda", "cuda");
}

TEST(Headline, TheWalkRanksAnswersByEstimatedGain) {
  // Two holding answers of the ranked perf node: the larger gain is taken whatever its place.
  const Tree tree = loadDefaultTree();
  auto perfPoint = [](double occupancyGain, double tensorGain) {
    nlohmann::json p = {{"verdict", "slow"}, {"findings", nlohmann::json::array()}};
    p["findings"].push_back({{"category", "low_occupancy"},
                             {"severity", "warning"},
                             {"detail", "grid"},
                             {"evidence", {{"estimated_gain", occupancyGain}}}});
    p["findings"].push_back({{"category", "no_tensor_cores"},
                             {"severity", "warning"},
                             {"evidence", {{"estimated_gain", tensorGain}}}});
    return p;
  };
  EXPECT_EQ(walkTree(tree, perfPoint(2, 9), {}, "perf").stoppedAt, "perf.no_tensor_cores");
  EXPECT_EQ(walkTree(tree, perfPoint(9, 2), {}, "perf").stoppedAt, "perf.low_occupancy.grid");
}

TEST(TreeText, AnH100CudaReportReadsItsOwnDeviceAndCudaCode) {
  const Tree tree = loadDefaultTree();
  const TreeNode* grid = tree.find("perf.low_occupancy.grid");
  ASSERT_NE(grid, nullptr);
  for (const char* name : {"counters_gemm_tiled_f16.json", "traced.json", "gemm_sweep.json"}) {
    const Report r = sample(name);
    ASSERT_GT(r.device.smCount, 0) << name;
    ASSERT_EQ(kernelLanguage(r), "cuda") << name;
    const TreeNode leaf = renderLeaf(*grid, treeTextContext(r));
    EXPECT_EQ(leaf.explanation.find("108"), std::string::npos) << leaf.explanation;
    EXPECT_EQ(leaf.explanation.find("A100"), std::string::npos) << leaf.explanation;
    EXPECT_NE(leaf.explanation.find(r.device.name + " has " + std::to_string(r.device.smCount) + " SMs"),
              std::string::npos)
        << leaf.explanation;
    ASSERT_FALSE(leaf.examples.empty()) << name;
    for (const TreeExample& e : leaf.examples) {
      EXPECT_EQ(e.language, "cuda");
      EXPECT_EQ((e.before + e.after).find("block_M"), std::string::npos) << e.before;
      EXPECT_EQ((e.before + e.after).find("{sm_count"), std::string::npos) << e.before;
    }
  }
  // No Triton or TileLang code on any leaf for a CUDA report.
  const TreeTextContext cuda = treeTextContext(sample("counters_gemm_tiled_f16.json"));
  for (const TreeNode& n : tree.nodes)
    for (const TreeExample& e : renderLeaf(n, cuda).examples)
      EXPECT_TRUE(e.language != "triton" && e.language != "tilelang" && e.language != "python") << n.id;
}

TEST(TreeText, PlaceholdersFallBackTogetherAndLeaveCodeBracesAlone) {
  TreeTextContext c;
  c.device = "NVIDIA H200";
  c.smCount = 132;
  const std::string text = "the {device|A100} has {sm_count|108} SMs; dim3 g{1, 2}; {x|y}";
  EXPECT_EQ(renderTreeText(text, c), "the NVIDIA H200 has 132 SMs; dim3 g{1, 2}; {x|y}");
  c.smCount = 0;  // a device without its SM count: the defaults, never a mix of two GPUs
  EXPECT_EQ(renderTreeText(text, c), "the A100 has 108 SMs; dim3 g{1, 2}; {x|y}");
  // A Triton report: Triton and host-Python examples, no CUDA C++.
  const Tree tree = loadDefaultTree();
  const Report t = sample("triton_session.json");
  const TreeTextContext triton = treeTextContext(t);
  ASSERT_EQ(triton.language, "triton");
  for (const TreeExample* e : examplesFor(*tree.find("perf.low_occupancy.grid"), triton.language))
    EXPECT_NE(e->language, "cuda");
}
