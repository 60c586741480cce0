// Measured coverage scan, comparison and mismatch classes (compare.h), on
// hand-built host tensors.
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include <gtest/gtest.h>

#include "tilescope/analysis/compare.h"

using namespace tilescope;
using nlohmann::json;

namespace {

HostTensor make(const std::string& name, DType dt, std::vector<std::int64_t> shape,
                const std::function<double(std::int64_t)>& value) {
  HostTensor t;
  t.name = name;
  t.dtype = dt;
  t.shape = std::move(shape);
  t.bytes.resize(static_cast<std::size_t>(t.elements()) * dtypeSize(dt));
  for (std::int64_t i = 0; i < t.elements(); ++i)
    encodeElement(dt, value(i), t.bytes.data() + i * dtypeSize(dt));
  return t;
}

void set(HostTensor& t, std::int64_t i, double v) {
  encodeElement(t.dtype, v, t.bytes.data() + i * dtypeSize(t.dtype));
}

void setBits(HostTensor& t, std::int64_t i, std::uint64_t bits) {
  std::memcpy(t.bytes.data() + i * dtypeSize(t.dtype), &bits, dtypeSize(t.dtype));
}

// A smooth, non-symmetric reference: value depends on the flat index.
double refValue(std::int64_t i) { return 1.0 + static_cast<double>(i % 97) * 0.25; }

const Finding* find(const std::vector<Finding>& fs, const std::string& category) {
  for (const auto& f : fs)
    if (f.category == category) return &f;
  return nullptr;
}

const std::uint64_t kSentinel = sentinelBits(DType::f32);

}  // namespace

TEST(Geometry, TileGridAndMapCells) {
  const auto g = OutputGeometry::make({1000, 300}, {64, 128});
  EXPECT_EQ(g.tileRows, 16);  // ceil(1000/64)
  EXPECT_EQ(g.tileCols, 3);   // ceil(300/128)
  EXPECT_EQ(g.cellH, 4);      // ceil(1000/256)
  EXPECT_EQ(g.mapRows, 250);
  EXPECT_EQ(g.cellW, 2);
  EXPECT_EQ(g.mapCols, 150);
  EXPECT_EQ(g.tilesCrossing(), 16 + 3 - 1);  // last tile row and last tile column
  EXPECT_EQ(g.tileIndex(999, 299), (std::vector<std::int64_t>{15, 2}));
  EXPECT_TRUE(g.tileCrossesBounds({15, 0}));
  EXPECT_FALSE(g.tileCrossesBounds({14, 1}));
  EXPECT_EQ(g.ctaOf({3, 2}), (std::vector<std::int64_t>{2, 3, 0}));

  const auto g3 = OutputGeometry::make({3, 40, 50}, {1, 16, 16});
  EXPECT_EQ(g3.rows, 120);
  EXPECT_EQ(g3.tileRows, 3 * 3);
  EXPECT_EQ(g3.tileRowOf(40 + 33), 1 * 3 + 2);  // batch 1, row 33 -> tile row 2
  EXPECT_EQ(g3.index(73, 7), (std::vector<std::int64_t>{1, 33, 7}));
  EXPECT_EQ(g3.tileIndexOfGrid(5, 1), (std::vector<std::int64_t>{1, 2, 1}));
}

