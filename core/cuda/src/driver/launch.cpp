// cuLaunchKernel and cuLaunchKernelEx over a LaunchGeometry.
#include "tilescope/cuda/launch.h"

namespace tilescope::cuda::detail {

CUresult launch(CUfunction f, const LaunchGeometry& g, KernelArgs& args, CUstream stream) {
  void** params = args.params.empty() ? nullptr : args.params.data();
  const bool cluster = g.cluster[0] * g.cluster[1] * g.cluster[2] > 1;
  if (!cluster && !g.cooperative)
    return cuLaunchKernel(f, g.grid[0], g.grid[1], g.grid[2], g.block[0], g.block[1], g.block[2],
                          g.sharedBytes, stream, params, nullptr);
  CUlaunchAttribute attrs[2] = {};
  unsigned n = 0;
  if (cluster) {
    // Above 8 CTAs a cluster is non-portable: the function must allow it.
    if (g.cluster[0] * g.cluster[1] * g.cluster[2] > 8)
      cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
    attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attrs[n].value.clusterDim.x = g.cluster[0];
    attrs[n].value.clusterDim.y = g.cluster[1];
    attrs[n].value.clusterDim.z = g.cluster[2];
    ++n;
  }
  if (g.cooperative) {
    attrs[n].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    attrs[n].value.cooperative = 1;
    ++n;
  }
  CUlaunchConfig cfg = {};
  cfg.gridDimX = g.grid[0];
  cfg.gridDimY = g.grid[1];
  cfg.gridDimZ = g.grid[2];
  cfg.blockDimX = g.block[0];
  cfg.blockDimY = g.block[1];
  cfg.blockDimZ = g.block[2];
  cfg.sharedMemBytes = g.sharedBytes;
  cfg.hStream = stream;
  cfg.attrs = attrs;
  cfg.numAttrs = n;
  return cuLaunchKernelEx(&cfg, f, params, nullptr);
}

}  // namespace tilescope::cuda::detail
