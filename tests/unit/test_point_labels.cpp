// Point names (point_labels.h): the workbench's rules, in core, so the CLI's
// summary and the exports name a point as the matrix and the Points table do.
#include <gtest/gtest.h>

#include <sstream>

#include "tilescope/export/document.h"
#include "tilescope/export/summary.h"
#include "tilescope/model/point_labels.h"

using namespace tilescope;

namespace {

Point point(int index, const std::string& label, nlohmann::json defines, int trial = 0) {
  Point p;
  p.index = index;
  p.trial = trial;
  p.label = label;
  p.defines = std::move(defines);
  p.params = {{"M", 64}};
  return p;
}

std::vector<Point> sweep() {
  return {point(0, "BLOCK_N=32 BLOCK_M=64", {{"BLOCK_M", 64}, {"BLOCK_N", 32}, {"WARPS", 4}}),
          point(1, "BLOCK_N=64 BLOCK_M=64", {{"BLOCK_M", 64}, {"BLOCK_N", 64}, {"WARPS", 4}}),
          point(2, "BLOCK_N=64 BLOCK_M=128", {{"BLOCK_M", 128}, {"BLOCK_N", 64}, {"WARPS", 4}}, 1)};
}

}  // namespace

TEST(PointLabels, SweptKeysInTheLabelsOrder) {
  const PointLabels names(sweep());
  // BLOCK_N first: the sweep's own label names it first; WARPS does not change.
  EXPECT_EQ(names.keys(), (std::vector<std::string>{"BLOCK_N", "BLOCK_M"}));
  EXPECT_EQ(names.keysText(), "BLOCK_N, BLOCK_M");
  EXPECT_EQ(names.shortLabel(sweep()[2]), "64, 128");
  EXPECT_EQ(PointLabels::fullLabel(sweep()[2]), "BLOCK_N=64 BLOCK_M=128");
  EXPECT_LT(names.sortKey(sweep()[1]), names.sortKey(sweep()[2]));  // 64 before 128, as numbers
}

TEST(PointLabels, StreamingInAddsKeysAndDiagnosePointsKeepTheirExperiment) {
  PointLabels names;
  EXPECT_FALSE(names.add(sweep()[0]));
  EXPECT_TRUE(names.add(sweep()[1]));   // BLOCK_N is swept now
  EXPECT_FALSE(names.add(sweep()[1]));  // nothing new
  Point trial = point(0, "", {{"BLOCK_M", 64}});
  trial.experiment = "trial 2/5";
  EXPECT_FALSE(names.add(trial));
  EXPECT_EQ(names.shortLabel(trial), "trial 2/5");
  EXPECT_EQ(PointLabels::fullLabel(trial), "trial 2/5: BLOCK_M=64 M=64");
  // Nothing swept: a short own label, else the index.
  const PointLabels one({point(7, "short", {})});
  EXPECT_EQ(one.shortLabel(point(7, "short", {})), "short");
  EXPECT_EQ(one.shortLabel(point(7, std::string(21, 'x'), {})), "#7");
}

TEST(PointLabels, TheSummaryAndTheExportsNameThemSo) {
  Report r;
  r.points = sweep();
  std::ostringstream out;
  printSummary(r, out);
  EXPECT_NE(out.str().find("points by BLOCK_N, BLOCK_M\n"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("  point 2 trial 1 [64, 128]: ok\n"), std::string::npos) << out.str();
  const Document d = buildDocument(r);
  const DocSection* points = d.section("points");
  ASSERT_NE(points, nullptr);
  const auto* table = std::get_if<DocTable>(&points->blocks.front());
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->caption, "Points by BLOCK_N, BLOCK_M");
  EXPECT_EQ(table->rows[0][1], "32, 64");
  EXPECT_EQ(table->rows[2][1], "64, 128 t1");
}
