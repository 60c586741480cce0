// The output scan and the comparison over threads (compare.h, base/parallel.h):
// the same results, bit for bit, as the calling thread alone, whatever the number
// of threads, on outputs split into several chunks of rows with mismatches, NaNs,
// gaps and ties planted in different chunks.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "tilescope/analysis/compare.h"
#include "tilescope/base/parallel.h"

using namespace tilescope;

namespace {

// Outputs of [2048, 640] f32: map cells of 8 rows, chunks of 408 rows (about 2^18
// elements, whole cell rows), so rows 0, 408, 816, 1224, 1632 and 2040 start the
// six chunks. 1.3 M elements: above the size that stays on one thread by default.
constexpr std::int64_t kRows = 2048, kCols = 640;
const std::vector<std::int64_t> kTile{64, 64};
const std::uint64_t kSentinel = sentinelBits(DType::f32);

HostTensor filled(const std::string& name, std::vector<std::int64_t> shape) {
  HostTensor t;
  t.name = name;
  t.dtype = DType::f32;
  t.shape = std::move(shape);
  t.bytes.resize(static_cast<std::size_t>(t.elements()) * 4);
  float* p = reinterpret_cast<float*>(t.bytes.data());
  for (std::int64_t i = 0; i < t.elements(); ++i) p[i] = 1.0f + static_cast<float>(i % 1009) * 0.01f;
  return t;
}

float* floats(HostTensor& t) { return reinterpret_cast<float*>(t.bytes.data()); }

void setBits(HostTensor& t, std::int64_t i, std::uint64_t bits) {
  const auto b = static_cast<std::uint32_t>(bits);
  std::memcpy(t.bytes.data() + i * 4, &b, 4);
}

std::int64_t at(std::int64_t row, std::int64_t col) { return row * kCols + col; }

// Everything scanOutput and compareOutputs return, compared field by field.
void expectSameScan(const ScanResult& a, const ScanResult& b, int threads) {
  SCOPED_TRACE("threads " + std::to_string(threads));
  EXPECT_EQ(a.coverage, b.coverage);
  EXPECT_EQ(a.findings, b.findings);
  EXPECT_EQ(a.nanInf, b.nanInf);
  EXPECT_EQ(a.nanInfInCrossingTiles, b.nanInfInCrossingTiles);
  EXPECT_EQ(a.guardPayloadNans, b.guardPayloadNans);
  EXPECT_EQ(a.allZero, b.allZero);
  ASSERT_EQ(a.nanInfTiles.size(), b.nanInfTiles.size());
  for (std::size_t i = 0; i < a.nanInfTiles.size(); ++i) {
    EXPECT_EQ(a.nanInfTiles[i].tile, b.nanInfTiles[i].tile);
    EXPECT_EQ(a.nanInfTiles[i].count, b.nanInfTiles[i].count);
  }
  ASSERT_EQ(a.gapTiles.size(), b.gapTiles.size());
  for (std::size_t i = 0; i < a.gapTiles.size(); ++i) {
    EXPECT_EQ(a.gapTiles[i].tile, b.gapTiles[i].tile);
    EXPECT_EQ(a.gapTiles[i].count, b.gapTiles[i].count);
  }
}

void expectSameCompare(const CompareResult& a, const CompareResult& b, int threads) {
  SCOPED_TRACE("threads " + std::to_string(threads));
  EXPECT_EQ(a.info, b.info);
  EXPECT_EQ(a.findings, b.findings);
  EXPECT_EQ(a.cellMismatches, b.cellMismatches);
  EXPECT_EQ(a.valueMismatches, b.valueMismatches);
  // Bit for bit, not only ==.
  EXPECT_EQ(std::memcmp(&a.info.maxRelErr, &b.info.maxRelErr, sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(&a.info.maxAbsErr, &b.info.maxAbsErr, sizeof(double)), 0);
}

const std::vector<int> kThreadCounts{0, 2, 3, 4, 7, 16};

// Sets out[i] = 7 where ref[i] = 2: an error of exactly 5.
void plantFive(HostTensor& out, HostTensor& ref, std::int64_t i) {
  floats(ref)[i] = 2.0f;
  floats(out)[i] = 7.0f;
}

// A failing output with something in most chunks (rows 0, 408, 816, 1224, 1632 and
// 2040 start them): gaps (a tile's worth in chunk 1, a tail in chunk 5), NaNs and
// Infs in chunks 1, 2 and 3 (more than the 8 sample positions, so the samples are
// cut in chunk 2), wrong values in chunks 0, 2 and 4, the largest error (5, one
// element in each of two tiles) equal in chunks 0 and 4.
struct Planted {
  HostTensor ref = filled("ref", {kRows, kCols});
  HostTensor out = ref;
  Planted() {
    out.name = "C";
    float* p = floats(out);
    for (std::int64_t r = 448; r < 512; ++r)  // tile (7, 3), chunk 1
      for (std::int64_t c = 192; c < 256; ++c) setBits(out, at(r, c), kSentinel);
    for (std::int64_t r = 2040; r < kRows; ++r)  // the last 8 rows, chunk 5
      for (std::int64_t c = 0; c < kCols; ++c) setBits(out, at(r, c), kSentinel);
    for (std::int64_t k = 0; k < 5; ++k) p[at(500 + k, 10 + k)] = std::nanf("");                  // chunk 1
    for (std::int64_t k = 0; k < 5; ++k) p[at(900 + k, 600)] = k % 2 ? INFINITY : std::nanf("");  // chunk 2
    p[at(1300, 5)] = -INFINITY;                                                                   // chunk 3
    plantFive(out, ref, at(3, 7));       // chunk 0, tile (0, 0)
    p[at(2, 100)] += 0.5f;               // chunk 0, tile (0, 1)
    p[at(1000, 320)] += 2.0f;            // chunk 2
    plantFive(out, ref, at(1700, 630));  // chunk 4, tile (26, 9)
  }
};

}  // namespace

TEST(ParallelChunks, RunsEveryChunkOnce) {
  for (int threads : {1, 2, 5, 16}) {
    std::vector<std::atomic<int>> runs(1000);
    parallelChunks(1000, threads, [&](std::int64_t c) { ++runs[static_cast<std::size_t>(c)]; });
    for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
  }
}

TEST(ParallelChunks, RethrowsTheLowestFailingChunk) {
  for (int threads : {1, 2, 4, 16}) {
    try {
      parallelChunks(200, threads, [](std::int64_t c) {
        if (c == 37 || c == 38 || c == 150) throw std::runtime_error(std::to_string(c));
      });
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "37") << threads << " threads";
    }
  }
}

