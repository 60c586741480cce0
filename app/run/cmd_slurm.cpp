// `sweep CONFIG --slurm`: the sweep as one Slurm job array, one task per shard of
// its points (shard.h). The batch script and the part reports live in a folder
// every node sees; this process submits with sbatch, follows the array with
// squeue (and sacct where accounting is on), resubmits the tasks that failed,
// and merges the parts into one sweep report (slurm.h). It never touches the GPU.
#include <sys/stat.h>

#include <atomic>
#include <csignal>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "commands.h"
#include "options.h"
#include "tilescope/base/process.h"
#include "tilescope/config/config.h"
#include "tilescope/run/slurm.h"
#include "tilescope/run/stream.h"

namespace fs = std::filesystem;

namespace tilescope::cli {

namespace {

/// A task that ended without a usable part is looked at this many polls more
/// before it counts as failed: a shared filesystem may show a file late.
constexpr int kGracePolls = 2;
/// A task neither squeue nor sacct lists for this many polls has left the queue.
constexpr int kUnseenPolls = 5;
constexpr int kDefaultMaxShards = 32;

/// The signal that asked this command to stop (SIGINT, SIGTERM), 0 before.
std::atomic<int> g_stopSignal{0};
extern "C" void onStopSignal(int sig) { g_stopSignal = sig; }

struct ToolResult {
  bool ok = false;
  std::string out, err;
};

/// Runs one of Slurm's client tools (they answer in seconds or the controller is down).
ToolResult runTool(const std::vector<std::string>& argv) {
  ToolResult r;
  ChildResult c = runChild(argv, 60, [&](const std::string& line) { r.out += line + "\n"; });
  r.ok = c.started && !c.timedOut && c.signal == 0 && c.exitCode == 0;
  r.err = c.started ? c.stderrText : c.startError;
  while (!r.err.empty() && (r.err.back() == '\n' || r.err.back() == '\r')) r.err.pop_back();
  return r;
}

bool onPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream in(path ? path : "");
  for (std::string dir; std::getline(in, dir, ':');)
    if (!dir.empty() && access((fs::path(dir) / name).c_str(), X_OK) == 0) return true;
  return false;
}

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

/// What every task's `sweep` gets from this command line.
std::vector<std::string> sweepArgs(const RunArgs& a) {
  std::vector<std::string> args;
  if (a.trials > 0) args.insert(args.end(), {"--trials", std::to_string(a.trials)});
  if (a.jobs > 1) args.insert(args.end(), {"--jobs", std::to_string(a.jobs)});
  if (a.timeoutS > 0) args.insert(args.end(), {"--timeout", number(a.timeoutS)});
  if (a.launchTimeoutS != RunArgs{}.launchTimeoutS)
    args.insert(args.end(), {"--launch-timeout", number(a.launchTimeoutS)});
  if (a.trace) {
    args.insert(args.end(), {"--trace", "--trace-mode", a.traceMode});
    if (a.traceCells > 0) args.insert(args.end(), {"--trace-cells", std::to_string(a.traceCells)});
  }
  const auto consent = consentArgs(a.consent);
  args.insert(args.end(), consent.begin(), consent.end());
  return args;
}

/// A new folder beside the config: NAME.slurm-YYYYMMDD-HHMMSS (-2, -3, ... if taken).
fs::path defaultDir(const fs::path& config) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  std::string stem = config.filename().string();
  for (const char* ext : {".json", ".tscfg"})
    if (stem.size() > std::strlen(ext) && stem.ends_with(ext)) stem.resize(stem.size() - std::strlen(ext));
  const fs::path base = config.parent_path() / (stem + ".slurm-" + stamp);
  fs::path dir = base;
  for (int i = 2; fs::exists(dir); ++i) dir = base.string() + "-" + std::to_string(i);
  return dir;
}

}  // namespace

// The follower: one record per array task, updated from squeue/sacct and the
// part files each poll.
namespace {

struct Track {
  ShardTask t;
  std::string arrayJob;
  bool done = false, lost = false;
  int endedPolls = 0, unseenPolls = 0;
};

class Follower {
 public:
  Follower(SlurmJob job, std::size_t points, int trials, int retries,
           std::function<void(const std::string&)> say)
      : m_job(std::move(job)), m_points(points), m_trials(trials), m_retries(retries), m_say(std::move(say)) {
    m_tracks.resize(static_cast<std::size_t>(m_job.shards));
    for (int k = 0; k < m_job.shards; ++k) m_tracks[static_cast<std::size_t>(k)].t.task = k;
  }

