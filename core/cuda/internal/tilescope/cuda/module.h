// Loading a compiled kernel into the current context and reading what the
// driver says about it (registers, shared memory, stack, max threads).
#pragma once

#include <cuda.h>

#include <string>

#include "tilescope/cuda/compile.h"
#include "tilescope/model/measurements.h"

namespace tilescope::cuda {

struct LoadedKernel {
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  std::string symbol;
};

/// cuModuleLoadData + cuModuleGetFunction. On a missing entry the error lists
/// the kernels the image defines. Returns false with the reason in *error.
bool loadKernel(const CompiledKernel& ck, LoadedKernel* out, std::string* error);

/// Overwrites regs, smemStatic, localBytes and maxThreadsPerBlock of *info with
/// the driver's function attributes (the values the launch will really use).
void readFunctionAttributes(CUfunction f, CompileInfo* info);

}  // namespace tilescope::cuda
