#include <gtest/gtest.h>

#include <chrono>

#include "tilescope/analysis/tiles.h"

using namespace tilescope;

namespace {
TileSpec spec2d(std::string tm, std::string tn, std::string oy, std::string ox) {
  TileSpec s;
  s.tensor = "C";
  s.tile = {std::move(tm), std::move(tn)};
  s.origin = {std::move(oy), std::move(ox)};
  return s;
}
}  // namespace

// M=100, N=70, tiles 32x32, grid floor-divided (3 x 2): rows 96..99 and cols 64..69 uncovered.
TEST(Tiles, FloorDividedGridLeavesTheTailUncovered) {
  const SymbolTable sym{{"BM", 32}, {"BN", 32}};
  const auto tc = TileCoverage::analyze(spec2d("BM", "BN", "pid_y * BM", "pid_x * BN"), {100, 70},
                                        {70 / 32, 100 / 32, 1}, sym);
  EXPECT_EQ(tc.method(), "separable");
  EXPECT_EQ(tc.elements(), 7000);
  EXPECT_EQ(tc.covered(), 96 * 64);
  EXPECT_EQ(tc.uncovered(), 7000 - 96 * 64);
  EXPECT_EQ(tc.overlapped(), 0);
  EXPECT_EQ(tc.tilesTotal(), 6);
  EXPECT_EQ(tc.tilesCrossing(), 0);
  const auto gaps = tc.gapRegions(10);
  ASSERT_EQ(gaps.size(), 2u);
  EXPECT_EQ(gaps[0].begin, (std::vector<std::int64_t>{96, 0}));
  EXPECT_EQ(gaps[0].extent, (std::vector<std::int64_t>{4, 70}));
  EXPECT_EQ(gaps[1].begin, (std::vector<std::int64_t>{0, 64}));
  EXPECT_EQ(gaps[1].extent, (std::vector<std::int64_t>{100, 6}));
  EXPECT_TRUE(tc.ownersOf({97, 3}).empty());
  const auto counts = tc.coverageCounts({{94, 62}, {4, 4}});
  EXPECT_EQ(counts, (std::vector<std::uint8_t>{1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
}

// Ceil-divided grid: everything covered, the last row/column of tiles crosses the bounds.
TEST(Tiles, CeilDividedGridCrossesTheBoundsWithMasks) {
  const auto tc =
      TileCoverage::analyze(spec2d("32", "32", "pid_y * 32", "pid_x * 32"), {100, 70}, {3, 4, 1}, {});
  EXPECT_EQ(tc.uncovered(), 0);
  EXPECT_EQ(tc.overlapped(), 0);
  EXPECT_EQ(tc.tilesTotal(), 12);
  EXPECT_EQ(tc.tilesCrossing(), 12 - 3 * 2);  // rows 0..2 x cols 0..1 are inside
  const auto crossing = tc.crossingTiles(100);
  ASSERT_EQ(crossing.size(), 6u);
  EXPECT_EQ(crossing[0].cta, (CtaIndex{2, 0, 0}));
  EXPECT_EQ(crossing[0].inBoundsExtent, (std::vector<std::int64_t>{32, 6}));
  const TileInfo corner = tc.tile(CtaIndex{2, 3, 0});
  EXPECT_TRUE(corner.crossing);
  EXPECT_EQ(corner.origin, (std::vector<std::int64_t>{96, 64}));
  EXPECT_EQ(corner.inBoundsExtent, (std::vector<std::int64_t>{4, 6}));
  EXPECT_EQ(tc.tile(std::int64_t(11)).cta, (CtaIndex{2, 3, 0}));
  const auto owners = tc.ownersOf({97, 65});
  ASSERT_EQ(owners.size(), 1u);
  EXPECT_EQ(owners[0], (CtaIndex{2, 3, 0}));
}

// Stride 24 with 32-wide tiles: 8 overlapping columns between neighbours.
TEST(Tiles, OverlappingOriginsAreCountedAndOwnedTwice) {
  const auto tc =
      TileCoverage::analyze(spec2d("16", "32", "pid_y * 16", "pid_x * 24"), {16, 104}, {4, 1, 1}, {});
  // columns: [0,32) [24,56) [48,80) [72,104): overlaps 24..31, 48..55, 72..79
  EXPECT_EQ(tc.uncovered(), 0);
  EXPECT_EQ(tc.overlapped(), 16 * 24);
  const auto owners = tc.ownersOf({5, 50});
  ASSERT_EQ(owners.size(), 2u);
  EXPECT_EQ(owners[0], (CtaIndex{1, 0, 0}));
  EXPECT_EQ(owners[1], (CtaIndex{2, 0, 0}));
  const auto ov = tc.overlapRegions(10);
  ASSERT_EQ(ov.size(), 3u);
  EXPECT_EQ(ov[1].begin, (std::vector<std::int64_t>{0, 48}));
  EXPECT_EQ(ov[1].extent, (std::vector<std::int64_t>{16, 8}));
  EXPECT_EQ(tc.coverageCounts({{0, 46}, {1, 4}}), (std::vector<std::uint8_t>{1, 1, 2, 2}));
}

// A grid axis no dimension follows (pid_z unused) makes every CTA along it a duplicate.
TEST(Tiles, UnusedAxisDuplicatesEveryTile) {
  const auto tc = TileCoverage::analyze(spec2d("8", "8", "pid_y * 8", "pid_x * 8"), {16, 16}, {2, 2, 3}, {});
  EXPECT_EQ(tc.uncovered(), 0);
  EXPECT_EQ(tc.overlapped(), 256);
  EXPECT_EQ(tc.ownersOf({0, 9}, 8).size(), 3u);
  EXPECT_EQ(tc.coverageCounts({{0, 0}, {1, 1}}), (std::vector<std::uint8_t>{3}));
}

// Non-affine (swizzled) origins fall back to per-CTA evaluation and the dense map.
TEST(Tiles, NonAffineOriginsUseTheDensePath) {
  // pid_x enumerates 4x2 tiles column-major: row = pid_x % 4, col = pid_x / 4
  const auto tc =
      TileCoverage::analyze(spec2d("8", "8", "(pid_x % 4) * 8", "(pid_x / 4) * 8"), {30, 16}, {8, 1, 1}, {});
  EXPECT_FALSE(tc.affine());
  EXPECT_EQ(tc.method(), "dense");
  EXPECT_EQ(tc.uncovered(), 0);
  EXPECT_EQ(tc.overlapped(), 0);
  EXPECT_EQ(tc.tilesCrossing(), 2);  // the tiles at rows 24..31
  const auto owners = tc.ownersOf({25, 9});
  ASSERT_EQ(owners.size(), 1u);
  EXPECT_EQ(owners[0], (CtaIndex{7, 0, 0}));
  // Same tiling with a grid one short: tile (row 3, col 1) is missing.
  const auto gap =
      TileCoverage::analyze(spec2d("8", "8", "(pid_x % 4) * 8", "(pid_x / 4) * 8"), {30, 16}, {7, 1, 1}, {});
  EXPECT_EQ(gap.uncovered(), 6 * 8);
  const auto runs = gap.gapRegions(100);
  ASSERT_EQ(runs.size(), 6u);
  EXPECT_EQ(runs[0].begin, (std::vector<std::int64_t>{24, 8}));
}

TEST(Tiles, HugeGridIsAnalysedPerTile) {
  // 16.7 M CTAs: the answer comes per tile (the time is bench/bench_tiles.cpp's to measure).
  const auto tc = TileCoverage::analyze(spec2d("16", "16", "pid_y * 16", "pid_x * 16"), {65536, 65536},
                                        {4096, 4096, 1}, {});
  EXPECT_EQ(tc.uncovered(), 0);
  EXPECT_EQ(tc.tilesTotal(), 4096LL * 4096);
  EXPECT_EQ(tc.tilesCrossing(), 0);
  EXPECT_TRUE(tc.crossingTiles(10).empty());
}

TEST(Tiles, ErrorsNameTheTensorAndExpression) {
  try {
    TileCoverage::analyze(spec2d("BM", "16", "0", "0"), {4, 4}, {1, 1, 1}, {});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("tiles.C"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("BM"), std::string::npos) << e.what();
  }
  EXPECT_THROW(TileCoverage::analyze(spec2d("4", "4", "0", "0"), {4, 4, 4}, {1, 1, 1}, {}),
               std::runtime_error);
}

// Untrusted input (docs/config.md#limits): tilings no analysis can finish are refused quickly with a clear
// error at tiles.<tensor>; the rest stay fast however large the grid.
TEST(Tiles, TilingsTooLargeToAnalyseAreRefusedQuickly) {
  const auto t0 = std::chrono::steady_clock::now();
  // Dense (not separable: pid_x drives both dimensions) on a 65536 x 65535 grid.
  EXPECT_THROW(TileCoverage::analyze(spec2d("16", "16", "pid_x * 16", "pid_x * 16"), {4096, 4096},
                                     {65536, 65535, 1}, {}),
               ConfigError);
  // Affine but not separable with 3000 x 3000 tiles that overlap everywhere: too many element visits.
  EXPECT_THROW(
      TileCoverage::analyze(spec2d("3000", "3000", "pid_x", "pid_x"), {3000, 3000}, {2048, 1, 1}, {}),
      ConfigError);
  // One grid axis of 2^31 - 1 CTAs (the separable path keeps a flag per CTA index).
  EXPECT_THROW(TileCoverage::analyze(spec2d("16", "2147483647", "0", "pid_x * 16"), {16, 65536},
                                     {2147483647, 1, 1}, {}),
               ConfigError);
  // Origins whose coefficients overflow int64 across the grid.
  EXPECT_THROW(
      TileCoverage::analyze(spec2d("1", "1", "pid_x * 4503599627370495", "0"), {4, 4}, {65536, 1, 1}, {}),
      ConfigError);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
}

TEST(Tiles, CrossingTilesOfAHugeGridAreFoundWithoutScanningIt) {
  // 2^40 CTAs; only the last row (y) and column (x) cross the bounds.
  const auto tc = TileCoverage::analyze(spec2d("16", "16", "pid_y * 16", "pid_x * 16"),
                                        {16 * 1048575 + 8, 16 * 1048575 + 8}, {1048576, 1048576, 1}, {});
  const auto t0 = std::chrono::steady_clock::now();
  const auto crossing = tc.crossingTiles(4);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 2.0);
  ASSERT_EQ(crossing.size(), 4u);
  EXPECT_EQ(crossing[0].cta, (CtaIndex{1048575, 0, 0}));
  EXPECT_EQ(crossing[1].cta, (CtaIndex{1048575, 1, 0}));
  EXPECT_EQ(tc.tilesCrossing(), 2 * 1048576LL - 1);
}

// tests/data/config/tiles_67M_ctas.tscfg.json: a 2^26-CTA axis over a 1024-row tensor. The
// coverage once walked every CTA index (and listed 2^26 crossing ones for four tiles): 1.7 s,
// 17 s under the sanitizers (docs/measurements.md, "Static analysis"). Now the work follows the tensor, not
// the grid.
TEST(Tiles, AHugeAxisOverASmallDimensionCostsTheDimension) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto tc = TileCoverage::analyze(spec2d("1", "1", "pid_x + pid_y", "0"), {1024, 1024},
                                        {TileCoverage::kMaxAxisCtas, 1, 1}, {});
  const auto crossing = tc.crossingTiles(4);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 0.5);
  EXPECT_EQ(tc.covered(), 1024);
  EXPECT_EQ(tc.tilesCrossing(), TileCoverage::kMaxAxisCtas - 1024);
  ASSERT_EQ(crossing.size(), 4u);
  EXPECT_EQ(crossing[0].cta, (CtaIndex{1024, 0, 0}));
  EXPECT_EQ(crossing[3].cta, (CtaIndex{1027, 0, 0}));
  EXPECT_EQ(tc.gapRegions(4).size(), 1u);
}

