// The export document model (document.h) and its Markdown and HTML renderers.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "tilescope/base/format.h"
#include "tilescope/base/resources.h"
#include "tilescope/diagnose/tree.h"
#include "tilescope/export/document.h"

using namespace tilescope;

namespace {

const char* const kEvil = "<script>alert(1)</script> | *bold* _x_ `code` [a](http://x) # h";

/// Every part of a report an export shows, filled in by hand.
Report populated() {
  Report r;
  r.verb = "run";
  r.createdAt = "2025-01-01T00:00:00Z";
  r.host = "box";
  r.toolVersion = "0.1";
  r.device.name = "NVIDIA H100 80GB HBM3";
  r.device.cc = "9.0";
  r.device.smCount = 132;
  r.device.live = true;
  r.config = {
      {"name", "gemm"},
      {"kernel", {{"entry", "gemm_tiled"}, {"source", "gemm_tiled.cu"}, {"defines", {{"BLOCK_M", 64}}}}},
      {"launch", {{"grid", {16, 16, 1}}, {"block", {128, 1, 1}}}}};
  Point p;
  p.label = "BLOCK_M=64";
  p.verdict = Verdict::incorrect;
  p.compile = {true, true, "nvrtc", "sm_90", "", 96, 16384, 0, 0, 0, 1024, 0.4, false};
  p.launch.attempted = p.launch.ok = true;
  p.launch.grid[0] = 16;
  p.launch.block[0] = 128;
  p.timing.measured = true;
  p.timing.kernelNs.median = 1234567;
  p.timing.kernelNs.p10 = 1200000;
  p.timing.kernelNs.p90 = 2e9;
  p.timing.cv = 0.021;
  p.baseline = {"cublas", true, {}, 1, ""};
  p.baseline.kernelNs.median = 25707;
  p.speedup = 25707.0 / 1234567;
  CorrectnessInfo c;
  c.checked = true;
  c.tensor = "C";
  c.reference = "gemm(cublas)";
  c.maxAbsErr = 0.5;
  c.mismatches = 24024;
  c.elements = 1 << 20;
  c.firstMismatch[0] = 1024;
  c.firstMismatch[1] = 0;
  p.correctness.push_back(c);
  CoverageInfo cov;
  cov.tensor = "C";
  cov.elements = 1 << 20;
  cov.measured = true;
  cov.written = (1 << 20) - 5;
  cov.unwritten = 5;
  cov.map = CellMap{1, 1, {1, 1}, {"ok"}, {0}};
  p.coverage.push_back(cov);
  p.occupancy.computed = true;
  p.occupancy.theoretical = 0.125;
  p.occupancy.limiter = "registers";
  p.occupancy.warpsPerSm = 8;
  p.occupancy.maxWarpsPerSm = 64;
  p.occupancy.smemPerBlock = 49152;
  Finding f;
  f.category = "oob_write";
  f.message = "C: 24024 element(s) written past its end";
  f.tensor = "C";
  f.evidence = {{"kernel_median_ns", 1234567.0},
                {"bytes_past_end_bytes", 96096},
                {"ctas", {{0, 1, 0}, {1, 1, 0}}},
                {"nested", {{"rows", {1, 2, 3}}}},
                {"ok", true}};
  p.findings.push_back(f);
  r.points.push_back(p);
  r.findings.push_back(f);
  r.verdict = Verdict::incorrect;
  r.treePath = {"start", "fault", "fault.oob_write"};
  TreeStep st;
  st.node = "start";
  st.question = "At which stage does the kernel first fail?";
  st.answer = "fault";
  st.evidence = nlohmann::json::array({{{"finding", "oob_write"}, {"tensor", "C"}}});
  r.treeSteps.push_back(st);
  return r;
}

const DocTable* firstTable(const DocSection& s) {
  for (const DocBlock& b : s.blocks)
    if (const auto* t = std::get_if<DocTable>(&b)) return t;
  return nullptr;
}

std::string cellOf(const DocTable& t, const std::string& header, std::size_t row) {
  const auto it = std::find(t.headers.begin(), t.headers.end(), header);
  return it == t.headers.end() ? "<no column>" : t.rows.at(row).at(std::size_t(it - t.headers.begin()));
}

const Tree& tree() {
  static const Tree t = loadDefaultTree();
  return t;
}

}  // namespace

