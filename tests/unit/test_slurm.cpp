// Sharding a sweep and running it as a Slurm job array (shard.h, slurm.h): the
// shard blocks, the batch script and sbatch's command line, reading what sbatch,
// sacct and squeue print (text as Slurm 22.05 prints it), and merging the parts.
// tests/cli/slurm.sh runs the same through a real slurmctld and slurmd.
#include <gtest/gtest.h>

#include <set>

#include "tilescope/run/slurm.h"

namespace tilescope {
namespace {

using nlohmann::json;

TEST(Shard, ParsesKOfNAndNamesWhatIsWrong) {
  EXPECT_EQ(parseShard("0/4"), (Shard{0, 4}));
  EXPECT_EQ(parseShard("3/4"), (Shard{3, 4}));
  for (const char* bad : {"4/4", "-1/4", "1", "a/4", "1/0", "1/", "/4", "1/4x", "1 /4"}) {
    EXPECT_THROW(parseShard(bad), std::invalid_argument) << bad;
  }
  try {
    parseShard("4/4");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--shard '4/4': K must be between 0 and N-1"), std::string::npos)
        << e.what();
  }
}

TEST(Shard, BlocksAreContiguousCoverEveryPointOnceAndDifferByAtMostOne) {
  for (std::size_t points : {1u, 5u, 10u, 16u, 17u}) {
    for (int n : {1, 2, 3, 4, 7, 16, 20}) {
      std::size_t next = 0, smallest = points, largest = 0;
      for (int k = 0; k < n; ++k) {
        const auto [b, e] = shardBounds(points, {k, n});
        EXPECT_EQ(b, next) << points << " points, shard " << k << "/" << n;
        next = e;
        smallest = std::min(smallest, e - b);
        largest = std::max(largest, e - b);
      }
      EXPECT_EQ(next, points);
      EXPECT_LE(largest - smallest, 1u);
    }
  }
  EXPECT_EQ(shardBounds(10, {0, 4}), (std::pair<std::size_t, std::size_t>{0, 3}));
  EXPECT_EQ(shardBounds(10, {3, 4}), (std::pair<std::size_t, std::size_t>{8, 10}));
  EXPECT_EQ(shardBounds(2, {3, 4}),
            (std::pair<std::size_t, std::size_t>{2, 2}));  // more shards than points: empty
}

SlurmJob job() {
  SlurmJob j;
  j.exe = "/opt/tile scope/bin/tilescope-run";
  j.configPath = "/shared/cfg/gemm's.tscfg.json";
  j.dir = "/shared/cfg/run 1";
  j.name = "gemm_tiled_sweep";
  j.shards = 4;
  j.sweepArgs = {"--trials", "2", "--allow-commands"};
  j.sbatchOptions = {"--gres=gpu:1", "--partition=gpu"};
  return j;
}

TEST(SlurmScript, EachTaskRunsItsShardIntoItsPartQuotedForTheShell) {
  const std::string s = slurmBatchScript(job());
  EXPECT_EQ(s.rfind("#!/bin/bash\n", 0), 0u);
  EXPECT_NE(s.find("exec '/opt/tile scope/bin/tilescope-run' sweep '/shared/cfg/gemm'\\''s.tscfg.json' "
                   "--shard \"${SLURM_ARRAY_TASK_ID}/4\""),
            std::string::npos)
      << s;
  EXPECT_NE(
      s.find(
          "-o '/shared/cfg/run 1/part-'\"${SLURM_ARRAY_TASK_ID}\".json '--trials' '2' '--allow-commands'\n"),
      std::string::npos)
      << s;
  EXPECT_NE(s.find("${SLURM_ARRAY_TASK_ID:?"), std::string::npos);  // refuses to run outside an array
  EXPECT_EQ(s.find("#SBATCH"), std::string::npos);  // every option is on sbatch's command line
}

TEST(SlurmScript, ANameWithANewlineCannotBreakOutOfItsComment) {
  SlurmJob j = job();
  j.name = "x\nrm -rf /\n#SBATCH --wrap=evil";
  const std::string s = slurmBatchScript(j);
  for (std::size_t at = 0; (at = s.find('\n', at)) != std::string::npos && at + 1 < s.size(); ++at) {
    const std::string next = s.substr(at + 1, s.find('\n', at + 1) - at - 1);
    EXPECT_NE(next.rfind("rm -rf", 0), 0u) << s;
    EXPECT_NE(next.rfind("#SBATCH", 0), 0u) << s;
  }
  const auto argv = sbatchCommand(j, {0});
  EXPECT_EQ(argv[3], "--job-name=tilescope-x_rm_-rf____SBATCH_--wrap_evil");
}

TEST(SlurmScript, SbatchCommandNamesTheTasksLogsAndTheUsersOptions) {
  const auto all = sbatchCommand(job(), {});
  EXPECT_EQ(all, (std::vector<std::string>{
                     "sbatch", "--parsable", "--array=0-3", "--job-name=tilescope-gemm_tiled_sweep",
                     "--chdir=/shared/cfg/run 1", "--output=/shared/cfg/run 1/task-%A_%a.out", "--gres=gpu:1",
                     "--partition=gpu", "/shared/cfg/run 1/tilescope-sweep.sbatch"}));
  EXPECT_EQ(sbatchCommand(job(), {3, 1})[2], "--array=1,3");
  EXPECT_EQ(slurmLogPath("/d", "123", 4), "/d/task-123_4.out");
  EXPECT_EQ(shellCommandLine({"sbatch", "--array=0-3", "--comment=a b", "it's"}),
            "sbatch --array=0-3 '--comment=a b' 'it'\\''s'");
  EXPECT_EQ(slurmPartPath("/d", 4), "/d/part-4.json");
}

TEST(SlurmArray, SpecsFoldRunsAndReadBack) {
  EXPECT_EQ(slurmArraySpec({5, 0, 1, 2, 3, 7, 8, 2}), "0-3,5,7-8");
  EXPECT_EQ(slurmArraySpec({4}), "4");
  EXPECT_EQ(parseSlurmArraySpec("[0-3,5%2]"), (std::vector<int>{0, 1, 2, 3, 5}));
  EXPECT_EQ(parseSlurmArraySpec("7"), (std::vector<int>{7}));
  for (const char* bad : {"", "[]", "a", "3-1", "1-", "0-3:2"})
    EXPECT_THROW(parseSlurmArraySpec(bad), std::invalid_argument) << bad;
}

TEST(SlurmOptions, SplitLikeAShellAndRefuseWhatTheGathererOwns) {
  EXPECT_EQ(splitShellWords("  --gres=gpu:1  -p 'big gpu' --comment=\"a \\\"b\\\"\" x\\ y"),
            (std::vector<std::string>{"--gres=gpu:1", "-p", "big gpu", "--comment=a \"b\"", "x y"}));
  EXPECT_TRUE(splitShellWords("   ").empty());
  EXPECT_THROW(splitShellWords("--comment='open"), std::invalid_argument);
  EXPECT_THROW(splitShellWords("--comment=\"open"), std::invalid_argument);
  EXPECT_EQ(sbatchOptionsProblem({"--gres=gpu:1", "-p", "gpu", "--time=10"}), "");
  EXPECT_NE(sbatchOptionsProblem({"--array=0-9"}).find("--array"), std::string::npos);
  EXPECT_NE(sbatchOptionsProblem({"-o", "x"}).find("-o"), std::string::npos);
  EXPECT_NE(sbatchOptionsProblem({"--output=x"}), "");
  EXPECT_NE(sbatchOptionsProblem({"--wait"}), "");
}

TEST(SlurmOutput, SbatchParsableJobIds) {
  EXPECT_EQ(parseSbatchJobId("123\n"), "123");
  EXPECT_EQ(parseSbatchJobId("sbatch: warning: something\n4567;cluster1\n"), "4567");
  EXPECT_THROW(parseSbatchJobId(""), std::runtime_error);
  EXPECT_THROW(
      parseSbatchJobId("sbatch: error: Batch job submission failed: Invalid partition name specified\n"),
      std::runtime_error);
}

TEST(SlurmOutput, SacctStatesPerArrayTask) {
  // sacct -X --parsable2 --noheader -j 123 --format=JobID,State,ExitCode, with the
  // steps a run without -X lists, a pending range and a task requeued once.
  const std::string text =
      "123_0|COMPLETED|0:0\n"
      "123_0.batch|COMPLETED|0:0\n"
      "123_1|CANCELLED by 0|0:15\n"
      "123_2|TIMEOUT|0:0\n"
      "123_3|NODE_FAIL|0:0\n"
      "123_4|FAILED|3:0\n"
      "123_4|OUT_OF_MEMORY|0:125\n"
      "123_[5-7]|PENDING|0:0\n"
      "123_8|PREEMPTED|0:0\n"
      "123_9|RUNNING|0:0\n"
      "124|COMPLETED|0:0\n"
      "garbage\n";
  const auto st = parseSacct(text);
  ASSERT_EQ(st.size(), 10u);
  EXPECT_EQ(st[0], (SlurmTaskState{"123", 0, "COMPLETED", "0:0", ""}));
  EXPECT_EQ(st[1].state, "CANCELLED");
  EXPECT_EQ(st[1].exitCode, "0:15");
  EXPECT_EQ(st[2].state, "TIMEOUT");
  EXPECT_EQ(st[3].state, "NODE_FAIL");
  EXPECT_EQ(st[4], (SlurmTaskState{"123", 4, "OUT_OF_MEMORY", "0:125", ""}));  // the last line of a task
  EXPECT_EQ(st[5], (SlurmTaskState{"123", 5, "PENDING", "0:0", ""}));
  EXPECT_EQ(st[7].task, 7);
  EXPECT_EQ(st[8].state, "PREEMPTED");
  EXPECT_EQ(st[9].state, "RUNNING");
  for (const auto& s : st) {
    const bool final = s.state != "PENDING" && s.state != "RUNNING";
    EXPECT_EQ(slurmStateFinal(s.state), final) << s.state;
  }
  EXPECT_FALSE(slurmStateFinal("COMPLETING"));
  EXPECT_FALSE(slurmStateFinal("REQUEUED"));
  EXPECT_FALSE(slurmStateFinal("SOMETHING_NEW"));  // unknown: may still run
}

TEST(SlurmOutput, SqueueStatesWithReasonsAndWaitStatuses) {
  // squeueCommand's output as slurmctld 22.05 answers (columns padded to their widths).
  const std::string text =
      "7_[2-3]             |PENDING   |0      |JobArrayTaskLimit   |\n"
      "7_1                 |RUNNING   |0      |None                |\n"
      "7_0                 |FAILED    |768    |NonZeroExitCode     |\n"
      "7_4                 |CANCELLED |15     |None                |\n";
  const auto st = parseSqueue(text);
  ASSERT_EQ(st.size(), 5u);
  EXPECT_EQ(st[0], (SlurmTaskState{"7", 2, "PENDING", "", "JobArrayTaskLimit"}));
  EXPECT_EQ(st[1].task, 3);
  EXPECT_EQ(st[2], (SlurmTaskState{"7", 1, "RUNNING", "", "None"}));  // no exit code while it runs
  EXPECT_EQ(st[3], (SlurmTaskState{"7", 0, "FAILED", "3:0", "NonZeroExitCode"}));
  EXPECT_EQ(st[4].exitCode, "0:15");  // killed by SIGTERM
  EXPECT_EQ(squeueCommand("7")[3], "--jobs=7");
  EXPECT_EQ(sacctCommand("7"), (std::vector<std::string>{"sacct", "-X", "--parsable2", "--noheader", "-j",
                                                         "7", "--format=JobID,State,ExitCode"}));
}

// ---------------------------------------------------------------- merging

Config sweepConfig() {
  return loadConfig(std::string(TILESCOPE_SOURCE_DIR) + "/kernels/gemm/gemm_tiled_sweep.tscfg.json");
}

/// The part a shard writes: its points × trials, verdicts by index, its matrix.
Report part(const Config& cfg, Shard s, int trials, bool noGpu) {
  const auto sweep = expandSweep(cfg);
  const auto [b, e] = shardBounds(sweep.size(), s);
  Report r;
  r.verb = "sweep";
  r.host = "node" + std::to_string(s.index);
  r.device.name = noGpu ? "" : "NVIDIA H100";
  r.device.live = !noGpu;
  std::vector<int> indices;
  ResultMatrix m;
  m.trials = trials;
  for (auto i = b; i < e; ++i) {
    indices.push_back(static_cast<int>(i));
    m.points.push_back(sweep[i].label());
    m.verdicts.emplace_back();
    for (int t = 0; t < trials; ++t) {
      Point p;
      p.index = static_cast<int>(i);
      p.trial = t;
      p.label = sweep[i].label();
      p.verdict = i == 5 ? Verdict::incorrect : Verdict::ok;
      if (i == 5)
        p.findings.push_back(
            {"mismatch", Severity::error, "C differs", "", "C", {}, json::object(), "wrong.mismatch", ""});
      p.status.noGpu = noGpu;
      m.verdicts.back().push_back(p.verdict);
      r.points.push_back(p);
    }
  }
  r.matrix = m;
  r.run.shard = shardInfo(s, indices);
  r.finalize();
  return r;
}

TEST(SlurmMerge, PartsValidateAgainstTheirShard) {
  const Config cfg = sweepConfig();
  const Report p = part(cfg, {1, 4}, 2, true);
  EXPECT_EQ(shardPartProblem(p, {1, 4}, 16, 2), "");
  EXPECT_NE(shardPartProblem(p, {2, 4}, 16, 2).find("not shard 2/4"), std::string::npos);
  EXPECT_NE(shardPartProblem(p, {1, 4}, 16, 3).find("has 2 of 3 trials"), std::string::npos);
  Report missing = p;
  missing.points.pop_back();
  EXPECT_NE(shardPartProblem(missing, {1, 4}, 16, 2).find("point 7 has 1 of 2 trials"), std::string::npos);
  Report stray = p;
  stray.points.back().index = 12;
  EXPECT_NE(shardPartProblem(stray, {1, 4}, 16, 2).find("outside the shard"), std::string::npos);
}

TEST(SlurmMerge, EveryPointPresentSortedAndALostTaskNamedOnItsPoints) {
  const Config cfg = sweepConfig();
  std::vector<ShardTask> tasks(4);
  for (int k = 0; k < 4; ++k) {
    tasks[k].task = k;
    tasks[k].job = "77_" + std::to_string(k);
    tasks[k].state = "COMPLETED";
    tasks[k].exitCode = "0:0";
    tasks[k].attempts = 1;
    tasks[k].log = "/d/task-77_" + std::to_string(k) + ".out";
  }
  // Gathered out of order; task 2 timed out twice.
  tasks[3].part = part(cfg, {3, 4}, 2, false);
  tasks[0].part = part(cfg, {0, 4}, 2, false);
  tasks[1].part = part(cfg, {1, 4}, 2, false);
  tasks[2].job = "80_2";
  tasks[2].state = "TIMEOUT";
  tasks[2].attempts = 2;
  tasks[2].log = "/d/task-80_2.out";

  const Report r = mergeShardReports(cfg, 2, tasks);
  EXPECT_EQ(r.verb, "sweep");
  ASSERT_EQ(r.points.size(), 32u);
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    EXPECT_EQ(r.points[i].index, static_cast<int>(i / 2));
    EXPECT_EQ(r.points[i].trial, static_cast<int>(i % 2));
    const bool lost = r.points[i].index >= 8 && r.points[i].index < 12;
    EXPECT_EQ(r.points[i].status.schedulerError.empty(), !lost) << i;
  }
  const Point& lost = r.points[16];
  EXPECT_EQ(lost.status.schedulerError,
            "Slurm array task 2 (job 80_2) ended TIMEOUT after 2 attempts without writing its part report; "
            "its log: /d/task-80_2.out");
  EXPECT_EQ(lost.label, expandSweep(cfg)[8].label());  // named as the sweep names it
  EXPECT_EQ(lost.defines, pointDefines(expandSweep(cfg)[8].config));
  EXPECT_EQ(r.device.name, "NVIDIA H100");
  EXPECT_EQ(r.verdict, Verdict::incorrect);  // point 5's mismatch
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].evidence["points"], json::array({5}));  // once, with its point
  ASSERT_TRUE(r.matrix);
  EXPECT_EQ(r.matrix->points.size(), 16u);
  EXPECT_EQ(r.matrix->trials, 2);
  EXPECT_EQ(r.matrix->verdicts[5], (std::vector<Verdict>{Verdict::incorrect, Verdict::incorrect}));
  EXPECT_EQ(r.matrix->points[9], expandSweep(cfg)[9].label());
  ASSERT_TRUE(r.run.slurm);
  const std::vector<SlurmTaskInfo>& t = r.run.slurm->tasks;
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[2].state, "TIMEOUT");
  EXPECT_EQ(t[2].gathered, false);
  EXPECT_EQ(t[2].points, (std::vector<std::int64_t>{8, 9, 10, 11}));
  EXPECT_EQ(t[3].host, "node3");
  // The JSON keeps extra.slurm.tasks[]'s shape (docs/report.md).
  const json tj = toJson(r).at("extra").at("slurm").at("tasks");
  EXPECT_EQ(tj[2]["state"], "TIMEOUT");
  EXPECT_EQ(tj[2]["gathered"], false);
  EXPECT_EQ(tj[2]["points"], json::array({8, 9, 10, 11}));
  EXPECT_EQ(tj[3]["host"], "node3");
  // It reads back as any report does.
  EXPECT_EQ(reportFromJson(toJson(r)), r);
}

