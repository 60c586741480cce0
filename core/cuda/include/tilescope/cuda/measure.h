// One measurement of one config point on a live GPU, run inside the worker process:
// compile, load, guarded tensors, launch, fault/launch-error classification, guard
// evidence, measured coverage, correctness against the reference, timing and the
// baseline. A sticky CUDA error ends the measurement at once: the context is unusable
// and the worker process must exit after reporting the Point.
#pragma once

#include <functional>
#include <string>

#include "tilescope/config/config.h"
#include "tilescope/cuda/tracer.h"
#include "tilescope/model/point.h"

namespace tilescope::cuda {

struct MeasureOptions {
  int device = 0;
  int alignShiftBytes = 0;  ///< moves every tensor's base off 256-byte alignment (diagnose)
  int sentinelVariant = 0;  ///< which sentinel outputs start with (tensor.h sentinelBits)
  bool timing = true;       ///< time the kernel (CUPTI)
  bool baseline = true;     ///< time the baseline
  /// Trace one launch first (docs/report.md, "trace"); compiles with -lineinfo.
  TraceOptions trace;
  /// For running under compute-sanitizer as an oracle: no guard zones, exact
  /// allocation sizes, outputs without init left as cuMemAlloc gave them.
  bool oracle = false;
  bool counters = true;  ///< the profiling pass (hardware counters, PC sampling); also config run.counters
  /// "basic" or "full" (`--counters`, counters.h CounterSet); "" takes the
  /// config's run.counters set, else basic.
  std::string counterSet;
  /// A folder the workers of one sweep share: the baseline's counters, read
  /// once by whichever worker gets there first, for every worker after it
  /// (keyed by the baseline call's identity). "" keeps them per worker.
  std::string baselineCacheDir;
  /// Under the basic set, sample the PCs of a kernel slower than its baseline
  /// (`run`, `diagnose`). A sweep's points are not sampled (`--no-slow-sampling`:
  /// PC sampling costs more than the rest of a warm point); the full set
  /// samples every point.
  bool sampleSlowKernels = true;
  std::function<void(const std::string&)> progress;  ///< one line per step, may be empty
  /// "launch" just before the kernel's first launch, "launched" once it completed
  /// (or failed): the parent's launch watchdog runs between the two. May be empty.
  std::function<void(const std::string&)> phase;
  /// Called with the point as measured so far (verdict set) just before the
  /// profiling pass, which runs CUPTI's profilers in-process over the kernel and
  /// the baseline's library calls, and again with the kernel's counters before
  /// the baseline is profiled: if that pass kills the process, what came before
  /// survives. May be empty.
  std::function<void(const Point&)> checkpoint;
};

/// Measures `pointConfig` (one sweep point: defines and params already substituted).
/// Fills compile, launch, correctness, coverage, timing, baseline, speedup,
/// counters, findings and verdict as far as the run got. Throws ConfigError only for
/// configuration errors that resolvePoint reports.
/// Point.status.stickyError is true when the context is dead (exit the process),
/// and Point.extra["device"] holds {name, cc, sm_count, ...} of the live device.
Point measurePoint(const Config& pointConfig, const MeasureOptions& opts);

}  // namespace tilescope::cuda
