// What a session captures of a config (sessionConfig, runSession): `run` on a
// config with a sweep captures the sweep's first point and reports that point's
// config; `sweep` captures every point. The workers are tests/data/diagnose's
// fake worker, so no GPU is needed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "tilescope/run/session.h"

namespace {

using namespace tilescope;
namespace fs = std::filesystem;

const fs::path kDiagnose = fs::path(TILESCOPE_TEST_DATA) / "diagnose";
const fs::path kConfig = kDiagnose / "gemm_whole_tiles.tscfg.json";

/// gemm_whole_tiles with a sweep of BLOCK_M over {32, 128} and NUM_WARPS over {2, 8}.
Config sweepConfig() {
  std::ifstream in(kConfig);
  std::stringstream text;
  text << in.rdbuf();
  auto doc = nlohmann::ordered_json::parse(text.str());
  doc["sweep"] = {{"BLOCK_M", {32, 128}}, {"NUM_WARPS", {2, 8}}};
  return parseConfigText(doc.dump(), kDiagnose);
}

SessionOptions fakeWorkers() {
  SessionOptions opts;
  opts.workerCommand = {"python3", (kDiagnose / "fake_worker.py").string(), "--scenario", "clean"};
  opts.configPath = kConfig.string();
  opts.timeoutS = 30;
  opts.jobs = 2;
  return opts;
}

}  // namespace

TEST(Session, RunOfASweepIsItsFirstPoint) {
  const Config file = sweepConfig();
  const Config run = sessionConfig(file, "run");
  EXPECT_TRUE(run.sweep.empty());
  EXPECT_EQ(sweepPointCount(run), 1u);
  EXPECT_EQ(pointSymbols(run).at("BLOCK_M"), 32);
  EXPECT_EQ(pointSymbols(run).at("NUM_WARPS"), 2);
  EXPECT_EQ(configToJson(run), configToJson(expandSweep(file).front().config));
}

TEST(Session, SweepAndConfigsWithoutASweepAreThemselves) {
  const Config file = sweepConfig();
  EXPECT_EQ(sweepPointCount(sessionConfig(file, "sweep")), 4u);
  EXPECT_EQ(configToJson(sessionConfig(file, "sweep")), configToJson(file));
  const Config plain = loadConfig(kConfig);
  EXPECT_EQ(configToJson(sessionConfig(plain, "run")), configToJson(plain));
}

TEST(Session, RunSessionOfASweepCapturesOnePointAndReportsItsConfig) {
  const Report r = runSession(sweepConfig(), "run", fakeWorkers());
  ASSERT_EQ(r.points.size(), 1u);
  EXPECT_EQ(r.points[0].index, 0);
  EXPECT_EQ(r.verdict, Verdict::ok);
  EXPECT_FALSE(r.config.contains("sweep"));
  EXPECT_EQ(r.config.at("kernel").at("defines").at("BLOCK_M"), 32);
  EXPECT_EQ(r.config.at("kernel").at("defines").at("NUM_WARPS"), 2);
  ASSERT_TRUE(r.matrix);
  EXPECT_EQ(r.matrix->points.size(), 1u);
}

TEST(Session, SweepSessionCapturesEveryPoint) {
  const Report r = runSession(sweepConfig(), "sweep", fakeWorkers());
  ASSERT_EQ(r.points.size(), 4u);
  for (std::size_t i = 0; i < r.points.size(); ++i) EXPECT_EQ(r.points[i].index, int(i));
  EXPECT_EQ(r.points[3].label, "BLOCK_M=128 NUM_WARPS=8");
  EXPECT_TRUE(r.config.contains("sweep"));
  ASSERT_TRUE(r.matrix);
  EXPECT_EQ(r.matrix->points.size(), 4u);
}

