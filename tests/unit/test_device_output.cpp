// Device printf output and failed asserts (device_output.h): the text CUDA's
// __assertfail prints, read back into a located device_assert finding.
#include <gtest/gtest.h>

#include "tilescope/logs/device_output.h"
#include "tilescope/model/point.h"

namespace tilescope {
namespace {

// As an H100 printed it for gemm_bug_assert_whole_tiles (NVRTC names the source).
const char* kTwoAsserts =
    "row sums ready\n"
    "gemm_tiled.cu:171: void gemm_tiled(const __half *, const __half *, __half *, int, int, int): block: "
    "[15,3,0], "
    "thread: [40,0,0] Assertion `r < M && c < N` failed.\n"
    "gemm_tiled.cu:171: void gemm_tiled(const __half *, const __half *, __half *, int, int, int): block: "
    "[15,3,0], "
    "thread: [41,0,0] Assertion `r < M && c < N` failed.\n";

TEST(DeviceOutput, ParsesEveryAssertLineAndNothingElse) {
  const auto a = parseDeviceAsserts(kTwoAsserts);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].file, "gemm_tiled.cu");
  EXPECT_EQ(a[0].line, 171);
  EXPECT_EQ(a[0].function, "void gemm_tiled(const __half *, const __half *, __half *, int, int, int)");
  EXPECT_EQ(a[0].block, (Index{15, 3, 0}));
  EXPECT_EQ(a[0].thread, (Index{40, 0, 0}));
  EXPECT_EQ(a[0].condition, "r < M && c < N");
  EXPECT_EQ(a[1].thread, (Index{41, 0, 0}));
  // A condition with backticks and colons inside, a path with colons.
  const auto b =
      parseDeviceAsserts("/a:b/k.py:12: f: block: [0,0,0], thread: [1,2,3] Assertion `x[`i`] : 0` failed.");
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].file, "/a:b/k.py");
  EXPECT_EQ(b[0].condition, "x[`i`] : 0");
  EXPECT_TRUE(parseDeviceAsserts("Assertion `x` failed.\nblock: [1,2,3]\n").empty());
  EXPECT_TRUE(parseDeviceAsserts(
                  "k.cu:1: f: block: [99999999999999999999,0,0], thread: [0,0,0] Assertion `x` failed.")
                  .empty());
}

TEST(DeviceOutput, LocatesTheDeviceAssertFinding) {
  Point p;
  Finding f;
  f.category = "device_assert";
  f.message = "the kernel stopped on a device-side assert";
  p.findings.push_back(f);
  applyDeviceOutput(p, kTwoAsserts);
  EXPECT_EQ(p.deviceOutput, kTwoAsserts);
  const Location& l = p.findings[0].location;
  EXPECT_EQ(l.file, "gemm_tiled.cu");
  EXPECT_EQ(l.line, 171);
  EXPECT_EQ(l.block, (Index{15, 3, 0}));
  EXPECT_EQ(l.thread, (Index{40, 0, 0}));
  EXPECT_EQ(p.findings[0].evidence["condition"], "r < M && c < N");
  EXPECT_EQ(p.findings[0].evidence["failed_asserts"], 2);
  EXPECT_NE(p.findings[0].message.find("gemm_tiled.cu:171"), std::string::npos) << p.findings[0].message;
  EXPECT_NE(p.findings[0].message.find("2 threads"), std::string::npos) << p.findings[0].message;
}

TEST(DeviceOutput, KeepsTheTailValidUtf8AndLeavesOtherFindingsAlone) {
  Point p;
  Finding f;
  f.category = "mismatch";
  p.findings.push_back(f);
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "line " + std::to_string(i) + "\n";
  text += "bad \xff\xfe bytes\n";
  applyDeviceOutput(p, text);
  EXPECT_LE(p.deviceOutput.size(), kMaxDeviceOutputBytes);
  EXPECT_EQ(p.deviceOutput.rfind("line ", 0), 0u)
      << "the tail starts at a line: " << p.deviceOutput.substr(0, 20);
  EXPECT_NE(p.deviceOutput.find("line 4999\n"), std::string::npos);
  EXPECT_EQ(p.deviceOutput.find('\xff'), std::string::npos);
  EXPECT_FALSE(p.findings[0].location.line.has_value());
  Point empty;
  applyDeviceOutput(empty, "");
  EXPECT_TRUE(empty.deviceOutput.empty());
}

}  // namespace
}  // namespace tilescope