TEST(Scan, UnwrittenTileIsACoverageGapNamingExactlyThatTile) {
  const auto ref = make("ref", DType::f32, {128, 128}, refValue);
  auto out = ref;
  out.name = "C";
  for (std::int64_t r = 64; r < 96; ++r)
    for (std::int64_t c = 32; c < 64; ++c) setBits(out, r * 128 + c, kSentinel);
  const ScanResult s = scanOutput(out, kSentinel, {32, 32}, &ref);
  EXPECT_EQ(s.coverage.unwritten, 1024);
  EXPECT_EQ(s.coverage.written, 128 * 128 - 1024);
  ASSERT_EQ(s.findings.size(), 1u);
  const Finding& f = s.findings[0];
  EXPECT_EQ(f.category, "coverage_gap");
  EXPECT_EQ(f.treeNode, "wrong.coverage_gap");
  EXPECT_EQ(f.location.tiles, (std::vector<Index>{{2, 1}}));
  EXPECT_EQ(f.location.cta, (Index{1, 2, 0}));
  ASSERT_TRUE(f.location.elements);
  EXPECT_EQ(f.location.elements->first, (Index{64, 32}));
  EXPECT_EQ(f.location.elements->last, (Index{95, 63}));
  EXPECT_NE(f.message.find("1024 elements in 1 tile never written (rows 64\u201395, cols 32\u201363)"),
            std::string::npos)
      << f.message;

  // The comparison skips what the scan reported: no mismatch for the gap.
  const CompareResult c = compareOutputs(out, ref, 1e-3, 1e-3, {32, 32}, &s);
  EXPECT_EQ(c.info.mismatches, 0);
  EXPECT_EQ(c.info.elements, 128 * 128 - 1024);
  EXPECT_TRUE(c.findings.empty());
  // Without the scan the sentinel NaNs are mismatches.
  EXPECT_EQ(compareOutputs(out, ref, 1e-3, 1e-3, {32, 32}, nullptr).info.mismatches, 1024);
}

TEST(Scan, NanAndInfWhereReferenceIsFinite) {
  auto ref = make("ref", DType::f32, {128, 128}, refValue);
  auto out = ref;
  out.name = "C";
  set(out, 5 * 128 + 7, std::nan(""));
  set(out, 100 * 128 + 3, std::numeric_limits<double>::infinity());
  set(out, 10, std::nan(""));  // the reference is NaN here too: not this kernel's fault
  set(ref, 10, std::nan(""));
  const ScanResult s = scanOutput(out, kSentinel, {32, 32}, &ref);
  const Finding* f = find(s.findings, "nan_inf");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->evidence["nan"], 1);
  EXPECT_EQ(f->evidence["inf"], 1);
  EXPECT_EQ(f->location.tiles, (std::vector<Index>{{0, 0}, {3, 0}}));
  EXPECT_EQ(f->evidence["first_positions"], json::parse("[[5,7],[100,3]]"));
  EXPECT_EQ(f->treeNode, "wrong.nan_inf");
  EXPECT_EQ(s.nanInf, 2);
  EXPECT_EQ(find(s.findings, "coverage_gap"), nullptr);

  // The comparison counts them, and reports no separate mismatch for the same elements.
  const CompareResult c = compareOutputs(out, ref, 1e-3, 1e-3, {32, 32}, &s);
  EXPECT_EQ(c.info.nan, 2);
  EXPECT_EQ(c.info.inf, 1);
  EXPECT_EQ(c.info.mismatches, 2);
  EXPECT_TRUE(c.findings.empty());
}

TEST(Scan, AllZeroNeedsANonZeroReference) {
  const auto ref = make("ref", DType::f16, {64, 64}, refValue);
  const auto out = make("C", DType::f16, {64, 64}, [](std::int64_t) { return 0.0; });
  const ScanResult s = scanOutput(out, sentinelBits(DType::f16), {16, 16}, &ref);
  ASSERT_NE(find(s.findings, "all_zero"), nullptr);
  EXPECT_EQ(find(s.findings, "all_zero")->treeNode, "wrong.all_zero");
  const CompareResult c = compareOutputs(out, ref, 1e-2, 1e-2, {16, 16}, &s);
  EXPECT_EQ(c.info.mismatches, 64 * 64);
  EXPECT_TRUE(c.findings.empty());  // one bug, one finding

  const auto zeroRef = make("ref", DType::f16, {64, 64}, [](std::int64_t) { return 0.0; });
  EXPECT_TRUE(scanOutput(out, sentinelBits(DType::f16), {16, 16}, &zeroRef).findings.empty());
  EXPECT_TRUE(scanOutput(out, sentinelBits(DType::f16), {16, 16}, nullptr).findings.empty());
}