TEST(Document, APopulatedReportHasEverySection) {
  DocumentOptions o;
  o.tree = &tree();
  const Document d = buildDocument(populated(), o);
  for (const char* id : {"summary", "configuration", "findings", "troubleshooting", "points", "compile",
                         "correctness", "occupancy", "coverage"})
    EXPECT_NE(d.section(id), nullptr) << id;
  EXPECT_EQ(d.title, "TileScope report: gemm");
  EXPECT_EQ(d.banner.verdict, Verdict::incorrect);
  EXPECT_EQ(d.banner.headline, "C: 24024 element(s) written past its end");
  const TreeNode* leaf = tree().find("fault.oob_write");
  ASSERT_NE(leaf, nullptr);
  EXPECT_NE(d.banner.fix.find(leaf->fix), std::string::npos);
  const DocTable* pts = firstTable(*d.section("points"));
  ASSERT_NE(pts, nullptr);
  EXPECT_EQ(cellOf(*pts, "Median", 0), "1.235 ms");
  EXPECT_EQ(cellOf(*pts, "p10 – p90", 0), "1.2 ms – 2 s");
  EXPECT_EQ(cellOf(*pts, "Speedup", 0), "0.0208×");
  EXPECT_EQ(cellOf(*pts, "Baseline", 0), "cublas 25.71 µs");
  EXPECT_EQ(cellOf(*firstTable(*d.section("occupancy")), "Occupancy", 0), "12.5 %");
  EXPECT_EQ(cellOf(*firstTable(*d.section("compile")), "Static smem", 0), "16 KiB");
  // The config: its fields, the source path and the whole JSON.
  bool json = false, source = false;
  for (const DocBlock& b : d.section("configuration")->blocks) {
    if (const auto* c = std::get_if<DocCode>(&b))
      json = c->text.find("\"gemm_tiled.cu\"") != std::string::npos;
    if (const auto* t = std::get_if<DocTable>(&b))
      for (const auto& row : t->rows)
        source = source || (row[0] == "Kernel source" && row[1].find("gemm_tiled.cu") == 0);
  }
  EXPECT_TRUE(json);
  EXPECT_TRUE(source);
  // The figures the GUI fills in: the coverage map of C, the timing distribution, occupancy.
  std::vector<std::string> ids;
  for (const DocFigure& f : documentFigures(populated())) ids.push_back(f.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"timing_distribution", "occupancy_resources", "occupancy_curves",
                                           "occupancy_devices", "coverage_C"}));
}

TEST(Document, EvidenceIsKeyValueRowsWithUnits) {
  const auto rows = evidenceRows(populated().findings[0].evidence);
  auto value = [&](const std::string& k) {
    for (const auto& [key, v] : rows)
      if (key == k) return v;
    return std::string("<missing>");
  };
  EXPECT_EQ(value("kernel_median_ns"), "1.235 ms");
  EXPECT_EQ(value("bytes_past_end_bytes"), "93.84 KiB");
  EXPECT_EQ(value("ctas[0]"), "0, 1, 0");
  EXPECT_EQ(value("nested.rows"), "1, 2, 3");
  EXPECT_EQ(value("ok"), "yes");
  // Capped: a last row says how many were left out.
  nlohmann::json big = nlohmann::json::object();
  for (int i = 0; i < 100; ++i) big["k" + std::to_string(i)] = i;
  const auto capped = evidenceRows(big, 10);
  ASSERT_EQ(capped.size(), 11u);
  EXPECT_EQ(capped.back().second, "90 more values in the report's JSON");
  // The findings section renders evidence as a table, never as JSON text.
  const Document d = buildDocument(populated());
  const std::string md = renderMarkdown(d);
  EXPECT_NE(md.find("| kernel\\_median\\_ns | 1.235 ms |"), std::string::npos) << md;
  EXPECT_EQ(md.find("{\"kernel_median_ns\""), std::string::npos);
}

