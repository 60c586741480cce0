// Merging the part reports of a Slurm job array into one sweep report (slurm.h).
#include <algorithm>
#include <map>
#include <set>

#include "tilescope/run/slurm.h"

namespace tilescope {

std::string shardPartProblem(const Report& part, Shard s, std::size_t points, int trials) {
  if (part.verb != "sweep") return "its verb is '" + part.verb + "', not sweep";
  const std::optional<ShardInfo>& sh = part.run.shard;
  if (!sh || sh->index != s.index || sh->count != s.count)
    return "it is not shard " + std::to_string(s.index) + "/" + std::to_string(s.count) + " (extra.shard: " +
           (sh ? std::to_string(sh->index) + "/" + std::to_string(sh->count) : std::string("none")) + ")";
  const auto [begin, end] = shardBounds(points, s);
  std::map<int, std::set<int>> trialsOf;
  for (const auto& p : part.points) {
    if (p.index < static_cast<int>(begin) || p.index >= static_cast<int>(end))
      return "it holds point " + std::to_string(p.index) + ", outside the shard's points " +
             std::to_string(begin) + "–" + std::to_string(end == 0 ? 0 : end - 1);
    trialsOf[p.index].insert(p.trial);
  }
  for (auto i = begin; i < end; ++i) {
    const auto it = trialsOf.find(static_cast<int>(i));
    const std::size_t have = it == trialsOf.end() ? 0 : it->second.size();
    if (have != static_cast<std::size_t>(trials))
      return "point " + std::to_string(i) + " has " + std::to_string(have) + " of " + std::to_string(trials) +
             " trials";
  }
  return "";
}

namespace {

std::string lostMessage(const ShardTask& t) {
  std::string m = "Slurm array task " + std::to_string(t.task);
  if (!t.job.empty()) m += " (job " + t.job + ")";
  m += t.state.empty() ? " was never seen by squeue or sacct"
       : t.state == "UNKNOWN"
           ? " left the queue without a final state (squeue lists it no more, sacct has no record)"
           : " ended " + t.state;
  if (!t.exitCode.empty() && t.exitCode != "0:0") m += " (exit " + t.exitCode + ")";
  m += t.attempts == 1 ? " on its only attempt" : " after " + std::to_string(t.attempts) + " attempts";
  m += t.partProblem.empty() ? " without writing its part report"
                             : "; its part report could not be used: " + t.partProblem;
  if (!t.log.empty()) m += "; its log: " + t.log;
  return m;
}

/// The point shells of a task that left no part: named as the sweep names them,
/// never captured.
void addLostPoints(const std::vector<SweepPoint>& sweep, const ShardTask& t, Shard s, int trials,
                   std::vector<Point>& out) {
  const auto [begin, end] = shardBounds(sweep.size(), s);
  const std::string why = lostMessage(t);
  for (auto i = begin; i < end; ++i) {
    for (int trial = 0; trial < trials; ++trial) {
      Point p;
      p.index = sweep[i].index;
      p.trial = trial;
      p.label = sweep[i].label();
      p.defines = pointDefines(sweep[i].config);
      for (const auto& [k, v] : sweep[i].config.params) p.params[k] = v;
      p.status.schedulerError = why;
      out.push_back(std::move(p));
    }
  }
}

/// A part's matrix rows, by point index: rows follow the part's sorted point indices.
void addMatrixRows(const Report& part, std::map<int, std::vector<Verdict>>& rows,
                   std::map<int, std::string>& labels) {
  std::set<int> indices;
  for (const auto& p : part.points) indices.insert(p.index);
  if (part.matrix && part.matrix->verdicts.size() == indices.size()) {
    auto it = indices.begin();
    for (std::size_t r = 0; r < indices.size(); ++r, ++it) {
      rows[*it] = part.matrix->verdicts[r];
      if (r < part.matrix->points.size()) labels[*it] = part.matrix->points[r];
    }
    return;
  }
  for (const auto& p : part.points) {  // a part without its matrix: the points' own verdicts
    rows[p.index].push_back(p.verdict);
    labels[p.index] = p.label;
  }
}

SlurmTaskInfo taskInfo(const ShardTask& t, Shard s, std::size_t points) {
  const auto [begin, end] = shardBounds(points, s);
  SlurmTaskInfo info{t.task, t.job,        t.state, t.exitCode, t.attempts, t.log, {}, t.part.has_value(),
                     {},     t.partProblem};
  for (auto i = begin; i < end; ++i) info.points.push_back(static_cast<std::int64_t>(i));
  if (t.part) info.host = t.part->host;
  return info;
}

}  // namespace

Report mergeShardReports(const Config& config, int trials, const std::vector<ShardTask>& tasks) {
  Report report;
  report.verb = "sweep";
  report.toolVersion = toolVersion();
  report.createdAt = nowIso8601();
  report.host = hostName();
  report.config = configToJson(config);
  const std::vector<SweepPoint> sweep = expandSweep(config);
  const int count = static_cast<int>(tasks.size());
  trials = std::max(1, trials);

  std::map<int, std::vector<Verdict>> rows;
  std::map<int, std::string> labels;
  SlurmInfo slurm;
  for (int k = 0; k < count; ++k) {
    const ShardTask& t = tasks[static_cast<std::size_t>(k)];
    const Shard s{k, count};
    slurm.tasks.push_back(taskInfo(t, s, sweep.size()));
    if (!t.part) {
      const std::size_t before = report.points.size();
      addLostPoints(sweep, t, s, trials, report.points);
      for (auto i = before; i < report.points.size(); ++i) {
        rows[report.points[i].index].push_back(report.points[i].verdict);
        labels[report.points[i].index] = report.points[i].label;
      }
      continue;
    }
    const Report& part = *t.part;
    if (report.device.name.empty() || (!report.device.live && part.device.live)) report.device = part.device;
    report.points.insert(report.points.end(), part.points.begin(), part.points.end());
    addMatrixRows(part, rows, labels);
  }
  std::stable_sort(report.points.begin(), report.points.end(), [](const Point& a, const Point& b) {
    return a.index != b.index ? a.index < b.index : a.trial < b.trial;
  });

  ResultMatrix matrix;
  matrix.trials = trials;
  for (auto& [index, row] : rows) {
    matrix.points.push_back(labels[index]);
    matrix.verdicts.push_back(std::move(row));
  }
  report.matrix = std::move(matrix);
  report.run.slurm = std::move(slurm);
  report.finalize();
  return report;
}

}  // namespace tilescope
