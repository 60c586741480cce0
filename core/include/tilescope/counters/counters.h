// "Why is it slow?": the metric list of the profiling pass (Nsight Compute's
// names), the figures derived from it (speed of light, bank-conflict ways,
// sectors per request, FLOPs, arithmetic intensity), the findings drawn from
// them, and PC samples folded to source lines. Pure functions over plain data:
// the CUPTI side is core/cuda (profiler.h, pc_sampling.h).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "tilescope/model/counters_model.h"
#include "tilescope/model/device_info.h"
#include "tilescope/model/point.h"
#include "tilescope/trace/trace_lines.h"

namespace tilescope {

/// How the values of several kernels of one call combine into one figure.
enum class MetricCombine {
  sum,           ///< counts, bytes, nanoseconds
  timeWeighted,  ///< percentages and rates: weighted by each kernel's duration
};

struct MetricDef {
  std::string name;   ///< ncu's metric name
  std::string label;  ///< what a person reads
  std::string unit;   ///< ns | B | % | count | inst | Hz | "" (a user metric's unit is unknown)
  std::string group;  ///< speed_of_light | memory | shared | compute | occupancy | extra
  MetricCombine combine = MetricCombine::sum;
};

/// Which counters the profiling pass reads (`--counters`, config `run.counters`):
///   basic (the default): what the findings need, in 3 replay passes on GH100
///     (speed-of-light proxies, global sectors and bytes, occupancy, tensor pipe,
///     DRAM bytes, the shared-memory wavefronts, instructions and bytes that
///     bank_conflicts needs); PC sampling only for a point slower than its baseline;
///   full: every standard metric (14 passes on GH100: ncu's SOL breakdown,
///     shared-memory bank conflicts, sectors per request, FLOP counts) and PC sampling;
///   none: no profiling pass.
enum class CounterSet { none, basic, full };
/// "none" | "basic" | "full"; throws std::invalid_argument for anything else.
CounterSet parseCounterSet(const std::string& name);
const char* counterSetName(CounterSet s);
/// The set a report's counters were read with (from their metric list).
CounterSet counterSetOf(const CountersInfo& c);

/// The metrics of the full set, in report order.
const std::vector<MetricDef>& standardMetrics();
/// The names of the basic set (a subset of standardMetrics()).
const std::vector<std::string>& basicMetricNames();
/// The definition of `name`: a standard metric's, or one inferred from the name
/// for a user metric (`.sum` sums, percentages and rates are time-weighted).
MetricDef metricDef(const std::string& name);
/// The set's list followed by `extra` (config `run.metrics`), without duplicates.
std::vector<std::string> profileMetricList(const std::vector<std::string>& extra,
                                           CounterSet set = CounterSet::full);

/// The kernels of one baseline call as one: sums, and duration-weighted means.
KernelCounters combineKernels(const std::vector<KernelCounters>& kernels, const std::string& label);

/// Figures derived from a kernel's counters. NaN where the metrics behind a figure
/// were not collected (or a ratio has no denominator).
struct CounterFigures {
  double durationNs = NAN;
  double smPct = NAN, memPct = NAN;  ///< speed of light (ncu's SOL SM / Memory)
  /// smPct and memPct are the basic set's proxies (SM issue slots or the tensor
  /// pipe; DRAM or L2 sectors), not ncu's breakdowns.
  bool solProxy = false;
  double dramPct = NAN, l2Pct = NAN, l1Pct = NAN;
  double dramReadBytes = NAN, dramWriteBytes = NAN;
  double l1HitPct = NAN, l2HitPct = NAN;
  double achievedOccupancy = NAN;  ///< 0..1 of the SM's warp slots, while active
  double tensorPct = NAN;          ///< tensor pipe busy, % of peak while active
  double instructions = NAN;       ///< warp instructions executed
  /// Shared memory: wavefronts per ideal wavefront (1 = conflict-free; 32 = every
  /// thread of a warp in one bank). The ideal is one wavefront per request, or
  /// the bytes moved / 128 for wide accesses.
  double sharedLdWays = NAN, sharedStWays = NAN;
  double sharedLdConflicts = NAN, sharedStConflicts = NAN;
  double sharedLdRequests = NAN, sharedStRequests = NAN;
  /// Global memory: L1 sectors (32 B) per request, and the share of the fetched
  /// sector bytes the threads asked for (1 = perfectly coalesced).
  double globalLdSectorsPerRequest = NAN, globalStSectorsPerRequest = NAN;
  double globalLdEfficiency = NAN, globalStEfficiency = NAN;
  double globalLdSectors = NAN, globalStSectors = NAN;
  /// FLOPs: FMA counts twice (ncu's roofline convention); tensor-path ops count one FLOP each.
  double fp32Flops = NAN, fp16Flops = NAN, fp64Flops = NAN, tensorFlops = NAN, flops = NAN;
  double dramBytes = NAN;            ///< read + written
  double arithmeticIntensity = NAN;  ///< FLOP per DRAM byte
  double flopsPerSecond = NAN, dramBytesPerSecond = NAN;
};
CounterFigures counterFigures(const KernelCounters& k);

inline bool known(double v) { return !std::isnan(v); }
/// A hardware-counter value in its metric's unit (metricDef): ns, B, %, Hz or a
/// count; "–" when not collected (NaN). Through format.h's ladders.
std::string formatMetric(const std::string& metric, double value);

/// Thresholds of the counter findings (docs/report.md lists them).
struct CounterThresholds {
  double boundPct = 60;              ///< SOL % from which a unit bounds the kernel (ncu's rule)
  double bankWays = 2;               ///< average ways per shared request from which conflicts are reported
  double minSharedRequests = 32;     ///< fewer shared requests than this prove nothing
  double coalescedEfficiency = 0.5;  ///< requested / fetched sector bytes below this: uncoalesced
  double minGlobalSectors = 1024;    ///< fewer global sectors than this prove nothing
  double achievedShare = 0.5;        ///< achieved below this share of theoretical occupancy: low_occupancy
  double lowTheoretical = 0.25;      ///< theoretical occupancy below this: low_occupancy (static rule)
  double tensorIdlePct = 1;          ///< the kernel's tensor pipe under this is idle
  double baselineTensorPct = 5;      ///< the baseline's tensor pipe above this uses tensor cores
};

/// Findings from a point's counters: bank_conflicts, uncoalesced_access,
/// low_occupancy (achieved against theoretical), memory_bound / compute_bound /
/// latency_bound (speed of light), no_tensor_cores (the baseline uses the tensor
/// pipe, the kernel leaves it idle). Empty when the point has no counters.
/// Reads p.counters, p.occupancy, p.baseline and p.speedup.
std::vector<Finding> concludeCounters(const Point& p, const CounterThresholds& t = {});

/// Adds concludeCounters' findings to `p`; a measured low_occupancy replaces the
/// static one (the measurement wins, as in the worker's merge). Then gives each
/// performance finding its estimated gain (addEstimatedGains, with `device`'s peaks
/// where given) and orders p.findings by rankByGain.
void applyCounterFindings(Point& p, const CounterThresholds& t = {}, const DeviceInfo* device = nullptr);

// ---------------------------------------------------------------- ranking

/// The speedup a performance finding's fix could bring at most, as a factor > 1
/// (ncu's guided analysis ranks its rules by such an estimate; docs/report.md,
/// "estimated_gain"): no_tensor_cores: the kernel's time over the baseline's (or 1 / speedup), capped
/// by the device's tensor-over-FP32 peak ratio; low_occupancy: SMs / CTAs when SMs
/// idle, else theoretical / achieved occupancy capped by the busier unit's headroom;
/// bank_conflicts and uncoalesced_access: the excess wavefronts or wasted sectors
/// over the unit's busy share; memory_bound / compute_bound: 100 / the bounding
/// unit's % of peak; latency_bound: 100 / the busier unit's. NaN for any other
/// finding, or evidence without the figures. Reads the finding's evidence and p's
/// timing, baseline and counters, so an older report's findings get it too.
double estimatedGain(const Finding& f, const Point& p, const DeviceInfo* device = nullptr);
/// evidence.estimated_gain of `f` when recorded (> 0), else NaN.
double recordedGain(const Finding& f);
/// Records evidence.estimated_gain (two decimals) on each finding with an estimate
/// that has none yet.
void addEstimatedGains(std::vector<Finding>& findings, const Point& p, const DeviceInfo* device = nullptr);
/// Orders by severity (error first), then by recorded gain, largest first, the
/// findings with a gain before those without; stable otherwise.
void rankByGain(std::vector<Finding>& findings);

// ---------------------------------------------------------------- PC sampling

/// One sampled PC of one function, with its samples per stall reason.
struct PcSample {
  std::string function;            ///< symbol, as in the cubin
  std::uint64_t pcOffset = 0;      ///< bytes from the function's start
  std::vector<StallCount> stalls;  ///< reason names already shortened (stallReasonName)
};

/// CUPTI's stall reason name without the `smsp__pcsamp_warps_issue_stalled_`
/// prefix; "" for the `_not_issued` variants (a subset of the plain reason,
/// counted again) so that samples are not counted twice.
std::string stallReasonName(const std::string& cuptiName);

/// The samples of `function` summed per source line through `table` (the
/// cubin's line table, trace_lines.h), hottest first, at most `maxLines`; per
/// instruction (SASS offset), hottest first, at most kMaxHotPcs;
/// per-kernel stall totals; samples at PCs the table does not cover are counted
/// as unmapped.
PcSamplingInfo foldPcSamples(const std::vector<PcSample>& samples, const std::string& function,
                             const LineTable& table, int maxLines = kMaxHotLines);

/// The sampling period (log2 of SM cycles, CUPTI's 5..31) that gives about
/// `targetSamples` samples over a kernel of `kernelNs` on `smCount` SMs at
/// `smClockMHz`; clamped to 5..24.
int pcSamplingPeriodLog2(double kernelNs, double smClockMHz, int smCount, double targetSamples = 50000);

}  // namespace tilescope
