// measurePoint on a live GPU, each measurement in a forked child (a fault kills the
// CUDA context; the parent never touches CUDA, so fork is safe). Every test
// skips when the child finds no GPU.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "tilescope/config/config.h"
#include "tilescope/cuda/measure.h"
#include "tilescope/model/report.h"

namespace fs = std::filesystem;
using namespace tilescope;

namespace {

fs::path configPath(const std::string& name) {
  return fs::path(TILESCOPE_TEST_DATA) / "kernels" / (name + ".tscfg.json");
}

// Runs the measurement in a child process and returns its Point (JSON through a pipe).
std::optional<Point> captureInChild(const std::string& name, std::string* problem, int alignShiftBytes = 0) {
  int fds[2];
  if (pipe(fds) != 0) return std::nullopt;
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string text;
    try {
      Config cfg = expandSweep(loadConfig(configPath(name))).front().config;
      cuda::MeasureOptions opts;
      opts.alignShiftBytes = alignShiftBytes;
      opts.progress = [](const std::string& m) { std::cerr << "  [measure] " << m << "\n"; };
      text = toJson(cuda::measurePoint(cfg, opts)).dump();
    } catch (const std::exception& e) {
      text = nlohmann::json{{"exception", e.what()}}.dump();
    }
    std::size_t off = 0;
    while (off < text.size()) {
      ssize_t n = write(fds[1], text.data() + off, text.size() - off);
      if (n <= 0) break;
      off += std::size_t(n);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buf[65536];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) text.append(buf, std::size_t(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    *problem = "the measurement child wrote no report (status " + std::to_string(status) + ")";
    return std::nullopt;
  }
  if (j.contains("exception")) {
    *problem = j["exception"].get<std::string>();
    return std::nullopt;
  }
  return pointFromJson(j);
}

const Finding* findCategory(const Point& p, const std::string& category) {
  for (const auto& f : p.findings)
    if (f.category == category) return &f;
  return nullptr;
}

std::string findingsText(const Point& p) {
  std::string s;
  for (const auto& f : p.findings) s += "  " + f.category + ": " + f.message + "\n";
  return s;
}

#define MEASURE_OR_SKIP(point, name, ...)                                                      \
  std::string problem_;                                                                        \
  auto point##Opt = captureInChild(name, &problem_ __VA_OPT__(, ) __VA_ARGS__);                \
  ASSERT_TRUE(point##Opt.has_value()) << problem_;                                             \
  if (point##Opt->status.noGpu) GTEST_SKIP() << "no GPU: " << point##Opt->status.captureError; \
  const Point& point = *point##Opt;                                                            \
  std::cerr << "verdict " << verdictName(point.verdict) << "\n" << findingsText(point);

}  // namespace

TEST(Measure, CorrectKernelIsOkAndFullyCovered) {
  MEASURE_OR_SKIP(p, "gemm_naive_ok");
  EXPECT_EQ(p.verdict, Verdict::ok);
  EXPECT_TRUE(p.compile.ok);
  EXPECT_GT(p.compile.regs, 0);
  EXPECT_TRUE(p.launch.ok);
  ASSERT_EQ(p.coverage.size(), 1u);
  EXPECT_TRUE(p.coverage[0].measured);
  EXPECT_EQ(p.coverage[0].written, 256 * 192);
  EXPECT_EQ(p.coverage[0].unwritten, 0);
  ASSERT_EQ(p.correctness.size(), 1u);
  EXPECT_TRUE(p.correctness[0].checked);
  EXPECT_EQ(p.correctness[0].mismatches, 0);
  EXPECT_EQ(findCategory(p, "oob_write"), nullptr);
  EXPECT_TRUE(p.timing.measured) << p.timing.note;
  EXPECT_GT(p.timing.kernelNs.median, 0);
  EXPECT_TRUE(p.baseline.measured) << p.baseline.error;
  ASSERT_TRUE(p.speedup.has_value());
  EXPECT_GT(*p.speedup, 0);
  std::cerr << "kernel median " << p.timing.kernelNs.median << " ns, cuBLAS median "
            << p.baseline.kernelNs.median << " ns, speedup " << *p.speedup << "\n";
}

TEST(Measure, WriteOnePastTheLastRowIsAnOobWrite) {
  MEASURE_OR_SKIP(p, "gemm_naive_oob_row");
  const Finding* f = findCategory(p, "oob_write");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->tensor, "C");
  EXPECT_NE(f->message.find("row 256"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("one past the last row"), std::string::npos) << f->message;
  // Row 256 of a [256, 192] f32 tensor: bytes 0..767 past the end.
  ASSERT_TRUE(f->location.bytesPastEnd);
  EXPECT_EQ(*f->location.bytesPastEnd, (ByteRange{0, 192 * 4 - 1}));
  ASSERT_FALSE(f->location.tile.empty());
  EXPECT_EQ(f->location.tile[0], 16);  // the tile row below the last one (256 / 16)
  // The CTA next to it inside C is in the last tile row: blockIdx.y == 15.
  ASSERT_FALSE(f->location.nearestCtas.empty()) << toJson(f->location).dump();
  EXPECT_EQ(f->location.nearestCtas[0][1], 15);
  EXPECT_EQ(f->evidence["bytes_changed"], 192 * 4);
  EXPECT_EQ(f->evidence["elements_changed"], 192);
  EXPECT_NE(p.verdict, Verdict::ok);
}

TEST(Measure, SkippedTileIsACoverageGap) {
  MEASURE_OR_SKIP(p, "gemm_naive_gap");
  ASSERT_NE(findCategory(p, "coverage_gap"), nullptr);
  ASSERT_EQ(p.coverage.size(), 1u);
  EXPECT_EQ(p.coverage[0].unwritten, 16 * 16);
  EXPECT_EQ(p.verdict, Verdict::incorrect);
  EXPECT_EQ(findCategory(p, "oob_write"), nullptr);
}

TEST(Measure, ReferenceKernel) {
  MEASURE_OR_SKIP(p, "gemm_naive_refkernel");
  ASSERT_EQ(p.correctness.size(), 1u);
  EXPECT_EQ(p.correctness[0].reference, "kernel");
  EXPECT_EQ(p.correctness[0].mismatches, 0);
  EXPECT_EQ(p.verdict, Verdict::ok);
}

TEST(Measure, WildStoreIsAFault) {
  MEASURE_OR_SKIP(p, "gemm_naive_fault");
  EXPECT_EQ(p.verdict, Verdict::fault);
  const Finding* f = findCategory(p, "illegal_address");
  ASSERT_NE(f, nullptr) << findingsText(p);
  EXPECT_EQ(f->evidence["error"], "CUDA_ERROR_ILLEGAL_ADDRESS");
  EXPECT_TRUE(p.status.stickyError.value_or(false));
  EXPECT_FALSE(p.launch.ok);
}

TEST(Measure, AlignedVectorCopyIsOk) {
  MEASURE_OR_SKIP(p, "copy_vec4");
  EXPECT_EQ(p.verdict, Verdict::ok);
  ASSERT_EQ(p.coverage.size(), 1u);
  EXPECT_EQ(p.coverage[0].unwritten, 0);
}

TEST(Measure, ShiftedBaseMakesVectorAccessesMisaligned) {
  MEASURE_OR_SKIP(p, "copy_vec4", 4);
  EXPECT_EQ(p.verdict, Verdict::fault);
  const Finding* f = findCategory(p, "misaligned_access");
  ASSERT_NE(f, nullptr) << findingsText(p);
  EXPECT_EQ(f->evidence["error"], "CUDA_ERROR_MISALIGNED_ADDRESS");
}

TEST(Measure, SharedMemoryAbove48KiBIsRaisedWithANote) {
  MEASURE_OR_SKIP(p, "copy_smem_64k");
  EXPECT_TRUE(p.launch.ok) << p.launch.error;
  EXPECT_EQ(p.verdict, Verdict::ok);
  // Raising the limit is its own category, not a failure users would read as one.
  const Finding* f = findCategory(p, "smem_opt_in");
  ASSERT_NE(f, nullptr) << findingsText(p);
  EXPECT_EQ(f->severity, Severity::info);
  EXPECT_EQ(findCategory(p, "smem_exceeded"), nullptr) << findingsText(p);
}

TEST(Measure, SharedMemoryAboveTheOptInLimitIsALaunchError) {
  MEASURE_OR_SKIP(p, "copy_smem_too_big");
  EXPECT_EQ(p.verdict, Verdict::launch_error);
  const Finding* f = findCategory(p, "smem_exceeded");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::error);
  EXPECT_FALSE(p.launch.ok);
}
