// format.h: one unit ladder for every number a person reads.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "tilescope/base/format.h"
#include "tilescope/counters/counters.h"
#include "tilescope/export/summary.h"

using namespace tilescope;

TEST(Format, DurationsPickTheUnitOfTheValue) {
  EXPECT_EQ(formatDuration(850), "850 ns");
  EXPECT_EQ(formatDuration(12345), "12.35 µs");
  EXPECT_EQ(formatDuration(1234567), "1.235 ms");
  EXPECT_EQ(formatDuration(2e9), "2 s");  // not "2000.000 ms"
  EXPECT_EQ(formatDuration(0), "0 ns");
  EXPECT_EQ(formatDuration(NAN), "n/a");
}

TEST(Format, ARoundingThatReachesTheNextUnitMovesToIt) {
  EXPECT_EQ(formatDuration(999.99), "1 µs");
  EXPECT_EQ(formatDuration(999999.7), "1 ms");
  EXPECT_EQ(formatBytes(1024.0 * 1024 - 0.01), "1 MiB");
}

TEST(Format, BytesAreExactBelowAKibibyte) {
  EXPECT_EQ(formatBytes(48), "48 B");
  EXPECT_EQ(formatBytes(66560), "65 KiB");
  EXPECT_EQ(formatBytes(49152), "48 KiB");
  EXPECT_EQ(formatBytes(1.5 * 1024 * 1024), "1.5 MiB");
}

TEST(Format, FlopsPercentRatioCount) {
  EXPECT_EQ(formatFlops(312.5e12), "312.5 TFLOP/s");
  EXPECT_EQ(formatPercent(0.625), "62.5 %");
  EXPECT_EQ(formatPercent(0.125), "12.5 %");  // 8 of 64 warps: one spelling
  EXPECT_EQ(formatRatio(48.023858), "48.0×");
  EXPECT_EQ(formatRatio(1.8412), "1.84×");
  EXPECT_EQ(formatRatio(123.4), "123×");
  EXPECT_EQ(formatRatio(0.020822), "0.0208×");
  EXPECT_EQ(formatCount(1234567), "1\u2009234\u2009567");
  EXPECT_EQ(formatCount(-1234), "-1\u2009234");
  EXPECT_EQ(formatNumber(3), "3");
  EXPECT_EQ(formatNumber(0.000123456), "0.0001235");
}

TEST(Format, MetricsUseTheirUnit) {
  EXPECT_EQ(formatMetric("gpu__time_duration.sum", 1234567), "1.235 ms");
  EXPECT_EQ(formatMetric("dram__bytes_read.sum", 2048), "2 KiB");
  EXPECT_EQ(formatMetric("sm__throughput.avg.pct_of_peak_sustained_elapsed", 61.23), "61.2 %");
  EXPECT_EQ(formatMetric("smsp__inst_executed.sum", NAN), "–");
}

TEST(Format, ShellQuoteSurvivesQuotes) {
  EXPECT_EQ(shellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(shellQuote("$(id)"), "'$(id)'");
}

TEST(Format, SummaryReadsLikeTheExports) {
  Report r;
  Point p;
  p.timing.measured = true;
  p.timing.kernelNs.median = 2e9;
  p.timing.kernelNs.p10 = 1234567;
  p.timing.kernelNs.p90 = 2e9;
  p.speedup = 1.0 / 48.023858;
  p.baseline.measured = true;
  p.baseline.name = "cublas";
  p.baseline.kernelNs.median = 41646;
  r.points.push_back(p);
  std::ostringstream out;
  printSummary(r, out);
  EXPECT_NE(out.str().find("median 2 s (p10 1.235 ms"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("2000.000 ms"), std::string::npos);
  EXPECT_NE(out.str().find("speedup 0.0208×"), std::string::npos) << out.str();
}

namespace {

// The one trim and last-line helper the readers share (base/format.h).
TEST(Format, TrimmedAndLastLine) {
  EXPECT_EQ(tilescope::trimmed(" \t kernel(int) \r\n"), "kernel(int)");
  EXPECT_EQ(tilescope::trimmed(" \t\r\n"), "");
  EXPECT_EQ(tilescope::trimmed(""), "");
  EXPECT_EQ(tilescope::lastLine("Traceback\n  File x\nValueError: bad shape\n\n  "), "ValueError: bad shape");
  EXPECT_EQ(tilescope::lastLine("one line"), "one line");
  EXPECT_EQ(tilescope::lastLine(""), "");
}

}  // namespace
