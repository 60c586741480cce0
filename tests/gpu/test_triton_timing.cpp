// Oracles for a Triton kernel's timing (bench/triton_matmul.py): TileScope's CUPTI
// median of the 4096^3 Triton matmul must agree within 3% with Triton's own
// triton.testing.do_bench and with ncu's gpu__time_duration of the same kernel
// launched by Triton's JIT. Needs a GPU, and python3 with Triton and PyTorch.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gpu_util.h"

namespace tilescope {
namespace {

namespace fs = std::filesystem;
using gputest::gpuPresent;
using gputest::readFile;
using gputest::shellQuote;

TEST(TritonTiming, MatmulAgreesWithDoBenchAndNcu) {
  if (!gpuPresent()) GTEST_SKIP() << "no CUDA GPU";
  if (std::system("python3 -c 'import torch, triton' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "python3 has no torch and triton (the oracles need both)";
  if (std::system("command -v ncu >/dev/null 2>&1") != 0) GTEST_SKIP() << "no ncu on PATH";
  const char* keep = std::getenv("TILESCOPE_ZOO_REPORT_DIR");
  const fs::path dir =
      keep ? fs::path(keep) : fs::temp_directory_path() / ("tilescope_triton_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path log = dir / "triton_matmul.log";
  const std::string cmd = "python3 " +
                          shellQuote(std::string(TILESCOPE_SOURCE_DIR) + "/bench/triton_matmul.py") + " " +
                          shellQuote(TILESCOPE_RUN_EXE) + " --out " + shellQuote(dir.string()) + " > " +
                          shellQuote(log.string()) + " 2>&1";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  const std::string out = readFile(log);
  std::cout << out;
  ASSERT_NE(WEXITSTATUS(status), 2) << out;
  nlohmann::json r = nlohmann::json::parse(readFile(dir / "triton_matmul.json"), nullptr, false);
  ASSERT_TRUE(r.is_object()) << out;
  EXPECT_LE(std::abs(r["tilescope_vs_do_bench"].get<double>()), 0.03) << out;
  EXPECT_LE(std::abs(r["tilescope_vs_ncu"].get<double>()), 0.03) << out;
  EXPECT_TRUE(r["verdict"] == "ok" || r["verdict"] == "slow") << out;
}

}  // namespace
}  // namespace tilescope
