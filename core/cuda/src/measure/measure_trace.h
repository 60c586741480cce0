// The traced launch within measurePoint (measure_trace.cpp).
#pragma once

#include "measure/measure_detail.h"
#include "tilescope/trace/trace.h"

namespace tilescope::cuda::detail {

/// Runs the traced launch (opts.trace) and fills p.trace. Returns true when the
/// untraced launch must be skipped: the trace stopped accesses that would have
/// faulted, and the measurement goes on from the traced launch's output.
bool traceBeforeLaunch(const Config& cfg, MeasureState& s, const MeasureOptions& opts,
                       const LaunchGeometry& g, KernelArgs& args, Point& p, TraceAnalysis* analysis);

/// Adds the trace's findings; a guard-zone oob_write of the same tensor and a
/// NaN-inferred oob_read give way to them.
void mergeTraceFindings(const TraceAnalysis& a, Point& p);

}  // namespace tilescope::cuda::detail