TEST(SlurmMerge, ARaceFoundInAPartIsNotFoundTwice) {
  const Config cfg = sweepConfig();
  std::vector<ShardTask> tasks(1);
  tasks[0].part = part(cfg, {0, 1}, 2, false);
  // Shard 0/1's point 3: trials disagreed where they ran; the part says so once.
  Report& p = *tasks[0].part;
  Finding race{"race", Severity::error, "trials disagree", "", "", {}, json::object(), "fault.race", ""};
  for (auto& pt : p.points)
    if (pt.index == 3)
      pt.findings.push_back(race), pt.verdict = Verdict::incorrect,
                                   pt.status.outputDigest = {{"C", std::to_string(pt.trial)}};
  const Report r = mergeShardReports(cfg, 2, tasks);
  for (const auto& pt : r.points) {
    int races = 0;
    for (const auto& f : pt.findings) races += f.category == "race";
    EXPECT_EQ(races, pt.index == 3 ? 1 : 0) << pt.index;
  }
}

TEST(SlurmMerge, NoGpuPartsKeepTheirStatusAndABadPartIsSaidWhy) {
  const Config cfg = sweepConfig();
  std::vector<ShardTask> tasks(2);
  tasks[0] = {0, part(cfg, {0, 2}, 1, true), "5_0", "FAILED", "3:0", 1, "/d/task-5_0.out", ""};
  tasks[1] = {1, std::nullopt, "5_1", "COMPLETED", "0:0", 1, "/d/task-5_1.out", "it is not shard 1/2"};
  const Report r = mergeShardReports(cfg, 1, tasks);
  ASSERT_EQ(r.points.size(), 16u);
  for (int i = 0; i < 8; ++i) EXPECT_TRUE(r.points[i].status.noGpu);
  EXPECT_EQ(
      r.points[8].status.schedulerError,
      "Slurm array task 1 (job 5_1) ended COMPLETED on its only attempt; its part report could not be used: "
      "it is not shard 1/2; its log: /d/task-5_1.out");
  EXPECT_FALSE(r.points[8].status.noGpu);
}

}  // namespace
}  // namespace tilescope
