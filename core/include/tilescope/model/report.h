// The report model (schema tilescope.report/1, docs/report.md): what every verb
// writes, what the worker streams, what the GUI and the exports read. Every part
// a reader interprets is a typed field; `evidence` and the `extra` objects stay
// open JSON for what only a person reads. One field list per struct
// (report_json.cpp) drives both directions of the serialisation.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/base/atomic_write.h"
#include "tilescope/base/json_input.h"
#include "tilescope/base/json_text.h"
#include "tilescope/model/counters_model.h"
#include "tilescope/model/location.h"
#include "tilescope/model/stages_info.h"
#include "tilescope/model/trace_info.h"
#include "tilescope/model/vocabulary.h"

namespace tilescope {

inline constexpr const char* kReportSchema = "tilescope.report/1";

/// A report (or stream) value of the wrong type or out of range. `path()` is its
/// JSON path ("points[3].timing.kernel_ns.median"); what() reads
/// "points[3].timing.kernel_ns.median: expected a number, found a string".
class ReportError : public std::runtime_error {
 public:
  ReportError(std::string path, const std::string& problem);
  const std::string& path() const { return m_path; }

 private:
  std::string m_path;
};

/// A finding (docs/report.md#findings). `evidence` holds the measurement behind it.
struct Finding {
  std::string category;  ///< a name of the category registry (vocabulary.h)
  Severity severity = Severity::error;
  std::string message;
  std::string detail;  ///< sub-class (compile_error, mismatch)
  std::string tensor;
  Location location;        ///< where, as far as the evidence reaches (empty: nowhere)
  nlohmann::json evidence;  ///< the measurement (open: read by a person)
  std::string treeNode;     ///< the troubleshooting-tree node to start from
  std::string experiment;   ///< the experiment that proved it (diagnose), or ""
  bool operator==(const Finding&) const = default;
};

struct Stats {
  double median = 0, p10 = 0, p90 = 0, min = 0, max = 0, mean = 0;
  int n = 0;
  bool operator==(const Stats&) const = default;
};

struct CompileInfo {
  bool attempted = false;
  bool ok = false;
  std::string compiler;  ///< nvrtc | nvcc | prebuilt
  std::string arch;      ///< sm_90
  std::string log;
  int regs = -1;                                   ///< per thread (-1: unknown)
  std::int64_t smemStatic = -1;                    ///< bytes
  std::int64_t localBytes = -1;                    ///< per thread
  std::int64_t spillStores = -1, spillLoads = -1;  ///< bytes
  int maxThreadsPerBlock = -1;
  double seconds = 0;
  bool cached = false;
  bool operator==(const CompileInfo&) const = default;
};

struct LaunchInfo {
  std::int64_t grid[3] = {1, 1, 1};
  std::int64_t block[3] = {1, 1, 1};
  std::int64_t sharedBytes = 0;
  bool attempted = false;
  bool ok = false;
  std::string error;  ///< CUDA error name and string, or ""
  bool operator==(const LaunchInfo&) const = default;
};

/// The geometry part of a launch, as a location names it.
LaunchGeometry launchGeometry(const LaunchInfo& l);

struct TimingInfo {
  bool measured = false;
  Stats kernelNs;  ///< CUPTI kernel durations
  double cv = 0;   ///< coefficient of variation
  Stats eventNs;   ///< cudaEvent durations of the same launches
  int regs = -1;   ///< as launched (CUPTI record)
  std::int64_t smemStatic = -1, smemDynamic = -1, localPerThread = -1;
  double smClockBeforeMHz = 0, smClockAfterMHz = 0;
  bool throttled = false;
  std::string note;
  bool operator==(const TimingInfo&) const = default;
};

struct BaselineInfo {
  std::string name;  ///< cublas | sdpa | sdpa_math | command | none
  bool measured = false;
  Stats kernelNs;
  int kernels = 0;  ///< kernels summed per call
  std::string error;
  bool operator==(const BaselineInfo&) const = default;
};

/// One tile with wrong elements: its position in the tile grid, how many, the worst error.
/// JSON: [row, col, count, max_err].
struct BadTile {
  std::int64_t row = 0, col = 0, count = 0;
  double maxErr = 0;
  bool operator==(const BadTile&) const = default;
};

/// Per-tile summary of a comparison over the output's 2-D view.
struct TileSummary {
  std::vector<std::int64_t> tileShape;     ///< the declared tile extent per dimension
  std::array<std::int64_t, 2> grid{0, 0};  ///< tile rows, tile columns
  std::vector<BadTile> bad;                ///< worst first, capped at kMaxTileList (compare.h)
  std::int64_t badTiles = 0, tilesTotal = 0;
  bool capped = false;  ///< `bad` lists fewer than badTiles
  bool operator==(const TileSummary&) const = default;
};

/// The comparison's downsampled error map: the largest |error| per cell, -1 where
/// a cell holds NaN/Inf. `cell` is the extent of one cell (rows, columns of elements).
struct ErrorMap {
  std::int64_t rows = 0, cols = 0;
  std::array<std::int64_t, 2> cell{1, 1};
  std::vector<double> maxAbs;  ///< rows × cols, row-major
  bool operator==(const ErrorMap&) const = default;
};

struct CorrectnessInfo {
  bool checked = false;
  std::string reference;  ///< gemm(cublas) | sdpa(cudnn) | sdpa_math | kernel | npy
  std::string tensor;
  double maxAbsErr = 0, maxRelErr = 0;
  std::int64_t mismatches = 0, nan = 0, inf = 0, elements = 0;
  std::int64_t firstMismatch[2] = {-1, -1};  ///< row, column in the 2-D view
  double rtol = 0, atol = 0;
  std::optional<TileSummary> tiles;
  std::optional<ErrorMap> errorMap;
  bool operator==(const CorrectnessInfo&) const = default;
};

/// What a coverage cell shows: the worst state of its elements. Codes are the
/// report's (docs/report.md); 4 and 5 come from the access tracer.
enum class CellState : std::uint8_t {
  ok = 0,
  mismatch = 1,
  unwritten = 2,
  nan_inf = 3,
  overlapped = 4,
  oob = 5
};
inline constexpr int kLastCellState = static_cast<int>(CellState::oob);

/// The measured coverage, downsampled to rows × cols cells of `cell` elements each.
struct CellMap {
  std::int64_t rows = 0, cols = 0;
  std::array<std::int64_t, 2> cell{1, 1};
  std::vector<std::string> legend;   ///< the names of the state codes, in code order
  std::vector<std::uint8_t> states;  ///< rows × cols CellState codes, row-major
  CellState at(std::int64_t row, std::int64_t col) const {
    return static_cast<CellState>(states[static_cast<std::size_t>(row * cols + col)]);
  }
  bool operator==(const CellMap&) const = default;
};

/// A declared tile that crosses the tensor's bounds: the CTA that owns it, where
/// it lies and the part inside (the mask). JSON: coverage's extra.crossing_tiles[].
struct CrossingTile {
  std::array<std::int64_t, 3> cta{};                        ///< blockIdx (x, y, z)
  std::vector<std::int64_t> origin, extent;                 ///< as declared, per dimension
  std::vector<std::int64_t> inBoundsBegin, inBoundsExtent;  ///< the part inside the tensor
  bool operator==(const CrossingTile&) const = default;
};

struct CoverageInfo {
  std::string tensor;
  std::vector<std::int64_t> shape;
  std::int64_t elements = 0;
  // declared (static analysis)
  std::int64_t declaredCovered = 0, declaredUncovered = 0, declaredOverlapped = 0;
  std::vector<std::int64_t> tile;  ///< declared tile extent
  std::int64_t tilesTotal = 0, tilesCrossing = 0;
  // measured (GPU)
  bool measured = false;
  std::int64_t written = 0, unwritten = 0;
  std::optional<CellMap> map;  ///< when measured
  /// The first tiles that cross the bounds (static analysis; absent when not analysed).
  std::optional<std::vector<CrossingTile>> crossingTiles;
  nlohmann::json extra;  ///< the rest of `extra`: gap regions, method, ... (open)
  bool operator==(const CoverageInfo&) const = default;
};

/// One point of an occupancy curve. JSON: [x, occupancy].
struct CurvePoint {
  std::int64_t x = 0;
  double occupancy = 0;
  bool operator==(const CurvePoint&) const = default;
};

/// The occupancy calculator's curves and where the kernel sits on them.
struct OccupancyCurves {
  std::vector<CurvePoint> blockSize, registers, sharedMemory;
  std::int64_t currentBlockSize = 0, currentRegisters = 0, currentSharedMemory = 0;
  double currentOccupancy = 0;
  bool operator==(const OccupancyCurves&) const = default;
};

struct OccupancyInfo {
  bool computed = false;
  double theoretical = 0;  ///< 0..1
  std::string limiter;     ///< warps | registers | shared_memory | blocks | threads
  int blocksPerSm = 0, warpsPerSm = 0, maxWarpsPerSm = 0;
  int blocksLimitWarps = 0, blocksLimitRegs = 0, blocksLimitSmem = 0, blocksLimitSlots = 0;
  std::int64_t smemPerBlock = 0;  ///< static + dynamic + reserved
  int regsPerThread = 0;
  int threadsPerBlock = 0;
  std::optional<OccupancyCurves> curves;
  bool operator==(const OccupancyInfo&) const = default;
};

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

struct DeviceInfo {
  std::string name, key, cc;  ///< "NVIDIA H100 80GB HBM3", "h100", "9.0"
  int smCount = 0;
  std::int64_t smemPerBlock = 0, smemPerBlockOptin = 0, smemPerSm = 0;
  int regsPerSm = 0, maxWarpsPerSm = 0, maxBlocksPerSm = 0;  ///< SM limits (0: unknown)
  bool live = false;                                         ///< read from a real GPU
  /// The peaks a roofline compares against (absent: not in the database entry).
  std::optional<double> dramGBs;                            ///< dram_gbs: DRAM bandwidth, 1e9 B/s
  std::optional<double> f32Tflops;                          ///< f32_tflops: FP32 FMA, 1e12 FLOP/s
  std::optional<double> f16TensorTflops, bf16TensorTflops;  ///< dense tensor cores, f32 accumulation
  nlohmann::json extra = nlohmann::json::object();          ///< the rest of the database entry
  bool operator==(const DeviceInfo&) const = default;
};

struct TreeStep {
  std::string node;
  std::string question;
  std::string answer;
  nlohmann::json evidence;
  bool automatic = true;
  bool operator==(const TreeStep&) const = default;
};

/// A sweep's result matrix: a row per sweep point, a column per trial.
struct ResultMatrix {
  std::vector<std::string> points;  ///< labels
  int trials = 1;
  std::vector<std::vector<Verdict>> verdicts;  ///< [point][trial]
  bool operator==(const ResultMatrix&) const = default;
};

/// One capture diagnose made (docs/diagnose.md). JSON: extra.diagnose.experiments[].
struct DiagnoseExperiment {
  std::string group;              ///< the experiment kind: baseline, trials, align_shift, ...
  std::string experiment;         ///< its name, as the point's `experiment`
  std::string why;                ///< what the tree or the evidence asked
  std::vector<std::string> args;  ///< what the worker was passed beyond the config
  Verdict verdict = Verdict::ok;
  double wallSeconds = 0;
  /// How the kernel was built for it: "" (the baseline's build), or a rebuild
  /// for what the experiment changes ("recompiled from k.py as Triton's JIT ...").
  std::string compiled;
  bool operator==(const DiagnoseExperiment&) const = default;
};

/// An experiment the evidence called for that diagnose did not run, and why
/// (a binary it cannot rebuild for shifted pointers, other shapes or warps).
/// JSON: extra.diagnose.skipped[].
struct DiagnoseSkipped {
  std::string group;   ///< the experiment kind: align_shift, small_shapes, warps
  std::string why;     ///< what the experiment would have asked
  std::string reason;  ///< why it cannot run, and what would let it
  bool operator==(const DiagnoseSkipped&) const = default;
};

/// What one group of experiments settled. JSON: extra.diagnose.conclusions[].
struct DiagnoseConclusion {
  std::string group;
  int runs = 0;
  bool settled = false;
  std::string summary;
  std::vector<std::string> findings;  ///< the categories it concluded
  bool operator==(const DiagnoseConclusion&) const = default;
};

/// What `diagnose` did beside its points. JSON: extra.diagnose.
struct DiagnoseInfo {
  std::vector<DiagnoseExperiment> experiments;
  std::vector<DiagnoseConclusion> conclusions;
  std::optional<int> captures;  ///< absent when no GPU was found for the baseline
  int maxCaptures = 0;
  std::string stopped;    ///< why the experiments ended ("conclusive: race", "capture limit (8) reached")
  std::string treeError;  ///< the troubleshooting tree could not load or walk
  std::vector<DiagnoseSkipped> skipped;  ///< called-for experiments that could not run
  double budgetS = 0;                    ///< the time budget in force (0: none)
  std::vector<std::string> notRun;       ///< planned experiments the budget cut
  bool operator==(const DiagnoseInfo&) const = default;
};

/// `sweep --shard K/N`: the shard a report holds. JSON: extra.shard.
struct ShardInfo {
  int index = 0, count = 1;
  std::vector<int> points;  ///< the sweep point indices it holds
  bool operator==(const ShardInfo&) const = default;
};

/// How a run's captures ran. JSON: extra.workers.
struct WorkersInfo {
  bool warm = false;  ///< warm workers (`worker --serve`), or a fresh process per capture
  int started = 0;    ///< worker processes started
  bool operator==(const WorkersInfo&) const = default;
};

/// One Slurm array task of `sweep --slurm`. JSON: extra.slurm.tasks[].
struct SlurmTaskInfo {
  int task = 0;
  std::string job;       ///< the last attempt's JOB_K
  std::string state;     ///< Slurm's final state (COMPLETED, TIMEOUT, ...)
  std::string exitCode;  ///< EXIT:SIGNAL
  int attempts = 0;
  std::string log;
  std::vector<std::int64_t> points;  ///< the sweep point indices of its shard
  bool gathered = false;             ///< its part report was read
  std::optional<std::string> host;   ///< the part's host, when gathered
  std::string partProblem;           ///< why its part report could not be used
  bool operator==(const SlurmTaskInfo&) const = default;
};

/// `sweep --slurm`. JSON: extra.slurm.
struct SlurmInfo {
  std::string dir, script;        ///< the job folder and its batch script
  std::vector<std::string> jobs;  ///< every job submitted, resubmissions included
  std::vector<SlurmTaskInfo> tasks;
  bool operator==(const SlurmInfo&) const = default;
};

/// How a run was spread out (docs/report.md, extra). Each part is absent when unused.
struct RunInfo {
  std::optional<ShardInfo> shard;
  std::optional<WorkersInfo> workers;
  std::optional<SlurmInfo> slurm;
  bool operator==(const RunInfo&) const = default;
};

struct Report {
  std::string schema = kReportSchema;
  std::string toolVersion;
  std::string createdAt;
  std::string host;
  std::string verb;  ///< check | run | sweep | diagnose
  DeviceInfo device;
  nlohmann::json config;  ///< the resolved config document (docs/config.md)
  std::vector<Point> points;
  Verdict verdict = Verdict::ok;
  std::vector<Finding> findings;
  std::vector<std::string> treePath;
  std::vector<TreeStep> treeSteps;
  std::optional<ResultMatrix> matrix;
  bool noGpu = false;                               ///< extra.no_gpu: diagnose found no GPU for its baseline
  std::optional<DiagnoseInfo> diagnose;             ///< extra.diagnose: the `diagnose` verb's experiments
  RunInfo run;                                      ///< extra.shard, extra.workers, extra.slurm
  nlohmann::json extra = nlohmann::json::object();  ///< the rest of `extra` (open)