TEST(ParallelChunks, ThreadCount) {
  EXPECT_EQ(parallelThreads(1, 8), 1);  // one chunk, one thread
  EXPECT_EQ(parallelThreads(100, 3), 3);
  EXPECT_EQ(parallelThreads(100, 1000), kMaxParallelThreads);
  EXPECT_GE(parallelThreads(100), 1);
  EXPECT_LE(parallelThreads(100), kMaxParallelThreads);
}

TEST(ScanThreads, SameAsOneThreadWithGapsAndNansInSeveralChunks) {
  const Planted t;
  const ScanResult one = scanOutput(t.out, kSentinel, kTile, &t.ref, 1);
  // The serial order: the first NaN/Inf positions are chunk 1's five, then chunk 2's first three.
  ASSERT_EQ(one.coverage.unwritten, 64 * 64 + 8 * kCols);
  ASSERT_EQ(one.nanInf, 11);
  const Finding* nan = nullptr;
  for (const auto& f : one.findings)
    if (f.category == "nan_inf") nan = &f;
  ASSERT_NE(nan, nullptr);
  const auto& samples = nan->evidence.at("first_positions");
  ASSERT_EQ(samples.size(), 8u);
  EXPECT_EQ(samples[0], nlohmann::json({500, 10}));
  EXPECT_EQ(samples[4], nlohmann::json({504, 14}));
  EXPECT_EQ(samples[5], nlohmann::json({900, 600}));
  EXPECT_EQ(samples[7], nlohmann::json({902, 600}));
  EXPECT_EQ(nan->location.elements->first, (std::vector<std::int64_t>{500, 10}));
  EXPECT_EQ(nan->location.elements->last, (std::vector<std::int64_t>{1300, 5}));
  for (int threads : kThreadCounts)
    expectSameScan(one, scanOutput(t.out, kSentinel, kTile, &t.ref, threads), threads);
}