TEST(Compare, ErrorsOnlyInLastTileRowAreTailTiles) {
  const auto ref = make("ref", DType::f32, {100, 100}, refValue);
  auto out = ref;
  out.name = "C";
  for (std::int64_t r = 96; r < 100; ++r)
    for (std::int64_t c = 0; c < 100; c += 7) set(out, r * 100 + c, ref.at(r * 100 + c) + 5);
  const ScanResult s = scanOutput(out, kSentinel, {32, 32}, &ref);
  const CompareResult c = compareOutputs(out, ref, 1e-3, 1e-3, {32, 32}, &s);
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].detail, "tail_tiles");
  EXPECT_EQ(c.findings[0].treeNode, "wrong.mismatch.tail_tiles");
  EXPECT_EQ(c.info.mismatches, 4 * 15);
  ASSERT_TRUE(c.info.tiles);
  EXPECT_EQ(c.info.tiles->badTiles, 4);
  EXPECT_EQ(c.info.tiles->grid, (std::array<std::int64_t, 2>{4, 4}));
  EXPECT_EQ(c.info.firstMismatch[0], 96);
  EXPECT_EQ(c.info.firstMismatch[1], 0);

  // One more error in an interior tile makes it a plain mismatch naming the worst tiles.
  set(out, 40 * 100 + 40, 1000.0);
  const CompareResult p = compareOutputs(out, ref, 1e-3, 1e-3, {32, 32}, nullptr);
  ASSERT_EQ(p.findings.size(), 1u);
  EXPECT_EQ(p.findings[0].detail, "");
  EXPECT_EQ(p.findings[0].treeNode, "wrong.mismatch");
  ASSERT_TRUE(p.info.tiles);
  EXPECT_EQ(p.info.tiles->badTiles, 5);
  EXPECT_EQ(p.info.maxAbsErr, 1000.0 - ref.at(40 * 100 + 40));
  // The worst tile (most wrong elements) comes first: [3,0] has cols 0,7,..,28 x 4 rows = 20 errors.
  EXPECT_EQ(p.info.tiles->bad[0].row, 3);
  EXPECT_EQ(p.info.tiles->bad[0].col, 0);
  EXPECT_EQ(p.info.tiles->bad[0].count, 20);
}

TEST(Compare, TransposedOutputIsRecognised) {
  const auto ref = make("ref", DType::f32, {64, 64}, [](std::int64_t i) { return std::sin(0.1 * i); });
  auto out = make("C", DType::f32, {64, 64}, [&](std::int64_t i) { return ref.at((i % 64) * 64 + i / 64); });
  const CompareResult c = compareOutputs(out, ref, 1e-5, 1e-5, {16, 16}, nullptr);
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].detail, "transposed");
  EXPECT_EQ(c.findings[0].treeNode, "wrong.mismatch.transposed");

  // Non-square: the [48, 80] buffer holds ref^T laid out as [80, 48].
  const auto ref2 = make("ref", DType::f32, {48, 80}, [](std::int64_t i) { return std::cos(0.37 * i); });
  auto out2 = make("C", DType::f32, {48, 80}, [&](std::int64_t k) {
    const std::int64_t j = k / 48, i = k % 48;  // out as [80,48]: (j, i) == ref(i, j)
    return ref2.at(i * 80 + j);
  });
  const CompareResult c2 = compareOutputs(out2, ref2, 1e-5, 1e-5, {16, 16}, nullptr);
  ASSERT_EQ(c2.findings.size(), 1u);
  EXPECT_EQ(c2.findings[0].detail, "transposed");

  // Transposed and then one element off: no longer recognised.
  set(out, 5, 42.0);
  const CompareResult c3 = compareOutputs(out, ref, 1e-5, 1e-5, {16, 16}, nullptr);
  ASSERT_EQ(c3.findings.size(), 1u);
  EXPECT_EQ(c3.findings[0].detail, "");
}