  /// Recomputes verdict (worst over points) and the merged findings.
  void finalize();
  bool operator==(const Report&) const = default;
};

/// The parts of a report's `config` (docs/config.md) the exports show, as the
/// config wrote them (names, expressions, numbers): each a JSON value, null
/// where absent.
struct ConfigHeadline {
  nlohmann::json name, description;
  nlohmann::json entry, source, compiler, defines;  ///< kernel.*
  nlohmann::json params;
  nlohmann::json grid, block, sharedBytes;  ///< launch.*
  nlohmann::json reference, baseline, sweep;
};
/// Reads what it can: a `kernel` or `launch` that is not an object leaves its parts null.
ConfigHeadline configHeadline(const nlohmann::json& config);

/// One element a comparison found wrong, as a finding's evidence lists it
/// (evidence.samples[]: {index, expected, actual}; `element` is an older
/// writer's name for `index`).
struct MismatchSample {
  std::vector<std::int64_t> index;                             ///< per dimension of the tensor
  double expected = std::numeric_limits<double>::quiet_NaN();  ///< NaN where the report holds none
  double actual = std::numeric_limits<double>::quiet_NaN();
  bool operator==(const MismatchSample&) const = default;
};
/// The samples of a finding's evidence; entries that are not samples are passed over
/// (the evidence is open JSON, written by hand as often as not).
std::vector<MismatchSample> mismatchSamples(const Finding& f);

/// Serialisation. Readers accept the shapes earlier versions wrote (docs/report.md
/// lists them), ignore unknown keys outside the open `extra` objects, and throw
/// ReportError naming the JSON path of a value of the wrong type.
nlohmann::json toJson(const Report& r);
Report reportFromJson(const nlohmann::json& j);  ///< also throws ReportError on a wrong schema
/// A report's text decoded without building a document (one pass indexes the text,
/// one decodes it: a 20,000-point sweep of 209 MB reads in a fifth of the time,
/// issue 31 N19); loadReport and openDocument read files with it. nullopt where
/// the text is not a tilescope.report/1 object this reader takes on its own (not
/// JSON, over a limit of reportJsonLimits(), another schema, a byte-order mark):
/// reportFromJson(parseJson(text)) then reads it or says why. A report with a
/// wrong value throws the ReportError reportFromJson would.
std::optional<Report> reportFromText(const std::string& text);
nlohmann::json toJson(const Point& p);
Point pointFromJson(const nlohmann::json& j, const std::string& path = "point");
nlohmann::json toJson(const Finding& f);
Finding findingFromJson(const nlohmann::json& j, const std::string& path = "finding");
nlohmann::json toJson(const DeviceInfo& d);
DeviceInfo deviceInfoFromJson(const nlohmann::json& j, const std::string& path = "device");
nlohmann::json toJson(const Location& l);
Location locationFromJson(const nlohmann::json& j, const std::string& path = "location");

/// Reads a report (a regular file with reportJsonLimits()); errors name the file
/// and where: "FILE: line L, column C: ..." or "FILE: JSON.PATH: ...".
Report loadReport(const std::filesystem::path& file);
/// Writes to a temporary file beside `file` and renames it over: `file` is either
/// the old content or the whole new report, never truncated (writeFileAtomically).
void saveReport(const Report& r, const std::filesystem::path& file);

/// The verdict a finding implies on its own (the category registry's verdict for
/// severity error; warnings and infos imply ok, except slow_vs_baseline → slow).
/// Throws std::invalid_argument for a category the registry does not know.
Verdict verdictForFinding(const Finding& f);
/// Worst verdict over a point's findings.
Verdict verdictForFindings(const std::vector<Finding>& findings);

/// Exit status for a completed run (docs/report.md#exit-status): kExitOk when the
/// verdict is ok, kExitFindings otherwise.
int exitCodeFor(const Report& r);

std::string nowIso8601();
std::string hostName();
std::string toolVersion();

}  // namespace tilescope
