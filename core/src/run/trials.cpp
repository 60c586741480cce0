// Trials of one point: what two runs on identical inputs are compared on, the
// `race` finding when they disagree and `gpu_variance` when their times follow
// the GPU they ran on; the sweep's result matrix.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "tilescope/base/format.h"
#include "tilescope/run/session.h"

namespace tilescope {

using nlohmann::json;

json runOutcome(const Point& p, bool withMaxErr, bool withDigest) {
  const Verdict v = p.verdict == Verdict::slow ? Verdict::ok : p.verdict;
  json s = {{"verdict", verdictName(v)}};
  // The digest decides exactly where both runs have one (trials of one point
  // start from identical inputs and sentinels); the figures are what every
  // point carries.
  if (withDigest && !p.status.outputDigest.empty()) s["digest"] = p.status.outputDigest;
  json outs = json::object();
  for (const auto& c : p.correctness) {
    if (!c.checked) continue;
    json o = {{"mismatches", c.mismatches}, {"nan", c.nan}, {"inf", c.inf}};
    if (withMaxErr) o["max_abs_err"] = c.maxAbsErr;
    outs[c.tensor.empty() ? "?" : c.tensor] = o;
  }
  for (const auto& cov : p.coverage)
    if (cov.measured) outs[cov.tensor]["unwritten"] = cov.unwritten;
  if (!outs.empty()) s["outputs"] = outs;
  return s;
}

namespace {

/// The GPUs trials of one point ran on, by UUID ("" when only one, or unknown).
std::map<std::string, std::vector<const Point*>> byGpu(const std::vector<Point*>& pts) {
  std::map<std::string, std::vector<const Point*>> groups;
  for (const Point* p : pts)
    if (!p->gpu.uuid.empty()) groups[p->gpu.uuid].push_back(p);
  return groups;
}

/// Each trial's GPU when the trials ran on more than one: [{trial, uuid, name, ordinal, host}].
json trialGpus(const std::vector<Point*>& pts) {
  if (byGpu(pts).size() < 2) return json::array();
  json out = json::array();
  for (const Point* p : pts)
    out.push_back({{"trial", p->trial},
                   {"uuid", p->gpu.uuid},
                   {"name", p->gpu.name},
                   {"ordinal", p->gpu.ordinal},
                   {"host", p->gpu.host}});
  return out;
}

}  // namespace

std::optional<Finding> gpuVarianceFinding(const std::vector<Point*>& pts, int index) {
  // Per GPU, the trials' kernel times: the fastest and slowest GPU differ when
  // their ranges (p10..p90 over every trial on them) do not overlap, by at least 10 %.
  struct Range {
    double lo = 1e300, hi = 0, median = 0;
    const Point* first = nullptr;
  };
  std::map<std::string, Range> ranges;
  for (const auto& [uuid, trials] : byGpu(pts)) {
    Range r;
    std::vector<double> medians;
    for (const Point* p : trials) {
      if (!p->timing.measured || p->timing.kernelNs.median <= 0) continue;
      r.lo = std::min(r.lo, p->timing.kernelNs.p10);
      r.hi = std::max(r.hi, p->timing.kernelNs.p90);
      medians.push_back(p->timing.kernelNs.median);
      if (!r.first) r.first = p;
    }
    if (medians.empty()) continue;
    std::sort(medians.begin(), medians.end());
    r.median = medians[medians.size() / 2];
    ranges[uuid] = r;
  }
  if (ranges.size() < 2) return std::nullopt;
  auto byMedian = [](const auto& a, const auto& b) { return a.second.median < b.second.median; };
  const auto fast = std::min_element(ranges.begin(), ranges.end(), byMedian);
  const auto slow = std::max_element(ranges.begin(), ranges.end(), byMedian);
  const double ratio = slow->second.median / fast->second.median;
  if (ratio < 1.10 || slow->second.lo <= fast->second.hi) return std::nullopt;
  auto describe = [](const Range& r) {
    const GpuRecord& g = r.first->gpu;
    std::string s = formatDuration(r.median) + " on GPU " + std::to_string(g.ordinal);
    if (!g.host.empty()) s += " of " + g.host;
    s += " (" + g.uuid + (g.smClockMHz > 0 ? ", SM " + std::to_string(int(g.smClockMHz)) + " MHz" : "") + ")";
    return s;
  };
  Finding f;
  f.category = "gpu_variance";
  f.severity = Severity::warning;
  f.message = "the same point runs " + std::to_string(int(std::lround((ratio - 1) * 100))) +
              " % slower on one GPU: " + describe(slow->second) + " against " + describe(fast->second) +
              "; check clocks, power limits and other work on the slower GPU before comparing points run on "
              "different GPUs";
  json gpus = json::array();
  for (const auto& [uuid, r] : ranges)
    gpus.push_back({{"uuid", uuid},
                    {"name", r.first->gpu.name},
                    {"ordinal", r.first->gpu.ordinal},
                    {"host", r.first->gpu.host},
                    {"median_ns", r.median},
                    {"p10_ns", r.lo},
                    {"p90_ns", r.hi},
                    {"sm_clock_mhz", r.first->gpu.smClockMHz}});
  f.evidence = {{"ratio", ratio}, {"gpus", gpus}};
  f.location.point = index;
  f.treeNode = std::string(categoryInfo("gpu_variance").treeNode);
  return f;
}

void summariseTrials(Report& report, int trials) {
  // Group points by sweep index.
  std::map<int, std::vector<Point*>> byIndex;
  for (auto& p : report.points) byIndex[p.index].push_back(&p);
  ResultMatrix matrix;
  matrix.trials = trials;
  for (auto& [index, pts] : byIndex) {
    matrix.points.push_back(pts.front()->label);
    auto& row = matrix.verdicts.emplace_back();
    for (auto* p : pts) row.push_back(p->verdict);
    if (pts.size() < 2) continue;
    if (auto f = gpuVarianceFinding(pts, index))
      for (auto* p : pts) p->findings.push_back(*f);
    // Trials of one point must agree: a deterministic kernel on identical inputs
    // gives identical bits.
    bool differ = false;
    json seen = json::array();
    for (auto* p : pts) {
      json sig = runOutcome(*p);
      seen.push_back(sig);
      if (sig != seen.front()) differ = true;
    }
    if (!differ) continue;
    Finding f;
    f.category = "race";
    f.severity = Severity::error;
    f.message = "trials of " + (pts.front()->label.empty() ? std::string("the point") : pts.front()->label) +
                " disagree on identical inputs: " + std::to_string(pts.size()) + " trials, outcomes " +
                seen.dump();
    f.evidence = {{"trials", seen}};
    if (const json gpus = trialGpus(pts); !gpus.empty()) {
      f.evidence["gpus"] =
          gpus;  // trial by trial: a difference that follows the GPU is not a race in the kernel
      f.message += "; the trials ran on " + std::to_string(gpus.size()) + " GPUs: compare them by gpu.uuid";
    }
    f.location.point = index;
    f.treeNode = "fault.race";
    for (auto* p : pts) {
      p->findings.push_back(f);
      p->verdict = worse(p->verdict, Verdict::incorrect);
    }
  }
  report.matrix = std::move(matrix);
}

}  // namespace tilescope
