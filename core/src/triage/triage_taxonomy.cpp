// The taxonomy and the speedup distribution of a triage (docs/triage.md): pure
// counting over entries, so the CLI's table, the exports and the GUI's chart
// agree to the entry.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "tilescope/triage/triage.h"

namespace tilescope {

std::string taxonomyKey(const TriageEntry& e) {
  switch (e.status) {
    case EntryStatus::pending:
      return "pending";
    case EntryStatus::not_run:
      return "not_run";
    case EntryStatus::done:
      break;
  }
  if (!e.category.empty()) return e.category;
  // Passed the checks that need no GPU, but nothing ran (no GPU here, or
  // --depth check): not proof of a correct kernel (issue 40).
  return e.level == "check" || (e.extra.is_object() && e.extra.value("no_gpu", false)) ? "checked" : "ok";
}

std::vector<TaxonomyRow> taxonomy(const std::vector<TriageEntry>& entries) {
  std::map<std::string, int> perCategory;
  std::map<std::string, std::map<std::string, int>> perDetail;
  int finished = 0;
  for (const TriageEntry& e : entries) {
    if (e.status == EntryStatus::pending) continue;
    ++finished;
    const std::string key = taxonomyKey(e);
    ++perCategory[key];
    if (e.status == EntryStatus::done && !e.category.empty() && !e.detail.empty()) ++perDetail[key][e.detail];
  }
  const auto pct = [](int n, int of) { return of > 0 ? 100.0 * n / of : 0.0; };
  std::vector<std::pair<std::string, int>> cats(perCategory.begin(), perCategory.end());
  std::stable_sort(cats.begin(), cats.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<TaxonomyRow> rows;
  for (const auto& [cat, n] : cats) {
    rows.push_back({cat, "", n, pct(n, finished), 100.0});
    std::vector<std::pair<std::string, int>> details(perDetail[cat].begin(), perDetail[cat].end());
    std::stable_sort(details.begin(), details.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [detail, m] : details) rows.push_back({cat, detail, m, pct(m, finished), pct(m, n)});
  }
  return rows;
}

namespace {

/// The bins of the speedup histogram: a ladder around 1× (slower on the left).
std::vector<SpeedupBin> speedupLadder() {
  const double inf = std::numeric_limits<double>::infinity();
  return {{0, 0.5, "< 0.5×"},     {0.5, 0.8, "0.5–0.8×"}, {0.8, 1.0, "0.8–1×"}, {1.0, 1.25, "1–1.25×"},
          {1.25, 2.0, "1.25–2×"}, {2.0, 4.0, "2–4×"},     {4.0, inf, "≥ 4×"}};
}

/// The q-quantile of sorted values, interpolated linearly between ranks.
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * double(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - double(lo));
}

}  // namespace

SpeedupSummary speedupSummary(const std::vector<TriageEntry>& entries) {
  SpeedupSummary s;
  s.bins = speedupLadder();
  std::vector<double> v;
  for (const TriageEntry& e : entries)
    if (e.status == EntryStatus::done && e.verdict == Verdict::ok && e.speed.speedup &&
        std::isfinite(*e.speed.speedup) && *e.speed.speedup > 0)
      v.push_back(*e.speed.speedup);
  std::sort(v.begin(), v.end());
  s.n = static_cast<int>(v.size());
  if (v.empty()) return s;
  double logSum = 0;
  for (double x : v) {
    logSum += std::log(x);
    s.faster += x > 1.0;
    for (SpeedupBin& b : s.bins)
      if (x >= b.lo && x < b.hi) ++b.count;
  }
  s.min = v.front();
  s.max = v.back();
  s.p10 = quantile(v, 0.1);
  s.median = quantile(v, 0.5);
  s.p90 = quantile(v, 0.9);
  s.geomean = std::exp(logSum / double(v.size()));
  return s;
}

std::map<std::string, int> triageCounts(const std::vector<TriageEntry>& entries) {
  std::map<std::string, int> c{{"entries", static_cast<int>(entries.size())}};
  for (const TriageEntry& e : entries) {
    ++c[entryStatusName(e.status)];
    // An `ok` that nothing ran counts as `checked`, never as correct.
    if (e.status == EntryStatus::done)
      ++c[e.verdict == Verdict::ok && taxonomyKey(e) == "checked" ? "checked" : verdictName(e.verdict)];
  }
  return c;
}

}  // namespace tilescope
