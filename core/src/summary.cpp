// Text summaries of a report. The CLI prints these; the same numbers the GUI
// shows come from the same Report fields.
#include "tilescope/summary.h"

#include <cstdio>
#include <sstream>

namespace tilescope {

std::string formatNs(double ns) {
  char buf[64];
  if (ns >= 1e6) std::snprintf(buf, sizeof buf, "%.3f ms", ns / 1e6);
  else if (ns >= 1e3) std::snprintf(buf, sizeof buf, "%.2f µs", ns / 1e3);
  else std::snprintf(buf, sizeof buf, "%.0f ns", ns);
  return buf;
}

std::string formatBytes(double bytes) {
  char buf[64];
  if (bytes >= 1024.0 * 1024.0) std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / (1024.0 * 1024.0));
  else if (bytes >= 1024.0) std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / 1024.0);
  else std::snprintf(buf, sizeof buf, "%.0f B", bytes);
  return buf;
}

namespace {

void printPoint(const Point& p, std::ostream& out) {
  out << "  point " << p.index;
  if (p.trial > 0) out << " trial " << p.trial;
  if (!p.label.empty()) out << " [" << p.label << "]";
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
  out << "    launch: grid (" << l.grid[0] << "," << l.grid[1] << "," << l.grid[2] << ") block (" << l.block[0] << ","
      << l.block[1] << "," << l.block[2] << "), dynamic smem " << formatBytes(static_cast<double>(l.sharedBytes));
  if (!l.error.empty()) out << ", error: " << l.error;
  out << '\n';
  const OccupancyInfo& o = p.occupancy;
  if (o.computed) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "    occupancy: %.0f%% (%d blocks/SM, %d of %d warps), limited by %s; smem/block %s\n",
                  o.theoretical * 100, o.blocksPerSm, o.warpsPerSm, o.maxWarpsPerSm, o.limiter.c_str(),
                  formatBytes(static_cast<double>(o.smemPerBlock)).c_str());
    out << buf;
  }
  for (const auto& cov : p.coverage) {
    out << "    coverage " << cov.tensor << ": declared " << cov.declaredCovered << "/" << cov.elements
        << " covered, " << cov.declaredUncovered << " uncovered, " << cov.declaredOverlapped << " overlapped, "
        << cov.tilesTotal << " tiles (" << cov.tilesCrossing << " cross the bounds)";
    if (cov.measured) out << "; measured " << cov.written << " written, " << cov.unwritten << " unwritten";
    out << '\n';
  }
  for (const auto& cr : p.correctness) {
    if (!cr.checked) continue;
    char buf[256];
    std::snprintf(buf, sizeof buf, "    correctness %s vs %s: max abs %.3g, max rel %.3g, %lld/%lld mismatches\n",
                  cr.tensor.c_str(), cr.reference.c_str(), cr.maxAbsErr, cr.maxRelErr,
                  static_cast<long long>(cr.mismatches), static_cast<long long>(cr.elements));
    out << buf;
  }
  if (p.timing.measured) {
    const auto& k = p.timing.kernelNs;
    out << "    time: median " << formatNs(k.median) << " (p10 " << formatNs(k.p10) << ", p90 " << formatNs(k.p90)
        << ", n=" << k.n << ", cv " << p.timing.cv * 100 << "%)";
    if (p.baseline.measured) out << "; " << p.baseline.name << " " << formatNs(p.baseline.kernelNs.median);
    if (p.speedup) out << "; speedup " << *p.speedup << "x";
    out << '\n';
  }
  const auto& pc = p.counters;
  if (pc.collected) {
    out << "    counters: " << pc.kernel.metrics.size() << " metrics in " << pc.passes << " passes";
    if (pc.baseline) out << "; baseline " << pc.baselineKernels.size() << " kernel(s)";
    else if (!pc.baselineNote.empty()) out << "; " << pc.baselineNote;
    out << '\n';
  } else if (!pc.note.empty()) {
    out << "    counters: " << pc.note << '\n';
  }
}

}  // namespace

void printSummary(const Report& r, std::ostream& out) {
  out << "device: " << r.device.name << " (" << r.device.cc << ", " << r.device.smCount << " SMs"
      << (r.device.live ? ", live" : ", database") << ")\n";
  for (const auto& p : r.points) printPoint(p, out);
  out << "findings: " << r.findings.size() << '\n';
  for (const auto& f : r.findings) {
    out << "  " << severityName(f.severity) << " " << f.category;
    if (!f.detail.empty()) out << "/" << f.detail;
    out << ": " << f.message << '\n';
  }
  out << "verdict: " << verdictName(r.verdict) << '\n';
}

