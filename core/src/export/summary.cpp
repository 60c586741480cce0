// The summary every verb prints. Numbers go through format.h, as in the exports
// and the GUI, so a median reads the same everywhere.
#include "tilescope/export/summary.h"

#include <algorithm>
#include <cstdio>

#include "tilescope/base/format.h"
#include "tilescope/model/point_labels.h"

namespace tilescope {

namespace {

/// "  point 3 trial 1 [64, 32]": named as the workbench and the exports name it (point_labels.h).
void printPoint(const Point& p, const PointLabels& names, std::ostream& out) {
  out << "  point " << p.index;
  if (p.trial > 0) out << " trial " << p.trial;
  const std::string name = names.keys().empty() && p.experiment.empty() ? p.label : names.shortLabel(p);
  if (!name.empty()) out << " [" << name << "]";
  out << ": " << verdictName(p.verdict) << '\n';
  const CompileInfo& c = p.compile;
  if (c.attempted) {
    out << "    compile: " << (c.ok ? "ok" : "FAILED") << " (" << c.compiler << ", " << c.arch
        << (c.cached ? ", cached" : "") << ")";
    if (c.ok && c.regs >= 0)
      out << ": " << c.regs << " regs/thread, static smem " << formatBytes(static_cast<double>(c.smemStatic))
          << ", local " << c.localBytes << " B/thread, spills " << std::max<std::int64_t>(0, c.spillStores)
          << " B stored / " << std::max<std::int64_t>(0, c.spillLoads) << " B loaded";
    out << '\n';
  }
  const LaunchInfo& l = p.launch;
  out << "    launch: grid (" << l.grid[0] << "," << l.grid[1] << "," << l.grid[2] << ") block ("
      << l.block[0] << "," << l.block[1] << "," << l.block[2] << "), dynamic smem "
      << formatBytes(static_cast<double>(l.sharedBytes));
  if (!l.error.empty()) out << ", error: " << l.error;
  out << '\n';
  const OccupancyInfo& o = p.occupancy;
  if (o.computed) {
    out << "    occupancy: " << formatPercent(o.theoretical) << " (" << o.blocksPerSm << " blocks/SM, "
        << o.warpsPerSm << " of " << o.maxWarpsPerSm << " warps), limited by " << o.limiter << "; smem/block "
        << formatBytes(static_cast<double>(o.smemPerBlock)) << '\n';
  }
  for (const auto& cov : p.coverage) {
    out << "    coverage " << cov.tensor << ": declared " << cov.declaredCovered << "/" << cov.elements
        << " covered, " << cov.declaredUncovered << " uncovered, " << cov.declaredOverlapped
        << " overlapped, " << cov.tilesTotal << " tiles (" << cov.tilesCrossing << " cross the bounds)";
    if (cov.measured) out << "; measured " << cov.written << " written, " << cov.unwritten << " unwritten";
    out << '\n';
  }
  for (const auto& cr : p.correctness) {
    if (!cr.checked) continue;
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "    correctness %s vs %s: max abs %.3g, max rel %.3g, %lld/%lld mismatches\n",
                  cr.tensor.c_str(), cr.reference.c_str(), cr.maxAbsErr, cr.maxRelErr,
                  static_cast<long long>(cr.mismatches), static_cast<long long>(cr.elements));
    out << buf;
  }
  if (p.timing.measured) {
    const auto& k = p.timing.kernelNs;
    out << "    time: median " << formatDuration(k.median) << " (p10 " << formatDuration(k.p10) << ", p90 "
        << formatDuration(k.p90) << ", n=" << k.n << ", cv " << formatPercent(p.timing.cv) << ")";
    if (p.baseline.measured)
      out << "; " << p.baseline.name << " " << formatDuration(p.baseline.kernelNs.median);
    if (p.speedup) out << "; speedup " << formatRatio(*p.speedup);
    out << '\n';
  }
  const auto& pc = p.counters;
  if (pc.collected) {
    out << "    counters: " << pc.kernel.metrics.size() << " metrics in " << pc.passes << " passes";
    if (pc.baseline)
      out << "; baseline " << pc.baselineKernels.size() << " kernel(s)";
    else if (!pc.baselineNote.empty())
      out << "; " << pc.baselineNote;
    out << '\n';
  } else if (!pc.note.empty()) {
    out << "    counters: " << pc.note << '\n';
  }
}

}  // namespace

void printSummary(const Report& r, std::ostream& out) {
  out << "device: " << r.device.name << " (" << r.device.cc << ", " << r.device.smCount << " SMs"
      << (r.device.live ? ", live" : ", database") << ")\n";
  const PointLabels names(r.points);
  if (!names.keys().empty()) out << "points by " << names.keysText() << '\n';
  for (const auto& p : r.points) printPoint(p, names, out);
  out << "findings: " << r.findings.size() << '\n';
  for (const auto& f : r.findings) {
    out << "  " << severityName(f.severity) << " " << f.category;
    if (!f.detail.empty()) out << "/" << f.detail;
    out << ": " << f.message << '\n';
  }
  out << "verdict: " << verdictName(r.verdict) << '\n';
}

}  // namespace tilescope
