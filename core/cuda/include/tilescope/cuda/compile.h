// Kernel compilation without a GPU: NVRTC or nvcc for .cu sources, ptxas for
// prebuilt .ptx, pass-through for .cubin/.fatbin; a disk cache of cubins; and the
// resource usage (registers, static shared memory, stack, spills) read from the
// compiler's verbose output and from the cubin's ELF .nv.info sections.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tilescope/config.h"
#include "tilescope/report.h"

namespace tilescope::cuda {

/// What cuModuleLoadData gets: a cubin (ELF), a fatbin, or NUL-terminated PTX text.
struct CompiledKernel {
  enum class Format { cubin, fatbin, ptx };
  std::vector<char> image;
  Format format = Format::cubin;
  std::string entry;          ///< as written in the config
  std::string loweredName;    ///< the symbol to pass to cuModuleGetFunction ("" when unknown)
  std::vector<std::string> kernels;  ///< every kernel symbol in the image (when it is an ELF)
};

/// Compiles `k` for `arch` ("sm_90"). Never throws for compiler errors: those come
/// back as ok=false with the compiler's log. Resource usage (regs, smemStatic,
/// localBytes, spill bytes, maxThreadsPerBlock when __launch_bounds__ fixes it) is
/// filled whenever the image is a cubin. Cached cubins live under
/// $TILESCOPE_CACHE_DIR, else ~/.cache/tilescope/kernels (cached=true on a hit).
/// `out` may be null (check only).
CompileInfo compileKernel(const KernelSpec& k, const std::vector<std::pair<std::string, DefineValue>>& defines,
                          const std::string& arch, CompiledKernel* out);

/// compileKernel in a child process that is killed after `timeoutS` seconds
/// (<= 0: no limit), for callers with no watchdog of their own (`check`): NVRTC
/// cannot be interrupted in-process, and some sources make it run for hours. A
/// compile that runs out of time, or crashes the compiler, comes back as ok=false
/// with a log saying so.
CompileInfo compileKernelIsolated(const KernelSpec& k, const std::vector<std::pair<std::string, DefineValue>>& defines,
                                  const std::string& arch, double timeoutS);

/// The first error of a compiler log (NVRTC, nvcc, ptxas): its line number in the
/// source (0 when the log names none) and the message without the file prefix.
std::optional<std::pair<int, std::string>> firstCompileError(const std::string& log);

/// "sm_90" for compute capability 9.0 (architecture-specific "a" variants excluded).
std::string archForCc(int major, int minor);

// --- cubin inspection (no GPU) ------------------------------------------------

/// Per-kernel resource usage read from a cubin's ELF sections.
struct CubinKernelInfo {
  std::string name;           ///< symbol (mangled for C++ kernels)
  int regs = -1;
  std::int64_t smemStatic = -1;
  std::int64_t frameBytes = -1;    ///< EIATTR_FRAME_SIZE: local memory per thread
  std::int64_t minStackBytes = -1; ///< EIATTR_MIN_STACK_SIZE
  int maxThreads = -1;             ///< from __launch_bounds__/maxntid, -1 when not fixed
};

struct CubinInfo {
  bool valid = false;
  std::string error;          ///< why parsing failed
  int smVersion = 0;          ///< 90 for sm_90
  std::vector<CubinKernelInfo> kernels;
  const CubinKernelInfo* find(const std::string& symbol) const;
};

/// Parses an ELF cubin image. A fatbin is searched for an embedded uncompressed
/// cubin of `preferredSm` (or any).
CubinInfo inspectCubin(const std::vector<char>& image, int preferredSm = 0);

/// Matches a config entry against kernel symbols: exact symbol, or the demangled
/// name without template arguments and parameters ("gemm" matches _Z4gemmPfi).
/// Returns "" when none matches.
std::string matchEntry(const std::string& entry, const std::vector<std::string>& symbols);

/// Resource figures from a ptxas verbose log for one function (`symbol`, or the
/// first when empty). Only fields found are overwritten.
void parsePtxasResources(const std::string& log, const std::string& symbol, CompileInfo* info);

/// The CUDA toolkit root: $CUDA_HOME, $CUDA_PATH, else /usr/local/cuda.
std::string cudaToolkitRoot();

}  // namespace tilescope::cuda
