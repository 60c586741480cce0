// Comparing two results (export/report_diff.h) on the bundled samples: every
// expected delta is computed from the two reports read here, not written down.
#include <gtest/gtest.h>

#include <algorithm>

#include "tilescope/base/resources.h"
#include "tilescope/export/report_diff.h"

using namespace tilescope;

namespace {

Report sample(const char* name) { return loadReport(resourceDir() / "sample" / name); }

const DiffValue& value(const std::vector<DiffValue>& values, const std::string& key) {
  const auto it =
      std::find_if(values.begin(), values.end(), [&](const DiffValue& v) { return v.key == key; });
  if (it == values.end()) throw std::runtime_error("no row " + key);
  return *it;
}

std::size_t countChange(const ReportDiff& d, FindingChange c) {
  return static_cast<std::size_t>(std::count_if(d.findings.begin(), d.findings.end(),
                                                [&](const FindingDiff& f) { return f.change == c; }));
}

std::size_t countCategory(const std::vector<Finding>& f, const std::string& category) {
  return static_cast<std::size_t>(
      std::count_if(f.begin(), f.end(), [&](const Finding& x) { return x.category == category; }));
}

}  // namespace

TEST(ReportDiff, UnmaskedAgainstTracedHasRealDeltas) {
  const Report a = sample("gemm_bug_no_mask.json"), b = sample("traced.json");
  const ReportDiff d = diffReports(a, "A.json", 0, b, "B.json", 0);
  const Point &pa = a.points[0], &pb = b.points[0];
  EXPECT_TRUE(d.sameKernel);
  EXPECT_EQ(d.a.verdict, pa.verdict);
  EXPECT_EQ(d.b.verdict, pb.verdict);

  const DiffValue& median = value(d.timing.values, "kernel_ns.median");
  EXPECT_DOUBLE_EQ(median.delta(), pb.timing.kernelNs.median - pa.timing.kernelNs.median);
  EXPECT_NE(median.delta(), 0);
  EXPECT_EQ(d.timing.significant, pa.timing.kernelNs.p90 < pb.timing.kernelNs.p10 ||
                                      pb.timing.kernelNs.p90 < pa.timing.kernelNs.p10);
  EXPECT_DOUBLE_EQ(*value(d.timing.values, "cv").b, pb.timing.cv);

  ASSERT_FALSE(d.correctness.empty());
  const CorrectnessDiff& c = d.correctness[0];
  EXPECT_EQ(c.tensor, pa.correctness[0].tensor);
  EXPECT_DOUBLE_EQ(value(c.values, "mismatches").delta(),
                   double(pb.correctness[0].mismatches - pa.correctness[0].mismatches));
  ASSERT_TRUE(c.map.has_value()) << c.mapNote;
  const ErrorMap &ma = *pa.correctness[0].errorMap, &mb = *pb.correctness[0].errorMap;
  EXPECT_EQ(c.map->resampled, ma.rows != mb.rows || ma.cell != mb.cell);
  EXPECT_EQ(c.map->rows, ma.rows);
  EXPECT_EQ(c.map->same + c.map->worse + c.map->better + c.map->bothBad, ma.rows * ma.cols);
  EXPECT_EQ(static_cast<std::int64_t>(c.map->cells.size()), ma.rows * ma.cols);
  // B has more NaN elements than A: some cells turn non-finite, none the other way round here.
  EXPECT_GT(c.map->worse, 0);

  // The traced run read no counters: every counter row is A's only.
  EXPECT_EQ(d.counters.collectedA, pa.counters.collected);
  EXPECT_EQ(d.counters.collectedB, pb.counters.collected);
  EXPECT_EQ(d.counters.metrics.size(), pa.counters.kernel.metrics.size());

  // The tracer's oob_read findings are B's only; every finding of each side is accounted for once.
  EXPECT_EQ(countChange(d, FindingChange::appeared) + countChange(d, FindingChange::same) +
                countChange(d, FindingChange::moved),
            pb.findings.size());
  EXPECT_EQ(countChange(d, FindingChange::gone) + countChange(d, FindingChange::same) +
                countChange(d, FindingChange::moved),
            pa.findings.size());
  const auto appearedReads = std::count_if(d.findings.begin(), d.findings.end(), [](const FindingDiff& f) {
    return f.change == FindingChange::appeared && f.category == "oob_read";
  });
  EXPECT_EQ(static_cast<std::size_t>(appearedReads),
            countCategory(pb.findings, "oob_read") -
                std::min(countCategory(pb.findings, "oob_read"), countCategory(pa.findings, "oob_read")));
}

