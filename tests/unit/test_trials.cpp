// Trials of one sweep point (sweep --trials): summariseTrials compares them on
// runOutcome, the comparison diagnose's trials use too.
#include <gtest/gtest.h>

#include "tilescope/session.h"

namespace tilescope {
namespace {

Point trial(int index, int t, Verdict v, const std::string& digest) {
  Point p;
  p.index = index;
  p.trial = t;
  p.label = "BLOCK_M=" + std::to_string(64 * (index + 1));
  p.verdict = v;
  if (!digest.empty()) p.status.outputDigest = {{"C", digest}};
  CorrectnessInfo c;
  c.checked = true;
  c.tensor = "C";
  p.correctness.push_back(c);
  return p;
}

bool hasRace(const Point& p) {
  for (const auto& f : p.findings)
    if (f.category == "race") return true;
  return false;
}

TEST(Trials, TimingNoiseIsNotADifferentResult) {
  // ok and slow differ only in the time measured: the same bits are the same result.
  Report r;
  r.points = {trial(0, 0, Verdict::ok, "aa"), trial(0, 1, Verdict::slow, "aa"), trial(0, 2, Verdict::ok, "aa")};
  summariseTrials(r, 3);
  for (const auto& p : r.points) EXPECT_FALSE(hasRace(p));
  ASSERT_TRUE(r.matrix);
  EXPECT_EQ(r.matrix->verdicts[0], (std::vector<Verdict>{Verdict::ok, Verdict::slow, Verdict::ok}));
}

TEST(Trials, DifferentOutputBytesAreARaceOnThatPointOnly) {
  Report r;
  r.points = {trial(0, 0, Verdict::ok, "aa"), trial(0, 1, Verdict::ok, "bb"), trial(1, 0, Verdict::ok, "cc"),
              trial(1, 1, Verdict::ok, "cc")};
  summariseTrials(r, 2);
  EXPECT_TRUE(hasRace(r.points[0]));
  EXPECT_TRUE(hasRace(r.points[1]));
  EXPECT_EQ(r.points[0].verdict, Verdict::incorrect);
  EXPECT_FALSE(hasRace(r.points[2]));
  EXPECT_FALSE(hasRace(r.points[3]));
  ASSERT_TRUE(r.matrix);
  EXPECT_EQ(r.matrix->points.size(), 2u);
}

TEST(Trials, OutcomeWithoutADigestComparesTheErrorFigures) {
  Point a = trial(0, 0, Verdict::incorrect, "");
  a.status.outputDigest.clear();
  a.correctness[0].mismatches = 10;
  Point b = a;
  EXPECT_EQ(runOutcome(a), runOutcome(b));
  b.correctness[0].maxAbsErr = 0.5;
  EXPECT_NE(runOutcome(a), runOutcome(b));
  EXPECT_EQ(runOutcome(a, false), runOutcome(b, false));  // max_abs_err left out
}

}  // namespace
}  // namespace tilescope
