#include <gtest/gtest.h>

#include <fstream>

#include "tilescope/analysis/occupancy.h"
#include "tilescope/model/devices.h"

using namespace tilescope;

namespace {

const DeviceDb& db() {
  static const DeviceDb d =
      DeviceDb::load(std::filesystem::path(TILESCOPE_SOURCE_DIR) / "resources" / "devices.json");
  return d;
}

nlohmann::json loadTruth(const char* file) {
  std::ifstream in(std::filesystem::path(TILESCOPE_TEST_DATA) / "occupancy" / file);
  EXPECT_TRUE(in.good()) << file;
  return nlohmann::json::parse(in);
}

}  // namespace

// Every record is an answer of cudaOccupancyMaxActiveBlocksPerMultiprocessor on a real
// sm_90 GPU (an H200: per-SM resources identical to the H100 SXM); the model must agree.
TEST(Occupancy, MatchesTheGpuOnEveryRecordedConfiguration) {
  const nlohmann::json truth = loadTruth("h200_truth.json");
  const nlohmann::json& dj = truth.at("device");
  ASSERT_GT(truth.at("records").size(), 1000u);
  for (const char* key : {"h200", "h100"}) {
    const DeviceSpec& dev = *db().find(key);
    // The database's per-SM limits are the ones the GPU reported.
    ASSERT_EQ(dev.regsPerSm, dj.at("regs_per_sm").get<int>());
    ASSERT_EQ(dev.smemPerSm, dj.at("smem_per_sm").get<std::int64_t>());
    ASSERT_EQ(dev.smemPerBlockOptin, dj.at("smem_per_block_optin").get<std::int64_t>());
    ASSERT_EQ(dev.smemReservedPerBlock, dj.at("reserved_smem_per_block").get<std::int64_t>());
    ASSERT_EQ(dev.maxThreadsPerSm, dj.at("max_threads_per_sm").get<int>());
    ASSERT_EQ(dev.maxBlocksPerSm, dj.at("max_blocks_per_sm").get<int>());
    int checked = 0, nonzero = 0, zero = 0;
    for (const auto& rec : truth.at("records")) {
      // [kernel, regs, smem_static, max_dynamic_smem, carveout, block, smem_dynamic, blocks_per_sm]
      KernelResources k;
      k.regsPerThread = rec[1];
      k.smemStatic = rec[2];
      k.maxDynamicSmem = rec[3];
      k.carveoutPercent = rec[4];
      k.threadsPerBlock = rec[5];
      k.smemDynamic = rec[6];
      const int expected = rec[7];
      ASSERT_GE(expected, 0) << rec.dump();
      const OccupancyResult r = computeOccupancy(dev, k);
      EXPECT_EQ(r.blocksPerSm, expected) << key << " " << rec.dump() << " limits w/r/s/b " << r.limitWarps
                                         << "/" << r.limitRegs << "/" << r.limitSmem << "/" << r.limitSlots;
      ++checked;
      (expected ? nonzero : zero)++;
    }
    EXPECT_GT(nonzero, 100);
    EXPECT_GT(zero, 100);  // the table exercises the "does not fit" side too
  }
}

TEST(Occupancy, LimiterAndWarps) {
  const DeviceSpec& h100 = *db().find("h100");
  KernelResources k;
  k.threadsPerBlock = 256;
  k.regsPerThread = 128;  // 128*32 = 4096 regs per warp, 16384/4096 = 4 warps per sub-partition
  OccupancyResult r = computeOccupancy(h100, k);
  EXPECT_EQ(r.limitRegs, 2);
  EXPECT_EQ(r.blocksPerSm, 2);
  EXPECT_EQ(r.warpsPerSm, 16);
  EXPECT_DOUBLE_EQ(r.occupancy, 0.25);
  EXPECT_EQ(r.limiter, "registers");

  k.regsPerThread = 32;
  k.smemDynamic = 100 * 1024;  // 100 KiB + 1 KiB reserve: two fit in 228 KiB
  r = computeOccupancy(h100, k);
  EXPECT_EQ(r.limitSmem, 2);
  EXPECT_EQ(r.smemPerBlockAllocated, 101 * 1024);
  EXPECT_EQ(r.limiter, "shared_memory");

  k.smemDynamic = 0;
  k.threadsPerBlock = 32;  // 1 warp per block: the 32 block slots bind at 50%
  r = computeOccupancy(h100, k);
  EXPECT_EQ(r.blocksPerSm, 32);
  EXPECT_EQ(r.limiter, "blocks");

  k.threadsPerBlock = 1024;
  r = computeOccupancy(h100, k);
  EXPECT_DOUBLE_EQ(r.occupancy, 1.0);
  EXPECT_EQ(r.limiter, "warps");

  k.regsPerThread = -1;  // unknown registers: not a limit
  k.threadsPerBlock = 2048;
  r = computeOccupancy(h100, k);
  EXPECT_EQ(r.blocksPerSm, 0);
  EXPECT_FALSE(r.problem.empty());
}

TEST(Occupancy, CurvesSpanTheCalculatorAxesAndMarkTheCurrentPoint) {
  const DeviceSpec& rtx = *db().find("rtx3090");
  KernelResources k;
  k.threadsPerBlock = 128;
  k.regsPerThread = 64;
  k.smemDynamic = 8192;
  const OccupancyCurves c = occupancyCurves(rtx, k);
  ASSERT_EQ(c.blockSize.size(), 32u);
  EXPECT_EQ(c.blockSize.back().x, 1024);
  ASSERT_EQ(c.registers.size(), 255u);
  EXPECT_EQ(c.sharedMemory.front().x, 0);
  EXPECT_LE(c.sharedMemory.back().x, rtx.smemPerBlockOptin);
  const double cur = computeOccupancy(rtx, k).occupancy;
  EXPECT_DOUBLE_EQ(c.currentOccupancy, cur);
  EXPECT_EQ(c.currentBlockSize, 128);
  EXPECT_DOUBLE_EQ(c.blockSize[3].occupancy, cur);     // x = 128
  EXPECT_DOUBLE_EQ(c.registers[63].occupancy, cur);    // x = 64
  EXPECT_DOUBLE_EQ(c.sharedMemory[8].occupancy, cur);  // x = 8 KiB
  // Occupancy never rises with more registers per thread.
  for (std::size_t i = 1; i < c.registers.size(); ++i)
    EXPECT_LE(c.registers[i].occupancy, c.registers[i - 1].occupancy);

  const OccupancyInfo info = toOccupancyInfo(rtx, k);
  EXPECT_TRUE(info.computed);
  EXPECT_EQ(info.threadsPerBlock, 128);
  EXPECT_EQ(info.maxWarpsPerSm, 48);
  EXPECT_DOUBLE_EQ(info.theoretical, cur);
}