TEST(ReportDiff, TwoPointsOfOneSweep) {
  const Report s = sample("gemm_sweep.json");
  ASSERT_GE(s.points.size(), 4u);
  const ReportDiff d = diffReports(s, "S.json", 0, s, "S.json", 3);
  EXPECT_EQ(d.a.point, 0);
  EXPECT_EQ(d.b.point, 3);
  EXPECT_EQ(d.b.label, pointLabel(s.points[3]));
  EXPECT_DOUBLE_EQ(value(d.timing.values, "kernel_ns.median").delta(),
                   s.points[3].timing.kernelNs.median - s.points[0].timing.kernelNs.median);
  ASSERT_TRUE(s.points[0].speedup && s.points[3].speedup);
  EXPECT_DOUBLE_EQ(value(d.timing.values, "speedup").delta(), *s.points[3].speedup - *s.points[0].speedup);
  // Other tile sizes: the defines differ, which a warning says.
  ASSERT_NE(s.points[0].defines, s.points[3].defines);
  EXPECT_TRUE(std::any_of(d.warnings.begin(), d.warnings.end(),
                          [](const std::string& w) { return w.find("defines") != std::string::npos; }));
  std::size_t changedMetrics = 0;
  for (const DiffValue& v : d.counters.metrics) changedMetrics += v.changed();
  EXPECT_GT(changedMetrics, 0u);
}

TEST(ReportDiff, AReportAgainstItselfHasNoDeltas) {
  const Report r = sample("counters_gemm_tiled_f16.json");
  const ReportDiff d = diffReports(r, "R.json", 0, r, "R.json", 0);
  EXPECT_TRUE(d.warnings.empty());
  for (const auto* rows : {&d.timing.values, &d.resources, &d.counters.speedOfLight, &d.counters.metrics})
    for (const DiffValue& v : *rows) EXPECT_FALSE(v.changed()) << v.key;
  EXPECT_FALSE(d.counters.metrics.empty());
  EXPECT_FALSE(d.timing.significant);
  for (const CorrectnessDiff& c : d.correctness) {
    for (const DiffValue& v : c.values) EXPECT_FALSE(v.changed()) << c.tensor << " " << v.key;
    ASSERT_TRUE(c.map.has_value());
    EXPECT_EQ(c.map->worse + c.map->better, 0);
    EXPECT_FALSE(c.map->resampled);
  }
  EXPECT_EQ(d.findings.size(), r.points[0].findings.size());
  EXPECT_EQ(countChange(d, FindingChange::same), d.findings.size());
  EXPECT_EQ(formatDiffDelta(value(d.timing.values, "kernel_ns.median")), "0");
}

TEST(ReportDiff, DifferentKernelsWarnAndMapsOfOtherSizesAreNotCompared) {
  const Report a = sample("gemm_bug_no_mask.json"), b = sample("softmax_bug_no_max.json");
  const ReportDiff d = diffReports(a, "gemm.json", 0, b, "softmax.json", 0);
  EXPECT_FALSE(d.sameKernel);
  ASSERT_FALSE(d.warnings.empty());
  EXPECT_NE(d.warnings[0].find("different kernels"), std::string::npos);
  EXPECT_NE(d.warnings[0].find("gemm.json"), std::string::npos);
  for (const CorrectnessDiff& c : d.correctness)
    if (c.inA && c.inB && a.points[0].correctness[0].elements != b.points[0].correctness[0].elements) {
      EXPECT_FALSE(c.map.has_value());
      EXPECT_FALSE(c.mapNote.empty());
    }
}