TEST(CompareThreads, SameAsOneThreadWithMismatchesAndTiesInSeveralChunks) {
  const Planted t;
  const ScanResult scan = scanOutput(t.out, kSentinel, kTile, &t.ref, 1);
  const CompareResult one = compareOutputs(t.out, t.ref, 1e-3, 1e-3, kTile, &scan, 1);
  // The first mismatch is chunk 0's earliest in row-major order, not its largest.
  EXPECT_EQ(one.info.firstMismatch[0], 2);
  EXPECT_EQ(one.info.firstMismatch[1], 100);
  EXPECT_EQ(one.info.mismatches, 4 + 11);
  EXPECT_EQ(one.valueMismatches, 4);
  EXPECT_EQ(one.info.maxAbsErr, 5.0);
  ASSERT_TRUE(one.info.tiles);
  ASSERT_EQ(one.info.tiles->bad.size(), 7u);  // 4 with wrong values, 3 with NaN/Inf
  const auto& bad = one.info.tiles->bad;
  EXPECT_EQ(std::count_if(bad.begin(), bad.end(), [](const auto& t) { return t.maxErr == 5.0; }), 2);
  for (int threads : kThreadCounts) {
    const ScanResult s = scanOutput(t.out, kSentinel, kTile, &t.ref, threads);
    expectSameCompare(one, compareOutputs(t.out, t.ref, 1e-3, 1e-3, kTile, &s, threads), threads);
  }
  // Without the scan: NaNs and unwritten sentinels (signalling NaNs) are mismatches too.
  const CompareResult bare = compareOutputs(t.out, t.ref, 1e-3, 1e-3, kTile, nullptr, 1);
  EXPECT_GT(bare.info.mismatches, one.info.mismatches);
  for (int threads : kThreadCounts)
    expectSameCompare(bare, compareOutputs(t.out, t.ref, 1e-3, 1e-3, kTile, nullptr, threads), threads);
}

TEST(CompareThreads, EqualWorstErrorInTwoChunksKeepsTheSerialOrder) {
  // Two tiles, in chunks 0 and 4, with the same count and the same largest error:
  // the per-tile summary and the finding's tiles list them as one thread does.
  HostTensor ref = filled("ref", {kRows, kCols});
  HostTensor out = ref;
  out.name = "C";
  plantFive(out, ref, at(10, 10));     // tile (0, 0), chunk 0
  plantFive(out, ref, at(1650, 200));  // tile (25, 3), chunk 4
  const CompareResult one = compareOutputs(out, ref, 1e-3, 1e-3, kTile, nullptr, 1);
  ASSERT_TRUE(one.info.tiles);
  ASSERT_EQ(one.info.tiles->bad.size(), 2u);
  EXPECT_EQ(one.info.tiles->bad[0].maxErr, one.info.tiles->bad[1].maxErr);
  EXPECT_EQ(one.info.firstMismatch[0], 10);
  ASSERT_EQ(one.findings.size(), 1u);
  EXPECT_EQ(one.findings[0].location.elements->last, (std::vector<std::int64_t>{1650, 200}));
  for (int threads : kThreadCounts)
    expectSameCompare(one, compareOutputs(out, ref, 1e-3, 1e-3, kTile, nullptr, threads), threads);
}