TEST(Document, DiagnosePointsAreNamedByTheirExperiment) {
  const Report r = loadReport(resourceDir() / "sample" / "session.json");
  ASSERT_EQ(r.verb, "diagnose");
  DocumentOptions o;
  o.tree = &tree();
  const Document d = buildDocument(r, o);
  const DocTable* pts = firstTable(*d.section("points"));
  ASSERT_NE(pts, nullptr);
  ASSERT_EQ(pts->rows.size(), r.points.size());
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < pts->rows.size(); ++i) labels.push_back(cellOf(*pts, "Point", i));
  EXPECT_EQ(labels.front(), "baseline");
  EXPECT_NE(std::find(labels.begin(), labels.end(), "shape M=65 N=65 K=33"), labels.end());
  EXPECT_EQ(std::count(labels.begin(), labels.end(), "#0"), 0);
  ASSERT_NE(d.section("diagnose"), nullptr);
  // One row per experiment the diagnose recorded (the sample is re-recorded on a GPU: read, not assumed).
  ASSERT_TRUE(r.diagnose);
  const std::vector<DiagnoseExperiment>& experiments = r.diagnose->experiments;
  ASSERT_GT(experiments.size(), 1u);
  EXPECT_EQ(firstTable(*d.section("diagnose"))->rows.size(), experiments.size());
  // The troubleshooting path ends in its fix.
  const std::string md = renderMarkdown(d);
  EXPECT_NE(md.find("## Troubleshooting path"), std::string::npos);
  EXPECT_NE(md.find("### Fix: "), std::string::npos);
  EXPECT_NE(md.find("**Fix:**"), std::string::npos);  // in the banner too
}

TEST(Document, HostileStringsAreEscapedInBothRenderers) {
  Report r = populated();
  r.config["name"] = kEvil;
  r.points[0].label = kEvil;
  r.findings[0].message = std::string(kEvil) + "\n- not a list";
  r.findings[0].evidence = {{kEvil, kEvil}};
  r.config["description"] = "```\n# not a heading\n```";
  const Document d = buildDocument(r);
  const std::string html = renderHtml(d);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  const std::string md = renderMarkdown(d);
  // Outside code fences (where text is literal) nothing renders as HTML or a link.
  const std::string text = std::regex_replace(md, std::regex("(`{3,})json\n[\\s\\S]*?\n\\1\n"), "");
  EXPECT_EQ(text.find("<script>"), std::string::npos);
  EXPECT_EQ(text.find("[a](http"), std::string::npos);
  EXPECT_NE(md.find("\\| \\*bold\\* \\_x\\_ \\`code\\` \\[a\\](http://x) \\# h"), std::string::npos) << md;
  // Every table row has as many cells as its header: no '|' broke out of a cell.
  std::regex row("^\\|.*\\|$");
  std::size_t start = 0, lastCells = 0;
  bool inTable = false, inFence = false;
  std::string fence;
  while (start < md.size()) {
    const std::size_t end = md.find('\n', start);
    const std::string line = md.substr(start, end - start);
    start = end == std::string::npos ? md.size() : end + 1;
    if (line.rfind("```", 0) == 0) {
      const std::string marks = line.substr(0, line.find_first_not_of('`'));
      if (!inFence)
        fence = marks, inFence = true;
      else if (marks == fence && line == fence)
        inFence = false;
      continue;
    }
    if (inFence) continue;
    if (!std::regex_match(line, row)) {
      inTable = false;
      continue;
    }
    std::size_t cells = 0;
    for (std::size_t i = 0; i < line.size(); ++i)
      if (line[i] == '|' && (i == 0 || line[i - 1] != '\\')) ++cells;
    if (inTable) {
      EXPECT_EQ(cells, lastCells) << line;
    }
    lastCells = cells;
    inTable = true;
  }
  EXPECT_FALSE(inFence) << "the config's backticks closed the code fence";
  EXPECT_EQ(markdownEscape("1. x"), "1\\. x");
  EXPECT_EQ(markdownEscape("- x"), "\\- x");
}