  /// Submits `tasks`; "" or sbatch's complaint.
  std::string submit(const std::vector<int>& tasks) {
    const ToolResult r = runTool(sbatchCommand(m_job, tasks));
    std::string id;
    try {
      if (!r.ok) throw std::runtime_error(r.err.empty() ? r.out : r.err);
      id = parseSbatchJobId(r.out);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    m_jobs.push_back(id);
    for (int k : tasks) {
      Track& tr = m_tracks[static_cast<std::size_t>(k)];
      tr.arrayJob = id;
      tr.t.job = id + "_" + std::to_string(k);
      tr.t.log = slurmLogPath(m_job.dir, id, k);
      tr.t.state.clear(), tr.t.exitCode.clear(), tr.t.partProblem.clear();
      tr.t.attempts += 1;
      tr.endedPolls = tr.unseenPolls = 0;
    }
    return "";
  }

  void poll() {
    std::set<std::string> jobs;
    for (const auto& tr : m_tracks)
      if (!tr.done && !tr.lost) jobs.insert(tr.arrayJob);
    for (const auto& j : jobs) pollJob(j);
    std::vector<int> again;
    for (auto& tr : m_tracks) {
      if (tr.done || tr.lost) continue;
      takePart(tr);
      if (tr.done) continue;
      const bool ended = slurmStateFinal(tr.t.state) || tr.unseenPolls > kUnseenPolls;
      if (ended && ++tr.endedPolls > kGracePolls) {
        if (tr.unseenPolls > kUnseenPolls) tr.t.state = "UNKNOWN";
        if (tr.t.attempts <= m_retries)
          again.push_back(tr.t.task);
        else
          tr.lost = true;
      }
    }
    if (!again.empty()) resubmit(again);
  }

  bool finished() const {
    for (const auto& tr : m_tracks)
      if (!tr.done && !tr.lost) return false;
    return true;
  }

  /// "4 tasks: 1 pending, 2 running, 1 done; 4/16 points gathered"
  std::string progress() const {
    std::map<std::string, int> n;
    std::size_t gathered = 0;
    for (const auto& tr : m_tracks) {
      if (tr.done)
        ++n["done"], gathered += shardSize(tr.t.task);
      else if (tr.lost)
        ++n["failed"];
      else if (tr.t.state.empty() || tr.t.state == "PENDING")
        ++n["pending"];
      else if (slurmStateFinal(tr.t.state))
        ++n["ended"];
      else
        ++n["running"];
    }
    std::string s = std::to_string(m_tracks.size()) + " task(s):";
    for (const char* k : {"pending", "running", "ended", "done", "failed"})
      if (n[k] > 0) s += std::string(s.back() == ':' ? " " : ", ") + std::to_string(n[k]) + " " + k;
    return s + "; " + std::to_string(gathered) + "/" + std::to_string(m_points) + " points gathered";
  }

  std::vector<ShardTask> results() const {
    std::vector<ShardTask> out;
    for (const auto& tr : m_tracks) out.push_back(tr.t);
    return out;
  }
  const std::vector<std::string>& jobs() const { return m_jobs; }

 private:
  std::size_t shardSize(int k) const {
    const auto [b, e] = shardBounds(m_points, {k, m_job.shards});
    return e - b;
  }

  void pollJob(const std::string& job) {
    // squeue answers from the controller (recently ended tasks included, for
    // MinJobAge); sacct, where accounting is on, also knows older tasks and
    // their exit codes.
    const ToolResult q = runTool(squeueCommand(job));
    if (!q.ok && q.err.find("Invalid job id") == std::string::npos) {
      sayOnce("squeue failed (" + q.err + "); still following");
      return;  // the controller did not answer: nothing learnt, nothing counted
    }
    std::map<int, SlurmTaskState> seen;
    for (const auto& s : parseSqueue(q.ok ? q.out : "")) seen[s.task] = s;
    if (m_sacct) {
      const ToolResult a = runTool(sacctCommand(job));
      if (!a.ok) {
        m_sacct = false;
        sayOnce("sacct is not available (" + a.err + "): following the tasks with squeue alone");
      }
      for (const auto& s : parseSacct(a.ok ? a.out : ""))
        if (slurmStateFinal(s.state) || !seen.count(s.task))
          seen[s.task] = s;  // sacct's end states carry exit codes
    }
    for (auto& tr : m_tracks) {
      if (tr.arrayJob != job || tr.done || tr.lost) continue;
      const auto it = seen.find(tr.t.task);
      if (it == seen.end()) {
        ++tr.unseenPolls;
        continue;
      }
      tr.unseenPolls = 0;
      tr.t.state = it->second.state;
      if (!it->second.exitCode.empty()) tr.t.exitCode = it->second.exitCode;
    }
  }

  void takePart(Track& tr) {
    const std::string path = slurmPartPath(m_job.dir, tr.t.task);
    std::error_code ec;
    if (!fs::exists(path, ec)) return;
    try {
      Report part = loadReport(path);
      tr.t.partProblem = shardPartProblem(part, {tr.t.task, m_job.shards}, m_points, m_trials);
      if (!tr.t.partProblem.empty()) return;
      tr.t.part = std::move(part);
      tr.done = true;
    } catch (const std::exception& e) {
      tr.t.partProblem = e.what();
    }
  }

  void resubmit(const std::vector<int>& tasks) {
    std::string what;
    for (int k : tasks) {
      const Track& tr = m_tracks[static_cast<std::size_t>(k)];
      what += (what.empty() ? "" : ", ") + tr.t.job + " " + tr.t.state;
    }
    const std::string error = submit(tasks);
    if (!error.empty()) {
      m_say("resubmitting " + what + " failed: " + error);
      for (int k : tasks) m_tracks[static_cast<std::size_t>(k)].lost = true;
      return;
    }
    m_say("resubmitted " + what + " as job " + m_jobs.back() + " (array " + slurmArraySpec(tasks) + ")");
  }

  void sayOnce(const std::string& s) {
    if (m_said.insert(s).second) m_say(s);
  }

  SlurmJob m_job;
  std::size_t m_points;
  int m_trials, m_retries;
  std::function<void(const std::string&)> m_say;
  std::vector<Track> m_tracks;
  std::vector<std::string> m_jobs;
  bool m_sacct = true;
  std::set<std::string> m_said;
};

/// SIGINT/SIGTERM: scancel every job submitted; no report.
int cancelJobs(const std::vector<std::string>& jobs, int sig,
               const std::function<void(const std::string&)>& say) {
  std::vector<std::string> cancel = {"scancel"};
  cancel.insert(cancel.end(), jobs.begin(), jobs.end());
  const ToolResult r = runTool(cancel);
  std::string ids;
  for (const auto& j : jobs) ids += " " + j;
  say(std::string("stopped by ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") + ": " +
      (r.ok ? "cancelled job(s)" + ids : "scancel" + ids + " failed: " + r.err) + "; no report written");
  return 128 + sig;
}

/// The merged report's summary, file and exit status.
int finishSlurmReport(const RunArgs& a, const Report& report) {
  std::set<std::string> lost;
  bool noGpu = !report.points.empty();
  for (const auto& p : report.points) {
    if (!p.status.schedulerError.empty()) lost.insert(p.status.schedulerError);
    noGpu = noGpu && p.status.noGpu;
  }
  if (noGpu) {
    // As a sweep without a GPU (exit 3), but the report is written: it says
    // which nodes ran which points.
    if (a.stream) std::cout << toLine({ReportEvent{report}, {}}) << '\n' << std::flush;
    if (!a.output.empty())
      saveReport(report, a.output), std::cerr << "report written to " << a.output << '\n';
    std::cerr << "tilescope-run: no GPU or CUDA driver on the Slurm nodes: "
              << report.points.front().status.workerError << '\n';
    return kExitNoGpu;
  }
  const int rc = finishReport(report, a.output, a.stream);
  // Points the cluster did not capture make the sweep incomplete: exit 3, with
  // the report written all the same.
  for (const auto& why : lost) std::cerr << "tilescope-run: error: " << why << '\n';
  if (!lost.empty()) return kExitNoGpu;
  return rc;
}

/// The folder, the script, the submission, the following and the merge.
int followSlurmJob(const RunArgs& a, const SlurmJob& job, const Config& cfg, std::size_t points, int trials,
                   const SlurmArgs& s) {
  std::error_code ec;
  const bool madeHere = !fs::exists(job.dir, ec);  // removed again if sbatch refuses the job
  fs::create_directories(job.dir, ec);
  if (ec) return usageError("--slurm-dir '" + job.dir + "': " + ec.message());
  for (int k = 0; k < job.shards; ++k)
    if (fs::exists(slurmPartPath(job.dir, k), ec))
      return usageError("--slurm-dir '" + job.dir + "' holds the part reports of an earlier run (" +
                        slurmPartPath(job.dir, k) + "): pick an empty folder");
  writeFileAtomically(slurmScriptPath(job), slurmBatchScript(job));
  ::chmod(slurmScriptPath(job).c_str(), 0755);

  auto say = [&](const std::string& m) {
    std::cerr << m << '\n';
    if (!a.stream) return;
    ProgressEvent e;
    e.message = m;
    std::cout << toLine({e, {}}) << '\n' << std::flush;
  };
  Follower follower(job, points, trials, s.retries, say);
  std::vector<int> all;
  for (int k = 0; k < job.shards; ++k) all.push_back(k);
  if (const std::string error = follower.submit(all); !error.empty()) {
    std::cerr << "tilescope-run: error: sbatch did not take the job: " << error << '\n';
    // Nothing ran: a folder per failed attempt (the script alone) helps no one.
    if (madeHere && fs::remove_all(job.dir, ec) > 0 && !ec)
      std::cerr << "tilescope-run: removed " << job.dir << " (nothing was submitted)\n";
    // A controller that does not answer is this machine's problem (3); a refusal
    // names an option or a limit to change (2).
    const bool unreachable =
        error.find("contact") != std::string::npos || error.find("timed out") != std::string::npos;
    return unreachable ? kExitNoGpu : kExitUsage;
  }
  say("sweep " + cfg.name + ": " + std::to_string(points) + " point(s) x " + std::to_string(trials) +
      " trial(s) in " + std::to_string(job.shards) + " Slurm task(s), job " + follower.jobs().front() +
      "; parts and logs in " + job.dir + " (Ctrl-C here cancels it)");
  // Stopping the command stops what it submitted, as srun's Ctrl-C does: the
  // jobs are cancelled and no report is written.
  std::signal(SIGINT, onStopSignal);
  std::signal(SIGTERM, onStopSignal);
  const auto start = std::chrono::steady_clock::now();
  std::string last;
  while (!follower.finished()) {
    const auto wake = std::chrono::steady_clock::now() + std::chrono::duration<double>(s.pollS);
    while (!g_stopSignal && std::chrono::steady_clock::now() < wake)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (const int sig = g_stopSignal) return cancelJobs(follower.jobs(), sig, say);
    follower.poll();
    const std::string now = follower.progress();
    if (now == last) continue;
    last = now;
    const auto t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    say("[" + std::to_string(static_cast<long>(t)) + " s] " + now);
  }

  Report report = mergeShardReports(cfg, trials, follower.results());
  SlurmInfo& slurm = report.run.slurm ? *report.run.slurm : report.run.slurm.emplace();  // tasks: merged
  slurm.dir = job.dir;
  slurm.script = slurmScriptPath(job);
  slurm.jobs = follower.jobs();
  return finishSlurmReport(a, report);
}

}  // namespace

int cmdSlurm(const RunArgs& a, const SlurmArgs& s) {
  if (!a.shard.empty()) return usageError("--shard and --slurm: --slurm gives every task its shard itself");
  if (!a.remote.empty())
    return usageError("--remote and --slurm: the Slurm nodes run the workers; use one or the other");
  Config cfg;
  // Consent before the points are resolved: resolving reads .npy headers.
  if (auto status = admitConfig(a.config, a.consent, true, &cfg)) return *status;
  try {
    if (a.trials > 0) checkCaptureCount(cfg, a.trials, "--trials");
  } catch (const ConfigError& e) {
    return usageError(configMessage(a.config, e));
  }
  std::vector<std::string> options;
  try {
    options = splitShellWords(s.sbatchOptions);
  } catch (const std::invalid_argument& e) {
    return usageError(std::string("--sbatch: ") + e.what());
  }
  if (std::string why = sbatchOptionsProblem(options); !why.empty()) return usageError(why);

  const std::size_t points = sweepPointCount(cfg);
  const int trials = a.trials > 0 ? a.trials : cfg.trials;
  SlurmJob job;
  job.exe = s.exe.empty() ? selfExecutable() : s.exe;
  job.configPath = fs::absolute(a.config).lexically_normal().string();
  job.dir =
      fs::absolute(s.dir.empty() ? defaultDir(job.configPath) : fs::path(s.dir)).lexically_normal().string();
  while (job.dir.size() > 1 && job.dir.back() == '/') job.dir.pop_back();
  job.name = cfg.name;
  job.shards = static_cast<int>(std::min<std::size_t>(points, s.shards > 0 ? s.shards : kDefaultMaxShards));
  job.sweepArgs = sweepArgs(a);
  job.sbatchOptions = options;
  // sbatch reads %A, %a, %j... in --output as patterns; a newline would end the
  // script's comment line.
  for (const auto& [what, path] : {std::pair{"--slurm-dir", job.dir}, {"the config's path", job.configPath}})
    if (path.find_first_of("%\n\r") != std::string::npos)
      return usageError(std::string(what) + " '" + path + "' holds '%' or a line break; pick another folder");
  if (s.shards > 0 && static_cast<std::size_t>(s.shards) > points)
    std::cerr << "note: " << points << " point(s): " << job.shards << " task(s), not " << s.shards << '\n';

  if (s.dryRun) {
    std::cout << slurmBatchScript(job) << "\n# " << slurmScriptPath(job) << " would be submitted with:\n"
              << shellCommandLine(sbatchCommand(job, {})) << '\n';
    return kExitOk;
  }
  // Exit 3, as for a missing GPU: the command is right, this machine cannot do it.
  for (const char* tool : {"sbatch", "squeue"})
    if (!onPath(tool)) {
      std::cerr << "tilescope-run: error: " << tool
                << " not found on PATH: --slurm needs Slurm's client tools "
                << "(run it on a login node of the cluster, or load Slurm's module first)\n";
      return kExitNoGpu;
    }
  return followSlurmJob(a, job, cfg, points, trials, s);
}

Verb addSweepCommand(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  auto slurm = std::make_shared<SlurmArgs>();
  auto* s = app.add_subcommand("sweep", "every sweep point (x trials), each isolated (needs a GPU)");
  addRunOptions(s, *a);
  s->add_option("--jobs", a->jobs, "points at once, spread over the local GPUs")->check(CLI::Range(1, 64));
  s->add_option("--shard", a->shard, "K/N: run only shard K (0-based) of N contiguous blocks of the points");
  s->add_flag("--slurm", slurm->enabled,
              "submit the sweep to Slurm as a job array and gather the parts (README)");
  s->add_option("--slurm-dir", slurm->dir,
                "with --slurm: a folder every node sees (default: a new one beside the config)");
  s->add_option("--sbatch", slurm->sbatchOptions,
                "with --slurm: sbatch options, e.g. --sbatch=\"--gres=gpu:1 -p gpu\"");
  s->add_option("--shards", slurm->shards, "with --slurm: array tasks (default: one per point, at most 32)")
      ->check(CLI::Range(1, 10000));
  s->add_option("--slurm-retries", slurm->retries,
                "with --slurm: resubmit a failed task up to R times (default 1)")
      ->check(CLI::Range(0, 100));
  s->add_option("--slurm-exe", slurm->exe,
                "with --slurm: the tilescope-run the tasks run (default: this one)");
  s->add_option("--slurm-poll", slurm->pollS,
                "with --slurm: seconds between queries of squeue/sacct (default 5)")
      ->check(CLI::Range(0.1, 600.0));
  s->add_flag("--dry-run", slurm->dryRun,
              "with --slurm: print the batch script and the sbatch command, submit nothing");
  return {s, [a, slurm] {
            a->verb = "sweep";
            if (slurm->enabled) return cmdSlurm(*a, *slurm);
            if (!slurm->dir.empty() || !slurm->sbatchOptions.empty() || slurm->shards > 0 || slurm->dryRun ||
                !slurm->exe.empty())
              return usageError("--slurm-dir, --sbatch, --shards, --slurm-exe and --dry-run go with --slurm");
            return cmdRun(*a);
          }};
}

}  // namespace tilescope::cli