TEST(CompareThreads, MaxRelErrIsTheExactLargestRatio) {
  // Random small errors within tolerance and a few beyond: the largest |out-ref|/|ref|
  // computed plainly, for every thread count.
  HostTensor ref = filled("ref", {kRows, kCols});
  HostTensor out = ref;
  out.name = "C";
  std::mt19937 rng(29);
  std::normal_distribution<float> noise(0.0f, 1e-5f);
  float* o = floats(out);
  const float* r = floats(ref);
  for (std::int64_t i = 0; i < out.elements(); ++i) o[i] = r[i] * (1.0f + noise(rng));
  double expected = 0;
  for (std::int64_t i = 0; i < out.elements(); ++i) {
    const double d = std::fabs(double(o[i]) - double(r[i])), ax = std::fabs(double(r[i]));
    if (ax > 0) expected = std::max(expected, d / ax);
  }
  for (int threads : {1, 0, 2, 4, 16}) {
    const CompareResult c = compareOutputs(out, ref, 1e-3, 1e-3, kTile, nullptr, threads);
    EXPECT_EQ(c.info.maxRelErr, expected) << threads << " threads";
    EXPECT_EQ(c.info.mismatches, 0) << threads << " threads";
  }
}

TEST(CompareThreads, Rank3WithLeadingTilesSameAsOneThread) {
  // [3, 700, 640] with tiles [2, 64, 64]: the flattened tile row is not monotonic in
  // the row, so one tile's rows can fall in two chunks.
  const std::vector<std::int64_t> shape{3, 700, 640}, tile{2, 64, 64};
  HostTensor ref = filled("ref", shape);
  HostTensor out = ref;
  out.name = "C";
  float* p = floats(out);
  for (std::int64_t row : {5, 650, 699, 700, 701, 1399, 1400, 2099})
    for (std::int64_t c = 0; c < 640; c += 97) p[row * 640 + c] += 1.0f;
  for (std::int64_t c = 0; c < 640; ++c) setBits(out, 1100 * 640 + c, kSentinel);
  p[1500 * 640 + 3] = std::nanf("");
  const ScanResult one = scanOutput(out, kSentinel, tile, &ref, 1);
  const CompareResult cmpOne = compareOutputs(out, ref, 1e-3, 1e-3, tile, &one, 1);
  EXPECT_EQ(cmpOne.info.mismatches, 8 * 7 + 1);
  for (int threads : kThreadCounts) {
    const ScanResult s = scanOutput(out, kSentinel, tile, &ref, threads);
    expectSameScan(one, s, threads);
    expectSameCompare(cmpOne, compareOutputs(out, ref, 1e-3, 1e-3, tile, &s, threads), threads);
  }
}

TEST(ScanThreads, AllZeroAndNoSentinelSameAsOneThread) {
  const HostTensor ref = filled("ref", {kRows, kCols});
  HostTensor out = ref;
  out.name = "C";
  std::fill(out.bytes.begin(), out.bytes.end(), std::uint8_t{0});
  for (std::int64_t c = 0; c < kCols; ++c) setBits(out, at(1500, c), kSentinel);
  const ScanResult one = scanOutput(out, kSentinel, kTile, &ref, 1);
  EXPECT_TRUE(one.allZero);
  HostTensor zeros = out;
  std::fill(zeros.bytes.begin(), zeros.bytes.end(), std::uint8_t{0});
  const ScanResult noSentinel = scanOutputNoSentinel(zeros, kTile, &ref, 1);
  EXPECT_TRUE(noSentinel.allZero);
  for (int threads : kThreadCounts) {
    expectSameScan(one, scanOutput(out, kSentinel, kTile, &ref, threads), threads);
    expectSameScan(noSentinel, scanOutputNoSentinel(zeros, kTile, &ref, threads), threads);
  }
}

TEST(ScanThreads, ShortBufferThrowsTheSerialError) {
  // A host copy that ends in chunk 2: the error names the first row past the end.
  HostTensor out = filled("C", {kRows, kCols});
  out.bytes.resize(static_cast<std::size_t>(at(900, 0) * 4 + 10));
  std::string serial;
  try {
    scanOutputNoSentinel(out, kTile, nullptr, 1);
  } catch (const std::out_of_range& e) {
    serial = e.what();
  }
  ASSERT_NE(serial.find("elements 576000.."), std::string::npos) << serial;
  for (int threads : kThreadCounts) {
    try {
      scanOutputNoSentinel(out, kTile, nullptr, threads);
      ADD_FAILURE() << "no exception with " << threads << " threads";
    } catch (const std::out_of_range& e) {
      EXPECT_EQ(e.what(), serial) << threads << " threads";
    }
  }
}
