// The report model (SPEC §3, schema tilescope.report/1): what every verb writes,
// what the worker streams, what the GUI and the exports read.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/trace_info.h"

namespace tilescope {

inline constexpr const char* kReportSchema = "tilescope.report/1";

enum class Severity { info, warning, error };
const char* severityName(Severity s);
Severity parseSeverity(const std::string& s);

/// Verdicts, worst last (SPEC §3): ok < slow < incorrect < hang < fault < launch_error < compile_error.
/// The order is the order in which a person must fix things.
enum class Verdict { ok, slow, incorrect, hang, fault, launch_error, compile_error };
const char* verdictName(Verdict v);
Verdict parseVerdict(const std::string& s);
Verdict worse(Verdict a, Verdict b);

/// A finding (SPEC §3/§4). `evidence` holds the measurement behind it.
struct Finding {
  std::string category;          ///< SPEC §4 vocabulary
  Severity severity = Severity::error;
  std::string message;
  std::string detail;            ///< sub-class (compile_error, mismatch)
  std::string tensor;
  nlohmann::json location;       ///< {cta, tile, elements, thread, byte_offset, line, ...} or null
  nlohmann::json evidence;       ///< the measurement
  std::string treeNode;          ///< the troubleshooting-tree node to start from
  std::string experiment;        ///< the experiment that proved it (diagnose), or ""
};

struct Stats {
  double median = 0, p10 = 0, p90 = 0, min = 0, max = 0, mean = 0;
  int n = 0;
};

struct CompileInfo {
  bool attempted = false;
  bool ok = false;
  std::string compiler;          ///< nvrtc | nvcc | prebuilt
  std::string arch;              ///< sm_90
  std::string log;
  int regs = -1;                 ///< per thread (-1: unknown)
  std::int64_t smemStatic = -1;  ///< bytes
  std::int64_t localBytes = -1;  ///< per thread
  std::int64_t spillStores = -1, spillLoads = -1;  ///< bytes
  int maxThreadsPerBlock = -1;
  double seconds = 0;
  bool cached = false;
};

struct LaunchInfo {
  std::int64_t grid[3] = {1, 1, 1};
  std::int64_t block[3] = {1, 1, 1};
  std::int64_t sharedBytes = 0;
  bool attempted = false;
  bool ok = false;
  std::string error;             ///< CUDA error name and string, or ""
};

struct TimingInfo {
  bool measured = false;
  Stats kernelNs;                ///< CUPTI kernel durations
  double cv = 0;                 ///< coefficient of variation
  Stats eventNs;                 ///< cudaEvent durations of the same launches
  int regs = -1;                 ///< as launched (CUPTI record)
  std::int64_t smemStatic = -1, smemDynamic = -1, localPerThread = -1;
  double smClockBeforeMHz = 0, smClockAfterMHz = 0;
  bool throttled = false;
  std::string note;
};

struct BaselineInfo {
  std::string name;              ///< cublas | sdpa | sdpa_math | command | none
  bool measured = false;
  Stats kernelNs;
  int kernels = 0;               ///< kernels summed per call
  std::string error;
};

struct CorrectnessInfo {
  bool checked = false;
  std::string reference;         ///< gemm(cublas) | sdpa(cudnn) | sdpa_math | kernel | npy
  std::string tensor;
  double maxAbsErr = 0, maxRelErr = 0;
  std::int64_t mismatches = 0, nan = 0, inf = 0, elements = 0;
  std::int64_t firstMismatch[2] = {-1, -1};
  double rtol = 0, atol = 0;
  nlohmann::json tiles;          ///< per-tile summary {tile_shape, grid:[rows,cols], bad:[[r,c,count,maxerr]]}
  nlohmann::json errorMap;       ///< downsampled {rows, cols, cell:[r,c], max_abs:[...]}
};

struct CoverageInfo {
  std::string tensor;
  std::vector<std::int64_t> shape;
  std::int64_t elements = 0;
  // declared (static analysis)
  std::int64_t declaredCovered = 0, declaredUncovered = 0, declaredOverlapped = 0;
  std::vector<std::int64_t> tile;           ///< declared tile extent
  std::int64_t tilesTotal = 0, tilesCrossing = 0;
  // measured (GPU)
  bool measured = false;
  std::int64_t written = 0, unwritten = 0;
  nlohmann::json map;            ///< downsampled state map {rows, cols, cell:[r,c], states:[...]} (codes in report.cpp)
  nlohmann::json extra;          ///< tiles that cross bounds, gap tiles, ...
};

struct OccupancyInfo {
  bool computed = false;
  double theoretical = 0;        ///< 0..1
  std::string limiter;           ///< warps | registers | shared_memory | blocks | threads
  int blocksPerSm = 0, warpsPerSm = 0, maxWarpsPerSm = 0;
  int blocksLimitWarps = 0, blocksLimitRegs = 0, blocksLimitSmem = 0, blocksLimitSlots = 0;
  std::int64_t smemPerBlock = 0; ///< static + dynamic + reserved
  int regsPerThread = 0;
  int threadsPerBlock = 0;
  nlohmann::json curves;         ///< {block_size:[[x,occ]...], registers:[...], shared_memory:[...]}
};

/// One sweep point × trial.
struct Point {
  int index = 0;                 ///< sweep point
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
  std::vector<CorrectnessInfo> correctness;
  std::vector<CoverageInfo> coverage;
  OccupancyInfo occupancy;
  std::string workerStderr;
  std::string experiment;        ///< diagnose: which experiment this point is
  TraceInfo trace;               ///< `run --trace`: what the traced launch measured (status "" when not traced)
  double wallSeconds = 0;
  nlohmann::json extra = nlohmann::json::object();
};

struct DeviceInfo {
  std::string name, key, cc;     ///< "NVIDIA H100 80GB HBM3", "h100", "9.0"
  int smCount = 0;
  std::int64_t smemPerBlock = 0, smemPerBlockOptin = 0, smemPerSm = 0;
  bool live = false;             ///< read from a real GPU
  nlohmann::json extra = nlohmann::json::object();
};

struct TreeStep {
  std::string node;
  std::string question;
  std::string answer;
  nlohmann::json evidence;
  bool automatic = true;
};

struct Report {
  std::string schema = kReportSchema;
  std::string toolVersion;
  std::string createdAt;
  std::string host;
  std::string verb;              ///< check | run | sweep | diagnose
  DeviceInfo device;
  nlohmann::json config;
  std::vector<Point> points;
  Verdict verdict = Verdict::ok;
  std::vector<Finding> findings;
  std::vector<std::string> treePath;
  std::vector<TreeStep> treeSteps;
  nlohmann::json matrix;         ///< sweeps: {points:[label], trials:N, verdicts:[[..]]}
  nlohmann::json extra = nlohmann::json::object();

  /// Recomputes verdict (worst over points) and the merged findings.
  void finalize();
};

nlohmann::json toJson(const Report& r);
Report reportFromJson(const nlohmann::json& j);   ///< throws std::runtime_error on a wrong schema
nlohmann::json toJson(const Point& p);
Point pointFromJson(const nlohmann::json& j);
nlohmann::json toJson(const Finding& f);
nlohmann::json toJson(const DeviceInfo& d);
DeviceInfo deviceInfoFromJson(const nlohmann::json& j);
Finding findingFromJson(const nlohmann::json& j);

Report loadReport(const std::filesystem::path& file);
void saveReport(const Report& r, const std::filesystem::path& file);

/// The verdict a finding implies on its own (compile_error → compile_error, ...).
Verdict verdictForFinding(const Finding& f);
/// Worst verdict over a point's findings (severity error only; slow_vs_baseline → slow).
Verdict verdictForFindings(const std::vector<Finding>& findings);

/// Exit status per SPEC §2 for a completed run.
int exitCodeFor(const Report& r);

std::string nowIso8601();
std::string hostName();
std::string toolVersion();

}  // namespace tilescope
