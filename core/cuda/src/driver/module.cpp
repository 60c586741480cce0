// Module loading and function attributes.
#include "tilescope/cuda/module.h"

#include "tilescope/cuda/driver.h"

namespace tilescope::cuda {

bool loadKernel(const CompiledKernel& ck, LoadedKernel* out, std::string* error) {
  CUresult r = cuModuleLoadData(&out->module, ck.image.data());
  if (r != CUDA_SUCCESS) {
    *error = "cuModuleLoadData failed: " + cuErrorText(r) +
             (r == CUDA_ERROR_NO_BINARY_FOR_GPU ? " (the image was built for another architecture)" : "");
    out->module = nullptr;
    return false;
  }
  out->symbol = ck.loweredName.empty() ? ck.entry : ck.loweredName;
  r = cuModuleGetFunction(&out->function, out->module, out->symbol.c_str());
  if (r != CUDA_SUCCESS) {
    std::string list;
    for (const auto& k : ck.kernels) list += (list.empty() ? "" : ", ") + k;
    *error = "kernel entry '" + ck.entry + "' not found in the module (" + cuErrorName(r) + ")" +
             (list.empty() ? std::string() : "; the module defines: " + list);
    return false;
  }
  return true;
}

void readFunctionAttributes(CUfunction f, CompileInfo* info) {
  auto attr = [&](CUfunction_attribute a) {
    int v = -1;
    return cuFuncGetAttribute(&v, a, f) == CUDA_SUCCESS ? v : -1;
  };
  int regs = attr(CU_FUNC_ATTRIBUTE_NUM_REGS);
  int smem = attr(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  int local = attr(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
  int maxThreads = attr(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  if (regs >= 0) info->regs = regs;
  if (smem >= 0) info->smemStatic = smem;
  if (local >= 0) info->localBytes = local;
  if (maxThreads >= 0) info->maxThreadsPerBlock = maxThreads;
}

}  // namespace tilescope::cuda
