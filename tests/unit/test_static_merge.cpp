// mergeStatic: the worker lays the static view of a point onto its capture. The
// measurement wins where both speak; static findings fill in what was not measured.
#include <gtest/gtest.h>

#include "tilescope/analysis/static_analysis.h"

namespace {

using namespace tilescope;
using nlohmann::json;

Finding finding(const std::string& category, Severity severity, json evidence = json::object()) {
  Finding f;
  f.category = category;
  f.severity = severity;
  f.message = category;
  f.evidence = std::move(evidence);
  return f;
}

CoverageInfo measuredC() {
  CoverageInfo c;
  c.tensor = "C";
  c.measured = true;
  c.written = 90;
  c.unwritten = 10;
  c.extra = {{"first_unwritten", 90}};
  return c;
}

CoverageInfo declared(const std::string& tensor) {
  CoverageInfo c;
  c.tensor = tensor;
  c.shape = {10, 10};
  c.elements = 100;
  c.declaredCovered = 90;
  c.declaredUncovered = 10;
  c.tile = {4, 4};
  c.tilesTotal = 9;
  c.tilesCrossing = 2;
  c.extra = {{"first_unwritten", -1}, {"gaps", json::array({{{"row", 9}}})}};
  return c;
}

Point staticView() {
  Point st;
  st.occupancy.computed = true;
  st.occupancy.theoretical = 0.5;
  st.occupancy.limiter = "registers";
  st.coverage = {declared("C"), declared("D")};
  st.findings = {finding("coverage_gap", Severity::error, {{"uncovered", 10}}),
                 finding("register_spill", Severity::warning)};
  return st;
}

}  // namespace

TEST(StaticMerge, OccupancyIsTheStaticOne) {
  Point p;
  mergeStatic(p, staticView());
  EXPECT_TRUE(p.occupancy.computed);
  EXPECT_EQ(p.occupancy.theoretical, 0.5);
  EXPECT_EQ(p.occupancy.limiter, "registers");
}

TEST(StaticMerge, MeasuredCoverageKeepsItsCountsAndTakesTheDeclaredOnes) {
  Point p;
  p.coverage = {measuredC()};
  mergeStatic(p, staticView());
  ASSERT_EQ(p.coverage.size(), 2u);  // C merged, D added
  const CoverageInfo& c = p.coverage[0];
  EXPECT_EQ(c.tensor, "C");
  EXPECT_TRUE(c.measured);
  EXPECT_EQ(c.written, 90);
  EXPECT_EQ(c.unwritten, 10);
  EXPECT_EQ(c.declaredCovered, 90);
  EXPECT_EQ(c.declaredUncovered, 10);
  EXPECT_EQ(c.tile, (std::vector<std::int64_t>{4, 4}));
  EXPECT_EQ(c.tilesCrossing, 2);
  EXPECT_EQ(c.shape, (std::vector<std::int64_t>{10, 10}));  // empty in the capture: filled
  EXPECT_EQ(c.elements, 100);
  EXPECT_EQ(c.extra.at("first_unwritten"), 90);  // the capture's key wins
  EXPECT_TRUE(c.extra.contains("gaps"));         // the static key is added
  EXPECT_EQ(p.coverage[1], declared("D"));
}

TEST(StaticMerge, CapturedShapeIsNotOverwritten) {
  Point p;
  CoverageInfo c = measuredC();
  c.shape = {5, 20};
  c.elements = 100;
  c.extra = nullptr;  // no extra in the capture: it becomes the static one
  p.coverage = {c};
  mergeStatic(p, staticView());
  EXPECT_EQ(p.coverage[0].shape, (std::vector<std::int64_t>{5, 20}));
  EXPECT_EQ(p.coverage[0].extra, declared("C").extra);
}

TEST(StaticMerge, MeasuredCategoryWinsAndStaticFindingsAreMarked) {
  Point p;
  p.findings = {finding("coverage_gap", Severity::error, {{"unwritten", 10}})};
  p.verdict = Verdict::incorrect;
  mergeStatic(p, staticView());
  ASSERT_EQ(p.findings.size(), 2u);
  EXPECT_EQ(p.findings[0].evidence, (json{{"unwritten", 10}}));  // the measured one, untouched
  EXPECT_EQ(p.findings[1].category, "register_spill");
  EXPECT_EQ(p.findings[1].evidence.at("source"), "static analysis");
  EXPECT_EQ(p.verdict, Verdict::incorrect);
  // A second merge of the same view adds nothing: every category is present now.
  mergeStatic(p, staticView());
  EXPECT_EQ(p.findings.size(), 2u);
}

TEST(StaticMerge, StaticErrorRaisesTheVerdict) {
  Point p;  // a clean capture
  ASSERT_EQ(p.verdict, Verdict::ok);
  mergeStatic(p, staticView());
  ASSERT_EQ(p.findings.size(), 2u);
  EXPECT_EQ(p.findings[0].category, "coverage_gap");
  EXPECT_EQ(p.findings[0].evidence.at("uncovered"), 10);
  EXPECT_EQ(p.findings[0].evidence.at("source"), "static analysis");
  EXPECT_EQ(p.verdict, verdictForFindings(p.findings));
  EXPECT_NE(p.verdict, Verdict::ok);
}

TEST(StaticMerge, WorseVerdictOfTheCaptureIsKept) {
  Point p;
  p.verdict = Verdict::fault;
  mergeStatic(p, staticView());
  EXPECT_EQ(p.verdict, Verdict::fault);
}
