// Baseline comparisons shared by the capture (cuBLAS/SDPA, timed in the worker)
// and the parent process (an external command baseline, docs/config.md `baseline`).
#pragma once

#include <optional>
#include <vector>

#include "tilescope/config/config.h"
#include "tilescope/model/point.h"

namespace tilescope {

/// Sets `speedup` (baseline median / kernel median) when both are measured and
/// returns the `slow_vs_baseline` warning when the kernel is slower than the
/// baseline by more than `slowFactor`.
std::optional<Finding> compareWithBaseline(Point& p, double slowFactor);

/// For `baseline: {"command": ..., "parse": "json"}`: runs the command once per
/// sweep point (in the config's folder, through /bin/sh, with the point's
/// defines and params in the environment as TILESCOPE_<NAME>), reads
/// `{"median_ns": N}` from the last JSON line it prints, and fills each of the
/// point's captures' baseline, speedup and slow_vs_baseline finding. A command
/// that fails or prints no median leaves `baseline.error` saying why. Points
/// whose kernel was not timed (no GPU, a failed capture) never run it. The
/// caller decides whether the user allowed it (docs/security.md).
/// With `remoteHost` the command runs where the workers ran (docs/security.md, "Worker results and remote
/// baselines": it ran here, so the speedup compared two machines): over ssh, in `remoteConfigDir` (the
/// config's folder as the host sees it).
void applyCommandBaseline(std::vector<Point>& points, const Config& config, double timeoutS = 300,
                          const std::string& remoteHost = {}, const std::string& remoteConfigDir = {});

/// The command that runs `script` through /bin/sh: locally, or on `remoteHost`
/// over ssh (BatchMode, `--` before the host, the script quoted for the remote shell).
std::vector<std::string> baselineArgv(const std::string& script, const std::string& remoteHost);

}  // namespace tilescope
