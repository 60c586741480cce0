// The device database (resources/devices.json, schema tilescope.devices/1): the
// per-SM limits occupancy and launch checks need, and the peak figures roofline
// views compare against, for the GPUs TileScope knows without running on them.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/model/device_info.h"

namespace tilescope {

inline constexpr const char* kDevicesSchema = "tilescope.devices/1";

struct DeviceSpec {
  std::string key;                   ///< "h100"
  std::string name;                  ///< "NVIDIA H100 80GB HBM3"
  std::vector<std::string> aliases;  ///< "H100", "H100 SXM", ...
  std::string arch;                  ///< "sm_90"
  std::string cc;                    ///< "9.0"
  int ccMajor = 0, ccMinor = 0;
  int smCount = 0;
  int warpSize = 32;
  int maxThreadsPerBlock = 1024, maxThreadsPerSm = 2048, maxWarpsPerSm = 64, maxBlocksPerSm = 32;
  std::array<std::int64_t, 3> maxBlockDim{1024, 1024, 64};
  std::array<std::int64_t, 3> maxGridDim{2147483647, 65535, 65535};
  int regsPerSm = 65536, regsPerBlock = 65536, regsPerThread = 255;
  int registerAllocUnit = 256;  ///< registers, allocated per warp
  std::string registerAllocGranularity = "warp";
  int warpAllocGranularity = 4;             ///< SM sub-partitions; registers are split among them
  std::int64_t smemPerSm = 0;               ///< bytes, the largest carveout
  std::int64_t smemPerBlock = 48 * 1024;    ///< without opt-in
  std::int64_t smemPerBlockOptin = 0;       ///< with cudaFuncAttributeMaxDynamicSharedMemorySize
  std::int64_t smemReservedPerBlock = 0;    ///< 1 KiB on sm_80+, taken by the driver
  std::int64_t smemAllocUnit = 128;         ///< bytes
  std::vector<std::int64_t> smemCarveouts;  ///< bytes, ascending
  std::int64_t l2Bytes = 0;
  std::int64_t memoryBytes = 0;  ///< global memory as the datasheet states it (0: unknown)
  double dramGBs = 0;            ///< peak DRAM bandwidth, 1e9 B/s
  double f16TensorTflops = 0, bf16TensorTflops = 0, f32Tflops = 0;  ///< dense, f32 accumulation
  std::string source;                                               ///< where the numbers come from
  bool live = false;                                                ///< overlaid with a real GPU's attributes
};

/// Attributes read from a real GPU (core/cuda fills it from cudaDeviceGetAttribute).
/// A value <= 0 (or an empty name) means "not read": the database value stays.
struct LiveAttributes {
  std::string name;
  int ccMajor = -1, ccMinor = -1;
  int smCount = -1;
  int warpSize = -1;
  int maxThreadsPerBlock = -1, maxThreadsPerSm = -1, maxBlocksPerSm = -1;
  std::array<std::int64_t, 3> maxBlockDim{-1, -1, -1};
  std::array<std::int64_t, 3> maxGridDim{-1, -1, -1};
  int regsPerSm = -1, regsPerBlock = -1;
  std::int64_t smemPerSm = -1, smemPerBlock = -1, smemPerBlockOptin = -1, smemReservedPerBlock = -1;
  std::int64_t l2Bytes = -1;
  int memoryBusWidthBits = -1;       ///< cudaDevAttrGlobalMemoryBusWidth
  std::int64_t memoryClockKHz = -1;  ///< cudaDevAttrMemoryClockRate
};

class DeviceDb {
 public:
  /// Loads a tilescope.devices/1 file; throws std::runtime_error naming the file and the entry.
  static DeviceDb load(const std::filesystem::path& path);
  /// resourceDir()/devices.json.
  static DeviceDb loadDefault();
  static DeviceDb fromJson(const nlohmann::json& doc, const std::string& origin = "<json>");

  /// Case-insensitive: key ("h100"), name, alias ("H100 SXM"), or arch ("sm_90": the
  /// first device of that architecture in file order). nullptr when unknown.
  const DeviceSpec* find(const std::string& name) const;
  const std::vector<DeviceSpec>& all() const { return m_devices; }
  /// Comma-separated keys, for "unknown device" messages.
  std::string keys() const;

 private:
  std::vector<DeviceSpec> m_devices;
};

/// The database entry with a live GPU's attributes laid over it (live values win; a
/// live DRAM bandwidth is 2 x memory clock x bus width, DDR).
DeviceSpec withLive(const DeviceSpec& base, const LiveAttributes& live);
/// A spec for a GPU not in the database: per-SM rules of the closest architecture
/// (same major, highest minor not above it) or sm_90's, then the live values.
DeviceSpec specFromLive(const DeviceDb& db, const LiveAttributes& live);

/// The report's device block (docs/report.md); the remaining fields go to `extra`.
DeviceInfo toDeviceInfo(const DeviceSpec& spec);
nlohmann::json toJson(const DeviceSpec& spec);

}  // namespace tilescope
