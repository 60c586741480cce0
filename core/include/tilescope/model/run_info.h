// How a run was spread out (docs/report.md, extra): the shard a report holds,
// the workers that captured it and the Slurm jobs of `sweep --slurm`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilescope {

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

}  // namespace tilescope
