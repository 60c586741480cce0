// sdpa_math: attention as S = scale·QKᵀ (cuBLAS), a row softmax (NVRTC kernel),
// O = P·V (cuBLAS). B and H merge into one batch dimension of stride strides[1],
// which needs strides[0] == H·strides[1] (true for contiguous bhsd). All
// intermediates are f32: S/P [BH,Sq,Sk], V32 [BH,Sk,Dv], O32 [BH,Sq,Dv].
#include <cublas_v2.h>
#include <nvrtc.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "tilescope/cuda/reference.h"

namespace tilescope::cuda {
namespace {

// dtype codes shared with the kernels: 0 f32, 1 f16, 2 bf16.
constexpr const char* kKernels = R"(
__device__ float load(const void* p, long long i, int dt) {
  if (dt == 0) return ((const float*)p)[i];
  unsigned short u = ((const unsigned short*)p)[i];
  if (dt == 2) return __uint_as_float(((unsigned)u) << 16);
  float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(u)); return f;
}
__device__ void store(void* p, long long i, int dt, float f) {
  if (dt == 0) { ((float*)p)[i] = f; return; }
  unsigned short u;
  if (dt == 1) { asm("cvt.rn.f16.f32 %0, %1;" : "=h"(u) : "f"(f)); }
  else {  // bf16, round to nearest even; NaN stays a quiet NaN
    unsigned b = __float_as_uint(f);
    u = (f != f) ? 0x7fc0 : (unsigned short)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
  }
  ((unsigned short*)p)[i] = u;
}
// Copies a strided [n0, n1, n2] tensor (inner stride 1) to or from a contiguous f32 one.
extern "C" __global__ void gather_f32(const void* in, int dt, float* out, long long n, int n1, int n2,
                                      long long st0, long long st1) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    long long i2 = i % n2, i1 = (i / n2) % n1, i0 = i / ((long long)n1 * n2);
    out[i] = load(in, i0 * st0 + i1 * st1 + i2, dt);
  }
}
extern "C" __global__ void scatter_f32(const float* in, void* out, int dt, long long n, int n1, int n2,
                                       long long st0, long long st1) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    long long i2 = i % n2, i1 = (i / n2) % n1, i0 = i / ((long long)n1 * n2);
    store(out, i0 * st0 + i1 * st1 + i2, dt, in[i]);
  }
}
__device__ float blockReduce(float v, float* red, bool isMax) {
  for (int o = 16; o > 0; o >>= 1) {
    float w = __shfl_xor_sync(0xffffffffu, v, o);
    v = isMax ? fmaxf(v, w) : v + w;
  }
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
  __syncthreads();
  v = red[0];
  for (int w = 1; w < (int)(blockDim.x >> 5); ++w) v = isMax ? fmaxf(v, red[w]) : v + red[w];
  __syncthreads();
  return v;
}
// One block per row of S [rows, cols]; row r is query r % sq. In place: S -> P.
// Causal: key j > query i is masked (top-left aligned), so row i keeps i + 1 keys.
extern "C" __global__ void softmax_rows(float* s, int cols, int sq, int causal) {
  __shared__ float red[32];
  float* x = s + (long long)blockIdx.x * cols;
  int valid = causal ? min(cols, (int)(blockIdx.x % sq) + 1) : cols;
  float m = __int_as_float(0xff800000);
  for (int j = threadIdx.x; j < valid; j += blockDim.x) m = fmaxf(m, x[j]);
  m = blockReduce(m, red, true);
  float sum = 0.f;
  for (int j = threadIdx.x; j < valid; j += blockDim.x) sum += expf(x[j] - m);
  float inv = 1.f / blockReduce(sum, red, false);
  for (int j = threadIdx.x; j < cols; j += blockDim.x) x[j] = j < valid ? expf(x[j] - m) * inv : 0.f;
}
)";

void check(CUresult r, const std::string& what) {
  if (r == CUDA_SUCCESS) return;
  const char* name = nullptr;
  cuGetErrorName(r, &name);
  throw std::runtime_error("sdpa_math: " + what + " failed: " + (name ? name : "?"));
}

void checkBlas(cublasStatus_t s, const std::string& what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error("sdpa_math: " + what + " failed: " + cublasGetStatusName(s));
}

