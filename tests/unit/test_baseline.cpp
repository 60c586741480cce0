// Baseline comparison and the external-command baseline (docs/config.md `baseline`).
#include <gtest/gtest.h>

#include <filesystem>

#include "tilescope/run/baseline.h"

namespace tilescope {
namespace {

Point timedPoint(double medianNs, int index = 0) {
  Point p;
  p.index = index;
  p.timing.measured = true;
  p.timing.kernelNs.median = medianNs;
  p.params = {{"N", 4096}};
  return p;
}

Config commandConfig(const std::string& command) {
  Config c;
  c.dir = std::filesystem::temp_directory_path();
  c.baseline.kind = "command";
  c.baseline.command = command;
  c.run.slowFactor = 1.5;
  return c;
}

TEST(Baseline, SpeedupAndSlowFinding) {
  Point p = timedPoint(3000);
  p.baseline.name = "cublas";
  p.baseline.measured = true;
  p.baseline.kernelNs.median = 1000;
  auto f = compareWithBaseline(p, 1.5);
  ASSERT_TRUE(p.speedup.has_value());
  EXPECT_NEAR(*p.speedup, 1.0 / 3.0, 1e-12);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->category, "slow_vs_baseline");
  EXPECT_EQ(f->severity, Severity::warning);
  p.timing.kernelNs.median = 1400;  // within the factor
  EXPECT_FALSE(compareWithBaseline(p, 1.5).has_value());
}

TEST(Baseline, CommandMedianIsReadFromItsLastJsonLine) {
  // The point's params reach the command as TILESCOPE_<NAME>.
  std::vector<Point> pts{timedPoint(1000), timedPoint(1000)};
  pts[1].trial = 1;
  applyCommandBaseline(pts, commandConfig("echo warming up; echo '{\"median_ns\": '$((TILESCOPE_N / 2))'}'"));
  for (const Point& p : pts) {
    ASSERT_TRUE(p.baseline.measured) << p.baseline.error;
    EXPECT_EQ(p.baseline.name, "command");
    EXPECT_DOUBLE_EQ(p.baseline.kernelNs.median, 2048);
    EXPECT_NEAR(*p.speedup, 2.048, 1e-12);
    EXPECT_TRUE(p.findings.empty());
  }
}

TEST(Baseline, SlowerThanTheCommandIsAFinding) {
  std::vector<Point> pts{timedPoint(1000)};
  applyCommandBaseline(pts, commandConfig("echo '{\"median_ns\": 100}'"));
  ASSERT_EQ(pts[0].findings.size(), 1u);
  EXPECT_EQ(pts[0].findings[0].category, "slow_vs_baseline");
  EXPECT_EQ(pts[0].verdict, Verdict::slow);
}

TEST(Baseline, FailingCommandSaysWhy) {
  std::vector<Point> pts{timedPoint(1000)};
  applyCommandBaseline(pts, commandConfig("echo boom >&2; exit 7"));
  EXPECT_FALSE(pts[0].baseline.measured);
  EXPECT_NE(pts[0].baseline.error.find("status 7"), std::string::npos) << pts[0].baseline.error;
  EXPECT_NE(pts[0].baseline.error.find("boom"), std::string::npos);
  std::vector<Point> q{timedPoint(1000)};
  applyCommandBaseline(q, commandConfig("echo no json here"));
  EXPECT_NE(q[0].baseline.error.find("median_ns"), std::string::npos);
}

}  // namespace
}  // namespace tilescope
