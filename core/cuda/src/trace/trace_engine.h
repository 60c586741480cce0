// The traced launch (internal to core/cuda): a second copy of the kernel's
// module, patched; the trace buffer laid out, initialised, handed to the
// patches; one launch; the aggregates copied back into a TraceCapture.
#pragma once

#include "tilescope/cuda/compile.h"
#include "tilescope/cuda/driver.h"
#include "tilescope/cuda/launch.h"
#include "tilescope/cuda/module.h"
#include "tilescope/cuda/tensors.h"
#include "tilescope/cuda/tracer.h"
#include "tilescope/trace/trace.h"
#include "trace/trace_abi.h"

namespace tilescope::cuda::detail {

struct TraceRun {
  bool ok = false;    ///< the launch ran and the buffer came back
  std::string error;  ///< why not (setup, patching or the launch)
  CUresult launchResult = CUDA_SUCCESS;
  bool dead = false;  ///< the traced launch left a sticky error: the context is lost
  TraceCapture capture;
  LineTable lines;
  std::string linesNote;  ///< why there is no line information
  std::string note;       ///< what went wrong without spoiling the trace (a map copied whole)
  double seconds = 0;     ///< the traced launch alone (patching excluded)
  /// Where the trace's time went, in order: setup (Sanitizer API, the patched
  /// module), buffer (layout, allocation, clearing), launch, readback, lines.
  std::vector<std::pair<std::string, double>> phases;
};

/// One PC slot as the device left it, with the totals the device does not
/// keep (threads, bytes, wavefronts, ideal wavefronts: see TsPc) derived.
/// The PC address itself is the caller's to set.
TracePc decodePc(const TsPc& p);

/// What the traced launch needs of the capture: the device's limits, the
/// capture's tensors (with their guard zones), and its loaded modules, the
/// untraced kernel's first; the patched copy is appended there, for the
/// capture to unload with the rest.
struct TraceInputs {
  const LiveLimits& limits;
  const std::vector<DeviceTensor>& tensors;
  std::vector<LoadedKernel>& modules;
};

/// Traces one launch of `ck`'s entry over the capture's tensors with `args`.
/// A sticky launch error sets TraceRun::dead.
TraceRun traceLaunch(const TraceInputs& in, const CompiledKernel& ck, const LaunchGeometry& g,
                     KernelArgs& args, const TraceOptions& o);

}  // namespace tilescope::cuda::detail
