// Trials of one sweep point (sweep --trials): summariseTrials compares them on
// runOutcome, the comparison diagnose's trials use too.
#include <gtest/gtest.h>

#include "tilescope/run/session.h"

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
  r.points = {trial(0, 0, Verdict::ok, "aa"), trial(0, 1, Verdict::slow, "aa"),
              trial(0, 2, Verdict::ok, "aa")};
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
Point timedOn(int ordinal, double medianNs, double spread) {
  Point p = trial(0, ordinal, Verdict::ok, "aa");
  p.trial = ordinal;
  p.gpu.ordinal = ordinal;
  p.gpu.name = "NVIDIA H200";
  p.gpu.uuid = "GPU-" + std::to_string(ordinal);
  p.gpu.host = "node1";
  p.timing.measured = true;
  p.timing.kernelNs.median = medianNs;
  p.timing.kernelNs.p10 = medianNs - spread;
  p.timing.kernelNs.p90 = medianNs + spread;
  return p;
}

TEST(Trials, APointSlowerOnOneGpuIsAGpuVarianceWarningNamingBoth) {
  Report r;
  r.points = {timedOn(0, 100'000, 1'000), timedOn(1, 130'000, 1'000)};
  summariseTrials(r, 2);
  for (const auto& p : r.points) {
    ASSERT_EQ(p.findings.size(), 1u);
    const Finding& f = p.findings.front();
    EXPECT_EQ(f.category, "gpu_variance");
    EXPECT_EQ(f.severity, Severity::warning);
    EXPECT_NE(f.message.find("30 % slower"), std::string::npos) << f.message;
    EXPECT_NE(f.message.find("GPU-1"), std::string::npos) << f.message;
    EXPECT_NEAR(f.evidence.at("ratio").get<double>(), 1.3, 1e-9);
    EXPECT_EQ(f.evidence.at("gpus").size(), 2u);
    EXPECT_EQ(p.verdict, Verdict::ok) << "a warning: the kernel is not wrong";
  }
}

TEST(Trials, GpusWithinNoiseOrOneGpuOnlyAreNoGpuVariance) {
  for (const auto& pts :
       {std::vector<Point>{timedOn(0, 100'000, 1'000), timedOn(1, 105'000, 1'000)},     // 5 %
        std::vector<Point>{timedOn(0, 100'000, 20'000), timedOn(1, 130'000, 20'000)},   // ranges overlap
        std::vector<Point>{timedOn(0, 100'000, 1'000), timedOn(0, 130'000, 1'000)}}) {  // one GPU
    Report r;
    r.points = pts;
    summariseTrials(r, 2);
    for (const auto& p : r.points)
      for (const auto& f : p.findings) EXPECT_NE(f.category, "gpu_variance") << f.message;
  }
}

TEST(Trials, ARaceAcrossGpusNamesEachTrialsGpu) {
  Report r;
  r.points = {timedOn(0, 100'000, 1'000), timedOn(1, 100'000, 1'000)};
  r.points[1].status.outputDigest = {{"C", "bb"}};
  summariseTrials(r, 2);
  ASSERT_TRUE(hasRace(r.points[0]));
  const Finding& race = r.points[0].findings.back();
  ASSERT_TRUE(race.evidence.contains("gpus"));
  EXPECT_EQ(race.evidence.at("gpus").at(1).at("uuid"), "GPU-1");
  EXPECT_NE(race.message.find("2 GPUs"), std::string::npos) << race.message;
}

}  // namespace tilescope
