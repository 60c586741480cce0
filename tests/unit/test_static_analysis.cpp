#include <gtest/gtest.h>

#include "tilescope/analysis/static_analysis.h"

using namespace tilescope;

namespace {

const DeviceSpec& h100() {
  static const DeviceDb db =
      DeviceDb::load(std::filesystem::path(TILESCOPE_SOURCE_DIR) / "resources" / "devices.json");
  return *db.find("h100");
}

// C[M,N] with BMxBN tiles; grid and block as given.
Config gemmLike(std::int64_t M, std::int64_t N, std::string gridX, std::string gridY, std::string threads,
                std::string smem = "0") {
  Config c;
  c.name = "t";
  c.params = {{"M", M}, {"N", N}};
  DefineValue bm, bn;
  bm.i = 32;
  bn.i = 32;
  c.kernel.defines = {{"BM", bm}, {"BN", bn}};
  TensorSpec t;
  t.name = "C";
  t.dtype = DType::f32;
  t.shape = {"M", "N"};
  t.output = true;
  c.tensors = {t};
  c.launch.grid = {std::move(gridX), std::move(gridY), "1"};
  c.launch.block = {std::move(threads), "1", "1"};
  c.launch.sharedBytes = std::move(smem);
  TileSpec ts;
  ts.tensor = "C";
  ts.tile = {"BM", "BN"};
  ts.origin = {"pid_y * BM", "pid_x * BN"};
  c.tiles = {ts};
  return c;
}

const Finding* find(const Point& p, const std::string& cat) {
  for (const auto& f : p.findings)
    if (f.category == cat) return &f;
  return nullptr;
}

CompileInfo compiled(int regs) {
  CompileInfo ci;
  ci.attempted = ci.ok = true;
  ci.regs = regs;
  ci.smemStatic = 0;
  return ci;
}

}  // namespace

TEST(StaticAnalysis, CleanPointHasNoFindings) {
  const Point p =
      analyzeStatic(gemmLike(100, 70, "ceil_div(N, BN)", "ceil_div(M, BM)", "256"), h100(), compiled(32));
  EXPECT_TRUE(p.findings.empty()) << toJson(p).dump(1);
  EXPECT_EQ(p.verdict, Verdict::ok);
  ASSERT_EQ(p.coverage.size(), 1u);
  EXPECT_EQ(p.coverage[0].declaredUncovered, 0);
  EXPECT_EQ(p.coverage[0].tilesTotal, 12);
  EXPECT_EQ(p.coverage[0].tilesCrossing, 6);
  ASSERT_TRUE(p.coverage[0].crossingTiles);
  EXPECT_EQ(p.coverage[0].crossingTiles->size(), 6u);
  EXPECT_TRUE(p.occupancy.computed);
  EXPECT_DOUBLE_EQ(p.occupancy.theoretical, 1.0);
  EXPECT_EQ(p.launch.grid[0], 3);
}

TEST(StaticAnalysis, FloorDividedGridIsACoverageGap) {
  const Point p = analyzeStatic(gemmLike(100, 70, "N / BN", "M / BM", "256"), h100(), compiled(32));
  const Finding* f = find(p, "coverage_gap");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::error);
  EXPECT_EQ(f->treeNode, "wrong.coverage_gap");
  EXPECT_EQ(f->evidence.at("uncovered"), 7000 - 96 * 64);
  ASSERT_FALSE(f->location.regions.empty());
  EXPECT_EQ(f->location.regions[0].begin, (std::vector<std::int64_t>{96, 0}));
  EXPECT_EQ(p.coverage[0].declaredUncovered, 7000 - 96 * 64);
  EXPECT_EQ(p.verdict, Verdict::incorrect);
}

TEST(StaticAnalysis, OverlappingOriginsAreACoverageOverlap) {
  Config c = gemmLike(64, 64, "3", "2", "128");
  c.tiles[0].origin = {"pid_y * BM", "pid_x * 16"};  // 32-wide tiles every 16 columns
  const Point p = analyzeStatic(c, h100(), compiled(32));
  const Finding* f = find(p, "coverage_overlap");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->evidence.at("overlapped"), 64 * 32);  // columns 16..47 owned twice
  EXPECT_EQ(f->location.ctas.size(), 2u);
  EXPECT_EQ(f->location.cta, f->location.ctas.front());
  EXPECT_EQ(find(p, "coverage_gap"), nullptr);  // [0,32) [16,48) [32,64) cover all 64 columns
}

TEST(StaticAnalysis, OversizedBlockIsAnInvalidLaunch) {
  const Point p = analyzeStatic(gemmLike(64, 64, "2", "2", "2048"), h100(), CompileInfo{});
  const Finding* f = find(p, "invalid_launch");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->treeNode, "launch.invalid_config");
  EXPECT_NE(f->message.find("2048 threads"), std::string::npos) << f->message;
  EXPECT_EQ(p.verdict, Verdict::launch_error);
  EXPECT_TRUE(p.coverage.empty());
}

