// The report's behaviour beside its field lists (report_json.cpp): merging the
// points' findings, the verdict a finding implies, and reading and writing files
// so that a hostile file cannot crash the reader and a failed write cannot lose
// the report that was there.
#include "tilescope/model/report.h"

#include <algorithm>
#include <stdexcept>

namespace tilescope {

using nlohmann::json;

Verdict verdictForFinding(const Finding& f) { return categoryInfo(f.category).verdict; }

Verdict verdictForFindings(const std::vector<Finding>& findings) {
  Verdict v = Verdict::ok;
  for (const auto& f : findings) {
    const Verdict implied = verdictForFinding(f);
    // A warning or an info fails nothing; being slow is a verdict at any severity.
    if (f.severity == Severity::error || implied == Verdict::slow) v = worse(v, implied);
  }
  return v;
}

void Report::finalize() {
  verdict = Verdict::ok;
  findings.clear();
  for (const auto& p : points) {
    verdict = worse(verdict, p.verdict);
    for (const auto& f : p.findings) {
      // Merge: one finding per (category, detail, tensor) across points and trials;
      // the first point's message stands for all, evidence.points lists them.
      auto same = [&](const Finding& g) {
        return g.category == f.category && g.detail == f.detail && g.tensor == f.tensor;
      };
      auto it = std::find_if(findings.begin(), findings.end(), same);
      if (it == findings.end()) {
        Finding m = f;
        if (points.size() > 1) {
          if (!m.evidence.is_object()) m.evidence = json::object();
          m.evidence["points"] = json::array({p.index});
        }
        findings.push_back(std::move(m));
      } else if (points.size() > 1) {
        auto& pts = it->evidence["points"];
        if (std::find(pts.begin(), pts.end(), json(p.index)) == pts.end()) pts.push_back(p.index);
      }
    }
  }
  // Severity first; among equals the performance findings with the largest estimated
  // gain (evidence.estimated_gain, counters.h rankByGain) lead, as in the points.
  auto gain = [](const Finding& f) {
    const auto g = f.evidence.is_object() ? f.evidence.find("estimated_gain") : f.evidence.end();
    return g != f.evidence.end() && g->is_number() && g->get<double>() > 0 ? g->get<double>() : 0.0;
  };
  std::stable_sort(findings.begin(), findings.end(), [&](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return static_cast<int>(a.severity) > static_cast<int>(b.severity);
    return gain(a) > gain(b);
  });
}

LaunchGeometry launchGeometry(const LaunchInfo& l) {
  return {{l.grid[0], l.grid[1], l.grid[2]}, {l.block[0], l.block[1], l.block[2]}, l.sharedBytes};
}

int exitCodeFor(const Report& r) { return r.verdict == Verdict::ok ? kExitOk : kExitFindings; }

// ---------------------------------------------------------------- files

Report loadReport(const std::filesystem::path& file) {
  try {
    const std::string text = readInputFile(file, kMaxReportBytes);
    if (std::optional<Report> r = reportFromText(text)) return std::move(*r);
    return reportFromJson(parseJson(text));
  } catch (const std::exception& e) {
    throw std::runtime_error(file.string() + ": " + e.what());
  }
}

void saveReport(const Report& r, const std::filesystem::path& file) {
  writeFileAtomically(file, dumpJson(toJson(r), 1) + "\n");
}

}  // namespace tilescope
