// concludeCounters: the performance findings a point's counters prove. Each
// names the measurement behind it and the tree node that leads to the fix.
#include <algorithm>
#include <cstdio>

#include "tilescope/counters/counters.h"

namespace tilescope {
namespace {

std::string num(double v, int decimals = 1) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string pct(double v) { return num(v, v < 10 ? 1 : 0) + "%"; }

Finding finding(const std::string& category, Severity s, const std::string& message, const std::string& node,
                nlohmann::json evidence) {
  Finding f;
  f.category = category;
  f.severity = s;
  f.message = message;
  f.treeNode = node;
  f.evidence = std::move(evidence);
  f.evidence["source"] = "counters";
  return f;
}

/// The hottest sampled line whose main stall is one of `reasons` ({file, line} or null).
Location hotLineFor(const PcSamplingInfo& pc, std::initializer_list<const char*> reasons) {
  Location loc;
  for (const HotLine& l : pc.lines) {
    if (l.stalls.empty()) continue;
    for (const char* r : reasons)
      if (l.stalls.front().reason == r) {
        loc.file = l.file;
        loc.line = l.line;
        loc.extra = {{"samples", l.samples}, {"stall", l.stalls.front().reason}};
        return loc;
      }
  }
  return loc;
}

void bankConflicts(const CountersInfo& c, const CounterFigures& f, const CounterThresholds& t,
                   std::vector<Finding>& out) {
  const bool ld =
      known(f.sharedLdWays) && f.sharedLdRequests >= t.minSharedRequests && f.sharedLdWays >= t.bankWays;
  const bool st =
      known(f.sharedStWays) && f.sharedStRequests >= t.minSharedRequests && f.sharedStWays >= t.bankWays;
  if (!ld && !st) return;
  const bool loadsWorse = ld && (!st || f.sharedLdWays >= f.sharedStWays);
  const double ways = loadsWorse ? f.sharedLdWays : f.sharedStWays;
  std::string msg = std::string("shared-memory ") + (loadsWorse ? "loads" : "stores") + " are " + num(ways) +
                    "-way bank-conflicted on average: a warp's access is split into " + num(ways) +
                    " wavefronts instead of one";
  if (ld && st) msg += " (loads " + num(f.sharedLdWays) + "-way, stores " + num(f.sharedStWays) + "-way)";
  Finding g = finding("bank_conflicts", Severity::warning, msg, "perf.bank_conflicts",
                      {{"ways_ld", known(f.sharedLdWays) ? nlohmann::json(f.sharedLdWays) : nullptr},
                       {"ways_st", known(f.sharedStWays) ? nlohmann::json(f.sharedStWays) : nullptr},
                       {"conflicts_ld", f.sharedLdConflicts},
                       {"conflicts_st", f.sharedStConflicts},
                       {"requests_ld", f.sharedLdRequests},
                       {"requests_st", f.sharedStRequests},
                       {"threshold_ways", t.bankWays}});
  g.detail = loadsWorse ? "load" : "store";
  g.location = hotLineFor(c.pcSampling, {"mio_throttle", "short_scoreboard"});
  out.push_back(std::move(g));
}

void uncoalesced(const CountersInfo& c, const CounterFigures& f, const CounterThresholds& t,
                 std::vector<Finding>& out) {
  auto bad = [&](double eff, double sectors) {
    return known(eff) && known(sectors) && sectors >= t.minGlobalSectors && eff < t.coalescedEfficiency;
  };
  const bool ld = bad(f.globalLdEfficiency, f.globalLdSectors),
             st = bad(f.globalStEfficiency, f.globalStSectors);
  if (!ld && !st) return;
  const bool loads = ld && (!st || f.globalLdEfficiency <= f.globalStEfficiency);
  const double eff = loads ? f.globalLdEfficiency : f.globalStEfficiency;
  const double spr = loads ? f.globalLdSectorsPerRequest : f.globalStSectorsPerRequest;
  // Sectors per request need the requests counters (the full set); the basic
  // set says what share of the fetched sector bytes the threads asked for.
  const std::string fetched =
      known(spr) ? "fetch " + num(spr) + " sectors per request of which the threads use " : "use only ";
  Finding g = finding(
      "uncoalesced_access", Severity::warning,
      std::string("global ") + (loads ? "loads" : "stores") + " " + fetched + pct(100 * eff) +
          (known(spr) ? "" : " of the 32-byte sectors they fetch") +
          ": neighbouring threads access addresses far apart, so each warp touches many 32-byte sectors",
      "perf.uncoalesced_access",
      {{"sectors_per_request_ld",
        known(f.globalLdSectorsPerRequest) ? nlohmann::json(f.globalLdSectorsPerRequest) : nullptr},
       {"sectors_per_request_st",
        known(f.globalStSectorsPerRequest) ? nlohmann::json(f.globalStSectorsPerRequest) : nullptr},
       {"efficiency_ld", known(f.globalLdEfficiency) ? nlohmann::json(f.globalLdEfficiency) : nullptr},
       {"efficiency_st", known(f.globalStEfficiency) ? nlohmann::json(f.globalStEfficiency) : nullptr},
       {"threshold_efficiency", t.coalescedEfficiency}});
  g.detail = loads ? "load" : "store";
  g.location =
      hotLineFor(c.pcSampling, loads ? std::initializer_list<const char*>{"long_scoreboard", "lg_throttle"}
                                     : std::initializer_list<const char*>{"lg_throttle", "drain"});
  out.push_back(std::move(g));
}

/// The SM count the worker recorded (extra.device.sm_count); 0 when absent or
/// not an integer (a report written elsewhere, or edited).
int recordedSmCount(const Point& p) {
  const auto d = p.extra.find("device");
  if (d == p.extra.end() || !d->is_object()) return 0;
  const auto n = d->find("sm_count");
  return n != d->end() && n->is_number_integer() ? n->get<int>() : 0;
}

void lowOccupancy(const Point& p, const CounterFigures& f, const CounterThresholds& t,
                  std::vector<Finding>& out) {
  const OccupancyInfo& o = p.occupancy;
  if (!o.computed || !known(f.achievedOccupancy)) return;
  const bool achievedLow = f.achievedOccupancy < t.achievedShare * o.theoretical;
  if (!achievedLow && o.theoretical >= t.lowTheoretical) return;
  const std::int64_t ctas = p.launch.grid[0] * p.launch.grid[1] * p.launch.grid[2];
  const int sms = recordedSmCount(p);
  const bool fewCtas = sms > 0 && o.blocksPerSm > 0 && ctas < std::int64_t(sms) * o.blocksPerSm;
  std::string msg = "achieved occupancy " + pct(100 * f.achievedOccupancy) +
                    " of the SM's warp slots against a theoretical " + pct(100 * o.theoretical) +
                    " (limited by " + o.limiter + ")";
  if (fewCtas && achievedLow)
    msg += ": the grid's " + std::to_string(ctas) + " CTAs cannot fill " + std::to_string(sms) + " SMs × " +
           std::to_string(o.blocksPerSm) + " resident blocks";
  Finding g = finding("low_occupancy", Severity::warning, msg, "perf.low_occupancy",
                      {{"achieved", f.achievedOccupancy},
                       {"theoretical", o.theoretical},
                       {"limiter", o.limiter},
                       {"blocks_per_sm", o.blocksPerSm},
                       {"ctas", ctas},
                       {"sm_count", sms},
                       {"threshold_share", t.achievedShare}});
  if (fewCtas && achievedLow) g.detail = "grid";
  out.push_back(std::move(g));
}

/// The main stall of the kernel, as "long_scoreboard (45% of samples)", or "".
std::string topStall(const PcSamplingInfo& pc) {
  if (!pc.collected || pc.stalls.empty() || pc.totalSamples <= 0) return "";
  for (const StallCount& s : pc.stalls)
    if (s.reason != "selected")
      return s.reason + " (" + pct(100.0 * double(s.samples) / double(pc.totalSamples)) + " of samples)";
  return "";
}

void speedOfLight(const CountersInfo& c, const CounterFigures& f, const CounterThresholds& t,
                  std::vector<Finding>& out) {
  if (!known(f.smPct) || !known(f.memPct)) return;
  nlohmann::json ev = {{"sm_pct", f.smPct}, {"memory_pct", f.memPct}, {"threshold_pct", t.boundPct}};
  if (f.solProxy)
    ev["proxy"] = "basic counters: SM = issue slots or tensor pipe, memory = DRAM or L2 sectors";
  const std::initializer_list<std::pair<const char*, double>> units = {
      {"dram_pct", f.dramPct}, {"l2_pct", f.l2Pct}, {"l1_pct", f.l1Pct}};
  for (const auto& [key, v] : units)
    if (known(v)) ev[key] = v;
  if (c.baseline) {
    CounterFigures b = counterFigures(*c.baseline);
    if (known(b.smPct)) ev["baseline_sm_pct"] = b.smPct;
    if (known(b.memPct)) ev["baseline_memory_pct"] = b.memPct;
  }
  const std::string stall = topStall(c.pcSampling);
  if (!stall.empty()) ev["top_stall"] = stall;
  std::string category, msg;
  if (std::max(f.smPct, f.memPct) >= t.boundPct && f.memPct > f.smPct) {
    category = "memory_bound";
    msg = "memory-bound: memory throughput " + pct(f.memPct) + " of peak against compute " + pct(f.smPct);
    if (known(f.dramPct) && known(f.l2Pct) && known(f.l1Pct))
      msg += " (DRAM " + pct(f.dramPct) + ", L2 " + pct(f.l2Pct) + ", L1/shared " + pct(f.l1Pct) + ")";
  } else if (std::max(f.smPct, f.memPct) >= t.boundPct) {
    category = "compute_bound";
    msg = "compute-bound: SM throughput " + pct(f.smPct) + " of peak against memory " + pct(f.memPct);
  } else {
    category = "latency_bound";
    msg = "latency-bound: neither compute (" + pct(f.smPct) + ") nor memory (" + pct(f.memPct) +
          ") reaches " + pct(t.boundPct) + " of peak; the warps mostly wait";
    if (!stall.empty()) msg += ", most often on " + stall;
  }
  if (f.solProxy) msg += " (basic counters' proxies; --counters full for ncu's breakdown)";
  out.push_back(finding(category, Severity::info, msg, "perf." + category, ev));
}

bool gemmLikeBaseline(const Point& p) {
  const std::string& b = p.baseline.name;
  return b == "cublas" || b == "sdpa" || b == "sdpa_math";
}

void tensorCores(const Point& p, const CounterFigures& f, const CounterThresholds& t,
                 std::vector<Finding>& out) {
  const CountersInfo& c = p.counters;
  if (!c.baseline || !gemmLikeBaseline(p) || !known(f.tensorPct)) return;
  const CounterFigures b = counterFigures(*c.baseline);
  if (!known(b.tensorPct) || b.tensorPct < t.baselineTensorPct || f.tensorPct >= t.tensorIdlePct) return;
  std::string msg = "the kernel leaves the tensor cores idle (tensor pipe " + pct(f.tensorPct) +
                    " busy) while the " + p.baseline.name + " baseline keeps them " + pct(b.tensorPct) +
                    " busy";
  if (known(f.fp32Flops) && f.fp32Flops > 0) msg += ": its products run on the FP32 pipe";
  out.push_back(finding("no_tensor_cores", Severity::warning, msg, "perf.no_tensor_cores",
                        {{"tensor_pct", f.tensorPct},
                         {"baseline_tensor_pct", b.tensorPct},
                         {"fp32_flops", known(f.fp32Flops) ? nlohmann::json(f.fp32Flops) : nullptr},
                         {"baseline", p.baseline.name},
                         {"threshold_idle_pct", t.tensorIdlePct}}));
}

}  // namespace

std::vector<Finding> concludeCounters(const Point& p, const CounterThresholds& t) {
  std::vector<Finding> out;
  const CountersInfo& c = p.counters;
  if (!c.collected) return out;
  const CounterFigures f = counterFigures(c.kernel);
  bankConflicts(c, f, t, out);
  uncoalesced(c, f, t, out);
  lowOccupancy(p, f, t, out);
  tensorCores(p, f, t, out);
  speedOfLight(c, f, t, out);
  return out;
}

void applyCounterFindings(Point& p, const CounterThresholds& t, const DeviceInfo* device) {
  for (Finding& f : concludeCounters(p, t)) {
    if (f.category == "low_occupancy")
      p.findings.erase(std::remove_if(p.findings.begin(), p.findings.end(),
                                      [](const Finding& g) { return g.category == "low_occupancy"; }),
                       p.findings.end());
    p.findings.push_back(std::move(f));
  }
  // The cause a kernel developer would fix first leads: the largest estimated gain.
  addEstimatedGains(p.findings, p, device);
  rankByGain(p.findings);
  p.verdict = worse(p.verdict, verdictForFindings(p.findings));
}

}  // namespace tilescope
