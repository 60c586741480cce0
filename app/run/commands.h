// The verbs of tilescope-run (docs/report.md#exit-status). Each returns the
// process exit status (ExitStatus, tilescope/model/vocabulary.h).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tilescope/config/config.h"
#include "tilescope/model/report.h"
#include "tilescope/run/remote.h"
#include "tilescope/run/session.h"

namespace CLI {
class App;
}

namespace tilescope::cli {

/// The user's consent to what a config may ask for (docs/security.md).
struct Consent {
  bool commands = false;  ///< --allow-commands: command baselines, compiler options that run programs
  bool outsidePaths =
      false;  ///< --allow-outside-paths: sources, includes, .npy files outside the config's folder
};

/// --compiler and --compile-option: the config's compiler replaced and options
/// added, as a toolchain comparison asks (docs/toolchains.md). They pass the
/// same consent check as the config's own options.
struct CompileOverrides {
  std::string compiler;              ///< nvrtc | nvcc ("": the config's)
  std::vector<std::string> options;  ///< added after the config's kernel.options
};
/// "" or why the overrides do not apply (a Python kernel has no such compiler).
std::string applyCompileOverrides(Config& cfg, const CompileOverrides& o);

/// `compare CONFIG --toolchain A --toolchain B` (or --bisect V1,V2,...): one
/// config compiled under each toolchain (cmd_compare_toolchains.cpp, docs/toolchains.md).
struct ToolchainCompareArgs {
  std::string config, output, format = "text", device, bisect, wheelhouse;
  std::vector<std::string> toolchains;
  bool offline = false;    ///< pip --no-index
  bool noInstall = false;  ///< only environments already made
  bool run = false;        ///< --run: each side is a `run` on the GPU, not a `check`
  double timeoutS = 1800;  ///< one side's check
  Consent consent;
};
int compareToolchains(const ToolchainCompareArgs& a);
/// --toolchain, --bisect and their options, on the compare verb.
void addToolchainCompareOptions(CLI::App* compare, ToolchainCompareArgs& a);

struct CheckArgs {
  std::string config, device, output;
  CompileOverrides compile;
  bool noCompile = false;
  bool allowOutsidePaths = false;
  bool allowCommands = false;    ///< compile what runs programs: risky options, a Python kernel unconfined
  double compileTimeoutS = 120;  ///< per compile
  double checkTimeoutS = 600;    ///< all compiles of a check together: no point starts one past it
  bool stages = false;           ///< --stages: the compiler stages of each point (docs/report.md)
};
int cmdCheck(const CheckArgs& a);

struct RunArgs {
  std::string verb;  ///< run | sweep
  std::string config, output;
  int trials = 0;  ///< 0 = the config's
  int jobs = 1;
  double timeoutS = 0;
  double launchTimeoutS = 20;      ///< from a kernel's launch to its completion
  bool stream = false;             ///< stream events (tilescope.stream/1) on stdout
  std::string remote;              ///< ssh host: workers run there
  bool remoteShared = false;       ///< the host sees the same paths: copy nothing
  bool onlyFirstPoint = false;     ///< run: the first sweep point only
  bool trace = false;              ///< trace each point first (docs/report.md, "trace")
  std::string traceMode = "full";  ///< full | memory (no shared-memory hazards)
  int traceCells = 0;              ///< footprint cells per tensor in the report (0: the default)
  std::string shard;               ///< sweep --shard K/N: only that shard's points (shard.h)
  bool freshWorkers = false;       ///< a fresh worker process per capture (no warm workers)
  std::string counters;            ///< --counters basic|full|none ("": the config's, else basic)
  bool stages = false;             ///< run --stages: the compiler stages, compiled here (no GPU)
  CompileOverrides compile;        ///< --compiler/--compile-option, passed on to the workers
  Consent consent;
};
int cmdRun(const RunArgs& a);

/// The most points of one report that get compiler stages (each up to 5 stages
/// of kMaxStageBytes): a sweep's first ones.
inline constexpr int kMaxStagePoints = 4;
/// `--stages`: the compiler stages of point `p` (of config `point`), compiled
/// again for `arch` without a GPU; a note when the point was not compiled.
void attachStages(Point& p, const Config& point, const std::string& arch);

/// `sweep --slurm`: the sweep as a Slurm job array (cmd_slurm.cpp, README "On a cluster").
struct SlurmArgs {
  bool enabled = false;       ///< --slurm
  std::string dir;            ///< --slurm-dir: a folder the nodes share ("": a new one beside the config)
  std::string sbatchOptions;  ///< --sbatch "OPTIONS": passed to every sbatch
  std::string exe;            ///< --slurm-exe: the tilescope-run the tasks run ("": this one)
  int shards = 0;             ///< --shards: array tasks (0: one per point, at most 32)
  int retries = 1;            ///< --slurm-retries: resubmissions of a failed task
  double pollS = 5;           ///< --slurm-poll: seconds between squeue/sacct queries
  bool dryRun = false;        ///< --dry-run: print the script and the sbatch command only
};
int cmdSlurm(const RunArgs& a, const SlurmArgs& s);

struct WorkerArgs {
  std::string config;
  int point = 0, trial = 0, gpu = 0;
  bool serve = false;  ///< read capture requests on stdin (a warm worker, docs/protocol.md)
  int alignShift = 0, sentinelVariant = 0;
  double inputScale = 1.0;  ///< multiplies generated float inputs (diagnose's input_scale)
  /// --tolerance RTOL ATOL: judge this run at it, not the config's (diagnose: a
  /// bit-exact capture recompiled into another Triton specialisation)
  std::vector<double> tolerance;
  bool noTiming = false;
  bool noBaseline = false;
  bool noCounters = false;      ///< skip the profiling pass (diagnose's follow-up experiments)
  std::string counters;         ///< --counters basic|full|none ("": the config's, else basic)
  std::string baselineCache;    ///< --baseline-cache DIR: the sweep's shared baseline counters
  bool noSlowSampling = false;  ///< --no-slow-sampling: basic counters sample no PCs (a sweep's points)
  std::vector<std::string> overrides;  ///< NAME=VALUE for defines/params (diagnose's shapes)
  bool trace = false;
  std::string traceMode = "full";  ///< full | memory
  int traceCells = 0;
  bool oracle = false;  ///< no guards, exact allocations (compute-sanitizer as the oracle)
  CompileOverrides compile;
  Consent consent;
};
int cmdWorker(const WorkerArgs& a);
/// --compiler and --compile-option on a verb (check, run, sweep, worker).
void addCompileOverrideOptions(CLI::App* verb, CompileOverrides& o);
/// The worker arguments that pass `o` on.
std::vector<std::string> compileOverrideArgs(const CompileOverrides& o);

int cmdDevices(bool json);

struct ExportArgs {
  std::string report, format, output;
};
int cmdExport(const ExportArgs& a);

/// The common end of run, sweep and diagnose: the summary on stderr, the report
/// event on stdout with --stream, the report file with -o; returns the exit status.
int finishReport(const Report& report, const std::string& output, bool stream);

/// The end of run, sweep and diagnose when no capture ran: says why on stderr
/// (the remote host cannot be reached, with ssh's reason; or no GPU or driver
/// here, with the worker's) and returns kExitNoGpu.
int noGpuExit(const PointStatus& status);

/// `classify [LOGFILE|-]`: a pasted error log -> category, detail, tree node.
int cmdClassify(const std::string& input, bool json);

struct DiagnoseArgs {
  std::string config, output;
  double timeoutS = 0;
  bool stream = false;
  bool noTrace = false;   ///< no traced run, even where the evidence calls for one
  double maxSeconds = 0;  ///< the experiments' time budget (0: none but after a hang)
  std::string counters;   ///< --counters for the baseline capture (basic|full|none)
  std::string remote;     ///< ssh host: the workers run there
  bool remoteShared = false;
  Consent consent;
};
/// `diagnose CONFIG`: run, then the follow-up experiments the walked tree asks for.
int cmdDiagnose(const DiagnoseArgs& a);

struct InitTritonArgs {
  std::string target;  ///< FILE.py::KERNEL (KERNEL optional when the file has one)
  std::string output;  ///< default FILE_KERNEL.tscfg.json beside FILE.py
  bool force = false;
  bool allowCommands = false;  ///< import the file unconfined (docs/security.md)
};
/// `init-triton FILE.py::KERNEL`: a starting config from the kernel's signature.
int cmdInitTriton(const InitTritonArgs& a);

/// "<file>: <json.path>: <problem>" (the file is named once, also when the
/// loader's message already starts with it).
std::string configMessage(const std::string& file, const std::exception& e);

/// Prints "error: ..." on stderr and returns kExitUsage.
int usageError(const std::string& message);
/// "" when every name in the config's run.metrics exists on the chip of `arch`
/// (CUPTI's Profiler Host API, no GPU needed), else "run.metrics[i]: why".
std::string runMetricsError(const Config& cfg, const std::string& arch);

/// What `cfg` asks for without the user's consent (commands it would run, paths
/// outside its folder), as one message naming each JSON path and the option that
/// allows it; "" when nothing.
std::string consentProblem(const Config& cfg, const Consent& consent);

/// The one gate a config passes before anything runs (run, sweep, diagnose,
/// Slurm): it loads, nothing it names is run or read without `consent`, and
/// only then are its points resolved (resolving reads .npy headers), every
/// point or the first (`allPoints`). The exit status of the usage error that
/// stopped it, or nullopt with *cfg loaded.
std::optional<int> admitConfig(const std::string& path, const Consent& consent, bool allPoints, Config* cfg);

/// `--remote HOST`: copies the config's files to HOST (unless `shared`) and
/// points `opts` at ssh and the copy; `copy` removes it when destroyed. Returns
/// the usage error, or "" (an unreachable host is left to the session to report).
std::string setUpRemote(const std::string& host, bool shared, const Config& cfg, SessionOptions& opts,
                        std::unique_ptr<RemoteFolder>& copy);

/// The CUDA toolkit's folder ("" without CUDA): its headers are the host's own.
std::string toolkitRoot();

/// The arguments that pass `consent` on to a worker.
std::vector<std::string> consentArgs(const Consent& consent);

/// The worker arguments of `--counters SET` ("" passes nothing: the config decides).
std::vector<std::string> counterArgs(const std::string& set);

}  // namespace tilescope::cli
