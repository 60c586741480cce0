// A comparison (report_diff.h) as an export document, and that document as
// plain text for a terminal: every number through format.h's ladders, so the
// CLI's table, the exports and the workbench's view read alike.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "tilescope/base/format.h"
#include "tilescope/counters/counters.h"
#include "tilescope/export/report_diff.h"

namespace tilescope {

namespace {

/// The unit a value is formatted in: a counter's own (metricDef) for "metric".
std::string unitOf(const DiffValue& v) {
  if (v.unit != "metric") return v.unit;
  const std::string u = metricDef(v.key).unit;
  if (u == "inst") return "count";
  return u;
}

std::string printed(const char* fmt, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, x);
  return buf;
}

/// |x| in the unit (a delta's magnitude; percentages as points).
std::string magnitude(const std::string& unit, double x) {
  if (unit == "ns") return formatDuration(x);
  if (unit == "B") return formatBytes(x);
  if (unit == "B/s") return formatBytes(x) + "/s";
  if (unit == "FLOP/s") return formatFlops(x);
  if (unit == "%") return printed("%.1f pp", x);
  if (unit == "fraction") return printed("%.1f pp", 100 * x);
  if (unit == "count") return formatCount(x);
  if (unit == "Hz") return printed("%.0f MHz", x / 1e6);
  return formatNumber(x);
}

std::string pointText(const DiffSide& s) {
  std::string t = "#" + std::to_string(s.point) + " of " + std::to_string(s.points);
  if (!s.label.empty() && s.label != "#" + std::to_string(s.sweepIndex)) t += " (" + s.label + ")";
  return t;
}

std::vector<std::string> valueRow(const DiffValue& v) {
  return {v.label, formatDiffValue(v, v.a), formatDiffValue(v, v.b), formatDiffDelta(v)};
}

DocTable valueTable(const std::string& caption, const std::vector<DiffValue>& values, const char* what = "") {
  DocTable t{caption, {what[0] ? what : "quantity", "A", "B", "B − A"}, {}};
  for (const DiffValue& v : values) t.rows.push_back(valueRow(v));
  return t;
}

std::size_t changedCount(const std::vector<DiffValue>& values) {
  return static_cast<std::size_t>(
      std::count_if(values.begin(), values.end(), [](const DiffValue& v) { return v.changed(); }));
}

const DiffValue* findValue(const std::vector<DiffValue>& values, const std::string& key) {
  for (const DiffValue& v : values)
    if (v.key == key) return &v;
  return nullptr;
}

std::string gist(const ReportDiff& d) {
  std::string s = std::string(verdictName(d.a.verdict)) + " → " + verdictName(d.b.verdict);
  const DiffValue* median = findValue(d.timing.values, "kernel_ns.median");
  if (median && median->both())
    s += "; kernel median " + formatDiffValue(*median, median->a) + " → " +
         formatDiffValue(*median, median->b) + " (" + formatDiffDelta(*median) +
         (d.timing.significant ? ", beyond both spreads)" : ", within the spread)");
  std::size_t appeared = 0, gone = 0;
  for (const FindingDiff& f : d.findings) {
    appeared += f.change == FindingChange::appeared;
    gone += f.change == FindingChange::gone;
  }
  s += "; findings: " + std::to_string(appeared) + " appeared, " + std::to_string(gone) + " gone";
  return s;
}

DocSection summarySection(const ReportDiff& d) {
  DocSection s{"summary", "Summary", {}, false};
  DocTable t{"The two results", {"", "A", "B"}, {}};
  t.rows.push_back({"file", d.a.file, d.b.file});
  t.rows.push_back({"kernel", d.a.name + " (" + d.a.entry + ")", d.b.name + " (" + d.b.entry + ")"});
  t.rows.push_back({"verb", d.a.verb, d.b.verb});
  t.rows.push_back({"device", d.a.device, d.b.device});
  t.rows.push_back({"point", pointText(d.a), pointText(d.b)});
  t.rows.push_back({"verdict", verdictName(d.a.verdict), verdictName(d.b.verdict)});
  s.blocks.push_back(std::move(t));
  for (const std::string& w : d.warnings) s.blocks.push_back(DocParagraph{"Warning: " + w, false});
  return s;
}

DocSection timingSection(const ReportDiff& d) {
  DocSection s{"timing", "Timing", {}, false};
  if (!d.timing.measuredA && !d.timing.measuredB) {
    s.blocks.push_back(DocParagraph{"Neither side was timed.", false});
    return s;
  }
  s.blocks.push_back(valueTable("Kernel time (CUPTI) and the baseline", d.timing.values));
  std::string note;
  if (!d.timing.measuredA || !d.timing.measuredB)
    note = std::string("Only ") + (d.timing.measuredA ? "A" : "B") + " was timed.";
  else if (d.timing.significant)
    note = "The p10–p90 ranges do not overlap: the change is larger than either run's spread.";
  else
    note = "The p10–p90 ranges overlap: the change is within the runs' spread.";
  s.blocks.push_back(DocParagraph{note, false});
  return s;
}

std::string mapText(const ErrorMapDiff& m) {
  std::ostringstream o;
  o << "Error maps (" << m.rows << "×" << m.cols << " cells of " << m.cell[0] << "×" << m.cell[1]
    << " elements" << (m.resampled ? ", B resampled onto A's grid" : "") << "): " << m.worse
    << " cells worse in B, " << m.better << " better, " << m.bothBad << " not finite in both, " << m.same
    << " unchanged (within " << formatNumber(m.tolerance) << "). Largest growth of a cell's max |error| "
    << formatNumber(m.maxGrowth) << ", largest decrease " << formatNumber(m.maxShrink) << ".";
  return o.str();
}

/// "C: the same bytes on both sides (digest 1f2e...)", "C: the bytes differ (...)".
std::string outputBytesText(const OutputBytesDiff& o) {
  if (o.identical) return o.tensor + ": the same bytes on both sides (digest " + o.digestA + ").";
  if (o.digestA.empty() || o.digestB.empty())
    return o.tensor + ": only " + (o.digestA.empty() ? "B" : "A") + " digested its bytes.";
  return o.tensor + ": the bytes differ (digest " + o.digestA + " against " + o.digestB + ").";
}

DocSection correctnessSection(const ReportDiff& d) {
  DocSection s{"correctness", "Correctness", {}, false};
  if (d.correctness.empty()) s.blocks.push_back(DocParagraph{"Neither side checked an output.", false});
  for (const CorrectnessDiff& c : d.correctness) {
    s.blocks.push_back(DocSubheading{"Output " + c.tensor});
    s.blocks.push_back(valueTable("Correctness of " + c.tensor, c.values));
    s.blocks.push_back(
        DocParagraph{c.map ? mapText(*c.map) : "No map difference: " + c.mapNote + ".", false});
  }
  if (!d.outputs.empty()) {
    s.blocks.push_back(DocSubheading{"Output bytes, A against B"});
    for (const OutputBytesDiff& o : d.outputs) s.blocks.push_back(DocParagraph{outputBytesText(o), false});
  }
  return s;
}

DocSection resourcesSection(const ReportDiff& d) {
  DocSection s{"resources", "Resources", {}, false};
  s.blocks.push_back(valueTable("Compiled and launched resources", d.resources));
  return s;
}

DocSection countersSection(const ReportDiff& d) {
  DocSection s{"counters", "Hardware counters", {}, false};
  const CountersDiff& c = d.counters;
  if (!c.collectedA && !c.collectedB) {
    s.blocks.push_back(DocParagraph{"Neither side read hardware counters.", false});
    return s;
  }
  if (!c.collectedA || !c.collectedB)
    s.blocks.push_back(
        DocParagraph{std::string("Only ") + (c.collectedA ? "A" : "B") + " read counters.", false});
  s.blocks.push_back(valueTable("Speed of light and derived figures", c.speedOfLight, "figure"));
  const auto oneSided = static_cast<std::size_t>(
      std::count_if(c.metrics.begin(), c.metrics.end(), [](const DiffValue& v) { return !v.both(); }));
  s.blocks.push_back(DocParagraph{std::to_string(changedCount(c.metrics) - oneSided) + " of " +
                                      std::to_string(c.metrics.size()) + " metrics differ, " +
                                      std::to_string(oneSided) + " were read on one side only.",
                                  false});
  DocTable t = valueTable("Metrics (Nsight Compute names)", c.metrics, "metric");
  for (std::size_t i = 0; i < c.metrics.size(); ++i) t.rows[i][0] = c.metrics[i].key;
  s.blocks.push_back(std::move(t));
  return s;
}

std::string locationOrDash(const std::optional<Location>& l) {
  if (!l) return "–";
  const std::string t = locationText(*l);
  return t.empty() ? "(no location)" : t;
}

DocSection findingsSection(const ReportDiff& d) {
  DocSection s{"findings", "Findings", {}, false};
  std::size_t n[4] = {0, 0, 0, 0};
  for (const FindingDiff& f : d.findings) ++n[static_cast<int>(f.change)];
  s.blocks.push_back(DocParagraph{std::to_string(n[2]) + " appeared, " + std::to_string(n[3]) +
                                      " went away, " + std::to_string(n[1]) + " moved, " +
                                      std::to_string(n[0]) + " unchanged.",
                                  false});
  if (d.findings.empty()) return s;
  DocTable t{"Findings matched by category and location", {"change", "category", "A", "B"}, {}};
  // What changed first: appeared, gone, moved, then the unchanged.
  for (FindingChange c :
       {FindingChange::appeared, FindingChange::gone, FindingChange::moved, FindingChange::same})
    for (const FindingDiff& f : d.findings)
      if (f.change == c)
        t.rows.push_back(
            {findingChangeName(c), f.category, locationOrDash(f.locationA), locationOrDash(f.locationB)});
  s.blocks.push_back(std::move(t));
  return s;
}

}  // namespace

