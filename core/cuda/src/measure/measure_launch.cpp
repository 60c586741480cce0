// Kernel arguments, launch checks and launch errors.
#include <algorithm>
#include <cstring>

#include "measure/measure_detail.h"

namespace tilescope::cuda::detail {

bool relocatedBytes(const ArgSpec& a, const std::map<std::string, CUdeviceptr>& pointers,
                    const std::string& jsonPath, std::vector<unsigned char>* out, std::string* error) {
  // Padded: a config whose content is shorter than the kernel's parameter
  // must not make the driver read past the buffer.
  out->assign(std::max<std::size_t>(a.bytes.size(), kMaxKernelParamBytes + 4), 0);
  std::copy(a.bytes.begin(), a.bytes.end(), out->begin());
  for (std::size_t r = 0; r < a.relocations.size(); ++r) {
    const ArgRelocation& rel = a.relocations[r];
    auto it = pointers.find(rel.tensor);
    if (it == pointers.end() || std::size_t(rel.offset) + 8 > a.bytes.size()) {
      *error = jsonPath + ".relocations[" + std::to_string(r) + "]: unknown tensor '" + rel.tensor +
               "' or an offset outside the argument";
      return false;
    }
    const std::uint64_t p = std::uint64_t(it->second) + std::uint64_t(rel.delta);
    std::memcpy(out->data() + rel.offset, &p, 8);
  }
  return true;
}

bool buildArgs(const std::vector<ArgSpec>& args, const std::map<std::string, std::int64_t>& symbols,
               const std::map<std::string, CUdeviceptr>& pointers, const std::string& jsonPath,
               KernelArgs* out, std::string* error) {
  out->storage.assign(args.size(), {});
  out->blobs.clear();
  out->params.clear();
  std::vector<std::size_t> blobOf(args.size(), SIZE_MAX);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const ArgSpec& a = args[i];
    auto& slot = out->storage[i];
    if (a.isBytes) {
      std::vector<unsigned char> blob;
      if (!relocatedBytes(a, pointers, jsonPath + "[" + std::to_string(i) + "]", &blob, error)) return false;
      blobOf[i] = out->blobs.size();
      out->blobs.push_back(std::move(blob));
    } else if (a.isTensor) {
      auto it = pointers.find(a.tensor);
      if (it == pointers.end()) {
        *error = jsonPath + "[" + std::to_string(i) + "]: unknown tensor '" + a.tensor + "'";
        return false;
      }
      std::memcpy(slot.data(), &it->second, sizeof(CUdeviceptr));
    } else {
      ResolvedScalarArg v = resolveScalarArg(a, symbols, jsonPath + "[" + std::to_string(i) + "]");
      switch (v.type) {
        case ScalarType::i32: {
          auto x = std::int32_t(v.i);
          std::memcpy(slot.data(), &x, 4);
          break;
        }
        case ScalarType::u32: {
          auto x = std::uint32_t(v.i);
          std::memcpy(slot.data(), &x, 4);
          break;
        }
        case ScalarType::i64: {
          auto x = std::int64_t(v.i);
          std::memcpy(slot.data(), &x, 8);
          break;
        }
        case ScalarType::u64: {
          auto x = std::uint64_t(v.i);
          std::memcpy(slot.data(), &x, 8);
          break;
        }
        case ScalarType::f32: {
          auto x = float(v.f);
          std::memcpy(slot.data(), &x, 4);
          break;
        }
        case ScalarType::f64: {
          double x = v.f;
          std::memcpy(slot.data(), &x, 8);
          break;
        }
      }
    }
  }
  for (std::size_t i = 0; i < args.size(); ++i)
    out->params.push_back(blobOf[i] == SIZE_MAX ? static_cast<void*>(out->storage[i].data())
                                                : static_cast<void*>(out->blobs[blobOf[i]].data()));
  return true;
}

LaunchGeometry toGeometry(const ResolvedLaunch& l) {
  LaunchGeometry g;
  for (int d = 0; d < 3; ++d) {
    g.grid[d] = unsigned(l.grid[d]);
    g.block[d] = unsigned(l.block[d]);
  }
  g.sharedBytes = unsigned(l.sharedBytes);
  for (int d = 0; d < 3; ++d) g.cluster[d] = unsigned(l.cluster[d]);
  return g;
}

LaunchGeometry tritonGeometry(const ResolvedLaunch& l, const TritonKernelMeta& meta) {
  LaunchGeometry g = toGeometry(l);
  g.grid[0] *= unsigned(std::max(meta.numCtas, 1));
  if (meta.numCtas > 1)
    for (int d = 0; d < 3; ++d) g.cluster[d] = unsigned(std::max(meta.clusterDims[d], 1));
  g.cooperative = meta.cooperative;
  return g;
}

