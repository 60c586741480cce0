// Comparing one point of report A with one point of report B (report_diff.h):
// each part of the point as rows of A's and B's values, the error maps cell by
// cell, the findings matched by category and location.
#include "tilescope/export/report_diff.h"

#include <algorithm>
#include <cmath>

#include "report_diff_detail.h"
#include "tilescope/counters/counters.h"

namespace tilescope {

namespace {

using Opt = std::optional<double>;

Opt known(double v) { return std::isnan(v) ? Opt{} : Opt{v}; }
/// A count or size the report writes as -1 when unknown.
Opt knownCount(double v) { return v < 0 ? Opt{} : Opt{v}; }

DiffValue row(std::string key, std::string label, std::string unit, Opt a, Opt b) {
  return DiffValue{std::move(key), std::move(label), std::move(unit), a, b};
}

std::string jsonString(const nlohmann::json& j, const char* a, const char* b = nullptr) {
  const nlohmann::json* v = &j;
  for (const char* key : {a, b}) {
    if (!key) break;
    if (!v->is_object() || !v->contains(key)) return "";
    v = &(*v)[key];
  }
  return v->is_string() ? v->get<std::string>() : "";
}

DiffSide sideOf(const Report& r, const std::string& file, int point) {
  const Point& p = r.points[static_cast<std::size_t>(point)];
  DiffSide s;
  s.file = file;
  s.name = jsonString(r.config, "name");
  s.entry = jsonString(r.config, "kernel", "entry");
  s.verb = r.verb;
  s.device = r.device.name;
  s.points = static_cast<int>(r.points.size());
  s.point = point;
  s.sweepIndex = p.index;
  s.trial = p.trial;
  s.label = pointLabel(p);
  s.verdict = p.verdict;
  return s;
}

void checkPoint(const Report& r, const std::string& file, int point, const char* which) {
  if (r.points.empty()) throw CompareError(file + ": the report holds no points to compare");
  const int n = static_cast<int>(r.points.size());
  if (point < 0 || point >= n)
    throw CompareError(file + ": " + which + " " + std::to_string(point) +
                       " out of range: the report holds " + std::to_string(n) +
                       (n == 1 ? " point (0)" : " points (0.." + std::to_string(n - 1) + ")"));
}

// ---------------------------------------------------------------- timing, resources

TimingDiff timingDiff(const Point& a, const Point& b) {
  TimingDiff t;
  t.measuredA = a.timing.measured;
  t.measuredB = b.timing.measured;
  const auto stat = [&](const char* key, const char* label, double Stats::*m) {
    t.values.push_back(row(std::string("kernel_ns.") + key, label, "ns",
                           a.timing.measured ? Opt{a.timing.kernelNs.*m} : Opt{},
                           b.timing.measured ? Opt{b.timing.kernelNs.*m} : Opt{}));
  };
  stat("median", "kernel median", &Stats::median);
  stat("p10", "kernel p10", &Stats::p10);
  stat("p90", "kernel p90", &Stats::p90);
  stat("min", "kernel min", &Stats::min);
  stat("max", "kernel max", &Stats::max);
  const auto measured = [](const TimingInfo& x, double v) { return x.measured ? Opt{v} : Opt{}; };
  t.values.push_back(row("kernel_ns.n", "repetitions", "count", measured(a.timing, a.timing.kernelNs.n),
                         measured(b.timing, b.timing.kernelNs.n)));
  t.values.push_back(row("cv", "cv (stddev / mean)", "fraction", measured(a.timing, a.timing.cv),
                         measured(b.timing, b.timing.cv)));
  t.values.push_back(row("event_ns.median", "cudaEvent median", "ns",
                         measured(a.timing, a.timing.eventNs.median),
                         measured(b.timing, b.timing.eventNs.median)));
  const auto base = [](const BaselineInfo& x) { return x.measured ? Opt{x.kernelNs.median} : Opt{}; };
  t.values.push_back(row("baseline_ns.median", "baseline median", "ns", base(a.baseline), base(b.baseline)));
  t.values.push_back(row("speedup", "speedup over the baseline", "x", a.speedup, b.speedup));
  if (t.measuredA && t.measuredB)
    t.significant =
        a.timing.kernelNs.p90 < b.timing.kernelNs.p10 || b.timing.kernelNs.p90 < a.timing.kernelNs.p10;
  return t;
}

std::vector<DiffValue> resourcesDiff(const Point& a, const Point& b) {
  std::vector<DiffValue> v;
  const auto compiled = [](const Point& p, double x) { return p.compile.ok ? knownCount(x) : Opt{}; };
  const auto add = [&](const char* key, const char* label, const char* unit, auto get) {
    v.push_back(row(key, label, unit, compiled(a, get(a)), compiled(b, get(b))));
  };
  add("regs", "registers per thread", "count", [](const Point& p) { return double(p.compile.regs); });
  add("smem_static", "static shared memory", "B",
      [](const Point& p) { return double(p.compile.smemStatic); });
  add("local_bytes", "local memory per thread", "B",
      [](const Point& p) { return double(p.compile.localBytes); });
  add("spill_stores", "spill stores", "B", [](const Point& p) { return double(p.compile.spillStores); });
  add("spill_loads", "spill loads", "B", [](const Point& p) { return double(p.compile.spillLoads); });
  const auto threads = [](const LaunchInfo& l) { return double(l.block[0] * l.block[1] * l.block[2]); };
  const auto ctas = [](const LaunchInfo& l) { return double(l.grid[0] * l.grid[1] * l.grid[2]); };
  v.push_back(row("threads_per_block", "threads per block", "count", threads(a.launch), threads(b.launch)));
  v.push_back(row("ctas", "CTAs", "count", ctas(a.launch), ctas(b.launch)));
  v.push_back(row("shared_bytes", "dynamic shared memory", "B", double(a.launch.sharedBytes),
                  double(b.launch.sharedBytes)));
  const auto occ = [](const OccupancyInfo& o) { return o.computed ? Opt{o.theoretical} : Opt{}; };
  v.push_back(row("occupancy", "theoretical occupancy", "fraction", occ(a.occupancy), occ(b.occupancy)));
  return v;
}

// ---------------------------------------------------------------- counters

std::vector<DiffValue> speedOfLightDiff(const CounterFigures& a, const CounterFigures& b, bool ia, bool ib) {
  std::vector<DiffValue> v;
  const auto add = [&](const char* key, const char* label, const char* unit, double CounterFigures::*m) {
    v.push_back(row(key, label, unit, ia ? known(a.*m) : Opt{}, ib ? known(b.*m) : Opt{}));
  };
  add("sol.sm_pct", "SM throughput (SOL)", "%", &CounterFigures::smPct);
  add("sol.mem_pct", "memory throughput (SOL)", "%", &CounterFigures::memPct);
  add("sol.dram_pct", "DRAM throughput", "%", &CounterFigures::dramPct);
  add("sol.l2_pct", "L2 throughput", "%", &CounterFigures::l2Pct);
  add("sol.l1_pct", "L1 throughput", "%", &CounterFigures::l1Pct);
  add("l1_hit_pct", "L1 hit rate", "%", &CounterFigures::l1HitPct);
  add("l2_hit_pct", "L2 hit rate", "%", &CounterFigures::l2HitPct);
  add("achieved_occupancy", "achieved occupancy", "fraction", &CounterFigures::achievedOccupancy);
  add("tensor_pct", "tensor pipe busy", "%", &CounterFigures::tensorPct);
  add("dram_bytes", "DRAM bytes", "B", &CounterFigures::dramBytes);
  add("flops", "FLOPs", "count", &CounterFigures::flops);
  add("arithmetic_intensity", "arithmetic intensity", "FLOP/B", &CounterFigures::arithmeticIntensity);
  add("flops_per_second", "FLOP rate", "FLOP/s", &CounterFigures::flopsPerSecond);
  add("dram_bytes_per_second", "DRAM bandwidth", "B/s", &CounterFigures::dramBytesPerSecond);
  add("shared_ld_ways", "shared load wavefronts per request", "", &CounterFigures::sharedLdWays);
  add("shared_st_ways", "shared store wavefronts per request", "", &CounterFigures::sharedStWays);
  add("global_ld_efficiency", "global load efficiency", "fraction", &CounterFigures::globalLdEfficiency);
  add("global_st_efficiency", "global store efficiency", "fraction", &CounterFigures::globalStEfficiency);
  // Rows neither side could derive say nothing.
  std::erase_if(v, [](const DiffValue& x) { return !x.a && !x.b; });
  return v;
}

CountersDiff countersDiff(const Point& a, const Point& b) {
  CountersDiff c;
  c.collectedA = a.counters.collected;
  c.collectedB = b.counters.collected;
  if (!c.collectedA && !c.collectedB) return c;
  c.speedOfLight = speedOfLightDiff(counterFigures(a.counters.kernel), counterFigures(b.counters.kernel),
                                    c.collectedA, c.collectedB);
  std::vector<std::string> names;
  for (const Point* p : {&a, &b})
    if (p->counters.collected)
      for (const auto& [name, value] : p->counters.kernel.metrics)
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  for (const std::string& name : names) {
    const auto get = [&](const Point& p) {
      const auto& m = p.counters.kernel.metrics;
      const auto it = m.find(name);
      return p.counters.collected && it != m.end() ? known(it->second) : Opt{};
    };
    c.metrics.push_back(row(name, metricDef(name).label, "metric", get(a), get(b)));
  }
  return c;
}

// ---------------------------------------------------------------- warnings

std::vector<std::string> warningsOf(const DiffSide& a, const DiffSide& b, const Point& pa, const Point& pb) {
  std::vector<std::string> w;
  if (a.name != b.name || a.entry != b.entry)
    w.push_back("different kernels: " + a.file + " is " + a.name + " (" + a.entry + "), " + b.file + " is " +
                b.name + " (" + b.entry + ")");
  if (!a.device.empty() && !b.device.empty() && a.device != b.device)
    w.push_back("different devices: " + a.device + " and " + b.device +
                ": timings and counters differ anyway");
  if (pa.defines != pb.defines || pa.params != pb.params)
    w.push_back("different defines or params: " + pa.defines.dump() + " " + pa.params.dump() + " and " +
                pb.defines.dump() + " " + pb.params.dump());
  return w;
}

}  // namespace

bool DiffValue::changed() const { return a.has_value() != b.has_value() || (both() && *a != *b); }
double DiffValue::delta() const { return both() ? *b - *a : NAN; }
double DiffValue::relative() const { return both() && *a != 0 ? (*b - *a) / std::fabs(*a) : NAN; }

int defaultComparePoint(const Report& r) {
  if (r.points.empty()) return -1;
  return std::max(focusPoint(r), 0);
}

ReportDiff diffReports(const Report& a, const std::string& fileA, int pointA, const Report& b,
                       const std::string& fileB, int pointB) {
  checkPoint(a, fileA, pointA, "--point-a");
  checkPoint(b, fileB, pointB, "--point-b");
  const Point& pa = a.points[static_cast<std::size_t>(pointA)];
  const Point& pb = b.points[static_cast<std::size_t>(pointB)];
  ReportDiff d;
  d.a = sideOf(a, fileA, pointA);
  d.b = sideOf(b, fileB, pointB);
  d.sameKernel = d.a.name == d.b.name && d.a.entry == d.b.entry;
  d.warnings = warningsOf(d.a, d.b, pa, pb);
  d.timing = timingDiff(pa, pb);
  d.resources = resourcesDiff(pa, pb);
  d.correctness = diff_detail::correctnessDiff(pa, pb);
  d.outputs = diff_detail::outputsDiff(pa, pb);
  d.counters = countersDiff(pa, pb);
  d.findings = diff_detail::findingsDiff(pa.findings, pb.findings);
  return d;
}

}  // namespace tilescope
