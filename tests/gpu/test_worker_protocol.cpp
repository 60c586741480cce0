// The worker path end to end, as the GUI drives it: `tilescope-run run|sweep
// --stream` prints tilescope.stream/1 events (docs/protocol.md), and a point that
// faults or hangs ends only its own worker.
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gpu_util.h"

namespace tilescope {
namespace {

namespace fs = std::filesystem;
using gputest::gpuPresent;
using gputest::readFile;
using gputest::shellQuote;
using nlohmann::json;

struct ToolRun {
  int exitCode = -1;
  std::vector<json> events;
  json report;
};

/// Runs tilescope-run with `args` on the protocol fixture; returns the stream
/// events (stdout) and the report written with -o.
ToolRun runTool(const std::string& args) {
  const fs::path cfg = fs::path(TILESCOPE_SOURCE_DIR) / "tests/data/protocol/modes_sweep.tscfg.json";
  const fs::path out =
      fs::temp_directory_path() / ("tilescope_protocol_" + std::to_string(::getpid()) + ".json");
  fs::remove(out);
  std::string cmd = shellQuote(TILESCOPE_RUN_EXE) + " " + args + " " + shellQuote(cfg.string()) +
                    " --stream -o " + shellQuote(out.string()) + " 2>/dev/null";
  ToolRun r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::string line;
  for (int c; (c = std::fgetc(pipe)) != EOF;) {
    if (c != '\n') {
      line += static_cast<char>(c);
      continue;
    }
    json e = json::parse(line, nullptr, false);
    if (!e.is_discarded()) r.events.push_back(e);
    line.clear();
  }
  int status = pclose(pipe);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (fs::exists(out)) r.report = json::parse(readFile(out), nullptr, false);
  return r;
}

std::vector<std::string> categories(const json& point) {
  std::vector<std::string> c;
  for (const auto& f : point.value("findings", json::array())) c.push_back(f.value("category", ""));
  return c;
}

std::vector<std::string> errorCategories(const json& point) {
  std::vector<std::string> c;
  for (const auto& f : point.value("findings", json::array()))
    if (f.value("severity", "") == "error") c.push_back(f.value("category", ""));
  return c;
}

TEST(WorkerProtocol, RunStreamsDeviceProgressPhasesPointAndReport) {
  if (!gpuPresent()) GTEST_SKIP() << "no CUDA GPU";
  ToolRun r = runTool("run");
  ASSERT_EQ(r.exitCode, 0);
  ASSERT_FALSE(r.events.empty());
  std::vector<std::string> order;
  for (const auto& e : r.events) {
    ASSERT_EQ(e.value("schema", ""), "tilescope.stream/1") << e.dump();
    std::string ev = e.value("event", "");
    if (ev == "phase") ev += ":" + e.value("phase", "");
    if (order.empty() || order.back() != ev) order.push_back(ev);
  }
  auto at = [&](const std::string& ev) { return std::find(order.begin(), order.end(), ev) - order.begin(); };
  // The device comes first, the launch phase opens and closes before the point, the report ends the stream.
  EXPECT_LT(at("device"), at("phase:launch"));
  EXPECT_LT(at("phase:launch"), at("phase:launched"));
  EXPECT_LT(at("phase:launched"), at("point"));
  EXPECT_EQ(order.back(), "report");
  const json& point = r.events[r.events.size() - 2].at("point");
  EXPECT_EQ(point.value("verdict", ""), "ok");
  EXPECT_EQ(point.at("correctness").value("mismatches", -1), 0);
  // The streamed report and the file hold the same result.
  const json& streamed = r.events.back().at("report");
  EXPECT_EQ(streamed.at("verdict"), r.report.at("verdict"));
  EXPECT_EQ(streamed.at("points").size(), 1u);
  EXPECT_EQ(r.report.at("device").value("live", false), true);
}

TEST(WorkerProtocol, FaultAndHangLeaveEveryOtherPointMeasured) {
  if (!gpuPresent()) GTEST_SKIP() << "no CUDA GPU";
  ToolRun r = runTool("sweep --launch-timeout 5");
  ASSERT_EQ(r.exitCode, 1) << "error findings: exit 1";
  ASSERT_TRUE(r.report.is_object());
  const json& pts = r.report.at("points");
  ASSERT_EQ(pts.size(), 4u);
  EXPECT_EQ(pts[0].value("verdict", ""), "ok");
  EXPECT_EQ(pts[1].value("verdict", ""), "fault");
  EXPECT_EQ(pts[2].value("verdict", ""), "hang");
  EXPECT_EQ(pts[3].value("verdict", ""), "ok");
  auto c1 = categories(pts[1]), c2 = categories(pts[2]);
  EXPECT_NE(std::find(c1.begin(), c1.end(), "illegal_address"), c1.end());
  EXPECT_NE(std::find(c2.begin(), c2.end(), "hang"), c2.end());
  // The points after the fault and the hang ran in fresh workers and were checked.
  EXPECT_EQ(pts[3].at("correctness").value("mismatches", -1), 0);
  EXPECT_EQ(pts[3].at("coverage").at("Y").value("unwritten", -1), 0);
  // The worst verdict over the points, in the documented order (a fault outranks a hang).
  EXPECT_EQ(r.report.value("verdict", ""), "fault");
}

TEST(WorkerProtocol, WarmWorkersGiveEveryPointTheVerdictFreshWorkersGive) {
  // The same sweep (ok, fault, hang, ok) with a worker per capture and with warm
  // workers: point by point the same verdict, findings, errors and output bytes;
  // the warm sweep starts one worker, a fresh one after the fault and after the hang.
  if (!gpuPresent()) GTEST_SKIP() << "no CUDA GPU";
  ToolRun warm = runTool("sweep --launch-timeout 5");
  ToolRun fresh = runTool("sweep --launch-timeout 5 --fresh-workers");
  ASSERT_TRUE(warm.report.is_object());
  ASSERT_TRUE(fresh.report.is_object());
  EXPECT_EQ(warm.report.at("extra").at("workers"), (json{{"warm", true}, {"started", 3}}));
  EXPECT_EQ(fresh.report.at("extra").at("workers"), (json{{"warm", false}, {"started", 4}}));
  const json& w = warm.report.at("points");
  const json& f = fresh.report.at("points");
  ASSERT_EQ(w.size(), 4u);
  ASSERT_EQ(f.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(w[i].at("verdict"), f[i].at("verdict"));
    // Error findings decide verdicts; performance findings follow counters, which
    // other tests profiling the GPU at the same moment may keep from being read.
    EXPECT_EQ(errorCategories(w[i]), errorCategories(f[i]));
    const json none = json::object();
    EXPECT_EQ(w[i].value("extra", none).value("output_digest", json()),
              f[i].value("extra", none).value("output_digest", json()));
    auto maxErr = [](const json& p) {
      return p.contains("correctness") ? p["correctness"].value("max_abs_err", -1.0) : -1.0;
    };
    EXPECT_EQ(maxErr(w[i]), maxErr(f[i]));
    // Where it ran: every point that reached the GPU names it.
    ASSERT_TRUE(w[i].contains("gpu")) << w[i].dump().substr(0, 300);
    EXPECT_EQ(w[i].at("gpu").value("uuid", "").rfind("GPU-", 0), 0u);
    EXPECT_EQ(w[i].at("gpu").value("uuid", ""), f[i].at("gpu").value("uuid", ""));
    EXPECT_FALSE(w[i].at("gpu").value("host", "").empty());
    EXPECT_EQ(w[i].at("gpu").value("name", ""), warm.report.at("device").value("name", ""));
  }
}

}  // namespace
}  // namespace tilescope
