// The per-point sections of the export document. Each table lists at most
// DocumentOptions::maxPointRows points and says so when a sweep has more.
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "document_detail.h"
#include "tilescope/base/format.h"
#include "tilescope/counters/counters.h"
#include "tilescope/model/point_labels.h"

namespace tilescope::doc_detail {

namespace {

const char* const kDash = "–";

std::string grid3(const std::int64_t v[3]) {
  return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + ")";
}

/// The note under a capped table, or nothing.
void capNote(DocSection* s, const Report& r, std::size_t cap) {
  if (r.points.size() <= cap) return;
  s->blocks.push_back(DocParagraph{
      "The table lists the first " + std::to_string(cap) + " of " + std::to_string(r.points.size()) +
          " points (the summary counts every verdict; the report's JSON holds them all).",
      true});
}

/// Points named in tables as the workbench names them (point_labels.h): the swept
/// values ("64, 32") or the experiment, a sweep's trials told apart; the table's
/// caption names the swept keys.
class TableNames {
 public:
  explicit TableNames(const Report& r) : m_labels(r.points) {}
  std::string operator()(const Point& p) const {
    return m_labels.shortLabel(p) +
           (p.trial > 0 && p.experiment.empty() ? " t" + std::to_string(p.trial) : "");
  }
  std::string caption() const { return m_labels.keys().empty() ? "" : "Points by " + m_labels.keysText(); }