TEST(Compare, ToleranceBoundaryIsInclusive) {
  // |out - ref| <= atol + rtol * |ref| passes: 0.75 == 0.5 + 0.25 * 1.
  const auto ref = make("ref", DType::f64, {1, 3}, [](std::int64_t) { return 1.0; });
  auto out = ref;
  set(out, 0, 1.75);
  set(out, 1, std::nextafter(1.75, 2.0));
  set(out, 2, 0.25);  // -0.75: on the boundary too
  const CompareResult c = compareOutputs(out, ref, 0.25, 0.5, {1, 1}, nullptr);
  EXPECT_EQ(c.info.mismatches, 1);
  EXPECT_EQ(c.info.firstMismatch[1], 1);
  EXPECT_DOUBLE_EQ(c.info.maxAbsErr, std::nextafter(1.75, 2.0) - 1.0);
  EXPECT_DOUBLE_EQ(c.info.maxRelErr, std::nextafter(1.75, 2.0) - 1.0);

  // A zero reference element within atol adds to max_abs_err but not to max_rel_err.
  const auto zref = make("ref", DType::f32, {2, 2}, [](std::int64_t i) { return i == 0 ? 0.0 : 2.0; });
  auto zout = zref;
  set(zout, 0, 0.25);
  set(zout, 3, 2.5);
  const CompareResult z = compareOutputs(zout, zref, 0.0, 0.5, {2, 2}, nullptr);
  EXPECT_EQ(z.info.mismatches, 0);
  EXPECT_DOUBLE_EQ(z.info.maxAbsErr, 0.5);
  EXPECT_DOUBLE_EQ(z.info.maxRelErr, 0.25);
}

TEST(Maps, DownsampledDimsAndWorstStateWins) {
  const auto ref = make("ref", DType::f32, {1000, 300}, refValue);
  auto out = ref;
  out.name = "C";
  // Cell (0,0) covers rows 0-3, cols 0-1: one unwritten and one NaN element -> nan_inf (3).
  setBits(out, 0, kSentinel);
  set(out, 1 * 300 + 1, std::nan(""));
  // Cell (10,20): rows 40-43, cols 40-41: unwritten only -> 2.
  setBits(out, 41 * 300 + 40, kSentinel);
  // Cell (100,100): rows 400-403, cols 200-201: a mismatch -> 1 after applyMismatchStates.
  set(out, 401 * 300 + 201, 1e6);
  // Cell (10,21): a mismatch next to the unwritten cell (10,20).
  set(out, 40 * 300 + 42, 1e6);
  ScanResult s = scanOutput(out, kSentinel, {64, 64}, &ref);
  ASSERT_TRUE(s.coverage.map);
  const CellMap& m = *s.coverage.map;
  EXPECT_EQ(m.rows, 250);
  EXPECT_EQ(m.cols, 150);
  EXPECT_EQ(m.cell, (std::array<std::int64_t, 2>{4, 2}));
  ASSERT_EQ(m.states.size(), 250u * 150u);
  auto state = [&](int r, int c) { return static_cast<int>(s.coverage.map->at(r, c)); };
  EXPECT_EQ(state(0, 0), 3);
  EXPECT_EQ(state(10, 20), 2);
  EXPECT_EQ(state(100, 100), 0);

  const CompareResult c = compareOutputs(out, ref, 1e-3, 1e-3, {64, 64}, &s);
  ASSERT_TRUE(c.info.errorMap);
  EXPECT_EQ(c.info.errorMap->rows, 250);
  EXPECT_EQ(c.info.errorMap->cols, 150);
  EXPECT_EQ(c.info.errorMap->maxAbs[0], -1.0);  // a NaN error
  // The map keeps three significant digits (enough for a colour scale).
  const double want = 1e6 - ref.at(401 * 300 + 201);
  EXPECT_NEAR(c.info.errorMap->maxAbs[100 * 150 + 100], want, want * 5e-3);
  applyMismatchStates(s, c);
  EXPECT_EQ(state(100, 100), 1);
  EXPECT_EQ(state(10, 21), 1);
  EXPECT_EQ(state(10, 20), 2);  // unwritten stays: worse than mismatch
  EXPECT_EQ(state(0, 0), 3);
  raiseCellState(s.coverage, s.geometry, {41, 40}, CellState::oob);
  EXPECT_EQ(state(10, 20), 5);

  // Rank 3: leading dims flattened into rows.
  const auto t3 = make("T", DType::f32, {3, 40, 50}, refValue);
  const ScanResult s3 = scanOutput(t3, kSentinel, {1, 16, 16}, &t3);
  EXPECT_EQ(s3.coverage.map->rows, 120);
  EXPECT_EQ(s3.coverage.map->cols, 50);
  EXPECT_TRUE(s3.findings.empty());
}

