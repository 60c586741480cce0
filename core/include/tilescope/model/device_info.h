// The device a report was made for (docs/report.md, `device`): its name, SM
// limits and peaks, from a live GPU or the device database (devices.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace tilescope {

struct DeviceInfo {
  std::string name, key, cc;  ///< "NVIDIA H100 80GB HBM3", "h100", "9.0"
  int smCount = 0;
  std::int64_t smemPerBlock = 0, smemPerBlockOptin = 0, smemPerSm = 0;
  int regsPerSm = 0, maxWarpsPerSm = 0, maxBlocksPerSm = 0;  ///< SM limits (0: unknown)
  bool live = false;                                         ///< read from a real GPU
  /// The peaks a roofline compares against (absent: not in the database entry).
  std::optional<double> dramGBs;                            ///< dram_gbs: DRAM bandwidth, 1e9 B/s
  std::optional<double> f32Tflops;                          ///< f32_tflops: FP32 FMA, 1e12 FLOP/s
  std::optional<double> f16TensorTflops, bf16TensorTflops;  ///< dense tensor cores, f32 accumulation
  nlohmann::json extra = nlohmann::json::object();          ///< the rest of the database entry
  bool operator==(const DeviceInfo&) const = default;
};

/// The device's JSON (docs/report.md, `device`); the reader throws ReportError
/// (finding.h) naming the JSON path of a value of the wrong type.
nlohmann::json toJson(const DeviceInfo& d);
DeviceInfo deviceInfoFromJson(const nlohmann::json& j, const std::string& path = "device");

}  // namespace tilescope
