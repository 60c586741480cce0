// Theoretical occupancy by NVIDIA's rules (the CUDA occupancy calculator and
// cudaOccupancyMaxActiveBlocksPerMultiprocessor), checked against the real GPU's
// answers in tests/data/occupancy.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "tilescope/model/devices.h"
#include "tilescope/model/measurements.h"

namespace tilescope {

/// What one block of a kernel asks of an SM.
struct KernelResources {
  int threadsPerBlock = 0;
  int regsPerThread = -1;        ///< -1: unknown (the register limit is not applied)
  std::int64_t smemStatic = 0;   ///< bytes (__shared__ arrays)
  std::int64_t smemDynamic = 0;  ///< bytes (launch argument)
  /// cudaFuncAttributeMaxDynamicSharedMemorySize; -1: the kernel opted in to the device
  /// maximum (smem_per_block_optin - static), as TileScope's launcher does.
  std::int64_t maxDynamicSmem = -1;
  int carveoutPercent = -1;  ///< cudaFuncAttributePreferredSharedMemoryCarveout; -1: default
};

struct OccupancyResult {
  int blocksPerSm = 0;
  int warpsPerSm = 0;
  int maxWarpsPerSm = 0;
  double occupancy = 0;  ///< warpsPerSm / maxWarpsPerSm
  /// warps | registers | shared_memory | blocks (the block-slot limit); "none" when nothing fits
  std::string limiter;
  int limitWarps = 0, limitRegs = 0, limitSmem = 0, limitSlots = 0;  ///< blocks per SM each allows
  int warpsPerBlock = 0;
  int regsPerWarpAllocated = 0;  ///< regs x 32 rounded up to the allocation unit
  std::int64_t regsPerBlockAllocated = 0;
  std::int64_t smemPerBlockAllocated = 0;  ///< static + dynamic + reserved, rounded to the unit
  std::int64_t smemPerSmConfigured = 0;    ///< the carveout the driver picks
  std::string problem;                     ///< why no block fits, or ""
};

/// Blocks per SM and what limits them (the rules are in occupancy.cpp).
OccupancyResult computeOccupancy(const DeviceSpec& dev, const KernelResources& k);

/// The occupancy calculator's three curves: block size (32..max step 32), registers
/// (1..regs_per_thread), shared memory (bytes per block, static + dynamic, 0..opt-in
/// limit step 1 KiB), and the current point.
OccupancyCurves occupancyCurves(const DeviceSpec& dev, const KernelResources& k);

/// The report's occupancy block (with curves).
OccupancyInfo toOccupancyInfo(const DeviceSpec& dev, const KernelResources& k);

}  // namespace tilescope