TEST(Scan, GapBoxInRank3NamesEveryDimension) {
  const auto ref = make("ref", DType::i32, {2, 8, 8}, refValue);
  auto out = ref;
  out.name = "O";
  const std::uint64_t sent = sentinelBits(DType::i32);
  for (std::int64_t r = 4; r < 8; ++r)
    for (std::int64_t c = 4; c < 8; ++c) setBits(out, 64 + r * 8 + c, sent);
  const ScanResult s = scanOutput(out, sent, {1, 4, 4}, &ref);
  ASSERT_EQ(s.findings.size(), 1u);
  EXPECT_EQ(s.findings[0].location.tiles, (std::vector<Index>{{1, 1, 1}}));
  EXPECT_EQ(s.findings[0].location.cta, (Index{1, 1, 1}));
  EXPECT_NE(s.findings[0].message.find("[1, 4\u20137, 4\u20137]"), std::string::npos)
      << s.findings[0].message;
}

TEST(OobRead, NaNsInBoundCrossingTilesWithPoisonedInput) {
  const auto ref = make("ref", DType::f32, {100, 100}, refValue);
  auto out = ref;
  out.name = "C";
  for (std::int64_t c = 0; c < 100; ++c) set(out, 97 * 100 + c, std::nan(""));  // row 97: last tile row
  const ScanResult s = scanOutput(out, kSentinel, {32, 32}, &ref);
  EXPECT_EQ(s.nanInfInCrossingTiles, 100);
  const auto found =
      inferOobReads(s, {{"A", DType::f32, true}, {"B", DType::f32, true}, {"idx", DType::i32, false}});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].category, "oob_read");
  EXPECT_EQ(found[0].treeNode, "fault.oob_read");
  EXPECT_EQ(found[0].evidence["candidates"], json::parse(R"(["A","B"])"));
  EXPECT_EQ(found[0].location.tiles.size(), 4u);
  // No NaN-guarded input: nothing to infer.
  EXPECT_TRUE(inferOobReads(s, {{"A", DType::f32, false}}).empty());

  // NaNs inside the grid (tiles that do not cross the bounds): not an out-of-bounds read.
  auto inner = ref;
  for (std::int64_t c = 0; c < 100; ++c) set(inner, 40 * 100 + c, std::nan(""));
  const ScanResult s2 = scanOutput(inner, kSentinel, {32, 32}, &ref);
  EXPECT_TRUE(inferOobReads(s2, {{"A", DType::f32, true}}).empty());
}

TEST(OobRead, GuardPayloadNaNsAreCounted) {
  const auto ref = make("ref", DType::f32, {40, 40}, refValue);
  auto out = ref;
  std::uint64_t guard = 0;
  for (int i = 0; i < 4; ++i) guard |= static_cast<std::uint64_t>(guardByte(DType::f32, i)) << (8 * i);
  setBits(out, 39 * 40 + 39, guard);
  set(out, 39 * 40 + 38, std::nan(""));  // a computed NaN: not the guard's payload
  const ScanResult s = scanOutput(out, kSentinel, {32, 32}, &ref);
  EXPECT_EQ(s.guardPayloadNans, 1);
  EXPECT_EQ(s.nanInf, 2);
}
