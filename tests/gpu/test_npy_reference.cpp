// `reference: {"op": "npy"}` end to end on the GPU: an input read from .npy, the
// output checked against an expected .npy (no library, no second kernel), through
// `tilescope-run run` and its worker. The files are written here with writeNpy.
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gpu_util.h"
#include "tilescope/base/npy.h"

namespace tilescope {
namespace {

namespace fs = std::filesystem;
using gputest::gpuPresent;
using gputest::readFile;
using gputest::shellQuote;
using nlohmann::json;

constexpr int kRows = 64, kN = 300;

class NpyReference : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("tilescope_npy_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    // Logits in [-4, 4] and their softmax in double: the kernel's f32 result must
    // match to the default tolerance.
    x.resize(kRows * kN);
    y.resize(kRows * kN);
    for (int r = 0; r < kRows; ++r) {
      double mx = -1e300, sum = 0;
      for (int c = 0; c < kN; ++c) {
        x[r * kN + c] = static_cast<float>(4.0 * std::sin(0.37 * r + 0.11 * c * c));
        mx = std::max(mx, double(x[r * kN + c]));
      }
      for (int c = 0; c < kN; ++c) sum += std::exp(double(x[r * kN + c]) - mx);
      for (int c = 0; c < kN; ++c)
        y[r * kN + c] = static_cast<float>(std::exp(double(x[r * kN + c]) - mx) / sum);
    }
    writeNpy(dir / "x.npy", DType::f32, {kRows, kN}, x.data(), x.size() * sizeof(float));
  }
  void TearDown() override { fs::remove_all(dir); }

  /// Writes the expected output and a config that uses both files; runs it.
  json run(const std::vector<float>& expected, int* exitCode) {
    writeNpy(dir / "y.npy", DType::f32, {kRows, kN}, expected.data(), expected.size() * sizeof(float));
    // The kernel goes next to the config: a config reads only inside its own folder.
    const fs::path src = dir / "softmax_row.cu";
    fs::copy_file(fs::path(TILESCOPE_SOURCE_DIR) / "kernels/softmax/softmax_row.cu", src,
                  fs::copy_options::overwrite_existing);
    json cfg = {
        {"schema", "tilescope.config/1"},
        {"name", "softmax_npy"},
        {"kernel", {{"source", "softmax_row.cu"}, {"entry", "softmax_row"}, {"defines", {{"BLOCK", 128}}}}},
        {"params", {{"ROWS", kRows}, {"N", kN}}},
        {"tensors",
         {{"x", {{"dtype", "f32"}, {"shape", {"ROWS", "N"}}, {"init", "npy:x.npy"}}},
          {"y", {{"dtype", "f32"}, {"shape", {"ROWS", "N"}}, {"output", true}, {"expected", "npy:y.npy"}}}}},
        {"args", {"x", "y", "ROWS", "N"}},
        {"launch", {{"grid", {"ROWS", 1, 1}}, {"block", {"BLOCK", 1, 1}}}},
        {"reference", {{"op", "npy"}}},
        {"tolerance", {{"rtol", 1e-4}, {"atol", 1e-6}}}};
    std::ofstream(dir / "softmax_npy.tscfg.json") << cfg.dump(2);
    const fs::path out = dir / "report.json";
    fs::remove(out);
    const std::string cmd =
        shellQuote(TILESCOPE_RUN_EXE) + " run " + shellQuote((dir / "softmax_npy.tscfg.json").string()) +
        " -o " + shellQuote(out.string()) + " >/dev/null 2>" + shellQuote((dir / "stderr.txt").string());
    const int status = std::system(cmd.c_str());
    *exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    stderrText = readFile(dir / "stderr.txt");
    return fs::exists(out) ? json::parse(readFile(out)) : json();
  }

  fs::path dir;
  std::vector<float> x, y;
  std::string stderrText;
};

TEST_F(NpyReference, MatchingExpectedFilePasses) {
  if (!gpuPresent()) GTEST_SKIP() << "no CUDA GPU";
  int code = -1;
  json r = run(y, &code);
  ASSERT_FALSE(r.is_null()) << stderrText;
  EXPECT_EQ(code, 0) << r["findings"].dump(1) << stderrText;
  const json& c = r["points"][0]["correctness"];
  EXPECT_TRUE(c["checked"].get<bool>());
  EXPECT_NE(c["reference"].get<std::string>().find("npy"), std::string::npos) << c["reference"];
  EXPECT_EQ(c["mismatches"], 0);
  EXPECT_EQ(c["elements"], kRows * kN);
}

TEST_F(NpyReference, OneWrongExpectedElementIsFoundWhereItIs) {
  if (!gpuPresent()) GTEST_SKIP() << "no CUDA GPU";
  std::vector<float> bad = y;
  bad[5 * kN + 17] += 0.25f;
  int code = -1;
  json r = run(bad, &code);
  ASSERT_FALSE(r.is_null()) << stderrText;
  EXPECT_EQ(code, 1);
  EXPECT_EQ(r["verdict"], "incorrect");
  const json& c = r["points"][0]["correctness"];
  EXPECT_EQ(c["mismatches"], 1);
  EXPECT_EQ(c["first_mismatch"], json({5, 17}));
  EXPECT_NEAR(c["max_abs_err"].get<double>(), 0.25, 1e-3);
}

}  // namespace
}  // namespace tilescope