TEST(ReportDiff, PointOutOfRangeNamesTheFile) {
  const Report r = sample("gemm_bug_no_mask.json");
  try {
    diffReports(r, "one.json", 0, r, "other.json", 5);
    FAIL() << "expected CompareError";
  } catch (const CompareError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("other.json"), std::string::npos) << what;
    EXPECT_NE(what.find("out of range"), std::string::npos) << what;
  }
  Report empty = r;
  empty.points.clear();
  EXPECT_THROW(diffReports(empty, "e.json", 0, r, "r.json", 0), CompareError);
  EXPECT_EQ(defaultComparePoint(empty), -1);
}

TEST(ReportDiff, JsonRoundTrip) {
  const ReportDiff d =
      diffReports(sample("gemm_bug_no_mask.json"), "A.json", 0, sample("traced.json"), "B.json", 0);
  const nlohmann::json j = toJson(d);
  EXPECT_EQ(j.at("schema"), kCompareSchema);
  const ReportDiff back = reportDiffFromJson(parseJson(dumpJson(j)));
  EXPECT_EQ(back, d);
  nlohmann::json wrong = j;
  wrong["schema"] = "tilescope.report/1";
  EXPECT_THROW(reportDiffFromJson(wrong), ReportError);
  wrong = j;
  wrong["findings"][0]["change"] = "vanished";
  try {
    reportDiffFromJson(wrong);
    FAIL() << "expected ReportError";
  } catch (const ReportError& e) {
    EXPECT_EQ(e.path(), "findings[0].change");
  }
}

TEST(ReportDiff, DocumentAndText) {
  const Report s = sample("gemm_sweep.json");
  const ReportDiff d = diffReports(s, "S.json", 0, s, "S.json", 3);
  const Document doc = buildCompareDocument(d);
  for (const char* id : {"summary", "timing", "resources", "correctness", "counters", "findings"})
    EXPECT_NE(doc.section(id), nullptr) << id;
  const std::string text = renderPlainText(doc);
  const DiffValue& median = value(d.timing.values, "kernel_ns.median");
  EXPECT_NE(text.find(formatDiffDelta(median)), std::string::npos);
  EXPECT_NE(text.find(formatDiffValue(median, median.b)), std::string::npos);
  EXPECT_NE(renderMarkdown(doc).find("| kernel median |"), std::string::npos);
  EXPECT_NE(renderHtml(doc).find("kernel median"), std::string::npos);
}

// Outputs compared with each other, not only with the reference: the workers'
// digests of each output's bytes, equal or not, and one side's alone.
TEST(ReportDiff, OutputBytesComparedBetweenTheSides) {
  Report a = sample("gemm_bug_no_mask.json"), b = a;
  a.points[0].status.outputDigest = {{"C", "8a1f00d2c3b4a596"}, {"D", "0000000000000001"}};
  b.points[0].status.outputDigest = {{"C", "8a1f00d2c3b4a596"}, {"D", "0000000000000002"}, {"E", "77"}};
  const ReportDiff d = diffReports(a, "A.json", 0, b, "B.json", 0);
  ASSERT_EQ(d.outputs.size(), 3u);
  EXPECT_EQ(d.outputs[0].tensor, "C");
  EXPECT_TRUE(d.outputs[0].identical);
  EXPECT_EQ(d.outputs[1].tensor, "D");
  EXPECT_FALSE(d.outputs[1].identical);
  EXPECT_EQ(d.outputs[2].tensor, "E");
  EXPECT_TRUE(d.outputs[2].digestA.empty());
  EXPECT_FALSE(d.outputs[2].identical);
  EXPECT_EQ(reportDiffFromJson(toJson(d)), d);
  const std::string text = renderPlainText(buildCompareDocument(d));
  EXPECT_NE(text.find("C: the same bytes on both sides (digest 8a1f00d2c3b4a596)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("D: the bytes differ (digest 0000000000000001 against 0000000000000002)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("E: only B digested its bytes"), std::string::npos) << text;
  // Without digests (an older report) there is no such part, and the JSON reads as before.
  a.points[0].status.outputDigest.clear();
  b.points[0].status.outputDigest.clear();
  const ReportDiff none = diffReports(a, "A.json", 0, b, "B.json", 0);
  EXPECT_TRUE(none.outputs.empty());
  EXPECT_FALSE(toJson(none).contains("outputs"));
}
