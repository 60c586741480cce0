// The cuBLAS GEMM reference/baseline. cuBLAS is column-major; a row-major
// matrix X[r,c] with leading stride ld is the column-major Xᵀ[c,r] with the same
// ld, so row-major out = op(a)·op(b) is computed as column-major
// outᵀ = op(b)ᵀ·op(a)ᵀ: the operands swap and M and N trade places.
#include <cublas_v2.h>

#include <memory>
#include <sstream>
#include <stdexcept>

#include "tilescope/cuda/reference.h"

namespace tilescope::cuda {
namespace {

void checkBlas(cublasStatus_t s, const std::string& what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(what + " failed: " + cublasGetStatusName(s) + " (" + cublasGetStatusString(s) +
                             ")");
}

cudaDataType blasType(DType t) {
  switch (t) {
    case DType::f16:
      return CUDA_R_16F;
    case DType::bf16:
      return CUDA_R_16BF;
    case DType::f32:
      return CUDA_R_32F;
    default:
      throw std::runtime_error(std::string("dtype ") + dtypeName(t) + " is not supported by the cuBLAS gemm");
  }
}

/// A row-major operand as cuBLAS sees it: batch count, rows, cols, leading and batch strides.
struct Operand {
  std::int64_t batch = 1, rows = 0, cols = 0, ld = 0, batchStride = 0;
};

Operand operand(const DeviceTensorView& t, const std::string& role) {
  const auto rank = t.shape.size();
  if (rank != 2 && rank != 3)
    throw std::runtime_error("gemm: " + role + " tensor '" + t.name + "' has shape " + shapeText(t) +
                             ": expected rank 2 ([rows, cols]) or 3 ([batch, rows, cols])");
  if (t.strides.size() != rank || t.strides[rank - 1] != 1)
    throw std::runtime_error("gemm: " + role + " tensor '" + t.name +
                             "' must have unit stride in its last dimension");
  Operand o;
  o.rows = t.shape[rank - 2];
  o.cols = t.shape[rank - 1];
  o.ld = t.strides[rank - 2];
  if (o.ld < o.cols)
    throw std::runtime_error("gemm: tensor '" + t.name + "' has a row stride below its row length");
  if (rank == 3) {
    o.batch = t.shape[0];
    o.batchStride = t.strides[0];
  }
  return o;
}

std::string problemText(const DeviceTensorView& a, const DeviceTensorView& b, const DeviceTensorView& out,
                        const ReferenceSpec& spec) {
  std::ostringstream s;
  s << a.name << shapeText(a) << (spec.transA ? "^T" : "") << " x " << b.name << shapeText(b)
    << (spec.transB ? "^T" : "") << " -> " << out.name << shapeText(out);
  return s.str();
}

struct GemmState {
  cublasHandle_t handle = nullptr;
  ~GemmState() {
    if (handle) cublasDestroy(handle);
  }
};

}  // namespace

std::string shapeText(const DeviceTensorView& t) {
  std::string s = "[";
  for (std::size_t i = 0; i < t.shape.size(); ++i) s += (i ? ", " : "") + std::to_string(t.shape[i]);
  return s + "]";
}

StreamCall makeGemm(const ReferenceSpec& spec, const DeviceTensorView& a, const DeviceTensorView& b,
                    const DeviceTensorView& out) {
  const Operand oa = operand(a, "a"), ob = operand(b, "b"), oc = operand(out, "out");
  const std::int64_t M = spec.transA ? oa.cols : oa.rows, K = spec.transA ? oa.rows : oa.cols;
  const std::int64_t Kb = spec.transB ? ob.cols : ob.rows, N = spec.transB ? ob.rows : ob.cols;
  if (K != Kb || oc.rows != M || oc.cols != N || oa.batch != oc.batch || ob.batch != oc.batch)
    throw std::runtime_error("gemm: shapes do not match: " + problemText(a, b, out, spec) +
                             " (M=" + std::to_string(M) + ", K=" + std::to_string(K) + " vs " +
                             std::to_string(Kb) + ", N=" + std::to_string(N) + ")");
  if (a.dtype != b.dtype)
    throw std::runtime_error(std::string("gemm: a '") + a.name + "' is " + dtypeName(a.dtype) + " but b '" +
                             b.name + "' is " + dtypeName(b.dtype) +
                             ": both inputs must have the same dtype");
  if (out.dtype != a.dtype && out.dtype != DType::f32)
    throw std::runtime_error(std::string("gemm: output '") + out.name + "' is " + dtypeName(out.dtype) +
                             " with " + dtypeName(a.dtype) +
                             " inputs: cuBLAS writes f32 or the inputs' dtype");
  const cudaDataType inType = blasType(a.dtype), outType = blasType(out.dtype);

  auto state = std::make_shared<GemmState>();
  checkBlas(cublasCreate(&state->handle), "cublasCreate");
  const float alpha = static_cast<float>(spec.alpha), beta = static_cast<float>(spec.beta);
  const cublasOperation_t opB = spec.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t opA = spec.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  const CUdeviceptr pa = a.ptr, pb = b.ptr, pc = out.ptr;
  const std::string what = "cublasGemmEx for " + problemText(a, b, out, spec);
  return [=](CUstream stream) {
    checkBlas(cublasSetStream(state->handle, stream), "cublasSetStream");
    auto ptr = [](CUdeviceptr p) { return reinterpret_cast<void*>(p); };
    if (oc.batch == 1) {
      checkBlas(cublasGemmEx(state->handle, opB, opA, static_cast<int>(N), static_cast<int>(M),
                             static_cast<int>(K), &alpha, ptr(pb), inType, static_cast<int>(ob.ld), ptr(pa),
                             inType, static_cast<int>(oa.ld), &beta, ptr(pc), outType,
                             static_cast<int>(oc.ld), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                what);
    } else {
      checkBlas(cublasGemmStridedBatchedEx(
                    state->handle, opB, opA, static_cast<int>(N), static_cast<int>(M), static_cast<int>(K),
                    &alpha, ptr(pb), inType, static_cast<int>(ob.ld), ob.batchStride, ptr(pa), inType,
                    static_cast<int>(oa.ld), oa.batchStride, &beta, ptr(pc), outType, static_cast<int>(oc.ld),
                    oc.batchStride, static_cast<int>(oc.batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                what);
    }
  };
}

}  // namespace tilescope::cuda