std::string htmlEscape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += c;
    }
  }
  return o;
}

namespace {

std::string mdCell(std::string s) {
  for (auto& c : s)
    if (c == '|' || c == '\n') c = ' ';
  return s;
}

std::string pointTime(const Point& p) { return p.timing.measured ? formatNs(p.timing.kernelNs.median) : "-"; }
std::string pointBaseline(const Point& p) {
  return p.baseline.measured ? formatNs(p.baseline.kernelNs.median) : "-";
}
std::string pointSpeedup(const Point& p) {
  if (!p.speedup) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.2fx", *p.speedup);
  return b;
}

}  // namespace

std::string renderMarkdown(const Report& r) {
  std::ostringstream o;
  o << "# TileScope report: " << mdCell(r.config.value("name", std::string("?"))) << "\n\n";
  o << "- verb: " << r.verb << "\n- device: " << mdCell(r.device.name) << " (cc " << r.device.cc << ")\n"
    << "- verdict: **" << verdictName(r.verdict) << "**\n- created: " << r.createdAt << " on " << mdCell(r.host)
    << "\n\n## Findings\n\n";
  if (r.findings.empty()) o << "None.\n";
  else {
    o << "| severity | category | message |\n| --- | --- | --- |\n";
    for (const auto& f : r.findings)
      o << "| " << severityName(f.severity) << " | " << f.category << (f.detail.empty() ? "" : "/" + f.detail)
        << " | " << mdCell(f.message) << " |\n";
  }
  o << "\n## Points\n\n| point | verdict | kernel median | baseline | speedup |\n| --- | --- | --- | --- | --- |\n";
  for (const auto& p : r.points)
    o << "| " << mdCell(p.label.empty() ? std::to_string(p.index) : p.label) << (p.trial ? " #" + std::to_string(p.trial) : "")
      << " | " << verdictName(p.verdict) << " | " << pointTime(p) << " | " << pointBaseline(p) << " | "
      << pointSpeedup(p) << " |\n";
  if (!r.treePath.empty()) {
    o << "\n## Troubleshooting path\n\n";
    for (const auto& n : r.treePath) o << "1. " << mdCell(n) << '\n';
  }
  return o.str();
}

std::string renderHtml(const Report& r) {
  std::ostringstream o;
  const std::string name = htmlEscape(r.config.value("name", std::string("?")));
  o << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>TileScope: " << name << "</title>"
    << "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #999;"
       "padding:3px 8px}.error{color:#b00}.warning{color:#a60}</style></head><body>\n"
    << "<h1>TileScope report: " << name << "</h1>\n<p>Device: " << htmlEscape(r.device.name) << " (cc "
    << htmlEscape(r.device.cc) << ")<br>Verdict: <b>" << verdictName(r.verdict) << "</b><br>Created "
    << htmlEscape(r.createdAt) << " on " << htmlEscape(r.host) << "</p>\n<h2>Findings</h2>\n<table><tr><th>severity"
    << "</th><th>category</th><th>message</th></tr>\n";
  for (const auto& f : r.findings)
    o << "<tr class=\"" << severityName(f.severity) << "\"><td>" << severityName(f.severity) << "</td><td>"
      << htmlEscape(f.category + (f.detail.empty() ? "" : "/" + f.detail)) << "</td><td>" << htmlEscape(f.message)
      << "</td></tr>\n";
  o << "</table>\n<h2>Points</h2>\n<table><tr><th>point</th><th>verdict</th><th>kernel median</th><th>baseline</th>"
    << "<th>speedup</th></tr>\n";
  for (const auto& p : r.points)
    o << "<tr><td>" << htmlEscape(p.label.empty() ? std::to_string(p.index) : p.label) << "</td><td>"
      << verdictName(p.verdict) << "</td><td>" << htmlEscape(pointTime(p)) << "</td><td>"
      << htmlEscape(pointBaseline(p)) << "</td><td>" << pointSpeedup(p) << "</td></tr>\n";
  o << "</table>\n</body></html>\n";
  return o.str();
}

}  // namespace tilescope
