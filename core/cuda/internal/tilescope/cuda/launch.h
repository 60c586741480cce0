// Launching a loaded kernel through the driver API: the marshalled parameters
// and the geometry (grid, block, dynamic shared memory, cluster), shared by the
// capture and the tracer.
#pragma once

#include <cuda.h>

#include <array>
#include <vector>

namespace tilescope::cuda::detail {

/// Marshalled kernel parameters: storage stays put, params point into it.
struct KernelArgs {
  std::vector<std::array<unsigned char, 8>> storage;
  /// Parameters passed as bytes (structs by value), each padded to the
  /// largest parameter size: the driver copies the kernel's own size from it.
  std::vector<std::vector<unsigned char>> blobs;
  std::vector<void*> params;
};

struct LaunchGeometry {
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  unsigned sharedBytes = 0;
  unsigned cluster[3] = {1, 1, 1};  ///< a thread-block cluster (Triton num_ctas > 1)
  bool cooperative = false;
};

/// cuLaunchKernel, or cuLaunchKernelEx for clusters and cooperative launches.
CUresult launch(CUfunction f, const LaunchGeometry& g, KernelArgs& args, CUstream stream);

}  // namespace tilescope::cuda::detail
