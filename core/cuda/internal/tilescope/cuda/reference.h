// References and baselines (docs/config.md `reference`, `baseline`): each returns a
// callable that enqueues the computation on a stream. The capture calls it once
// to compute the reference and hands it to timeCalls to time the baseline.
// A callable owns its scratch memory, library handles and modules (shared_ptr
// capture), released when the last copy goes away; it must be called and
// destroyed with the CUDA context it was made in current.
#pragma once

#include <cuda.h>

#include <functional>
#include <string>

#include "tilescope/config/config.h"
#include "tilescope/cuda/device_tensor_view.h"

namespace tilescope::cuda {

using StreamCall = std::function<void(CUstream)>;

/// out = alpha * op(a) · op(b) + beta * out through cublasGemmEx, f32 compute
/// (CUBLAS_COMPUTE_32F). Row-major tensors: a is [M,K] ([K,M] with trans_a),
/// b is [K,N] ([N,K] with trans_b), out is [M,N]; rank 3 adds a leading batch
/// dimension shared by all three. Inputs f16, bf16 or f32 (a and b alike);
/// out f32 or the inputs' dtype. The innermost stride must be 1.
/// Throws std::runtime_error naming the tensors and shapes when unsupported.
StreamCall makeGemm(const ReferenceSpec& spec, const DeviceTensorView& a, const DeviceTensorView& b,
                    const DeviceTensorView& out);

/// Fused attention, layout bhsd: q [B,H,Sq,D], k [B,H,Sk,D], v [B,H,Sk,Dv],
/// out [B,H,Sq,Dv]; scale defaults to 1/sqrt(D); causal masks key j > query i
/// (top-left aligned, as PyTorch's is_causal). Through cuDNN (cudnn-frontend
/// graph API) when built with it and when cuDNN supports the problem; otherwise
/// makeSdpaMath. *backendOut (when given) receives "cudnn" or "sdpa_math".
StreamCall makeSdpa(const ReferenceSpec& spec, const DeviceTensorView& q, const DeviceTensorView& k,
                    const DeviceTensorView& v, const DeviceTensorView& out,
                    std::string* backendOut = nullptr);

/// The unfused form: S = scale·QKᵀ (cuBLAS, f32), a row softmax with the max
/// subtracted (an NVRTC kernel, f32, optional causal mask), O = P·V (cuBLAS, f32),
/// all intermediates f32 in a workspace the callable owns. q/k/v f16, bf16 or f32.
StreamCall makeSdpaMath(const ReferenceSpec& spec, const DeviceTensorView& q, const DeviceTensorView& k,
                        const DeviceTensorView& v, const DeviceTensorView& out);

/// "[2, 3, 4]": for error messages.
std::string shapeText(const DeviceTensorView& t);

}  // namespace tilescope::cuda
