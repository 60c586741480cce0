// References (gemm, sdpa, kernel, npy) and baselines of a measurement.
#include <stdexcept>

#include "measure/measure_detail.h"
#include "tilescope/analysis/compare.h"
#include "tilescope/base/expr.h"
#include "tilescope/base/npy.h"
#include "tilescope/cuda/compile.h"
#include "tilescope/cuda/reference.h"
#include "tilescope/cuda/timing.h"

namespace tilescope::cuda::detail {
namespace {

const DeviceTensor& need(MeasureState& s, const std::string& name, const char* role) {
  DeviceTensor* t = s.tensor(name);
  if (!t) throw std::runtime_error(std::string("reference.") + role + ": unknown tensor '" + name + "'");
  return *t;
}

// Separate reference buffers for every output: they start with the output's init, or zeros.
void allocateRefOutputs(MeasureState& s) {
  if (!s.refOutputs.empty()) return;
  for (const DeviceTensor& t : s.tensors) {
    if (!t.spec->output) continue;
    DeviceTensor r;
    r.spec = t.spec;
    r.name = t.name;
    r.dtype = t.dtype;
    r.shape = t.shape;
    r.strides = t.strides;
    r.bytes = t.bytes;
    r.initial = t.sentinel ? nullptr : t.initial;
    r.zeroed = t.sentinel;
    std::string error;
    bool ok = allocateTensor(&r, false, 0, &error);
    s.refOutputs.push_back(std::move(r));
    if (!ok) throw std::runtime_error("reference buffer: " + error);
  }
}

DeviceTensorView refView(MeasureState& s, const std::string& name) {
  DeviceTensor* r = s.refOutput(name);
  if (!r) throw std::runtime_error("reference.out: '" + name + "' is not an output tensor");
  return r->view();
}

void syncOrThrow(MeasureState& s, const std::string& what) {
  CUresult r = cuCtxSynchronize();
  if (r == CUDA_SUCCESS) return;
  s.dead = isStickyError(r);
  throw std::runtime_error(what + " failed: " + cuErrorText(r));
}

// A trusted second kernel, compiled and launched like the kernel under test, its
// outputs bound to the reference buffers.
void runReferenceKernel(MeasureState& s) {
  const ReferenceSpec& rs = s.cfg->reference;
  CompiledKernel ck;
  CompileInfo ci = compileKernel(rs.kernel, rs.kernel.defines, s.limits.arch(), &ck);
  if (!ci.ok)
    throw std::runtime_error("reference kernel " + rs.kernel.source + " does not compile:\n" + ci.log);
  LoadedKernel lk;
  std::string error;
  if (!loadKernel(ck, &lk, &error)) throw std::runtime_error("reference kernel: " + error);
  s.modules.push_back(lk);
  auto symbols = s.resolved.symbols;
  for (const auto& [name, v] : rs.kernel.defines)
    if (v.isInt) symbols[name] = v.i;
  ResolvedLaunch l;
  for (int d = 0; d < 3; ++d) {
    l.grid[d] = evalInt(rs.launch.grid.at(std::size_t(d)), symbols);
    l.block[d] = evalInt(rs.launch.block.at(std::size_t(d)), symbols);
  }
  l.sharedBytes = evalInt(rs.launch.sharedBytes, symbols);
  std::map<std::string, CUdeviceptr> ptrs;
  for (const auto& t : s.tensors) ptrs[t.name] = t.ptr;
  for (const auto& t : s.refOutputs) ptrs[t.name] = t.ptr;
  KernelArgs args;
  if (!buildArgs(rs.args, symbols, ptrs, "reference.args", &args, &error)) throw std::runtime_error(error);
  CompileInfo attrs = ci;
  readFunctionAttributes(lk.function, &attrs);
  std::vector<Finding> f;
  if (!prepareLaunch(lk.function, attrs, l, s.limits, &f))
    throw std::runtime_error("reference kernel cannot launch: " +
                             (f.empty() ? std::string() : f.back().message));
  CUresult r = launch(lk.function, toGeometry(l), args, nullptr);
  if (r != CUDA_SUCCESS) throw std::runtime_error("reference kernel launch failed: " + cuErrorText(r));
  syncOrThrow(s, "reference kernel");
}

}  // namespace

std::map<std::string, HostTensor> runReference(MeasureState& s, const MeasureOptions&, std::string* label) {
  std::map<std::string, HostTensor> refs;
  const ReferenceSpec& rs = s.cfg->reference;
  if (rs.op == "none" || rs.op.empty()) return refs;
  if (rs.op == "npy") {
    *label = "npy";
    for (const ResolvedTensor& rt : s.resolved.tensors) {
      if (!rt.spec->output || rt.spec->expected.empty()) continue;
      NpyArray a = loadTensorNpy(*s.cfg, rt, true);
      HostTensor h;
      h.name = rt.spec->name;
      h.dtype = rt.spec->dtype;
      h.shape = rt.shape;  // C order over the logical shape: contiguous
      h.bytes = std::move(a.data);
      refs[h.name] = std::move(h);
    }
    return refs;
  }
  allocateRefOutputs(s);
  if (rs.op == "gemm") {
    *label = "gemm(cublas)";
    makeGemm(rs, need(s, rs.a, "a").view(), need(s, rs.b, "b").view(), refView(s, rs.out))(nullptr);
    syncOrThrow(s, "cuBLAS reference");
  } else if (rs.op == "sdpa") {
    std::string backend;
    makeSdpa(rs, need(s, rs.q, "q").view(), need(s, rs.k, "k").view(), need(s, rs.v, "v").view(),
             refView(s, rs.out), &backend)(nullptr);
    *label = backend == "cudnn" ? "sdpa(cudnn)" : "sdpa_math";
    syncOrThrow(s, "SDPA reference");
  } else if (rs.op == "kernel") {
    *label = "kernel";
    runReferenceKernel(s);
  } else {
    throw std::runtime_error("reference.op '" + rs.op + "' is not supported");
  }
  for (const DeviceTensor& r : s.refOutputs) {
    HostTensor h;
    std::string error;
    if (!downloadTensor(r, &h, &error)) throw std::runtime_error(error);
    refs[r.name] = std::move(h);
  }
  return refs;
}

std::string transposedOperand(MeasureState& s, const HostTensor& out,
                              const std::vector<std::int64_t>& tileExtent) {
  const ReferenceSpec& rs = s.cfg->reference;
  if (rs.op != "gemm" || rs.out != out.name) return "";
  // A kernel that reads an operand with its indices swapped computes A·Bᵀ (or
  // Aᵀ·B); only a square operand keeps the product's shape, so only those are tried.
  for (const char* which : {"b", "a"}) {
    ReferenceSpec alt = rs;
    if (which[0] == 'b')
      alt.transB = !alt.transB;
    else
      alt.transA = !alt.transA;
    try {
      makeGemm(alt, need(s, rs.a, "a").view(), need(s, rs.b, "b").view(), refView(s, rs.out))(nullptr);
      syncOrThrow(s, "cuBLAS transposed-operand reference");
      const DeviceTensor* r = nullptr;
      for (const DeviceTensor& t : s.refOutputs)
        if (t.name == rs.out) r = &t;
      HostTensor h;
      std::string error;
      if (!r || !downloadTensor(*r, &h, &error)) continue;
      CompareResult c =
          compareOutputs(out, h, s.cfg->tolerance.rtol, s.cfg->tolerance.atol, tileExtent, nullptr);
      if (c.info.mismatches == 0 && c.info.nan == 0) return which;
    } catch (const std::exception&) {
      if (s.dead) return "";  // shapes that do not allow the transpose throw; try the other operand
    }
  }
  return "";
}

StreamCall makeBaselineCall(MeasureState& s) {
  const Config& cfg = *s.cfg;
  const ReferenceSpec& rs = cfg.reference;
  allocateRefOutputs(s);
  if (cfg.baseline.kind == "cublas") {
    if (rs.a.empty() || rs.b.empty() || rs.out.empty())
      throw std::runtime_error("baseline cublas needs a gemm reference naming a, b and out");
    return makeGemm(rs, need(s, rs.a, "a").view(), need(s, rs.b, "b").view(), refView(s, rs.out));
  }
  if (cfg.baseline.kind == "sdpa" || cfg.baseline.kind == "sdpa_math") {
    if (rs.q.empty() || rs.out.empty())
      throw std::runtime_error("baseline sdpa needs an sdpa reference naming q, k, v and out");
    auto q = need(s, rs.q, "q").view(), k = need(s, rs.k, "k").view(), v = need(s, rs.v, "v").view();
    return cfg.baseline.kind == "sdpa" ? makeSdpa(rs, q, k, v, refView(s, rs.out))
                                       : makeSdpaMath(rs, q, k, v, refView(s, rs.out));
  }
  // `command` baselines run outside the worker (an external program).
  return {};
}

void timeBaseline(MeasureState& s, Point& p) {
  const Config& cfg = *s.cfg;
  p.baseline.name = cfg.baseline.kind;
  try {
    StreamCall call = makeBaselineCall(s);
    if (!call) {
      p.baseline.error = "baseline '" + cfg.baseline.kind + "' is not timed in the capture";
      return;
    }
    TimingOptions to;
    to.warmup = cfg.run.warmup;
    to.minReps = cfg.run.minReps;
    to.maxReps = cfg.run.maxReps;
    to.budgetS = cfg.run.timeBudgetS;
    TimingResult r = timeCalls(call, to);
    p.baseline.measured = r.info.measured;
    p.baseline.kernelNs = r.info.kernelNs;
    p.baseline.kernels = r.kernelsPerCall;
    s.baselineKernelNames = r.kernelNames;
    if (!r.error.empty()) p.baseline.error = r.error;
  } catch (const std::exception& e) {
    p.baseline.error = e.what();
  }
}

}  // namespace tilescope::cuda::detail
