// NVIDIA's CUPTI sample concurrent_profiling checks itself by wall time:
// profiling on N devices at once takes about the one-device time, not N
// times it. The same rule for TileScope (docs/measurements.md, "Counters on
// several GPUs"): a sweep with counters on
// every GPU, one worker per GPU, profiles each point in about the time the
// point's profile takes with one worker. Labelled gpu and multigpu; skipped
// cleanly with fewer than two GPUs.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "gpu_util.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace tilescope::gputest;

namespace {

fs::path outDir() {
  const fs::path d = fs::temp_directory_path() / ("tilescope_multigpu_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

struct Sweep {
  json report;
  double wallS = 0;
  std::string log;
};

Sweep sweep(const std::string& tag, int jobs, const std::string& counters) {
  const fs::path report = outDir() / (tag + ".json"), log = outDir() / (tag + ".log");
  const fs::path cfg = fs::path(TILESCOPE_SOURCE_DIR) / "kernels/gemm/gemm_tiled_sweep.tscfg.json";
  const auto t0 = std::chrono::steady_clock::now();
  const int status = std::system((shellQuote(TILESCOPE_RUN_EXE) + " sweep " + shellQuote(cfg.string()) +
                                  " --jobs " + std::to_string(jobs) + " --counters " + counters + " -o " +
                                  shellQuote(report.string()) + " > " + shellQuote(log.string()) + " 2>&1")
                                     .c_str());
  Sweep s;
  s.wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s.log = readFile(log);
  if (WIFEXITED(status) && WEXITSTATUS(status) <= 1 && fs::exists(report))
    s.report = json::parse(readFile(report), nullptr, false);
  return s;
}

/// The points' kernel-profile seconds (counters.seconds_kernel), each point
/// checked to have its counters.
std::vector<double> profileSeconds(const Sweep& s) {
  std::vector<double> out;
  for (const json& p : s.report.value("points", json::array())) {
    const json c = p.value("counters", json::object());
    EXPECT_TRUE(c.value("collected", false)) << c.dump(1);
    if (c.contains("seconds_kernel")) out.push_back(c["seconds_kernel"].get<double>());
  }
  std::sort(out.begin(), out.end());
  return out;
}

double median(const std::vector<double>& v) { return v.empty() ? 0 : v[v.size() / 2]; }

}  // namespace

TEST(MultiGpu, APointsProfileOnEveryGpuCostsWhatItDoesAlone) {
  const int gpus = gpuCount();
  if (gpus < 2) GTEST_SKIP() << "needs two or more GPUs (" << gpus << " here)";
  sweep("prime", 1, "basic");  // compiles every point's profiled variant into the cache
  const Sweep one = sweep("jobs1", 1, "basic"), all = sweep("jobs" + std::to_string(gpus), gpus, "basic");
  ASSERT_TRUE(one.report.is_object()) << one.log;
  ASSERT_TRUE(all.report.is_object()) << all.log;
  const std::vector<double> a = profileSeconds(one), b = profileSeconds(all);
  ASSERT_EQ(a.size(), 16u) << one.log;
  ASSERT_EQ(b.size(), 16u) << all.log;
  std::printf(
      "[multigpu] %d GPUs: sweep %.2f s with 1 job, %.2f s with %d (%.2fx); kernel profile median %.3f s "
      "alone, %.3f s on every GPU at once\n",
      gpus, one.wallS, all.wallS, gpus, one.wallS / all.wallS, median(a), median(b));
  // The sample's rule, for one profile: at once costs about what it costs alone.
  EXPECT_LE(median(b), 1.25 * median(a) + 0.02);
  // And the sweep is faster for it (the fixed costs of starting workers stay).
  EXPECT_LT(all.wallS, one.wallS);
}
