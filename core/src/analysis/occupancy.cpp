#include "tilescope/analysis/occupancy.h"

#include <algorithm>
#include <climits>

namespace tilescope {
namespace {

std::int64_t roundUp(std::int64_t x, std::int64_t unit) {
  return unit <= 0 ? x : (x + unit - 1) / unit * unit;
}

// The carveout the SM is configured to: the smallest supported size >= want (the driver
// rounds a preference up), or 0 when `want` exceeds every size.
std::int64_t carveoutAtLeast(const DeviceSpec& dev, std::int64_t want) {
  for (auto c : dev.smemCarveouts)
    if (c >= want) return c;
  return 0;
}

// Blocks per SM allowed by shared memory. The reserve (1 KiB on sm_80+) counts per block;
// totals round up to the allocation unit; the carveout defaults to the largest, and a smaller
// preferred carveout is ignored where one block would not fit in it.
int smemLimit(const DeviceSpec& dev, const KernelResources& k, OccupancyResult& r) {
  const std::int64_t maxDyn = k.maxDynamicSmem >= 0 ? k.maxDynamicSmem : dev.smemPerBlockOptin - k.smemStatic;
  const std::int64_t fixed = k.smemStatic + dev.smemReservedPerBlock;
  r.smemPerBlockAllocated = roundUp(fixed + k.smemDynamic, dev.smemAllocUnit);
  // Opting in above 48 KiB (the default per-block limit) raises the limit to the opt-in maximum.
  const std::int64_t perBlockLimit =
      (k.smemStatic + maxDyn > dev.smemPerBlock ? dev.smemPerBlockOptin : dev.smemPerBlock) +
      dev.smemReservedPerBlock;
  if (k.smemDynamic > maxDyn) {
    r.problem = "dynamic shared memory " + std::to_string(k.smemDynamic) +
                " B exceeds the kernel's maximum " + std::to_string(maxDyn) + " B";
    return 0;
  }
  if (r.smemPerBlockAllocated > perBlockLimit) {
    r.problem = "shared memory per block " + std::to_string(r.smemPerBlockAllocated) + " B (with the " +
                std::to_string(dev.smemReservedPerBlock) + " B reserve) exceeds the limit " +
                std::to_string(perBlockLimit) + " B";
    return 0;
  }
  const std::int64_t preferred =
      carveoutAtLeast(dev, k.carveoutPercent < 0 ? dev.smemPerSm : k.carveoutPercent * dev.smemPerSm / 100);
  r.smemPerSmConfigured =
      preferred >= r.smemPerBlockAllocated ? preferred : carveoutAtLeast(dev, r.smemPerBlockAllocated);
  return r.smemPerBlockAllocated > 0 ? int(r.smemPerSmConfigured / r.smemPerBlockAllocated) : INT_MAX;
}

// Blocks per SM allowed by registers. Registers go to warps in units of 256 (regs x 32 rounded
// up); each of the SM's sub-partitions (warp_alloc_granularity, 4) holds a quarter of the file,
// so whole warps must fit per sub-partition. The per-block check assumes the block's warps
// rounded up to a multiple of the sub-partitions (the hardware check cuda_occupancy.h models).
int regsLimit(const DeviceSpec& dev, const KernelResources& k, OccupancyResult& r) {
  if (k.regsPerThread <= 0) return INT_MAX;
  r.regsPerWarpAllocated = int(roundUp(std::int64_t(k.regsPerThread) * dev.warpSize, dev.registerAllocUnit));
  r.regsPerBlockAllocated = std::int64_t(r.regsPerWarpAllocated) * r.warpsPerBlock;
  const std::int64_t assumed =
      std::int64_t(r.regsPerWarpAllocated) * roundUp(r.warpsPerBlock, dev.warpAllocGranularity);
  if (r.regsPerBlockAllocated > dev.regsPerBlock || assumed > dev.regsPerBlock) {
    r.problem = std::to_string(k.regsPerThread) + " registers x " + std::to_string(k.threadsPerBlock) +
                " threads exceed the " + std::to_string(dev.regsPerBlock) + " registers of a block";
    return 0;
  }
  const int warpsPerPartition = dev.regsPerSm / dev.warpAllocGranularity / r.regsPerWarpAllocated;
  return warpsPerPartition * dev.warpAllocGranularity / r.warpsPerBlock;
}

}  // namespace

OccupancyResult computeOccupancy(const DeviceSpec& dev, const KernelResources& k) {
  OccupancyResult r;
  r.maxWarpsPerSm = dev.maxWarpsPerSm;
  if (k.threadsPerBlock <= 0) {
    r.problem = "block has no threads";
    r.limiter = "none";
    return r;
  }
  r.warpsPerBlock = (k.threadsPerBlock + dev.warpSize - 1) / dev.warpSize;
  r.limitSlots = dev.maxBlocksPerSm;
  if (k.threadsPerBlock > dev.maxThreadsPerBlock) {
    r.limitWarps = 0;
    r.problem = std::to_string(k.threadsPerBlock) + " threads per block exceed the device's " +
                std::to_string(dev.maxThreadsPerBlock);
  } else {
    r.limitWarps = dev.maxWarpsPerSm / r.warpsPerBlock;
  }
  r.limitRegs = regsLimit(dev, k, r);
  r.limitSmem = smemLimit(dev, k, r);
  r.blocksPerSm = std::min({r.limitWarps, r.limitRegs, r.limitSmem, r.limitSlots});
  r.warpsPerSm = r.blocksPerSm * r.warpsPerBlock;
  r.occupancy = r.maxWarpsPerSm > 0 ? double(r.warpsPerSm) / r.maxWarpsPerSm : 0;
  // The limiter: the resource that binds. Full occupancy is limited by warps by definition;
  // otherwise the first of registers, shared memory, block slots, warps at the minimum.
  if (r.blocksPerSm == 0) {
    r.limiter = r.limitWarps == 0 ? "warps" : r.limitRegs == 0 ? "registers" : "shared_memory";
  } else if (r.warpsPerSm == r.maxWarpsPerSm) {
    r.limiter = "warps";
  } else if (r.blocksPerSm == r.limitRegs) {
    r.limiter = "registers";
  } else if (r.blocksPerSm == r.limitSmem) {
    r.limiter = "shared_memory";
  } else if (r.blocksPerSm == r.limitSlots) {
    r.limiter = "blocks";
  } else {
    r.limiter = "warps";
  }
  return r;
}

OccupancyCurves occupancyCurves(const DeviceSpec& dev, const KernelResources& k) {
  OccupancyCurves c;
  for (int b = dev.warpSize; b <= dev.maxThreadsPerBlock; b += dev.warpSize) {
    KernelResources v = k;
    v.threadsPerBlock = b;
    c.blockSize.push_back({b, computeOccupancy(dev, v).occupancy});
  }
  for (int regs = 1; regs <= dev.regsPerThread; ++regs) {
    KernelResources v = k;
    v.regsPerThread = regs;
    c.registers.push_back({regs, computeOccupancy(dev, v).occupancy});
  }
  // x is the block's static + dynamic shared memory; the kernel keeps its static part.
  for (std::int64_t s = 0; s <= dev.smemPerBlockOptin; s += 1024) {
    KernelResources v = k;
    v.smemStatic = std::min(k.smemStatic, s);
    v.smemDynamic = s - v.smemStatic;
    v.maxDynamicSmem = -1;
    c.sharedMemory.push_back({s, computeOccupancy(dev, v).occupancy});
  }
  c.currentBlockSize = k.threadsPerBlock;
  c.currentRegisters = k.regsPerThread;
  c.currentSharedMemory = k.smemStatic + k.smemDynamic;
  c.currentOccupancy = computeOccupancy(dev, k).occupancy;
  return c;
}

OccupancyInfo toOccupancyInfo(const DeviceSpec& dev, const KernelResources& k) {
  const OccupancyResult r = computeOccupancy(dev, k);
  OccupancyInfo o;
  o.computed = true;
  o.theoretical = r.occupancy;
  o.limiter = r.limiter;
  o.blocksPerSm = r.blocksPerSm;
  o.warpsPerSm = r.warpsPerSm;
  o.maxWarpsPerSm = r.maxWarpsPerSm;
  // INT_MAX (the resource does not limit, e.g. registers unknown) is reported as -1.
  auto lim = [](int v) { return v == INT_MAX ? -1 : v; };
  o.blocksLimitWarps = lim(r.limitWarps);
  o.blocksLimitRegs = lim(r.limitRegs);
  o.blocksLimitSmem = lim(r.limitSmem);
  o.blocksLimitSlots = r.limitSlots;
  o.smemPerBlock = r.smemPerBlockAllocated;
  o.regsPerThread = std::max(k.regsPerThread, 0);
  o.threadsPerBlock = k.threadsPerBlock;
  o.curves = occupancyCurves(dev, k);
  return o;
}

}  // namespace tilescope
