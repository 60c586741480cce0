// makeSdpa: cuDNN's fused attention through the cudnn-frontend graph API, with
// makeSdpaMath as the fallback where cuDNN cannot serve the problem (dtype,
// head dim, alignment, no cuDNN in the build).
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <unordered_map>

#include "tilescope/cuda/reference.h"

#ifdef TILESCOPE_HAVE_CUDNN_FRONTEND
// config.h has already included the system nlohmann_json, so the include guard
// makes the frontend use it instead of its bundled copy (one json per TU).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"  // helpers of the header we do not use
#include <cudnn_frontend.h>
#pragma GCC diagnostic pop
#endif

namespace tilescope::cuda {

#ifdef TILESCOPE_HAVE_CUDNN_FRONTEND
namespace {

namespace fe = cudnn_frontend;

constexpr std::int64_t kQ = 1, kK = 2, kV = 3, kO = 4;  // tensor uids in the variant pack

struct CudnnState {
  cudnnHandle_t handle = nullptr;
  std::shared_ptr<fe::graph::Graph> graph;
  CUdeviceptr workspace = 0;
  ~CudnnState() {
    graph.reset();
    if (workspace) cuMemFree(workspace);
    if (handle) cudnnDestroy(handle);
  }
};

void checkFe(fe::error_t e, const char* step) {
  if (!e.is_good()) throw std::runtime_error(std::string("cuDNN ") + step + ": " + e.get_message());
}

fe::DataType_t feType(DType t) {
  if (t == DType::f16) return fe::DataType_t::HALF;
  if (t == DType::bf16) return fe::DataType_t::BFLOAT16;
  throw std::runtime_error(std::string("cuDNN fused attention takes f16 or bf16, not ") + dtypeName(t));
}

std::shared_ptr<fe::graph::Tensor_attributes> input(fe::graph::Graph& g, const DeviceTensorView& t,
                                                    std::int64_t uid) {
  return g.tensor(
      fe::graph::Tensor_attributes().set_name(t.name).set_uid(uid).set_dim(t.shape).set_stride(t.strides));
}

/// Builds the graph and its plan; throws with cuDNN's reason when unsupported.
StreamCall buildCudnn(const ReferenceSpec& spec, const DeviceTensorView& q, const DeviceTensorView& k,
                      const DeviceTensorView& v, const DeviceTensorView& out) {
  for (const DeviceTensorView* t : {&q, &k, &v, &out})
    if (t->shape.size() != 4 || t->strides.size() != 4)
      throw std::runtime_error("layout bhsd needs rank-4 tensors");
  if (k.dtype != q.dtype || v.dtype != q.dtype || out.dtype != q.dtype)
    throw std::runtime_error("cuDNN fused attention needs q, k, v and out of one dtype");
  auto st = std::make_shared<CudnnState>();
  if (cudnnStatus_t s = cudnnCreate(&st->handle); s != CUDNN_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cudnnCreate: ") + cudnnGetErrorString(s));
  st->graph = std::make_shared<fe::graph::Graph>();
  fe::graph::Graph& g = *st->graph;
  g.set_io_data_type(feType(q.dtype))
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  auto Q = input(g, q, kQ), K = input(g, k, kK), V = input(g, v, kV);
  const float scale =
      static_cast<float>(spec.scale.value_or(1.0 / std::sqrt(static_cast<double>(q.shape[3]))));
  auto options =
      fe::graph::SDPA_attributes().set_name("sdpa").set_generate_stats(false).set_attn_scale(scale);
  if (spec.causal) options.set_causal_mask(true);  // top-left aligned, as PyTorch's is_causal
  auto [O, stats] = g.sdpa(Q, K, V, options);
  (void)stats;
  O->set_output(true).set_uid(kO).set_dim(out.shape).set_stride(out.strides);
  checkFe(g.validate(), "validate");
  checkFe(g.build_operation_graph(st->handle), "build_operation_graph");
  checkFe(g.create_execution_plans({fe::HeurMode_t::A}), "create_execution_plans");
  checkFe(g.check_support(st->handle), "check_support");
  checkFe(g.build_plans(st->handle), "build_plans");
  std::int64_t bytes = 0;
  checkFe(g.get_workspace_size(bytes), "get_workspace_size");
  if (bytes > 0 && cuMemAlloc(&st->workspace, static_cast<std::size_t>(bytes)) != CUDA_SUCCESS)
    throw std::runtime_error("cuMemAlloc of the cuDNN workspace (" + std::to_string(bytes) +
                             " bytes) failed");
  const CUdeviceptr pq = q.ptr, pk = k.ptr, pv = v.ptr, po = out.ptr;
  return [st, pq, pk, pv, po](CUstream stream) {
    if (cudnnStatus_t s = cudnnSetStream(st->handle, stream); s != CUDNN_STATUS_SUCCESS)
      throw std::runtime_error(std::string("cudnnSetStream: ") + cudnnGetErrorString(s));
    auto p = [](CUdeviceptr x) { return reinterpret_cast<void*>(x); };
    std::unordered_map<std::int64_t, void*> pack = {{kQ, p(pq)}, {kK, p(pk)}, {kV, p(pv)}, {kO, p(po)}};
    checkFe(st->graph->execute(st->handle, pack, p(st->workspace)), "execute");
  };
}

}  // namespace
#endif

StreamCall makeSdpa(const ReferenceSpec& spec, const DeviceTensorView& q, const DeviceTensorView& k,
                    const DeviceTensorView& v, const DeviceTensorView& out, std::string* backendOut) {
#ifdef TILESCOPE_HAVE_CUDNN_FRONTEND
  try {
    StreamCall call = buildCudnn(spec, q, k, v, out);
    if (backendOut) *backendOut = "cudnn";
    return call;
  } catch (const std::exception& e) {
    // Not an error: the unfused reference serves every shape cuDNN declines.
    std::fprintf(stderr, "tilescope: cuDNN SDPA unavailable for q %s (%s): %s; using sdpa_math\n",
                 shapeText(q).c_str(), dtypeName(q.dtype), e.what());
  }
#endif
  StreamCall call = makeSdpaMath(spec, q, k, v, out);
  if (backendOut) *backendOut = "sdpa_math";
  return call;
}

}  // namespace tilescope::cuda