// The separable answers against the CTAs one by one, for small tilings of every sign.
TEST(Tiles, SeparableCrossingAndCoverageMatchAWalkOverEveryCta) {
  for (int oy : {-5, 0, 3})
    for (int cy : {-4, 2, 3})
      for (int cx : {-3, 1, 5})
        for (std::int64_t gz : {1, 2}) {
          const std::string y = std::to_string(oy) + " + pid_y * " + std::to_string(cy);
          const std::string x = "pid_x * " + std::to_string(cx);
          const CtaIndex grid{5, 4, gz};
          const auto tc = TileCoverage::analyze(spec2d("3", "4", y, x), {11, 13}, grid, {});
          ASSERT_EQ(tc.method(), "separable");
          std::vector<CtaIndex> expected;
          std::vector<int> owners(11 * 13, 0);
          for (std::int64_t i = 0; i < tc.tilesTotal(); ++i) {
            const TileInfo t = tc.tile(i);
            if (t.crossing) expected.push_back(t.cta);
            for (std::int64_t r = 0; r < t.inBoundsExtent[0]; ++r)
              for (std::int64_t c = 0; c < t.inBoundsExtent[1]; ++c)
                ++owners[std::size_t((t.inBoundsBegin[0] + r) * 13 + t.inBoundsBegin[1] + c)];
          }
          std::vector<CtaIndex> listed;
          for (const TileInfo& t : tc.crossingTiles(1000)) listed.push_back(t.cta);
          EXPECT_EQ(listed, expected) << y << ", " << x;
          EXPECT_EQ(tc.tilesCrossing(), std::int64_t(expected.size())) << y << ", " << x;
          const auto counts = tc.coverageCounts({{0, 0}, {11, 13}});
          for (std::size_t e = 0; e < owners.size(); ++e)
            ASSERT_EQ(int(counts[e]), owners[e]) << y << ", " << x << " element " << e;
        }
}
