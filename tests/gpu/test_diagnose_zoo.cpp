// `tilescope-run diagnose` on zoo bug variants, on the GPU: the planted bug must
// be the first finding, with a location, proven by the experiment that can prove
// it, and the tree walk must end at the fix (docs/measurements.md, "Diagnose"; bench/diagnose_zoo.py runs
// the whole zoo and prints the shares).
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

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

struct Planted {
  const char* config;      ///< under kernels/, without .tscfg.json
  const char* category;    ///< the first finding
  const char* detail;      ///< its detail ("" = any)
  const char* experiment;  ///< a prefix of the experiment that proved it ("" = the baseline)
  const char* leaf;        ///< where the tree walk ends
};

void PrintTo(const Planted& p, std::ostream* os) { *os << p.config; }

class DiagnoseZoo : public ::testing::TestWithParam<Planted> {};

TEST_P(DiagnoseZoo, PlantedBugFirstWithLocationAndWalkEndsAtTheFix) {
  if (!gpuPresent()) GTEST_SKIP() << "no CUDA GPU";
  const Planted& want = GetParam();
  const fs::path cfg =
      fs::path(TILESCOPE_SOURCE_DIR) / "kernels" / (std::string(want.config) + ".tscfg.json");
  const fs::path out = fs::temp_directory_path() / ("tilescope_diag_" + std::to_string(::getpid()) + "_" +
                                                    fs::path(want.config).filename().string() + ".json");
  fs::remove(out);
  const std::string cmd = shellQuote(TILESCOPE_RUN_EXE) + " diagnose " + shellQuote(cfg.string()) + " -o " +
                          shellQuote(out.string()) + " >/dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  // A diagnosed bug is a failing verdict: exit 1 (docs/report.md, Exit status), never a tool error.
  EXPECT_EQ(WEXITSTATUS(status), 1);
  ASSERT_TRUE(fs::exists(out)) << cmd;
  const json r = json::parse(readFile(out));
  fs::remove(out);
  ASSERT_FALSE(r["findings"].empty());
  const json& first = r["findings"][0];
  EXPECT_EQ(first.value("category", ""), want.category) << first.dump(1);
  if (*want.detail) {
    EXPECT_EQ(first.value("detail", ""), want.detail);
  }
  EXPECT_TRUE(first.contains("location") && !first["location"].is_null() && !first["location"].empty())
      << first.dump(1);
  EXPECT_EQ(first.value("experiment", "").rfind(want.experiment, 0), 0u) << first.value("experiment", "");
  ASSERT_FALSE(r["tree_path"].empty());
  EXPECT_EQ(r["tree_path"].back(), want.leaf);
}

// The fast variants whose proof comes from each kind of experiment (a few
// seconds each on an H200); the whole zoo is bench/diagnose_zoo.py's job.
INSTANTIATE_TEST_SUITE_P(Zoo, DiagnoseZoo,
                         ::testing::Values(Planted{"softmax/softmax_bug_no_max", "nan_inf", "input_magnitude",
                                                   "inputs x", "wrong.nan_inf.softmax_max"},
                                           Planted{"attention/flash_attn_bug_no_mask", "oob_read", "",
                                                   "shape S=1024", "fault.oob_read"},
                                           Planted{"gemm/gemm_bug_no_sync", "race", "", "trials",
                                                   "fault.race.missing_barrier"},
                                           Planted{"gemm/gemm_bug_no_init", "uninitialized_read", "",
                                                   "poison", "wrong.uninitialized_read"},
                                           Planted{"gemm/gemm_bug_fp16_acc", "accumulator_overflow", "",
                                                   "shape K=", "wrong.accumulator_overflow"}),
                         [](const ::testing::TestParamInfo<Planted>& info) {
                           return fs::path(info.param.config).filename().string();
                         });

}  // namespace
}  // namespace tilescope