// Warm workers (WarmWorker, `worker --serve`): one process serves point after
// point; a point that faults, dies or hangs gets exactly the verdict a fresh
// worker would give it, and the points after it get a fresh worker.
namespace {

/// Counts the processes the fake worker ran as (it logs one line per process).
class WorkerLog {
 public:
  WorkerLog()
      : path_(fs::temp_directory_path() / ("tilescope_workers_" + std::to_string(::getpid()) + ".log")) {
    fs::remove(path_);
    ::setenv("FAKE_WORKER_LOG", path_.c_str(), 1);
  }
  ~WorkerLog() {
    ::unsetenv("FAKE_WORKER_LOG");
    fs::remove(path_);
  }
  /// Lines whose mode ("serve" or "once") matches.
  int count(const std::string& mode) const {
    std::ifstream in(path_);
    int n = 0;
    for (std::string pid, m; in >> pid >> m;) n += m == mode;
    return n;
  }

 private:
  fs::path path_;
};

SessionOptions oneSlot(const std::string& scenario, bool warm) {
  SessionOptions opts = fakeWorkers();
  opts.workerCommand.back() = scenario;
  opts.jobs = 1;
  opts.warmWorkers = warm;
  opts.launchTimeoutS = 1;
  return opts;
}

/// What a point's outcome is, beside its timing: the verdict, the finding
/// categories, and the status flags.
std::string outcome(const Point& p) {
  std::string s = runOutcome(p).dump() + " [";
  for (const auto& f : p.findings) s += f.category + " ";
  s += "] exit=" + (p.status.workerExit ? std::to_string(*p.status.workerExit) : std::string("-"));
  s += p.status.noGpu ? " no_gpu" : "";
  s += p.status.streamError.empty() ? "" : " stream_error";
  return s;
}

}  // namespace

TEST(WarmWorkers, OneProcessServesEveryPointAndTrialWithTheSameResults) {
  WorkerLog log;
  SessionOptions warm = oneSlot("clean", true);
  warm.trials = 2;
  const Report r = runSession(sweepConfig(), "sweep", warm);
  EXPECT_EQ(log.count("serve"), 1);
  EXPECT_EQ(log.count("once"), 0);
  ASSERT_EQ(r.points.size(), 8u);
  SessionOptions fresh = warm;
  fresh.warmWorkers = false;
  const Report f = runSession(sweepConfig(), "sweep", fresh);
  EXPECT_EQ(log.count("once"), 8);
  ASSERT_EQ(f.points.size(), r.points.size());
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    EXPECT_EQ(r.points[i].index, f.points[i].index);
    EXPECT_EQ(r.points[i].trial, f.points[i].trial);
    EXPECT_EQ(outcome(r.points[i]), outcome(f.points[i]));
  }
  EXPECT_EQ(r.verdict, Verdict::ok);
}

TEST(WarmWorkers, AFaultDeathOrHangInTheMiddleKeepsEveryVerdictAndReplacesTheWorker) {
  for (const std::string scenario : {"fault_at_1", "crash_at_1", "hang_at_1"}) {
    SCOPED_TRACE(scenario);
    WorkerLog log;
    const Report warm = runSession(sweepConfig(), "sweep", oneSlot(scenario, true));
    EXPECT_EQ(log.count("serve"), 2) << "the points after the bad one get a fresh worker";
    const Report fresh = runSession(sweepConfig(), "sweep", oneSlot(scenario, false));
    ASSERT_EQ(warm.points.size(), 4u);
    ASSERT_EQ(fresh.points.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) {
      SCOPED_TRACE(i);
      EXPECT_EQ(outcome(warm.points[i]), outcome(fresh.points[i]));
      EXPECT_EQ(warm.points[i].verdict,
                i == 1 ? (scenario == "hang_at_1" ? Verdict::hang : Verdict::fault) : Verdict::ok);
    }
  }
}

TEST(WarmWorkers, AFailedProfilingPassReplacesTheWorkerAndKeepsThePoint) {
  WorkerLog log;
  const Report warm = runSession(sweepConfig(), "sweep", oneSlot("pass_fails_at_1", true));
  EXPECT_EQ(log.count("serve"), 2) << "the points after the failed pass get a fresh worker";
  ASSERT_EQ(warm.points.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(warm.points[i].verdict, Verdict::ok);
    EXPECT_EQ(warm.points[i].counters.passFailed, i == 1);
    EXPECT_TRUE(warm.points[i].counters.collected);
  }
}

