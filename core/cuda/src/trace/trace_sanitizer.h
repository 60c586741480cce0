// The Sanitizer API entry points the tracer uses, resolved with dlopen so that
// tilescope-run starts (and traces nothing, saying why) where the library is
// missing. Internal to core/cuda; the vendor types stay in the .cpp.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>

namespace tilescope::cuda::detail {

/// Instrumentation points, mapped onto Sanitizer_InstructionId in the .cpp.
enum class PatchPoint {
  globalAccess,
  sharedAccess,
  localAccess,
  barrier,
  blockEnter,
  blockExit,
  memcpyAsync,
  matrixAccess,
  bulkCopyGlobalToShared,
  bulkCopySharedToGlobal,
  cudaBarrier,        ///< mbarrier init/arrive/wait (cuda::barrier)
  cudaBarrierAttempt  ///< mbarrier try_wait
};

class SanitizerApi {
 public:
  static SanitizerApi& instance();
  /// "" once loaded and subscribed, else the reason (cached).
  const std::string& init();
  bool ready() const { return m_ready; }
  const std::string& libraryPath() const { return m_path; }

  /// Loads the embedded patch fatbin into `ctx` (once per context).
  std::string addPatches(CUcontext ctx);
  std::string patch(CUmodule module, PatchPoint point);
  std::string patchModule(CUmodule module);
  std::string setCallbackData(CUfunction f, CUdeviceptr data);
  bool functionPcAndSize(CUmodule module, const std::string& name, std::uint64_t* pc, std::uint64_t* size);

  struct Fns;  ///< the resolved entry points (defined in the .cpp)

 private:
  SanitizerApi() = default;
  Fns* m_fns = nullptr;
  bool m_tried = false, m_ready = false;
  std::string m_error, m_path;
  CUcontext m_patchedCtx = nullptr;
};

}  // namespace tilescope::cuda::detail
