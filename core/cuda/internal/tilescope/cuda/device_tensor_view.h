// A non-owning view of a tensor in device memory, passed between capture
// (which allocates tensors between guard zones) and the cuBLAS/cuDNN references.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tilescope/config/config.h"

namespace tilescope::cuda {

struct DeviceTensorView {
  std::string name;
  CUdeviceptr ptr = 0;  ///< first element
  DType dtype = DType::f32;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;  ///< elements; always filled (contiguous row-major by default)
  std::int64_t elements() const {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
};

}  // namespace tilescope::cuda
