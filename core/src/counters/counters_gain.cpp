// estimatedGain: how much faster a performance finding's fix could make the kernel
// at most, as ncu's guided analysis ranks its rules (docs/report.md, "estimated_gain").
// Each bound is read off the finding's own evidence and the point's timing and
// counters, so a report recorded before the estimate existed gets the same number.
#include <algorithm>
#include <cmath>

#include "tilescope/counters/counters.h"

namespace tilescope {
namespace {

double num(const nlohmann::json& ev, const char* key) {
  if (!ev.is_object()) return NAN;
  const auto it = ev.find(key);
  return it != ev.end() && it->is_number() ? it->get<double>() : NAN;
}

/// A factor ≥ 1, or NaN: a bound that does not exceed 1 promises nothing.
double factor(double v) { return std::isfinite(v) && v > 1 ? v : NAN; }

/// The time a fix saves as a share of the kernel's → the speedup it bounds.
double fromSavedShare(double saved) { return known(saved) && saved > 0 && saved < 1 ? 1 / (1 - saved) : NAN; }

/// The busier of the SM and memory at its peak: no fix that keeps the work on the
/// same units makes the kernel faster than that (NaN without speed of light).
double headroom(const Point& p) {
  if (!p.counters.collected) return NAN;
  const CounterFigures f = counterFigures(p.counters.kernel);
  const double busiest = std::max(known(f.smPct) ? f.smPct : 0.0, known(f.memPct) ? f.memPct : 0.0);
  return busiest > 0 ? 100 / busiest : NAN;
}

/// The kernel's time over the baseline's: the medians, else the recorded speedup.
double kernelOverBaseline(const Point& p) {
  const double k = p.timing.kernelNs.median, b = p.baseline.kernelNs.median;
  if (p.timing.measured && p.baseline.measured && k > 0 && b > 0) return k / b;
  return p.speedup && *p.speedup > 0 ? 1 / *p.speedup : NAN;
}

/// Dense tensor-core peak over the FP32 pipe's (the device database's peaks).
double tensorOverFp32(const DeviceInfo* d) {
  if (!d || !d->f32Tflops || *d->f32Tflops <= 0) return NAN;
  const std::optional<double> tensor = d->f16TensorTflops ? d->f16TensorTflops : d->bf16TensorTflops;
  return tensor && *tensor > 0 ? *tensor / *d->f32Tflops : NAN;
}

/// The tensor cores: the kernel reaches the baseline's time at best (the baseline
/// shows what its tensor-pipe share buys), and moving the products from the FP32
/// pipe to the tensor pipe speeds them up by the device's peak ratio at most.
double tensorCoresGain(const Point& p, const DeviceInfo* d) {
  const double slower = kernelOverBaseline(p), peaks = tensorOverFp32(d);
  if (known(slower) && known(peaks)) return factor(std::min(slower, peaks));
  return factor(known(slower) ? slower : peaks);
}

/// Occupancy: idle SMs (fewer CTAs than SMs) give back their share; missing warps
/// (achieved below theoretical) hide latency at best in proportion, bounded by the
/// busier unit's headroom.
double occupancyGain(const nlohmann::json& ev, const Point& p) {
  const double ctas = num(ev, "ctas"), sms = num(ev, "sm_count");
  const double achieved = num(ev, "achieved"), theoretical = num(ev, "theoretical");
  double idle = NAN, warps = NAN;
  if (known(ctas) && known(sms) && ctas > 0 && ctas < sms) idle = sms / ctas;
  if (known(achieved) && known(theoretical) && achieved > 0 && achieved < theoretical) {
    warps = theoretical / achieved;
    if (const double cap = headroom(p); known(cap)) warps = std::min(warps, cap);
  }
  return factor(std::max(known(idle) ? idle : 0.0, known(warps) ? warps : 0.0));
}

/// Bank conflicts: (ways - 1) of every `ways` shared wavefronts are excess; they
/// cost the L1/shared unit's busy share of the time (all of it when unmeasured).
double bankGain(const nlohmann::json& ev, const Point& p) {
  const double ways = std::max(known(num(ev, "ways_ld")) ? num(ev, "ways_ld") : 0.0,
                               known(num(ev, "ways_st")) ? num(ev, "ways_st") : 0.0);
  if (ways <= 1) return NAN;
  double share = 1, ceiling = NAN;
  if (p.counters.collected) {
    const CounterFigures k = counterFigures(p.counters.kernel);
    if (known(k.l1Pct) && k.l1Pct > 0) share = std::min(k.l1Pct / 100, 1.0);
    // Without the L1/shared unit's share (the basic set), no more than the
    // busier of SM and memory at its peak: on an H200 the bank-conflicted
    // transpose read 32.1 ways with SM and memory about 21 % busy, and 32x was
    // no bound a fix could reach.
    else if (const double busy = std::max(known(k.smPct) ? k.smPct : 0.0, known(k.memPct) ? k.memPct : 0.0);
             busy > 0)
      ceiling = 100 / busy;
  }
  const double g = fromSavedShare(share * (1 - 1 / ways));
  return factor(known(ceiling) ? std::min(g, ceiling) : g);
}

/// Uncoalesced accesses: the unused share of the fetched sectors, over the memory
/// system's busy share of the time (all of it when unmeasured).
double coalescingGain(const nlohmann::json& ev, const Point& p) {
  const double ld = num(ev, "efficiency_ld"), st = num(ev, "efficiency_st");
  const double eff = std::min(known(ld) ? ld : 1.0, known(st) ? st : 1.0);
  if (eff >= 1 || eff <= 0) return NAN;
  double share = 1;
  if (p.counters.collected) {
    const double mem = counterFigures(p.counters.kernel).memPct;
    if (known(mem) && mem > 0) share = std::min(mem / 100, 1.0);
  }
  return factor(std::min(fromSavedShare(share * (1 - eff)), 1 / eff));
}

}  // namespace

double estimatedGain(const Finding& f, const Point& p, const DeviceInfo* device) {
  const nlohmann::json& ev = f.evidence;
  if (f.category == "no_tensor_cores") return tensorCoresGain(p, device);
  if (f.category == "low_occupancy") return occupancyGain(ev, p);
  if (f.category == "bank_conflicts") return bankGain(ev, p);
  if (f.category == "uncoalesced_access") return coalescingGain(ev, p);
  // Speed of light: the bounding unit at its peak (achieved vs peak bandwidth or
  // throughput); latency-bound: the busier unit at its peak.
  if (f.category == "memory_bound") return factor(100 / num(ev, "memory_pct"));
  if (f.category == "compute_bound") return factor(100 / num(ev, "sm_pct"));
  if (f.category == "latency_bound")
    return factor(100 / std::max(known(num(ev, "sm_pct")) ? num(ev, "sm_pct") : 0.0,
                                 known(num(ev, "memory_pct")) ? num(ev, "memory_pct") : 0.0));
  return NAN;
}

double recordedGain(const Finding& f) {
  const double g = num(f.evidence, "estimated_gain");
  return known(g) && g > 0 ? g : NAN;
}

void addEstimatedGains(std::vector<Finding>& findings, const Point& p, const DeviceInfo* device) {
  for (Finding& f : findings) {
    if (known(recordedGain(f))) continue;
    const double g = estimatedGain(f, p, device);
    if (!known(g)) continue;
    if (!f.evidence.is_object()) f.evidence = nlohmann::json::object();
    f.evidence["estimated_gain"] = std::round(g * 100) / 100;
  }
}

void rankByGain(std::vector<Finding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return static_cast<int>(a.severity) > static_cast<int>(b.severity);
    const double ga = recordedGain(a), gb = recordedGain(b);
    if (known(ga) != known(gb)) return known(ga);
    return known(ga) && ga > gb;
  });
}

}  // namespace tilescope
