// reportHeadline: the cause before its symptoms and the walk's fix in the kernel's
// language, on reports recorded on a GPU.
#include <gtest/gtest.h>

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
