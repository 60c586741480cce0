// GPU tests of the references: cuBLAS gemm and SDPA (cuDNN and sdpa_math)
// against f64 CPU references on small random problems. Skip without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "cuda_context.h"
#include "tilescope/config/tensor.h"
#include "tilescope/cuda/reference.h"

namespace tilescope::cuda {
namespace {

/// A contiguous device tensor; `host` holds the values as the device holds them
/// (already rounded to the dtype), so the CPU reference sees the same inputs.
struct DevTensor {
  DeviceTensorView view;
  std::vector<double> host;
  DevTensor(std::string name, DType dtype, std::vector<std::int64_t> shape, unsigned seed) {
    view.name = std::move(name);
    view.dtype = dtype;
    view.shape = shape;
    view.strides.assign(shape.size(), 1);
    for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
      view.strides[i] = view.strides[i + 1] * shape[i + 1];
    const std::size_t es = dtypeSize(dtype), n = static_cast<std::size_t>(view.elements());
    std::vector<std::uint8_t> bytes(n * es);
    std::mt19937 rng(seed);
    std::normal_distribution<double> dist;
    host.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      encodeElement(dtype, dist(rng), bytes.data() + i * es);
      host[i] = decodeElement(dtype, bytes.data() + i * es);
    }
    EXPECT_EQ(cuMemAlloc(&view.ptr, bytes.size()), CUDA_SUCCESS);
    EXPECT_EQ(cuMemcpyHtoD(view.ptr, bytes.data(), bytes.size()), CUDA_SUCCESS);
  }
  ~DevTensor() { cuMemFree(view.ptr); }
  std::vector<double> download() const {
    const std::size_t es = dtypeSize(view.dtype), n = static_cast<std::size_t>(view.elements());
    std::vector<std::uint8_t> bytes(n * es);
    EXPECT_EQ(cuMemcpyDtoH(bytes.data(), view.ptr, bytes.size()), CUDA_SUCCESS);
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = decodeElement(view.dtype, bytes.data() + i * es);
    return v;
  }
};

/// max |got - want| / max |want|: the error relative to the output's scale.
double relErr(const std::vector<double>& got, const std::vector<double>& want) {
  double err = 0, scale = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    err = std::max(err, std::abs(got[i] - want[i]));
    scale = std::max(scale, std::abs(want[i]));
  }
  return err / scale;
}

void runOnce(const StreamCall& call) {
  call(nullptr);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
}

/// out[M,N] = alpha * op(a) op(b) + beta * out0, row-major, f64.
std::vector<double> cpuGemm(const ReferenceSpec& s, const DevTensor& a, const DevTensor& b,
                            const std::vector<double>& out0, std::int64_t M, std::int64_t N, std::int64_t K) {
  std::vector<double> out(static_cast<std::size_t>(M * N));
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t j = 0; j < N; ++j) {
      double acc = 0;
      for (std::int64_t p = 0; p < K; ++p)
        acc += a.host[s.transA ? p * M + i : i * K + p] * b.host[s.transB ? j * K + p : p * N + j];
      out[i * N + j] = s.alpha * acc + s.beta * out0[i * N + j];
    }
  return out;
}

struct GemmCase {
  DType in, out;
  bool transA, transB;
  double alpha, beta, tol;
};

class GemmTest : public ::testing::TestWithParam<GemmCase> {};

TEST_P(GemmTest, MatchesCpuReference) {
  REQUIRE_GPU();
  const GemmCase c = GetParam();
  const std::int64_t M = 67, N = 45, K = 129;  // odd sizes: no tile divides them
  ReferenceSpec spec;
  spec.op = "gemm";
  spec.transA = c.transA;
  spec.transB = c.transB;
  spec.alpha = c.alpha;
  spec.beta = c.beta;
  DevTensor a("A", c.in, c.transA ? std::vector<std::int64_t>{K, M} : std::vector<std::int64_t>{M, K}, 1);
  DevTensor b("B", c.in, c.transB ? std::vector<std::int64_t>{N, K} : std::vector<std::int64_t>{K, N}, 2);
  DevTensor out("C", c.out, {M, N}, 3);
  const auto want = cpuGemm(spec, a, b, out.host, M, N, K);
  runOnce(makeGemm(spec, a.view, b.view, out.view));
  EXPECT_LT(relErr(out.download(), want), c.tol);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, GemmTest,
                         ::testing::Values(GemmCase{DType::f16, DType::f16, false, false, 1, 0, 1e-2},
                                           GemmCase{DType::f16, DType::f32, false, true, 1, 0, 1e-3},
                                           GemmCase{DType::bf16, DType::bf16, true, false, 1, 0, 2e-2},
                                           GemmCase{DType::f32, DType::f32, true, true, 0.5, 2.0, 1e-4}));

TEST(Gemm, BatchedRank3MatchesPerBatchReference) {
  REQUIRE_GPU();
  const std::int64_t B = 3, M = 33, N = 17, K = 40;
  DevTensor a("A", DType::f32, {B, M, K}, 4), b("B", DType::f32, {B, K, N}, 5),
      out("C", DType::f32, {B, M, N}, 6);
  ReferenceSpec spec;
  runOnce(makeGemm(spec, a.view, b.view, out.view));
  const auto got = out.download();
  for (std::int64_t z = 0; z < B; ++z) {
    for (std::int64_t i = 0; i < M; ++i)
      for (std::int64_t j = 0; j < N; ++j) {
        double acc = 0;
        for (std::int64_t p = 0; p < K; ++p) acc += a.host[(z * M + i) * K + p] * b.host[(z * K + p) * N + j];
        ASSERT_NEAR(got[(z * M + i) * N + j], acc, 1e-3 * (1 + std::abs(acc))) << "batch " << z;
      }
  }
}