 private:
  PointLabels m_labels;
};

std::size_t rowsOf(const Report& r, const DocumentOptions& o) {
  return std::min(r.points.size(), o.maxPointRows);
}

DocSection points(const Report& r, const DocumentOptions& o) {
  DocSection s{"points", "Points", {}, true};
  const TableNames name(r);
  DocTable t{
      name.caption(), {"#", "Point", "Verdict", "Median", "p10 – p90", "Baseline", "Speedup", "CV"}, {}};
  for (std::size_t i = 0; i < rowsOf(r, o); ++i) {
    const Point& p = r.points[i];
    const bool timed = p.timing.measured;
    t.rows.push_back(
        {std::to_string(i), name(p), verdictName(p.verdict),
         timed ? formatDuration(p.timing.kernelNs.median) : kDash,
         timed ? formatDuration(p.timing.kernelNs.p10) + " – " + formatDuration(p.timing.kernelNs.p90)
               : kDash,
         p.baseline.measured ? p.baseline.name + " " + formatDuration(p.baseline.kernelNs.median) : kDash,
         p.speedup ? formatRatio(*p.speedup) : kDash, timed ? formatPercent(p.timing.cv) : kDash});
  }
  s.blocks.push_back(t);
  capNote(&s, r, o.maxPointRows);
  return s;
}

DocSection compileLaunch(const Report& r, const DocumentOptions& o) {
  DocSection s{"compile", "Compile and launch", {}, false};
  const TableNames name(r);
  DocTable t{name.caption(),
             {"Point", "Compile", "Regs/thread", "Static smem", "Local/thread", "Spills (st / ld)", "Grid",
              "Block", "Dynamic smem", "Launch"},
             {}};
  bool any = false;
  for (std::size_t i = 0; i < rowsOf(r, o); ++i) {
    const Point& p = r.points[i];
    const CompileInfo& c = p.compile;
    const LaunchInfo& l = p.launch;
    any = any || c.attempted || l.attempted;
    const std::string compile = !c.attempted ? kDash
                                : c.ok
                                    ? "ok (" + c.compiler + ", " + c.arch + (c.cached ? ", cached" : "") + ")"
                                    : "FAILED (" + c.compiler + ")";
    t.rows.push_back({name(p), compile, c.regs >= 0 ? std::to_string(c.regs) : kDash,
                      c.smemStatic >= 0 ? formatBytes(double(c.smemStatic)) : kDash,
                      c.localBytes >= 0 ? formatBytes(double(c.localBytes)) : kDash,
                      c.spillStores >= 0 ? formatBytes(double(c.spillStores)) + " / " +
                                               formatBytes(double(std::max<std::int64_t>(0, c.spillLoads)))
                                         : kDash,
                      grid3(l.grid), grid3(l.block), formatBytes(double(l.sharedBytes)),
                      !l.attempted ? kDash
                      : l.ok       ? "ok"
                                   : (l.error.empty() ? "failed" : l.error)});
  }
  if (!any) return s;
  s.blocks.push_back(t);
  capNote(&s, r, o.maxPointRows);
  return s;
}

DocSection correctness(const Report& r, const DocumentOptions& o) {
  DocSection s{"correctness", "Correctness", {}, false};
  const TableNames name(r);
  DocTable t{name.caption(),
             {"Point", "Tensor", "Reference", "Max abs err", "Max rel err", "Mismatches", "NaN", "Inf",
              "First mismatch"},
             {}};
  for (std::size_t i = 0; i < rowsOf(r, o); ++i)
    for (const CorrectnessInfo& c : r.points[i].correctness) {
      if (!c.checked) continue;
      t.rows.push_back(
          {name(r.points[i]), c.tensor, c.reference, formatNumber(c.maxAbsErr), formatNumber(c.maxRelErr),
           std::to_string(c.mismatches) + " of " + std::to_string(c.elements), std::to_string(c.nan),
           std::to_string(c.inf),
           c.firstMismatch[0] < 0
               ? kDash
               : "[" + std::to_string(c.firstMismatch[0]) + ", " + std::to_string(c.firstMismatch[1]) + "]"});
    }
  if (t.rows.empty()) return s;
  s.blocks.push_back(t);
  capNote(&s, r, o.maxPointRows);
  return s;
}

std::string limiterName(const std::string& limiter) {
  if (limiter == "shared_memory") return "shared memory";
  if (limiter == "blocks") return "block slots";
  return limiter;
}

DocSection occupancy(const Report& r, const DocumentOptions& o) {
  DocSection s{"occupancy", "Occupancy", {}, true};
  const TableNames name(r);
  DocTable t{
      name.caption(),
      {"Point", "Threads", "Regs/thread", "Smem/block", "Blocks/SM", "Warps/SM", "Occupancy", "Limiter"},
      {}};
  for (std::size_t i = 0; i < rowsOf(r, o); ++i) {
    const OccupancyInfo& oc = r.points[i].occupancy;
    if (!oc.computed) continue;
    t.rows.push_back({name(r.points[i]), std::to_string(oc.threadsPerBlock), std::to_string(oc.regsPerThread),
                      formatBytes(double(oc.smemPerBlock)), std::to_string(oc.blocksPerSm),
                      std::to_string(oc.warpsPerSm) + " of " + std::to_string(oc.maxWarpsPerSm),
                      formatPercent(oc.theoretical), limiterName(oc.limiter)});
  }
  if (t.rows.empty()) return s;
  s.blocks.push_back(t);
  capNote(&s, r, o.maxPointRows);
  return s;
}

DocSection coverage(const Report& r, const DocumentOptions& o) {
  DocSection s{"coverage", "Coverage", {}, true};
  const TableNames name(r);
  DocTable t{name.caption(),
             {"Point", "Tensor", "Elements", "Written", "Unwritten", "Declared uncovered",
              "Declared overlapped", "Tiles (crossing the bounds)"},
             {}};
  for (std::size_t i = 0; i < rowsOf(r, o); ++i)
    for (const CoverageInfo& c : r.points[i].coverage)
      t.rows.push_back({name(r.points[i]), c.tensor, std::to_string(c.elements),
                        c.measured ? std::to_string(c.written) : kDash,
                        c.measured ? std::to_string(c.unwritten) : kDash, std::to_string(c.declaredUncovered),
                        std::to_string(c.declaredOverlapped),
                        std::to_string(c.tilesTotal) + " (" + std::to_string(c.tilesCrossing) + ")"});
  if (t.rows.empty()) return s;
  s.blocks.push_back(t);
  capNote(&s, r, o.maxPointRows);
  return s;
}

DocSection counters(const Report& r) {
  DocSection s{"counters", "Hardware counters", {}, true};
  const int focus = focusPoint(r);
  if (focus < 0) return s;
  const Point& p = r.points[std::size_t(focus)];
  const CountersInfo& c = p.counters;
  if (!c.collected) {
    if (!c.note.empty()) s.blocks.push_back(DocParagraph{"Point " + pointLabel(p) + ": " + c.note});
    return s;
  }
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.2f", c.seconds);
  s.blocks.push_back(DocParagraph{"Point " + pointLabel(p) + ": " + std::to_string(c.metrics.size()) +
                                  " metrics (ncu's names) on " + c.chip + ", " + std::to_string(c.passes) +
                                  " replay passes, " + secs + " s of profiling."});
  DocTable t{"", {"Metric", "ncu name", "Kernel", "Baseline", "Kernel / baseline"}, {}};
  for (const std::string& name : c.metrics) {
    const double k = c.kernel.get(name, NAN), b = c.baseline ? c.baseline->get(name, NAN) : NAN;
    t.rows.push_back({metricDef(name).label, name, formatMetric(name, k), formatMetric(name, b),
                      known(k) && known(b) && b != 0 ? formatRatio(k / b) : kDash});
  }
  s.blocks.push_back(t);
  if (c.pcSampling.collected && !c.pcSampling.lines.empty()) {
    DocTable l{"Hottest lines (PC sampling, " + std::to_string(c.pcSampling.totalSamples) + " samples)",
               {"Line", "Samples", "Main stalls"},
               {}};
    for (const HotLine& h : c.pcSampling.lines) {
      std::string stalls;
      for (std::size_t i = 0; i < h.stalls.size() && i < 3; ++i)
        stalls += (i ? ", " : "") + h.stalls[i].reason + " (" + std::to_string(h.stalls[i].samples) + ")";
      // The recording machine's absolute path says nothing here: its file name does.
      const std::string file = std::filesystem::path(h.file).is_absolute()
                                   ? std::filesystem::path(h.file).filename().string()
                                   : h.file;
      l.rows.push_back({file + ":" + std::to_string(h.line), std::to_string(h.samples), stalls});
    }
    s.blocks.push_back(l);
  }
  return s;
}

void addFigures(std::vector<DocSection>* sections, const Report& r) {
  for (const DocFigure& f : documentFigures(r)) {
    const std::string prefix = f.id.substr(0, f.id.find('_'));
    const std::string section = prefix == "timing" ? "points" : prefix;
    for (DocSection& s : *sections)
      if (s.id == section) s.blocks.push_back(f);
  }
}

}  // namespace

std::vector<DocSection> pointSections(const Report& r, const DocumentOptions& o) {
  if (r.points.empty()) return {};
  std::vector<DocSection> out{points(r, o),    compileLaunch(r, o), correctness(r, o),
                              occupancy(r, o), counters(r),         coverage(r, o)};
  addFigures(&out, r);
  return out;
}

}  // namespace tilescope::doc_detail

