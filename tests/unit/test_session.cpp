// What a session captures of a config (sessionConfig, runSession): `run` on a
// config with a sweep captures the sweep's first point and reports that point's
// config; `sweep` captures every point. The workers are tests/data/diagnose's
// fake worker, so no GPU is needed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tilescope/session.h"

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
