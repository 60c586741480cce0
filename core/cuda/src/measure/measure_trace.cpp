// The traced launch inside a measurement (`run --trace`): it runs first, on the
// same tensors and arguments, through a patched copy of the module; then the
// tensors are restored and the measurement goes on with the untraced module, which
// alone is timed. When the trace stopped accesses that would have faulted
// (misaligned, outside every allocation), the untraced launch is skipped and
// the measurement judges the traced launch's output instead: the context survives.
#include "measure/measure_trace.h"

#include <algorithm>
#include <chrono>

#include "tilescope/analysis/tiles.h"
#include "trace/trace_engine.h"
#include "trace/trace_sanitizer.h"

namespace tilescope::cuda::detail {
namespace {

TileLookup tileLookup(const Config& cfg, const MeasureState& s) {
  std::shared_ptr<std::vector<TileCoverage>> tiles;
  try {
    tiles = std::make_shared<std::vector<TileCoverage>>(analyzeTiles(cfg, s.resolved));
  } catch (const std::exception&) {
    return {};
  }
  if (tiles->empty()) return {};
  return [tiles](const Dim3& b) -> std::optional<TraceTileHint> {
    const TileCoverage& t = tiles->front();
    try {
      TileInfo ti = t.tile(CtaIndex{b[0], b[1], b[2]});
      return TraceTileHint{t.tensor(), ti.origin, ti.extent};
    } catch (const std::exception&) {
      return std::nullopt;
    }
  };
}

}  // namespace

bool traceBeforeLaunch(const Config& cfg, MeasureState& s, const MeasureOptions& opts,
                       const LaunchGeometry& g, KernelArgs& args, Point& p, TraceAnalysis* analysis) {
  auto progress = [&](const std::string& m) {
    if (opts.progress) opts.progress(m);
  };
  progress("trace " + cfg.kernel.entry + " (Sanitizer API, " + (opts.trace.hazards ? "full" : "memory") +
           ")");
  // The trace runs under the worker's total limit, not the launch watchdog's.
  if (opts.phase) opts.phase("trace");
  TraceRun run = traceLaunch({s.limits, s.tensors, s.modules}, s.compiled, g, args, opts.trace);
  if (run.dead) s.dead = true;
  if (opts.phase) opts.phase("traced");
  if (!run.ok) {
    p.trace.status = SanitizerApi::instance().ready() ? "failed" : "unavailable";
    p.trace.reason = run.error;
    progress("trace " + p.trace.status + ": " + run.error);
    if (s.dead) {
      p.launch.error = cuErrorText(run.launchResult);
      p.findings.push_back(errorFinding(run.launchResult, "traced kernel", s.resolved.launch));
    }
    return false;
  }
  TraceOptionsForAnalysis ao;
  ao.source = cfg.kernel.source;
  ao.reportCells = opts.trace.reportCells;
  const auto t0 = std::chrono::steady_clock::now();
  *analysis = analyzeTrace(run.capture, run.lines, tileLookup(cfg, s), ao);
  run.phases.emplace_back("analysis",
                          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  p.trace = analysis->info;
  if (run.launchResult != CUDA_SUCCESS)
    p.trace.reason = "the traced launch returned " + run.capture.launchError;
  if (run.lines.empty()) p.trace.reason += (p.trace.reason.empty() ? "" : "; ") + run.linesNote;
  if (!run.note.empty()) p.trace.reason += (p.trace.reason.empty() ? "" : "; ") + run.note;
  p.extra["trace_seconds"] = run.seconds;
  for (const auto& [phase, seconds] : run.phases) p.extra["trace_phases"][phase] = seconds;
  progress("traced in " + std::to_string(run.seconds) +
           " s: " + std::to_string(analysis->info.faults.size()) + " bad instruction(s), " +
           std::to_string(analysis->info.hazards.size()) + " hazard pair(s)");
  if (analysis->wouldFault) return true;
  // The untraced launch starts from the same bytes as the traced one did.
  for (DeviceTensor& t : s.tensors) {
    std::string error;
    if (!restoreTensor(&t, &error)) p.extra["trace_restore_error"] = error;
  }
  return false;
}

void mergeTraceFindings(const TraceAnalysis& a, Point& p) {
  auto has = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  // The trace's finding replaces the guard-zone one for the same tensor (it
  // names the instruction); the guard's measurement joins its evidence.
  std::vector<Finding> kept;
  std::vector<Finding> traced = a.findings;
  for (Finding& f : p.findings) {
    const bool guardWrite = f.category == "oob_write" && has(a.oobWriteTensors, f.tensor) &&
                            f.evidence.value("source", "") != "trace";
    const bool inferredRead = f.category == "oob_read" && f.evidence.value("inferred", false);
    if (guardWrite) {
      for (Finding& t : traced)
        if (t.category == "oob_write" && t.tensor == f.tensor) t.evidence["guard_zone"] = f.evidence;
      continue;
    }
    // A NaN-based inference gives way to what the trace saw: proven reads, or none.
    if (inferredRead) continue;
    kept.push_back(std::move(f));
  }
  for (Finding& t : traced) kept.push_back(std::move(t));
  p.findings = std::move(kept);
}

}  // namespace tilescope::cuda::detail
