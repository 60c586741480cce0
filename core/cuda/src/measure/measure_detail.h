// Internals shared by measure*.cpp (not a public header).
#pragma once

#include <cuda.h>

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tilescope/config/config.h"
#include "tilescope/cuda/driver.h"
#include "tilescope/cuda/launch.h"
#include "tilescope/cuda/measure.h"
#include "tilescope/cuda/module.h"
#include "tilescope/cuda/reference.h"
#include "tilescope/cuda/tensors.h"

namespace tilescope::cuda::detail {

/// A bytes argument's content with each relocation written: the tensor's
/// replay address plus its delta (docs/config.md, "Arguments passed as bytes").
bool relocatedBytes(const ArgSpec& a, const std::map<std::string, CUdeviceptr>& pointers,
                    const std::string& jsonPath, std::vector<unsigned char>* out, std::string* error);

/// Tensor names -> device pointers; scalars evaluated through resolveScalarArg;
/// bytes arguments relocated (relocatedBytes).
bool buildArgs(const std::vector<ArgSpec>& args, const std::map<std::string, std::int64_t>& symbols,
               const std::map<std::string, CUdeviceptr>& pointers, const std::string& jsonPath,
               KernelArgs* out, std::string* error);

LaunchGeometry toGeometry(const ResolvedLaunch& l);

/// A Triton kernel's parameters from its compiled signature: the config's args in
/// order, minus those the JIT specialised into constexprs, typed as Triton typed
/// them, then the scratch pointers (`scratch`: global, profile) Triton appends.
bool buildTritonArgs(const std::vector<ArgSpec>& args, const TritonKernelMeta& meta,
                     const std::map<std::string, std::int64_t>& symbols,
                     const std::map<std::string, CUdeviceptr>& pointers, const CUdeviceptr scratch[2],
                     KernelArgs* out, std::string* error);
/// The geometry Triton's launcher uses: grid x times num_ctas, clusters of num_ctas.
LaunchGeometry tritonGeometry(const ResolvedLaunch& l, const TritonKernelMeta& meta);

/// Checks the launch against the device and the function before launching; a
/// violated limit becomes a launch_error finding (smem_exceeded, too_many_resources,
/// invalid_launch). Raises the dynamic shared memory limit above 48 KiB (adding an
/// info finding). Returns false when the launch must not happen.
bool prepareLaunch(CUfunction f, const CompileInfo& ci, const ResolvedLaunch& l, const LiveLimits& lim,
                   std::vector<Finding>* findings);

/// A finding for a CUDA error of a launch (`what`: "kernel", "reference kernel").
Finding errorFinding(CUresult r, const std::string& what, const ResolvedLaunch& l);

/// Everything a measurement allocated; freed on destruction unless the context is dead.
struct MeasureState {
  const Config* cfg = nullptr;
  ResolvedPoint resolved;
  LiveLimits limits;
  std::vector<DeviceTensor> tensors;
  std::vector<DeviceTensor> refOutputs;  ///< reference buffers of outputs (same order as outputs)
  std::vector<LoadedKernel> modules;     ///< the kernel's module first (a traced copy may follow)
  CompiledKernel compiled;  ///< the kernel's image (the tracer loads a second copy and reads its lines)
  std::optional<TritonKernelMeta> triton;        ///< the main kernel is a Triton kernel
  std::vector<CUdeviceptr> scratch;              ///< Triton's global/profile scratch buffers
  std::vector<std::string> baselineKernelNames;  ///< one baseline call's kernels in launch order (timing)
  bool dead = false;
  ~MeasureState();
  DeviceTensor* tensor(const std::string& name);
  DeviceTensor* refOutput(const std::string& name);
};

/// Runs the config's reference into state.refOutputs and returns the host copies
/// by output name (empty map when op is none). Sets *label (gemm(cublas), npy, ...).
/// Throws std::runtime_error with a clear message when the reference fails;
/// sets state.dead on a sticky error of a reference kernel.
std::map<std::string, HostTensor> runReference(MeasureState& s, const MeasureOptions& opts,
                                               std::string* label);

/// For a gemm reference: does `out` equal the product with operand a or b
/// transposed? Returns "a", "b" or "" (no, or the shapes allow neither).
std::string transposedOperand(MeasureState& s, const HostTensor& out,
                              const std::vector<std::int64_t>& tileExtent);

/// The baseline named by the config as a callable (cublas, sdpa, sdpa_math);
/// empty for baselines that run outside the worker. Throws with a clear message
/// when the config's reference does not name what the baseline needs.
StreamCall makeBaselineCall(MeasureState& s);

/// Times the baseline named by the config (cublas, sdpa, sdpa_math); fills p.baseline.
void timeBaseline(MeasureState& s, Point& p);

/// The profiling pass (after timing, so timings stay unperturbed): hardware
/// counters of the kernel and of the baseline's kernels, and PC sampling of the
/// kernel folded to source lines. Fills p.counters; on any failure a note
/// says what failed, p.counters.passFailed is set and the measurement goes on.
void profileCounters(MeasureState& s, CUfunction fn, const LaunchGeometry& g, KernelArgs& args, Point& p,
                     const MeasureOptions& opts, const std::function<void(const Point&)>& checkpoint);

}  // namespace tilescope::cuda::detail
