// One point of a report (a sweep point × trial, docs/report.md#points): its
// findings, its measurements (measurements.h, counters_model.h, trace_info.h,
// stages_info.h), the GPU it ran on and what happened to the capture.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/model/counters_model.h"
#include "tilescope/model/finding.h"
#include "tilescope/model/measurements.h"
#include "tilescope/model/stages_info.h"
#include "tilescope/model/trace_info.h"
#include "tilescope/model/vocabulary.h"

namespace tilescope {

/// What happened to a capture beside its measurements: the flags the session,
/// diagnose and the CLI act on. JSON: keys of the point's `extra`.
struct PointStatus {
  bool noGpu = false;               ///< no_gpu: no GPU/CUDA where the worker ran
  bool remoteUnreachable = false;   ///< remote_unreachable: ssh could not reach the host (no_gpu too)
  std::optional<int> workerExit;    ///< worker_exit: its exit status when it gave no point
  std::string workerError;          ///< worker_error: why (its stderr, or why it did not start)
  std::optional<bool> stickyError;  ///< sticky_error: the CUDA context is dead after the capture
  std::string captureError;         ///< error: the capture could not set up (device, allocation)
  std::string tilesError, guardError, referenceError, downloadError;  ///< *_error: a step that failed
  std::map<std::string, std::string>
      outputDigest;  ///< output_digest: FNV-1a 64 of each output's 8-byte words
  std::string
      streamError;  ///< stream_error: the first line of the worker's stream that could not be read, and why
  /// scheduler_error: the point was never captured because the batch job meant to
  /// run it failed finally (`sweep --slurm`: the Slurm array task, its state and its
  /// log file); the point's verdict is then a placeholder, as with no_gpu.
  std::string schedulerError;
  bool operator==(const PointStatus&) const = default;
};

/// What a diagnose experiment changed for this capture. JSON: keys of the point's `extra`.
struct ExperimentInputs {
  std::map<std::string, std::int64_t> overrides;  ///< overrides: --set NAME=VALUE the point did not echo
  int alignShift = 0;                             ///< align_shift: bytes every base pointer moved
  int sentinelVariant = 0;                        ///< sentinel_variant: the second poison
  double inputScale = 1.0;                        ///< input_scale: generated float inputs multiplied by this
  bool operator==(const ExperimentInputs&) const = default;
};

/// The GPU a capture ran on, and where (sweeps over several GPUs or hosts tell
/// them apart by uuid). JSON: the point's `gpu`, absent when nothing ran.
struct GpuRecord {
  int ordinal = -1;          ///< the worker's device ordinal (in its CUDA_VISIBLE_DEVICES)
  std::string name, uuid;    ///< "NVIDIA H100 80GB HBM3", "GPU-8f3c…"
  std::string pciBusId;      ///< "0000:19:00.0"
  std::string host;          ///< the machine the worker ran on
  double smClockMHz = 0;     ///< SM clock when the capture started (0: not read)
  double smMaxClockMHz = 0;  ///< the SM's maximum clock
  double memClockMHz = 0;    ///< the memory's peak clock
  bool empty() const { return ordinal < 0 && name.empty(); }
  bool operator==(const GpuRecord&) const = default;
};

/// One sweep point × trial.
struct Point {
  int index = 0;  ///< sweep point
  int trial = 0;
  std::string label;
  nlohmann::json defines = nlohmann::json::object();
  nlohmann::json params = nlohmann::json::object();
  Verdict verdict = Verdict::ok;
  std::vector<Finding> findings;
  CompileInfo compile;
  LaunchInfo launch;
  TimingInfo timing;
  BaselineInfo baseline;
  std::optional<double> speedup;
  std::vector<CorrectnessInfo> correctness;  ///< one per checked output
  std::vector<CoverageInfo> coverage;        ///< one per output
  OccupancyInfo occupancy;
  CountersInfo counters;  ///< hardware counters and PC sampling (counters_model.h)
  std::string workerStderr;
  std::string deviceOutput;  ///< what the kernel printed (printf, failed asserts): the tail (device_output.h)
  std::string experiment;    ///< diagnose: which experiment this point is
  TraceInfo trace;           ///< `run --trace`: what the traced launch measured (status "" when not traced)
  StagesInfo stages;         ///< `--stages`: the compiler stages (collected false when not asked for)
  GpuRecord gpu;             ///< where it ran
  double wallSeconds = 0;
  PointStatus status;
  ExperimentInputs inputs;
  nlohmann::json extra = nlohmann::json::object();  ///< the rest of `extra` (open)
  bool operator==(const Point&) const = default;
};

/// The point's JSON (docs/report.md#points); the reader throws ReportError naming
/// the JSON path of a value of the wrong type.
nlohmann::json toJson(const Point& p);
Point pointFromJson(const nlohmann::json& j, const std::string& path = "point");

}  // namespace tilescope
