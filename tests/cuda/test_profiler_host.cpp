// The metric list against the chips' own metric lists (CUPTI Profiler Host
// API: runs without a GPU).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "tilescope/counters/counters.h"
#include "tilescope/cuda/profiler_host.h"

using namespace tilescope;

TEST(ProfilerHost, EveryStandardMetricExistsOnHopper) {
  const std::vector<std::string> list = profileMetricList({});
  int bad = -1;
  EXPECT_EQ(cuda::validateMetrics("GH100", list, &bad), "");
  EXPECT_EQ(bad, -1);
  std::vector<std::string> missing;
  EXPECT_EQ(cuda::metricsOnChip("GH100", list, &missing).size(), list.size());
  EXPECT_TRUE(missing.empty());
}

// The basic set's promise (counters.h): what the findings need in at most three
// kernel-replay passes on Hopper, where the full list needs many more. The third is
// the shared-memory wavefronts bank_conflicts needs (without them: two).
TEST(ProfilerHost, BasicSetFitsInThreePassesOnHopper) {
  const int basic = cuda::replayPasses("GH100", profileMetricList({}, CounterSet::basic));
  const int full = cuda::replayPasses("GH100", profileMetricList({}, CounterSet::full));
  EXPECT_LE(basic, 3);
  EXPECT_GT(full, basic);
  std::printf("GH100 replay passes: basic %d, full %d\n", basic, full);
}

TEST(ProfilerHost, AnotherGenerationSkipsWhatItLacksAndKeepsTheRest) {
  // Ampere names its tensor paths differently: those are skipped, the rest validate.
  const std::vector<std::string> list = profileMetricList({});
  std::vector<std::string> missing;
  const std::vector<std::string> kept = cuda::metricsOnChip("GA100", list, &missing);
  EXPECT_FALSE(missing.empty());
  EXPECT_NE(std::find(missing.begin(), missing.end(), "sm__ops_path_tensor_src_fp16.sum"), missing.end());
  EXPECT_EQ(kept.size() + missing.size(), list.size());
  EXPECT_EQ(cuda::validateMetrics("GA100", kept), "");
}

TEST(ProfilerHost, AnUnknownMetricIsNamedWithItsIndex) {
  int bad = -1;
  std::string why =
      cuda::validateMetrics("GH100", {"smsp__warps_launched.sum", "smsp__no_such_counter.sum"}, &bad);
  EXPECT_EQ(bad, 1);
  EXPECT_NE(why.find("smsp__no_such_counter.sum"), std::string::npos) << why;
  EXPECT_NE(why.find("GH100"), std::string::npos) << why;
  // A known counter with a rollup the metric does not have is unknown too.
  why = cuda::validateMetrics("GH100", {"gpu__time_duration.pct"}, &bad);
  EXPECT_EQ(bad, 0) << why;
}

TEST(ProfilerHost, AnUnknownChipSaysSo) {
  std::string why = cuda::validateMetrics("XY999", {"gpu__time_duration.sum"});
  EXPECT_NE(why.find("XY999"), std::string::npos) << why;
}

TEST(ProfilerHost, ArchitecturesMapToTheirChips) {
  EXPECT_EQ(cuda::chipForArch("sm_90"), "GH100");
  EXPECT_EQ(cuda::chipForArch("sm_80"), "GA100");
  EXPECT_EQ(cuda::chipForArch("sm_99"), "");
}