namespace {

/// Writes one scalar of Triton type `type` into `slot`; its size in bytes, 0 for a type
/// the launch cannot pass.
int packTritonScalar(const std::string& type, const ResolvedScalarArg& v,
                     std::array<unsigned char, 8>& slot) {
  const bool isFloat = v.type == ScalarType::f32 || v.type == ScalarType::f64;
  if (type == "i32" || type == "u32") {
    auto x = std::uint32_t(isFloat ? std::int64_t(v.f) : v.i);
    std::memcpy(slot.data(), &x, 4);
    return 4;
  }
  if (type == "i64" || type == "u64") {
    auto x = std::int64_t(isFloat ? std::int64_t(v.f) : v.i);
    std::memcpy(slot.data(), &x, 8);
    return 8;
  }
  if (type == "fp32") {
    auto x = float(v.f);
    std::memcpy(slot.data(), &x, 4);
    return 4;
  }
  if (type == "fp64") {
    double x = v.f;
    std::memcpy(slot.data(), &x, 8);
    return 8;
  }
  return 0;
}

}  // namespace

bool buildTritonArgs(const std::vector<ArgSpec>& args, const TritonKernelMeta& meta,
                     const std::map<std::string, std::int64_t>& symbols,
                     const std::map<std::string, CUdeviceptr>& pointers, const CUdeviceptr scratch[2],
                     KernelArgs* out, std::string* error) {
  out->storage.clear();
  out->params.clear();
  std::vector<int> sizes;  // bytes of each packed parameter, checked against the PTX entry
  std::size_t next = 0;    // the config arg of the next runtime parameter
  for (const TritonParam& p : meta.signature) {
    if (p.type == "constexpr" && !p.specialized) continue;  // declared tl.constexpr: no config arg
    if (next >= args.size()) {
      *error = "args: the compiled kernel has more runtime parameters than the config's " +
               std::to_string(args.size());
      return false;
    }
    const ArgSpec& a = args[next];
    const std::string path = "args[" + std::to_string(next++) + "]";
    if (p.type == "constexpr") continue;  // specialised: compiled into the kernel
    std::array<unsigned char, 8> slot{};
    if (!p.type.empty() && p.type[0] == '*') {
      auto it = a.isTensor ? pointers.find(a.tensor) : pointers.end();
      if (it == pointers.end()) {
        *error = path + ": parameter " + p.name + " is a pointer (" + p.type + ") but '" + a.text +
                 "' is not a tensor";
        return false;
      }
      std::memcpy(slot.data(), &it->second, sizeof(CUdeviceptr));
      sizes.push_back(8);
    } else {
      if (a.isTensor) {
        *error =
            path + ": parameter " + p.name + " is a scalar (" + p.type + ") but '" + a.text + "' is a tensor";
        return false;
      }
      const int bytes = packTritonScalar(p.type, resolveScalarArg(a, symbols, path), slot);
      if (bytes == 0) {
        *error =
            path + ": parameter " + p.name + " has Triton type " + p.type + ", which TileScope cannot pass";
        return false;
      }
      sizes.push_back(bytes);
    }
    out->storage.push_back(slot);
  }
  for (int i = 0; i < meta.scratchParams; ++i) {
    std::array<unsigned char, 8> slot{};
    CUdeviceptr ptr = i < 2 ? scratch[i] : 0;
    std::memcpy(slot.data(), &ptr, sizeof ptr);
    out->storage.push_back(slot);
    sizes.push_back(8);
  }
  // The kernel reads its parameters by the PTX entry's layout: a different packing
  // would launch with garbage, so it is refused here with both layouts.
  if (!meta.ptxParamBytes.empty() && sizes != meta.ptxParamBytes) {
    auto list = [](const std::vector<int>& v) {
      std::string s;
      for (int b : v) s += (s.empty() ? "" : ", ") + std::to_string(b);
      return "[" + s + "]";
    };
    *error = "args: the packed parameters (bytes " + list(sizes) +
             ") do not match the kernel's PTX entry (bytes " + list(meta.ptxParamBytes) + ")";
    return false;
  }
  for (auto& s : out->storage) out->params.push_back(s.data());
  return true;
}

namespace {
Finding launchFinding(const std::string& category, const std::string& message, nlohmann::json evidence) {
  Finding f;
  f.category = category;
  f.severity = Severity::error;
  f.message = message;
  f.evidence = std::move(evidence);
  return f;
}
}  // namespace