TEST(Gemm, MismatchedShapesNameTheTensors) {
  REQUIRE_GPU();
  DevTensor a("A", DType::f16, {8, 16}, 1), b("B", DType::f16, {12, 8}, 2), out("C", DType::f16, {8, 8}, 3);
  try {
    makeGemm(ReferenceSpec{}, a.view, b.view, out.view);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("A[8, 16]"), std::string::npos) << m;
    EXPECT_NE(m.find("B[12, 8]"), std::string::npos) << m;
  }
  DevTensor i8("X", DType::i8, {8, 16}, 1), i8b("Y", DType::i8, {16, 8}, 1);
  EXPECT_THROW(makeGemm(ReferenceSpec{}, i8.view, i8b.view, out.view), std::runtime_error);
}

/// Attention in f64: out[b,h,i,:] = softmax_j(scale q_i·k_j, j <= i if causal) v_j.
std::vector<double> cpuSdpa(const DevTensor& q, const DevTensor& k, const DevTensor& v, double scale,
                            bool causal) {
  const auto& qs = q.view.shape;
  const std::int64_t BH = qs[0] * qs[1], Sq = qs[2], D = qs[3], Sk = k.view.shape[2], Dv = v.view.shape[3];
  std::vector<double> out(static_cast<std::size_t>(BH * Sq * Dv)), p(static_cast<std::size_t>(Sk));
  for (std::int64_t z = 0; z < BH; ++z)
    for (std::int64_t i = 0; i < Sq; ++i) {
      const std::int64_t valid = causal ? std::min(Sk, i + 1) : Sk;
      double m = -INFINITY, sum = 0;
      for (std::int64_t j = 0; j < valid; ++j) {
        double s = 0;
        for (std::int64_t d = 0; d < D; ++d) s += q.host[(z * Sq + i) * D + d] * k.host[(z * Sk + j) * D + d];
        p[j] = s * scale;
        m = std::max(m, p[j]);
      }
      for (std::int64_t j = 0; j < valid; ++j) sum += (p[j] = std::exp(p[j] - m));
      for (std::int64_t d = 0; d < Dv; ++d) {
        double acc = 0;
        for (std::int64_t j = 0; j < valid; ++j) acc += p[j] * v.host[(z * Sk + j) * Dv + d];
        out[(z * Sq + i) * Dv + d] = acc / sum;
      }
    }
  return out;
}

class SdpaTest : public ::testing::TestWithParam<bool> {};

TEST_P(SdpaTest, CudnnAndMathMatchCpuAndEachOther) {
  REQUIRE_GPU();
  const bool causal = GetParam();
  const std::int64_t B = 2, H = 3, Sq = 70, Sk = 90, D = 64;
  DevTensor q("Q", DType::f16, {B, H, Sq, D}, 7), k("K", DType::f16, {B, H, Sk, D}, 8),
      v("V", DType::f16, {B, H, Sk, D}, 9), outFused("O", DType::f16, {B, H, Sq, D}, 10),
      outMath("O2", DType::f16, {B, H, Sq, D}, 11);
  ReferenceSpec spec;
  spec.op = "sdpa";
  spec.causal = causal;
  spec.scale = 0.125;
  const auto want = cpuSdpa(q, k, v, 0.125, causal);
  std::string backend;
  runOnce(makeSdpa(spec, q.view, k.view, v.view, outFused.view, &backend));
  runOnce(makeSdpaMath(spec, q.view, k.view, v.view, outMath.view));
  RecordProperty("backend", backend);
  std::printf("[sdpa] causal=%d backend=%s\n", causal ? 1 : 0, backend.c_str());
  EXPECT_TRUE(backend == "cudnn" || backend == "sdpa_math") << backend;
  const auto fused = outFused.download(), math = outMath.download();
  EXPECT_LT(relErr(math, want), 1e-2);
  EXPECT_LT(relErr(fused, want), 1e-2) << "backend " << backend;
  EXPECT_LT(relErr(fused, math), 1e-2);
}

INSTANTIATE_TEST_SUITE_P(Mask, SdpaTest, ::testing::Values(false, true));

TEST(Sdpa, F32FallsBackToMathWithDefaultScale) {
  REQUIRE_GPU();
  const std::int64_t Sq = 20, Sk = 33, D = 16, Dv = 24;  // Dv != D: a shape cuDNN need not serve
  DevTensor q("Q", DType::f32, {1, 2, Sq, D}, 1), k("K", DType::f32, {1, 2, Sk, D}, 2),
      v("V", DType::f32, {1, 2, Sk, Dv}, 3), out("O", DType::f32, {1, 2, Sq, Dv}, 4);
  ReferenceSpec spec;
  std::string backend;
  runOnce(makeSdpa(spec, q.view, k.view, v.view, out.view, &backend));
  EXPECT_EQ(backend, "sdpa_math");  // cuDNN's fused attention takes f16/bf16 only
  EXPECT_LT(relErr(out.download(), cpuSdpa(q, k, v, 1.0 / std::sqrt(double(D)), false)), 1e-4);
}

TEST(Sdpa, MismatchedShapesThrow) {
  REQUIRE_GPU();
  DevTensor q("Q", DType::f16, {1, 2, 8, 16}, 1), k("K", DType::f16, {1, 2, 8, 32}, 2),
      v("V", DType::f16, {1, 2, 8, 16}, 3), out("O", DType::f16, {1, 2, 8, 16}, 4);
  EXPECT_THROW(makeSdpa(ReferenceSpec{}, q.view, k.view, v.view, out.view), std::runtime_error);
}

}  // namespace
}  // namespace tilescope::cuda