TEST(WarmWorkers, TheFlagNotTheWordsOfANoteSaysThePassFailed) {
  Point p;
  p.verdict = Verdict::ok;
  EXPECT_FALSE(needsFreshWorker(p));
  p.counters.note = "hardware counters unavailable: no permission";  // words alone decide nothing
  p.counters.pcSampling.note = "PC sampling unavailable: CUPTI_ERROR_UNKNOWN";
  p.counters.baselineNote = "baseline counters unavailable: CUPTI_ERROR_UNKNOWN";
  EXPECT_FALSE(needsFreshWorker(p));
  Point q;
  q.verdict = Verdict::ok;
  q.counters.passFailed = true;
  EXPECT_TRUE(needsFreshWorker(q));
  // The flag survives the stream and the report, and is absent (false) in old reports.
  EXPECT_TRUE(pointFromJson(toJson(q)).counters.passFailed);
  nlohmann::json old = toJson(q);
  old["counters"].erase("pass_failed");
  EXPECT_FALSE(pointFromJson(old).counters.passFailed);
}

TEST(WarmWorkers, WhatAWorkerSaysWrongIsReadAsAFreshWorkerReadsIt) {
  // Malformed answers, a crash in the profiling pass, a failed assert, no GPU.
  for (const std::string scenario : {"bad_types", "bad_verdict", "bad_category", "truncated", "deep",
                                     "unknown_event", "binary", "bad_progress", "bad_partial",
                                     "profile_crash", "baseline_profile_crash", "assert", "nogpu", "hang"}) {
    SCOPED_TRACE(scenario);
    const Config cfg = loadConfig(kConfig);
    const SweepPoint point = expandSweep(cfg).front();
    const SessionOptions opts = oneSlot(scenario, true);
    WarmWorker warm;
    const Point w = warm.capture(cfg, point, 0, 0, opts);
    const Point f = runWorkerPoint(cfg, point, 0, 0, opts);
    EXPECT_EQ(outcome(w), outcome(f));
    EXPECT_EQ(w.status.workerError.empty(), f.status.workerError.empty());
    EXPECT_EQ(w.deviceOutput, f.deviceOutput);
    if (scenario == "assert") {
      ASSERT_FALSE(w.findings.empty());
      EXPECT_EQ(w.findings.front().location.line, f.findings.front().location.line)
          << "the assert's line from stderr";
    }
  }
}

TEST(WarmWorkers, AWorkerThatCannotStartIsTheCapturesLaunchError) {
  const Config cfg = loadConfig(kConfig);
  SessionOptions opts = oneSlot("clean", true);
  opts.workerCommand = {"/nonexistent/tilescope-run"};
  WarmWorker warm;
  const Point p = warm.capture(cfg, expandSweep(cfg).front(), 0, 0, opts);
  EXPECT_EQ(p.verdict, Verdict::launch_error);
  EXPECT_NE(p.status.workerError.find("/nonexistent/tilescope-run"), std::string::npos)
      << p.status.workerError;
}

// docs/security.md, "Worker results and remote baselines": a worker whose result cannot be read, or that
// exits without one, failed on the tool's side: worker_error (no capture), never a kernel fault.
TEST(WarmWorkers, AnUnreadableOrMissingResultIsAWorkerErrorNotAFault) {
  for (const std::string scenario : {"bad_verdict", "bad_types", "truncated", "exit_no_point"}) {
    SCOPED_TRACE(scenario);
    const Config cfg = loadConfig(kConfig);
    const SweepPoint point = expandSweep(cfg).front();
    const SessionOptions opts = oneSlot(scenario, true);
    WarmWorker warm;
    for (const Point& p : {warm.capture(cfg, point, 0, 0, opts), runWorkerPoint(cfg, point, 0, 0, opts)}) {
      ASSERT_EQ(p.findings.size(), 1u) << outcome(p);
      EXPECT_EQ(p.findings[0].category, "worker_error");
      EXPECT_EQ(p.verdict, Verdict::launch_error);
      EXPECT_NE(p.verdict, Verdict::fault);
    }
  }
}