TEST(StaticAnalysis, GridYLimit) {
  const Point p = analyzeStatic(gemmLike(32 * 70000, 64, "2", "70000", "128"), h100(), CompileInfo{});
  const Finding* f = find(p, "invalid_launch");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("grid.y"), std::string::npos) << f->message;
}

TEST(StaticAnalysis, SharedMemoryOverTheLimitAndOverTheDefault) {
  Point p = analyzeStatic(gemmLike(64, 64, "2", "2", "128", "240 * 1024"), h100(), CompileInfo{});
  const Finding* f = find(p, "smem_exceeded");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::error);
  EXPECT_NE(f->message.find("232448"), std::string::npos) << f->message;
  EXPECT_EQ(p.verdict, Verdict::launch_error);

  p = analyzeStatic(gemmLike(64, 64, "2", "2", "128", "64 * 1024"), h100(), CompileInfo{});
  f = find(p, "smem_exceeded");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::warning);
  EXPECT_NE(f->message.find("cudaFuncAttributeMaxDynamicSharedMemorySize"), std::string::npos);
  EXPECT_EQ(find(p, "smem_opt_in"), nullptr);

  // Triton's launcher opts in itself: information, not a warning.
  Config triton = gemmLike(64, 64, "2", "2", "128", "64 * 1024");
  triton.kernel.language = "triton";
  p = analyzeStatic(triton, h100(), CompileInfo{});
  EXPECT_EQ(find(p, "smem_exceeded"), nullptr);
  f = find(p, "smem_opt_in");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::info);
  EXPECT_EQ(p.verdict, Verdict::ok);

  // A captured CUDA launch that ran in the program: its host code opted in.
  Config captured = gemmLike(64, 64, "2", "2", "128", "64 * 1024");
  captured.launch.sharedOptIn = true;
  p = analyzeStatic(captured, h100(), CompileInfo{});
  EXPECT_EQ(find(p, "smem_exceeded"), nullptr);
  ASSERT_NE(find(p, "smem_opt_in"), nullptr);
  // The opt-in does not lift the device's own limit.
  captured.launch.sharedBytes = "240 * 1024";
  p = analyzeStatic(captured, h100(), CompileInfo{});
  ASSERT_NE(find(p, "smem_exceeded"), nullptr);
  EXPECT_EQ(find(p, "smem_exceeded")->severity, Severity::error);
}

TEST(StaticAnalysis, RegistersSpillsAndOccupancy) {
  Point p = analyzeStatic(gemmLike(64, 64, "2", "2", "1024"), h100(), compiled(128));
  const Finding* f = find(p, "too_many_resources");
  ASSERT_NE(f, nullptr);  // 128 x 1024 = 131072 > 65536
  EXPECT_EQ(f->treeNode, "launch.too_many_resources");

  CompileInfo ci = compiled(200);
  ci.spillStores = 64;
  ci.spillLoads = 64;
  p = analyzeStatic(gemmLike(64, 64, "2", "2", "256"), h100(), ci);
  EXPECT_NE(find(p, "register_spill"), nullptr);
  f = find(p, "low_occupancy");
  ASSERT_NE(f, nullptr);  // 200 regs: 6656/warp, 2 warps per sub-partition -> 8 warps of 64
  EXPECT_EQ(f->evidence.at("limiter"), "registers");
  EXPECT_NE(f->message.find("registers"), std::string::npos);
  EXPECT_DOUBLE_EQ(p.occupancy.theoretical, 8.0 / 64);
  EXPECT_EQ(p.verdict, Verdict::ok);  // warnings only

  p = analyzeStatic(gemmLike(64, 64, "2", "2", "1024"), h100(),
                    CompileInfo{});  // no compile: no register checks
  EXPECT_EQ(find(p, "too_many_resources"), nullptr);
  EXPECT_EQ(find(p, "low_occupancy"), nullptr);
}

// Untrusted input (docs/config.md#limits): block dimensions of 2^52 each multiply to far beyond int64; the
// check saturates instead of overflowing (UBSan caught the overflow here).
TEST(StaticAnalysis, HugeBlockDimensionsDoNotOverflow) {
  Config c = gemmLike(64, 64, "2", "2", "4503599627370496");
  c.launch.block = {"4503599627370496", "4503599627370496", "4503599627370496"};
  const Point p = analyzeStatic(c, h100(), CompileInfo{});
  const Finding* f = find(p, "invalid_launch");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("9223372036854775807 threads per block"), std::string::npos) << f->message;
  EXPECT_EQ(p.verdict, Verdict::launch_error);
}
