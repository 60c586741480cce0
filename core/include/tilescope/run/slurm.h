// A sweep on a Slurm cluster, the pure parts (app/run/cmd_slurm.cpp is the shell
// around them): the batch script of a job array whose task K runs shard K of the
// sweep (shard.h) and writes its part report into a shared folder, sbatch's
// command line, reading what sbatch, sacct and squeue print, and merging the
// tasks' part reports into one sweep report. Only Slurm's own tools run the job.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tilescope/config/config.h"
#include "tilescope/model/report.h"
#include "tilescope/run/shard.h"

namespace tilescope {

/// What the job array runs.
struct SlurmJob {
  std::string exe;         ///< tilescope-run as the nodes see it (a path, or a name on their PATH)
  std::string configPath;  ///< absolute, on the shared filesystem
  std::string dir;         ///< the shared folder: script, part reports, task logs
  std::string name;        ///< the config's name (the job is "tilescope-NAME")
  int shards = 1;          ///< array tasks: task K runs `sweep --shard K/shards`
  std::vector<std::string> sweepArgs;  ///< passed to every task's `sweep` (--trials, --timeout, consent...)
  std::vector<std::string> sbatchOptions;  ///< the user's (--sbatch), after ours on sbatch's command line
};

std::string slurmScriptPath(const SlurmJob& job);             ///< DIR/tilescope-sweep.sbatch
std::string slurmPartPath(const std::string& dir, int task);  ///< DIR/part-K.json
/// DIR/task-J_K.out: the log of task K of array job J (sbatch --output=DIR/task-%A_%a.out).
std::string slurmLogPath(const std::string& dir, const std::string& arrayJob, int task);

/// The batch script: every array task runs
/// `EXE sweep CONFIG --shard $SLURM_ARRAY_TASK_ID/N -o DIR/part-$SLURM_ARRAY_TASK_ID.json ARGS`,
/// each word shell-quoted, and exits with tilescope-run's status.
std::string slurmBatchScript(const SlurmJob& job);

/// `sbatch --parsable --array=SPEC --job-name=tilescope-NAME --chdir=DIR
/// --output=DIR/task-%A_%a.out [user options] SCRIPT` for `tasks`.
std::vector<std::string> sbatchCommand(const SlurmJob& job, const std::vector<int>& tasks);

/// `argv` as one line to paste into a shell: words quoted only where they need it.
std::string shellCommandLine(const std::vector<std::string>& argv);

/// Task ids as Slurm's --array takes them: sorted, runs folded ("0-3,5,7-8").
std::string slurmArraySpec(std::vector<int> tasks);
/// Reads "5", "0-3,5" or "[0-3,5%2]" (the throttle after % ignored) into task ids.
/// Throws std::invalid_argument for anything else.
std::vector<int> parseSlurmArraySpec(const std::string& spec);

/// Splits `--sbatch "OPTIONS"` into words as a POSIX shell would (single and
/// double quotes, backslashes; no expansions). Throws std::invalid_argument for
/// an unclosed quote.
std::vector<std::string> splitShellWords(const std::string& text);
/// What is wrong with the user's sbatch options ("" when nothing): options that
/// would break how the array is followed (--array, --output, --error, --parsable,
/// --wrap, --chdir, --wait and their short forms).
std::string sbatchOptionsProblem(const std::vector<std::string>& options);

/// The job id `sbatch --parsable` printed ("123", or "123;cluster"). Throws
/// std::runtime_error quoting the output when there is none.
std::string parseSbatchJobId(const std::string& output);

/// One array task as sacct or squeue lists it.
struct SlurmTaskState {
  std::string arrayJob;  ///< "123": the array's job id
  int task = -1;         ///< the array index
  std::string state;  ///< COMPLETED, FAILED, TIMEOUT, NODE_FAIL, PENDING, ... ("CANCELLED by 0" → CANCELLED)
  std::string exitCode;  ///< "EXIT:SIGNAL" ("3:0", "0:15") once the task ended; "" before
  std::string reason;    ///< squeue's reason ("NonZeroExitCode", "Resources"); "" from sacct
  bool operator==(const SlurmTaskState&) const = default;
};
/// `sacct -X --parsable2 --noheader -j JOB --format=JobID,State,ExitCode`: one
/// entry per array task ("123_4"; "123_[5-7]" expands to 5, 6, 7). Steps
/// ("123_4.batch"), jobs outside an array and lines that do not read are skipped;
/// a task listed twice keeps its last line.
std::vector<SlurmTaskState> parseSacct(const std::string& text);
/// The squeue command that lists every task of `arrayJob` (the ended ones too,
/// while slurmctld keeps them: MinJobAge) as parseSqueue reads it.
std::vector<std::string> squeueCommand(const std::string& arrayJob);
/// squeueCommand's output ("7_1 |FAILED |768 |NonZeroExitCode |": columns
/// padded, the exit code a wait status), read as parseSacct reads sacct's.
std::vector<SlurmTaskState> parseSqueue(const std::string& text);
/// The sacct command parseSacct reads.
std::vector<std::string> sacctCommand(const std::string& arrayJob);

/// A state after which the task runs no more (COMPLETED, FAILED, CANCELLED,
/// TIMEOUT, NODE_FAIL, PREEMPTED, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE, REVOKED,
/// SPECIAL_EXIT). Anything else, unknown states included, may still run.
bool slurmStateFinal(const std::string& state);

/// What became of one array task (= one shard) by the end.
struct ShardTask {
  int task = 0;                ///< the shard index
  std::optional<Report> part;  ///< the part report it wrote, when one was taken
  std::string job;             ///< the last attempt's task id ("123_4")
  std::string state;           ///< its last Slurm state ("" when never seen)
  std::string exitCode;        ///< its "EXIT:SIGNAL" where known
  int attempts = 0;            ///< submissions of this task
  std::string log;             ///< the last attempt's log file
  std::string partProblem;     ///< why a part file was there but not taken ("" when none)
};

/// "" when `part` is the report of shard `s` of a sweep of `points` points ×
/// `trials`: verb sweep, extra.shard naming s, and every point index of the
/// shard present `trials` times and nothing else; else what is wrong.
std::string shardPartProblem(const Report& part, Shard s, std::size_t points, int trials);

/// The parts → one sweep report of `config`: every point × trial sorted by index
/// then trial; the points of a task without a part are present with
/// status.schedulerError naming the task, its job, state, exit code, attempts and
/// log; the matrix joins the parts' matrices (their trials were compared where
/// they ran; comparing again would repeat the race findings); the device is the
/// first live one; `extra.slurm.tasks` lists each task. Finalized.
Report mergeShardReports(const Config& config, int trials, const std::vector<ShardTask>& tasks);

}  // namespace tilescope
