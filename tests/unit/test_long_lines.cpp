// Every function that runs a regular expression over text TileScope did not write, fed
// 200,000-character lines (docs/security.md, "Denial of service"): libstdc++'s std::regex recursed once per
// character and overflowed the stack on them; tilescope/base/regex.h is linear.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "tilescope/capture/selection.h"
#include "tilescope/config/triton_init.h"
#include "tilescope/diagnose/compile_error.h"
#include "tilescope/diagnose/tree.h"
#include "tilescope/logs/classify.h"
#include "tilescope/logs/device_output.h"
#include "tilescope/logs/sanitizer.h"
#include "tilescope/run/remote.h"
#include "tilescope/triage/triage_run.h"

namespace tilescope {
namespace {

const std::string kLong(200000, 'A');

// The reproducer's log (../shared/repro/t4/triton_compile_log_first_line_crash): Triton
// could not place the error, so the first line is "error: NameError('AAAA…')".
TEST(LongLines, CompileErrorPositionOfATritonLogWithA200000CharacterFirstLine) {
  EXPECT_EQ(compileErrorPosition("error: NameError('" + kLong + "')\n\n" + kLong + "\n"),
            std::make_pair(0, 0));
  EXPECT_EQ(compileErrorPosition("/k/" + kLong + ".py:12:5: error: NameError('" + kLong + "')\n    x\n"),
            std::make_pair(12, 5));
  EXPECT_EQ(compileErrorPosition(kLong + "\nk.py:3:1: error: x"), std::make_pair(0, 0));  // first line only
  // A number beyond an int is no position (std::stoi threw here).
  EXPECT_EQ(compileErrorPosition("k.py:99999999999999999999:2: error: x"), std::make_pair(0, 2));
}

TEST(LongLines, ClassifyLogOfA200000CharacterLine) {
  const Classification c = classifyLog("Traceback (most recent call last):\n  " + kLong +
                                       "\nNameError: name '" + kLong + "' is not defined\n");
  EXPECT_EQ(c.lines, 3u);
  EXPECT_FALSE(classifyLog(std::string(200000, '\n')).known());
  (void)lastExceptionLine("E" + kLong + "Error: " + kLong);
}

TEST(LongLines, SanitizerReportsWithA200000CharacterLine) {
  const SanitizerReport r = parseSanitizerLog(
      "========= COMPUTE-SANITIZER\n"
      "========= Invalid __global__ write of size 4 bytes\n"
      "=========     at k(float *)+0x70 in /x/" +
      kLong +
      ".cu:12\n"
      "=========     by thread (1,0,0) in block (2,0,0)\n"
      "=========     Address 0x7f00 is out of bounds\n"
      "=========     and is " +
      kLong +
      " bytes after the nearest allocation\n"
      "========= Race reported between Write access at " +
      kLong +
      "\n"
      "========= ERROR SUMMARY: 1 error\n");
  EXPECT_TRUE(std::any_of(r.findings.begin(), r.findings.end(),
                          [](const SanitizerFinding& f) { return f.kind == "out_of_bounds"; }));
  EXPECT_NO_THROW((void)parseSanitizerText("Invalid __" + kLong + "\nRace reported between " + kLong));
}

TEST(LongLines, DeviceAssertsBeside200000CharacterLines) {
  const std::string ok = "k.cu:7: void k(): block: [1,0,0], thread: [2,0,0] Assertion `x < n` failed.";
  const auto a =
      parseDeviceAsserts(kLong + "\n" + "k.cu:7: void k(): block: [1,0,0], thread: [2,0,0] Assertion `" +
                         kLong + "` failed.\n" + ok + "\n");
  ASSERT_EQ(a.size(), 1u);  // a line longer than CUDA's printf buffer is not one it printed
  EXPECT_EQ(a[0].condition, "x < n");
}

TEST(LongLines, KernelSelectionOfA200000CharacterName) {
  LaunchSelection s;
  s.kernelRegex = "^gemm_.*_bf16$";
  LaunchSelector sel(s);
  EXPECT_FALSE(sel.select("gemm_" + kLong, "", "k"));
  EXPECT_TRUE(sel.select("gemm_" + kLong + "_bf16", "", "k"));
  s.kernelRegex = "(gemm)\\1";  // a backreference: RE2 refuses it, and the error names the pattern
  try {
    LaunchSelector bad(s);
    ADD_FAILURE() << "a backreference compiled";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--kernel '(gemm)\\1': not a regular expression"), std::string::npos)
        << e.what();
  }
}

TEST(LongLines, TritonNamesOf200000Characters) {
  EXPECT_EQ(tensorNameForPointer(kLong + "_ptr"), kLong);
  EXPECT_EQ(tensorNameForPointer(kLong), kLong);
  EXPECT_FALSE(isLibraryKernel(kLong));
  EXPECT_FALSE(isLibraryKernel("cub_" + kLong));  // `cub_\w+::` overflowed std::regex's stack
  EXPECT_TRUE(isLibraryKernel("void at::native::" + kLong));
  EXPECT_TRUE(isLibraryKernel(kLong + "elementwise_kernel"));
}

TEST(LongLines, TreeMatchesOverA200000CharacterValue) {
  const nlohmann::json subject = {{"log", "x" + kLong + "y"}};
  EXPECT_TRUE(evalPredicate({{"field", "log"}, {"matches", "^x[A]*y$"}}, subject));
  EXPECT_FALSE(evalPredicate({{"field", "log"}, {"matches", "^x[A]*z$"}}, subject));
  EXPECT_THROW(validatePredicate({{"field", "log"}, {"matches", "(a)\\1"}}, "n"), TreeError);
}

TEST(LongLines, RemoteCleanupOfA200000CharacterPath) {
  EXPECT_THROW((void)remoteCleanupCommand("gpu01", "/" + kLong), std::invalid_argument);
  EXPECT_NO_THROW((void)remoteCleanupCommand("gpu01", "/" + kLong + "/tilescope.AbC12345"));
}

}  // namespace
}  // namespace tilescope