/// NVRTC compiles the kernels once per process and architecture (a CUBIN for sm_XY).
std::string cubinFor(int major, int minor) {
  static std::mutex mutex;
  static std::map<int, std::string> cache;
  std::lock_guard lock(mutex);
  auto& bin = cache[major * 10 + minor];
  if (!bin.empty()) return bin;
  nvrtcProgram prog = nullptr;
  if (nvrtcCreateProgram(&prog, kKernels, "sdpa_math.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS)
    throw std::runtime_error("sdpa_math: nvrtcCreateProgram failed");
  std::string arch = "--gpu-architecture=sm_" + std::to_string(major * 10 + minor);
  const char* opts[] = {arch.c_str(), "--std=c++17"};
  nvrtcResult r = nvrtcCompileProgram(prog, 2, opts);
  if (r != NVRTC_SUCCESS) {
    std::size_t n = 0;
    nvrtcGetProgramLogSize(prog, &n);
    std::string log(n, '\0');
    nvrtcGetProgramLog(prog, log.data());
    nvrtcDestroyProgram(&prog);
    throw std::runtime_error("sdpa_math: NVRTC could not compile the softmax kernels for " + arch + ": " +
                             nvrtcGetErrorString(r) + "\n" + log);
  }
  std::size_t n = 0;
  nvrtcGetCUBINSize(prog, &n);
  bin.resize(n);
  nvrtcGetCUBIN(prog, bin.data());
  nvrtcDestroyProgram(&prog);
  return bin;
}

int dtCode(const DeviceTensorView& t) {
  switch (t.dtype) {
    case DType::f32:
      return 0;
    case DType::f16:
      return 1;
    case DType::bf16:
      return 2;
    default:
      throw std::runtime_error(std::string("sdpa_math: tensor '") + t.name + "' is " + dtypeName(t.dtype) +
                               ": only f16, bf16 and f32 are supported");
  }
}

cudaDataType blasType(int code) { return code == 0 ? CUDA_R_32F : code == 1 ? CUDA_R_16F : CUDA_R_16BF; }

/// A bhsd tensor seen as [BH, S, D] with strides (batch, row); inner stride 1.
struct View3 {
  std::int64_t bh = 0, s = 0, d = 0, batchStride = 0, rowStride = 0;
};

View3 view3(const DeviceTensorView& t, const std::string& role) {
  if (t.shape.size() != 4 || t.strides.size() != 4)
    throw std::runtime_error("sdpa: " + role + " '" + t.name + "' has shape " + shapeText(t) +
                             ": layout bhsd needs [batch, heads, seq, head_dim]");
  if (t.strides[3] != 1 || t.strides[0] != t.shape[1] * t.strides[1])
    throw std::runtime_error("sdpa_math: " + role + " '" + t.name +
                             "' must have unit stride in head_dim and batch stride = heads x head stride");
  return {t.shape[0] * t.shape[1], t.shape[2], t.shape[3], t.strides[1], t.strides[2]};
}

struct MathState {
  cublasHandle_t blas = nullptr;
  CUmodule module = nullptr;
  CUfunction gather = nullptr, scatter = nullptr, softmax = nullptr;
  CUdeviceptr work = 0;
  ~MathState() {
    if (work) cuMemFree(work);
    if (module) cuModuleUnload(module);
    if (blas) cublasDestroy(blas);
  }
};

void launch(CUfunction f, std::int64_t blocks, unsigned threads, CUstream stream, void** args,
            const char* what) {
  check(cuLaunchKernel(f, static_cast<unsigned>(blocks), 1, 1, threads, 1, 1, 0, stream, args, nullptr),
        what);
}

std::int64_t gridFor(std::int64_t n) {
  return std::max<std::int64_t>(1, std::min<std::int64_t>((n + 255) / 256, 1 << 16));
}

}  // namespace

StreamCall makeSdpaMath(const ReferenceSpec& spec, const DeviceTensorView& q, const DeviceTensorView& k,
                        const DeviceTensorView& v, const DeviceTensorView& out) {
  const View3 Q = view3(q, "q"), K = view3(k, "k"), V = view3(v, "v"), O = view3(out, "out");
  if (K.bh != Q.bh || V.bh != Q.bh || O.bh != Q.bh || K.d != Q.d || V.s != K.s || O.s != Q.s || O.d != V.d ||
      q.shape[0] != out.shape[0])
    throw std::runtime_error("sdpa: shapes do not match: q " + shapeText(q) + ", k " + shapeText(k) + ", v " +
                             shapeText(v) + ", out " + shapeText(out) +
                             " (need q [B,H,Sq,D], k [B,H,Sk,D], v [B,H,Sk,Dv], out [B,H,Sq,Dv])");
  const int dq = dtCode(q), dk = dtCode(k), dv = dtCode(v), dout = dtCode(out);
  if (dq != dk) throw std::runtime_error("sdpa_math: q and k must have the same dtype");
  const float scale = static_cast<float>(spec.scale.value_or(1.0 / std::sqrt(static_cast<double>(Q.d))));

  auto st = std::make_shared<MathState>();
  CUdevice dev = 0;
  check(cuCtxGetDevice(&dev), "cuCtxGetDevice (no current CUDA context)");
  int major = 0, minor = 0;
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  const std::string cubin = cubinFor(major, minor);
  check(cuModuleLoadData(&st->module, cubin.data()), "cuModuleLoadData");
  check(cuModuleGetFunction(&st->gather, st->module, "gather_f32"), "cuModuleGetFunction(gather_f32)");
  check(cuModuleGetFunction(&st->scatter, st->module, "scatter_f32"), "cuModuleGetFunction(scatter_f32)");
  check(cuModuleGetFunction(&st->softmax, st->module, "softmax_rows"), "cuModuleGetFunction(softmax_rows)");
  checkBlas(cublasCreate(&st->blas), "cublasCreate");
  const std::int64_t sElems = Q.bh * Q.s * K.s, vElems = V.bh * V.s * V.d, oElems = O.bh * O.s * O.d;
  check(cuMemAlloc(&st->work, static_cast<std::size_t>(sElems + vElems + oElems) * sizeof(float)),
        "cuMemAlloc(workspace of " + std::to_string((sElems + vElems + oElems) * 4) + " bytes)");
  const CUdeviceptr S = st->work, V32 = S + sElems * 4, O32 = V32 + vElems * 4;
  const CUdeviceptr pq = q.ptr, pk = k.ptr, pv = v.ptr, po = out.ptr;
  const bool causal = spec.causal;

  return [=](CUstream stream) {
    checkBlas(cublasSetStream(st->blas, stream), "cublasSetStream");
    auto p = [](CUdeviceptr x) { return reinterpret_cast<void*>(x); };
    // Column-major Sᵀ[Sk,Sq] = K[Sk,D]·Q[Sq,D]ᵀ: row-major S[Sq,Sk] = Q·Kᵀ.
    const float one = 1.f, zero = 0.f;
    checkBlas(
        cublasGemmStridedBatchedEx(st->blas, CUBLAS_OP_T, CUBLAS_OP_N, int(K.s), int(Q.s), int(Q.d), &scale,
                                   p(pk), blasType(dk), int(K.rowStride), K.batchStride, p(pq), blasType(dq),
                                   int(Q.rowStride), Q.batchStride, &zero, p(S), CUDA_R_32F, int(K.s),
                                   Q.s * K.s, int(Q.bh), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        "cublasGemmStridedBatchedEx(Q K^T)");
    int cols = int(K.s), sq = int(Q.s), causalFlag = causal ? 1 : 0;
    CUdeviceptr s = S;
    void* softArgs[] = {&s, &cols, &sq, &causalFlag};
    launch(st->softmax, Q.bh * Q.s, 256, stream, softArgs, "softmax_rows launch");
    // V (any supported dtype, strided) into contiguous f32 so P·V is one f32 GEMM.
    long long vn = vElems, vst0 = V.batchStride, vst1 = V.rowStride;
    int vn1 = int(V.s), vn2 = int(V.d), vdt = dv;
    CUdeviceptr vin = pv, vout = V32;
    void* gatherArgs[] = {&vin, &vdt, &vout, &vn, &vn1, &vn2, &vst0, &vst1};
    launch(st->gather, gridFor(vn), 256, stream, gatherArgs, "gather_f32 launch");
    // Column-major Oᵀ[Dv,Sq] = V32ᵀ[Dv,Sk]·Pᵀ[Sk,Sq]: row-major O = P·V.
    checkBlas(cublasGemmStridedBatchedEx(st->blas, CUBLAS_OP_N, CUBLAS_OP_N, int(V.d), int(Q.s), int(K.s),
                                         &one, p(V32), CUDA_R_32F, int(V.d), V.s * V.d, p(S), CUDA_R_32F,
                                         int(K.s), Q.s * K.s, &zero, p(O32), CUDA_R_32F, int(V.d), Q.s * V.d,
                                         int(Q.bh), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
              "cublasGemmStridedBatchedEx(P V)");
    long long on = oElems, ost0 = O.batchStride, ost1 = O.rowStride;
    int on1 = int(O.s), on2 = int(O.d), odt = dout;
    CUdeviceptr oin = O32, oout = po;
    void* scatterArgs[] = {&oin, &oout, &odt, &on, &on1, &on2, &ost0, &ost1};
    launch(st->scatter, gridFor(on), 256, stream, scatterArgs, "scatter_f32 launch");
  };
}

}  // namespace tilescope::cuda
