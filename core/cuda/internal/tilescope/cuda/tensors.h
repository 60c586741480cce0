// Capture tensors in device memory: each tensor gets its own cuMemAlloc between
// guard zones holding a known pattern, so writes past either end are measured
// (oob_write) and unmasked reads past the end of float inputs return NaN.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tilescope/config/config.h"
#include "tilescope/config/tensor.h"
#include "tilescope/cuda/device_tensor_view.h"
#include "tilescope/model/report.h"

namespace tilescope {
class TileCoverage;
}

namespace tilescope::cuda {

/// Guard bytes on each side of a tensor: wide enough for a whole extra tile row
/// of most kernels' writes (64 KiB = one 16K-float row).
inline constexpr std::size_t kGuardBytes = 64 * 1024;

struct DeviceTensor {
  const TensorSpec* spec = nullptr;
  std::string name;
  DType dtype = DType::f32;
  std::vector<std::int64_t> shape, strides;
  std::uint64_t bytes = 0;     ///< the tensor's span
  CUdeviceptr allocation = 0;  ///< start of the guard zone before
  std::uint64_t allocationBytes = 0;
  CUdeviceptr ptr = 0;  ///< first element
  std::uint64_t guardBefore = 0, guardAfter = 0;
  bool guarded = false;
  bool sentinel = false;  ///< an output that started with sentinelBits
  std::uint64_t sentinelValue = 0;
  std::vector<std::uint8_t> initial;  ///< the host bytes it started with

  DeviceTensorView view() const;
};

/// Host bytes of a tensor as its config initialises it (init, seed, scale), or the
/// sentinel for an output without init. Throws ConfigError/NpyError for bad npy files.
std::vector<std::uint8_t> initialBytes(const Config& cfg, const ResolvedTensor& t, int sentinelVariant,
                                       bool* usedSentinel, std::uint64_t* sentinelValue);

/// Allocates (plain cuMemAlloc, no pool), fills guards and copies `initial` in.
/// `alignShiftBytes` moves the tensor's base off its 256-byte alignment. Returns
/// false with the reason (out of memory names the tensor and its size).
bool allocateTensor(DeviceTensor* t, bool withGuards, int alignShiftBytes, std::string* error);
void freeTensor(DeviceTensor* t);
/// Writes the guard zones and the initial bytes again (after a traced launch,
/// so that the untraced one starts from the same memory).
bool restoreTensor(DeviceTensor* t, std::string* error);

/// Copies the tensor back (its logical span) as a HostTensor.
bool downloadTensor(const DeviceTensor& t, HostTensor* out, std::string* error);

/// Reads both guard zones back; every changed byte range becomes an oob_write
/// finding naming the tensor, the byte offsets relative to its start/end, the
/// elements (row N of C[M,N], k past the last row) and, through `tiles` when
/// given, the CTAs that own those elements.
std::vector<Finding> checkGuards(const DeviceTensor& t, const TileCoverage* tiles, std::string* error);

/// "row 4096 of C[4096, 4096]" style description of element offset `e`
/// (may lie before 0 or past the end).
std::string describeOutsideElement(const std::string& name, const std::vector<std::int64_t>& shape,
                                   std::int64_t e, std::vector<std::int64_t>* index);

}  // namespace tilescope::cuda