namespace tilescope {

std::vector<DocFigure> documentFigures(const Report& r) {
  std::vector<DocFigure> figs;
  const int focus = focusPoint(r);
  if (focus < 0) return figs;
  const Point& p = r.points[std::size_t(focus)];
  const std::string at = " (point " + pointLabel(p) + ")";
  if (r.points.size() > 1) figs.push_back({"timing_sweep", "Median kernel time per point"});
  if (p.timing.measured) figs.push_back({"timing_distribution", "Duration distribution" + at});
  if (p.occupancy.computed) {
    figs.push_back({"occupancy_resources", "Per-SM resources" + at});
    figs.push_back({"occupancy_curves", "Occupancy calculator" + at});
    figs.push_back({"occupancy_devices", "Same configuration on other devices"});
  }
  if (p.counters.collected) {
    figs.push_back({"counters_speed_of_light", "Speed of light, kernel vs baseline" + at});
    figs.push_back({"counters_roofline", "Roofline" + at});
  }
  for (const CoverageInfo& c : p.coverage) {
    if (!c.map || c.map->states.empty()) continue;
    std::string id = c.tensor;
    for (char& ch : id)
      if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    figs.push_back({"coverage_" + id, "Measured coverage of " + c.tensor, c.tensor});
  }
  return figs;
}

}  // namespace tilescope
