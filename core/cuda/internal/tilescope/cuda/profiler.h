// Hardware counters through CUPTI's profiler (a session of its own per
// profile; the Range Profiler where that API is refused or
// TILESCOPE_PROFILER_API=range) and its Profiler Host API (CUDA 13): kernel
// or user replay, one auto range per kernel launch, metrics under Nsight Compute's
// names. CUPTI types stay in profiler.cpp; CUstream makes this header private
// to core/cuda (the metric-name checks are in profiler_host.h).
#pragma once

#include <cuda.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tilescope/cuda/profiler_host.h"

namespace tilescope::cuda {

struct RangeProfile {
  std::string error;                 ///< "" on success, else one line (why counters are unavailable)
  std::vector<std::string> missing;  ///< requested metrics the chip does not have (skipped)
  std::string chip;                  ///< "GH100"
  int passes = 0;                    ///< replay passes the metric list needs
  int replayedPasses = 0;            ///< passes run (user replay: calls of the workload)
  std::string replay;                ///< "kernel" (CUPTI replays) or "user" (the caller's restore)
  /// One entry per kernel launch, in launch order: metric -> value.
  std::vector<std::map<std::string, double>> ranges;
  double seconds = 0;  ///< wall time of the whole profile (setup, replays, evaluation)
};

/// Profiles every kernel that `call` launches (on the stream it is given) in
/// the current context, one auto range per launch. Without `restore`, kernel
/// replay: CUPTI saves and restores device memory between its passes. With
/// it, user replay: `restore` puts
/// back, on the stream it is given, every buffer `call` writes as it was
/// before the profile, and runs before each pass. Either way `call` has run
/// its kernels once as far as their results go. Not re-entrant; not while the
/// Activity API records kernels (timeCalls) or PC sampling runs.
RangeProfile profileRanges(const std::function<void(CUstream)>& call, const std::vector<std::string>& metrics,
                           int maxRanges = 64, const std::function<void(CUstream)>& restore = {});

/// Where the range profiler profiles, it stays enabled on the context between
/// profiles until this disables it, as PC sampling, other profilers and the
/// end of a capture need. A session of the session API never outlives its
/// profile. Safe to call when nothing is enabled.
void releaseRangeProfiler();

}  // namespace tilescope::cuda