bool prepareLaunch(CUfunction f, const CompileInfo& ci, const ResolvedLaunch& l, const LiveLimits& lim,
                   std::vector<Finding>* findings) {
  const char* axis = "xyz";
  for (int d = 0; d < 3; ++d) {
    if (l.block[d] < 1 || l.block[d] > lim.maxBlock[d] || l.grid[d] < 1 || l.grid[d] > lim.maxGrid[d]) {
      findings->push_back(launchFinding(
          "invalid_launch",
          std::string("launch dimension ") + axis[d] + " out of the device's limits: grid " +
              std::to_string(l.grid[d]) + " (max " + std::to_string(lim.maxGrid[d]) + "), block " +
              std::to_string(l.block[d]) + " (max " + std::to_string(lim.maxBlock[d]) + ")",
          {{"axis", std::string(1, axis[d])},
           {"grid", l.grid[d]},
           {"block", l.block[d]},
           {"max_grid", lim.maxGrid[d]},
           {"max_block", lim.maxBlock[d]}}));
      return false;
    }
  }
  const std::int64_t threads = l.threadsPerBlock();
  if (threads > lim.maxThreadsPerBlock) {
    findings->push_back(launchFinding("invalid_launch",
                                      std::to_string(threads) + " threads per block, the device allows " +
                                          std::to_string(lim.maxThreadsPerBlock),
                                      {{"threads", threads}, {"max_threads", lim.maxThreadsPerBlock}}));
    return false;
  }
  if (ci.maxThreadsPerBlock > 0 && threads > ci.maxThreadsPerBlock) {
    // The driver's per-function limit: registers x threads must fit one SM's register file.
    findings->push_back(launchFinding(
        "too_many_resources",
        std::to_string(threads) + " threads per block but the kernel (" + std::to_string(ci.regs) +
            " registers per thread) can launch at most " + std::to_string(ci.maxThreadsPerBlock),
        {{"threads", threads},
         {"max_threads_for_kernel", ci.maxThreadsPerBlock},
         {"regs", ci.regs},
         {"regs_per_block", lim.regsPerBlock}}));
    return false;
  }
  const std::int64_t smemStatic = std::max<std::int64_t>(ci.smemStatic, 0);
  const std::int64_t total = smemStatic + l.sharedBytes;
  if (total > lim.smemPerBlockOptin) {
    findings->push_back(launchFinding(
        "smem_exceeded",
        "shared memory per block " + std::to_string(total) + " bytes (static " + std::to_string(smemStatic) +
            " + dynamic " + std::to_string(l.sharedBytes) + ") exceeds the device's opt-in limit of " +
            std::to_string(lim.smemPerBlockOptin) + " bytes",
        {{"smem_static", smemStatic},
         {"smem_dynamic", l.sharedBytes},
         {"limit_optin", lim.smemPerBlockOptin}}));
    return false;
  }
  if (total > lim.smemPerBlock) {
    CUresult r = cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(l.sharedBytes));
    // Triton's and TileLang's launchers raise the limit themselves; CUDA C++ host code must.
    const std::string launcher = ci.compiler.rfind("triton", 0) == 0     ? "Triton's"
                                 : ci.compiler.rfind("tilelang", 0) == 0 ? "TileLang's"
                                 : l.sharedOptIn                         ? "the captured program's"
                                                                         : "";
    // Its own category: this is not a failure (docs/report.md, smem_opt_in).
    Finding info = launchFinding(
        "smem_opt_in",
        "the kernel uses " + std::to_string(total) + " bytes of shared memory per block, above the " +
            std::to_string(lim.smemPerBlock) +
            "-byte default: TileScope raised CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES" +
            (launcher.empty() ? "; the kernel's own host code must do the same (cudaFuncSetAttribute(kernel, "
                                "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)) or its launch fails"
                              : ", as " + launcher + " own launcher does"),
        {{"smem_static", smemStatic},
         {"smem_dynamic", l.sharedBytes},
         {"limit_default", lim.smemPerBlock},
         {"opt_in_set", r == CUDA_SUCCESS}});
    info.severity = Severity::info;
    findings->push_back(info);
    if (r != CUDA_SUCCESS) {
      findings->push_back(launchFinding("smem_exceeded",
                                        "raising the dynamic shared memory limit failed: " + cuErrorText(r),
                                        {{"error", cuErrorName(r)}}));
      return false;
    }
  }
  return true;
}

Finding errorFinding(CUresult r, const std::string& what, const ResolvedLaunch& l) {
  ErrorClass ec = classifyCuError(r);
  Finding f;
  f.category = ec.category;
  f.severity = Severity::error;
  const bool sticky = isStickyError(r);
  f.message = "the " + what + (sticky ? " faulted: " : " failed to launch: ") + cuErrorText(r);
  if (sticky)
    f.message +=
        " (the error is sticky: the context is unusable, so this capture stops here; "
        "compute-sanitizer or `tilescope-run diagnose` can locate the access)";
  f.evidence = {{"error", cuErrorName(r)},
                {"error_text", cuErrorText(r)},
                {"sticky", sticky},
                {"grid", {l.grid[0], l.grid[1], l.grid[2]}},
                {"block", {l.block[0], l.block[1], l.block[2]}},
                {"shared_bytes", l.sharedBytes}};
  return f;
}

}  // namespace tilescope::cuda::detail