TEST(Document, MarkdownAndHtmlCarryTheSameSectionsAndNumbers) {
  DocumentOptions o;
  o.tree = &tree();
  const Document d = buildDocument(populated(), o);
  const std::string md = renderMarkdown(d), html = renderHtml(d);
  for (const DocSection& s : d.sections) {
    EXPECT_NE(md.find("## " + markdownEscape(s.heading) + "\n"), std::string::npos) << s.heading;
    EXPECT_NE(html.find(">" + htmlEscape(s.heading) + "</h2>"), std::string::npos) << s.heading;
  }
  for (const std::string n : {"1.235 ms", "0.0208×", "12.5 %", "25.71 µs", "93.84 KiB"}) {
    EXPECT_NE(md.find(n), std::string::npos) << n;
    EXPECT_NE(html.find(n), std::string::npos) << n;
  }
}

TEST(Document, FiguresAreFilledInByTheRenderer) {
  const Document d = buildDocument(populated());
  RenderOptions opt;
  opt.figures = [](const DocFigure& f) -> std::optional<FigureImage> {
    if (f.id != "coverage_C") return std::nullopt;
    return FigureImage{"c.png", 320};
  };
  const std::string html = renderHtml(d, opt), md = renderMarkdown(d, opt);
  EXPECT_NE(html.find("<img src=\"c.png\" width=\"320\" alt=\"Measured coverage of C\">"), std::string::npos);
  EXPECT_NE(md.find("![Measured coverage of C](c.png)"), std::string::npos);
  EXPECT_EQ(html.find("occupancy_curves"), std::string::npos);
  EXPECT_EQ(renderHtml(d).find("<img"), std::string::npos);
}

TEST(Document, ALargeSweepIsCappedAndSaysSo) {
  Report r = populated();
  const Point p = r.points[0];
  r.points.assign(20000, p);
  for (int i = 0; i < 20000; ++i) r.points[std::size_t(i)].index = i;
  r.findings.assign(5000, r.findings[0]);
  DocumentOptions o;
  o.maxPointRows = 100;
  const Document d = buildDocument(r, o);
  EXPECT_EQ(firstTable(*d.section("points"))->rows.size(), 100u);
  EXPECT_EQ(firstTable(*d.section("findings"))->rows.size(), o.maxFindings);
  const std::string md = renderMarkdown(d);
  EXPECT_NE(md.find("The table lists the first 100 of 20000 points"), std::string::npos);
  EXPECT_NE(md.find("The first 40 of 5000 findings are listed; the others: 4960 oob\\_write."),
            std::string::npos);
  EXPECT_NE(md.find("20000 (20000 incorrect)"), std::string::npos);
  EXPECT_LT(md.size(), 400000u);
}

TEST(Document, WithoutTheTreeTheNodesAreNamedAndANoteSaysWhy) {
  const Document d = buildDocument(populated());
  EXPECT_EQ(d.banner.fix, "see the troubleshooting node fault.oob_write");
  EXPECT_NE(renderMarkdown(d).find("The troubleshooting tree was not available"), std::string::npos);
}

// docs/security.md, "Denial of service": a 5 MB label (points[].experiment) took the PDF export over 900 s;
// every renderer lays out the document model, which now holds bounded texts.
TEST(Document, HugeTextsAreCutInTheModelAndSaySo) {
  Report r = populated();
  r.points[0].label.clear();
  r.points[0].experiment = std::string(5'000'000, 'x');
  r.points[0].findings.front().message = std::string(3'000'000, 'y');
  const Document doc = buildDocument(r, {});
  std::size_t longest = 0;
  bool saysCut = false;
  for (const DocSection& s : doc.sections)
    for (const DocBlock& b : s.blocks)
      if (const auto* t = std::get_if<DocTable>(&b))
        for (const auto& row : t->rows)
          for (const auto& cell : row) {
            longest = std::max(longest, cell.size());
            saysCut = saysCut || cell.find("bytes, cut at") != std::string::npos;
          }
  EXPECT_LE(longest, kMaxDocCellBytes + 64);
  EXPECT_TRUE(saysCut);
  EXPECT_LT(renderHtml(doc).size(), std::size_t{2} << 20);
}
