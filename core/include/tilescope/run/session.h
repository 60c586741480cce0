// Runs the points of a config (× trials) each in an isolated `tilescope-run worker`
// process and gathers their results into one report. Core code: it never touches
// the GPU itself.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/base/process.h"
#include "tilescope/config/config.h"
#include "tilescope/model/report.h"
#include "tilescope/run/shard.h"
#include "tilescope/run/stream.h"

namespace tilescope {

struct SessionOptions {
  std::vector<std::string>
      workerCommand;       ///< e.g. {"/usr/bin/tilescope-run"} or {"ssh", "gpu1", "tilescope-run"}
  std::string configPath;  ///< as the worker will see it
  /// The arguments after workerCommand pass through a remote shell (ssh joins
  /// them into one command line): each is single-quoted for it.
  bool workerThroughShell = false;
  /// The ssh host of workerCommand ("" = local): an ssh that cannot connect is
  /// "cannot reach host", not a fault of the kernel.
  std::string remoteHost;
  int trials = 1;
  int jobs = 1;  ///< workers at once
  /// Each job slot keeps one worker (`worker --serve`) for point after point,
  /// replaced after a point that needsFreshWorker; false: a fresh process per capture.
  bool warmWorkers = true;
  std::vector<int> devices{0};               ///< GPU ordinals to spread jobs over
  double timeoutS = 0;                       ///< per worker; 0 = config.run.timeoutS or the default
  double launchTimeoutS = 20;                ///< from the first launch to its completion
  std::vector<std::string> extraWorkerArgs;  ///< passed to every worker (experiments, consent)
  /// The user allowed the config's own programs (--allow-commands): only then
  /// does a command baseline run.
  bool allowCommands = false;
  /// `sweep --shard K/N`: only the points of this shard (shard.h) run; the report
  /// says which in extra.shard.
  std::optional<Shard> shard;
  /// Every event a worker streams that could be read, tagged with its point_index
  /// and trial (stream.h); lines that could not be read are not passed on.
  std::function<void(const StreamEvent& event)> onEvent;
};

/// The default per-worker limit: compile + allocation + timing budget + slack.
double defaultWorkerTimeout(const Config& config);

/// Runs one worker for `pointIndex`/`trial` and turns whatever happened to it
/// (a result, a crash, a hang) into a Point.
Point runWorkerPoint(const Config& config, const SweepPoint& point, int trial, int device,
                     const SessionOptions& opts, DeviceInfo* deviceOut = nullptr);

/// A worker that serves capture after capture in one process (one CUDA context,
/// its libraries loaded once): `tilescope-run worker CONFIG --serve` fed one
/// request per capture (docs/protocol.md). A capture's Point is exactly what
/// runWorkerPoint would give: a worker that dies, hangs or faults is described
/// the same way, and the next capture gets a fresh worker.
class WarmWorker {
 public:
  WarmWorker();
  ~WarmWorker();  ///< ends the worker (closes its requests)
  WarmWorker(const WarmWorker&) = delete;
  WarmWorker& operator=(const WarmWorker&) = delete;

  Point capture(const Config& config, const SweepPoint& point, int trial, int device,
                const SessionOptions& opts, DeviceInfo* deviceOut = nullptr);
  /// Ends the worker now; the next capture starts a fresh one.
  void retire();
  /// Ends the worker without waiting for it to exit (the session's last capture
  /// is in: ServedChild::release).
  void release();
  /// How many worker processes it has started.
  int started() const { return m_started; }

 private:
  std::unique_ptr<ServedChild> m_child;
  int m_device = -1;
  int m_started = 0;
  int m_served = 0;  ///< captures the current worker has answered
};

/// A point after which a warm worker is not reused: the context may be dead
/// (sticky error, fault, hang), memory outside the tensors may have been written,
/// or the profiling pass failed (counters.pass_failed: CUPTI's state may be broken).
bool needsFreshWorker(const Point& p);

/// What a session of `verb` captures of a config file: `run` one point, the sweep's
/// first (the worker's point 0 of the file), whose config (the sweep's first values
/// substituted, no sweep) the report carries; `sweep` (or a config without a sweep)
/// the config itself, every point of it.
Config sessionConfig(const Config& config, const std::string& verb);

/// The points × trials of sessionConfig(config, verb); fills the result matrix, `race`
/// findings for trials that disagree, and the merged verdict.
Report runSession(const Config& config, const std::string& verb, const SessionOptions& opts);

/// What two runs on identical inputs are compared on (sweep trials, diagnose's
/// trials; the poison without the digest): the verdict (`slow` reads as `ok`: timing noise is not a
/// different result), the output bytes' digest (`withDigest`, where the worker
/// gave one) and, per output, mismatches, NaN, Inf, max_abs_err (`withMaxErr`)
/// and the unwritten count.
nlohmann::json runOutcome(const Point& p, bool withMaxErr = true, bool withDigest = true);

/// Adds `race` findings to points whose trials disagree (with each trial's GPU
/// when they ran on several) and `gpu_variance` where one point's kernel time
/// differs between GPUs; fills report.matrix.
void summariseTrials(Report& report, int trials);

/// Trials of point `index` that ran on different GPUs (gpu.uuid) whose kernel
/// times do not overlap (p10..p90) and whose medians differ by 10 % or more: a
/// `gpu_variance` warning naming both GPUs. Otherwise nothing.
std::optional<Finding> gpuVarianceFinding(const std::vector<Point*>& trials, int index);

}  // namespace tilescope
