// Kernel timing through the CUPTI Activity API (docs/report.md, `timing`): warm-up, an L2
// flush before every repetition, repetitions until the median settles, the
// durations of every kernel one call launches summed per repetition, and the
// same repetitions bracketed by CUDA events as a cross-check.
#pragma once

#include <cuda.h>

#include <functional>
#include <string>
#include <vector>

#include "tilescope/model/measurements.h"

namespace tilescope::cuda {

struct TimingOptions {
  int warmup = 3;  ///< untimed calls first (module loading, clocks ramping up)
  int minReps = 10;
  int maxReps = 1000;
  double budgetS = 2.0;           ///< wall-clock budget of the timed repetitions, seconds
  double targetRelNoise = 0.005;  ///< stop once the estimated relative noise of the median is below
  bool flushL2 = true;            ///< write 2 × L2 size before every repetition (cold-cache timing)
};

struct TimingResult {
  /// kernelNs: per-repetition sums of CUPTI kernel durations (ns); eventNs: the
  /// same repetitions timed with CUDA events; regs/smem/local: as launched, from
  /// the CUPTI record of the call's longest kernel; clocks: NVML SM clock before
  /// and after; note: anything a reader must know (fallbacks, gaps, throttling).
  TimingInfo info;
  int kernelsPerCall = 0;                ///< kernel records per repetition (0: unknown, event fallback)
  std::vector<std::string> kernelNames;  ///< the kernels of one repetition, in launch order (CUPTI names)
  std::string error;                     ///< non-empty when nothing could be timed (the call failed)
};

/// Median, p10, p90 (linear interpolation between order statistics), min, max, mean, n.
Stats summarize(std::vector<double> samples);
/// Coefficient of variation (sample standard deviation / mean); 0 for n < 2.
double coefficientOfVariation(const std::vector<double>& samples);
/// Estimated relative noise of the median: the median's standard error for
/// normally distributed samples, sqrt(pi/2) * CV / sqrt(n).
double medianRelNoise(const std::vector<double>& samples);

/// Times `call` (it enqueues work on the stream it is given) in the current CUDA
/// context (the primary context of device 0 is made current when none is).
/// Not re-entrant: one timeCalls at a time per process (CUPTI's activity buffers
/// are process-wide). Falls back to CUDA-event timing, with a note, when CUPTI
/// cannot be used (no privileges, another profiler attached).
TimingResult timeCalls(const std::function<void(CUstream)>& call, const TimingOptions& opts = {});

}  // namespace tilescope::cuda