std::string formatDiffValue(const DiffValue& v, std::optional<double> x) {
  if (!x) return "–";
  if (v.unit == "metric") return formatMetric(v.key, *x);
  const std::string unit = unitOf(v);
  if (unit == "%") return printed("%.1f %%", *x);
  if (unit == "fraction") return formatPercent(*x);
  if (unit == "x") return formatRatio(*x);
  return magnitude(unit, *x);
}

std::string formatDiffDelta(const DiffValue& v) {
  if (!v.a && !v.b) return "–";
  if (!v.a) return "new";
  if (!v.b) return "gone";
  const double delta = v.delta();
  if (delta == 0) return "0";
  const std::string unit = unitOf(v);
  std::string s = (delta > 0 ? "+" : "-") + magnitude(unit, std::fabs(delta));
  const double rel = v.relative();
  if (unit != "%" && unit != "fraction" && std::isfinite(rel))
    s += " (" + std::string(rel > 0 ? "+" : "-") + printed("%.1f %%", 100 * std::fabs(rel)) + ")";
  return s;
}

Document buildCompareDocument(const ReportDiff& d) {
  Document doc;
  const auto fileName = [](const std::string& f) { return f.substr(f.find_last_of('/') + 1); };
  doc.title = "Comparison: " + fileName(d.a.file) + " " + pointText(d.a) + " vs " + fileName(d.b.file) + " " +
              pointText(d.b);
  doc.banner.verdict = d.b.verdict;
  doc.banner.label = std::string("A ") + verdictName(d.a.verdict) + ", B " + verdictName(d.b.verdict);
  doc.banner.headline = gist(d);
  doc.sections = {summarySection(d),     timingSection(d),   resourcesSection(d),
                  correctnessSection(d), countersSection(d), findingsSection(d)};
  clipDocument(doc);
  return doc;
}

}  // namespace tilescope
