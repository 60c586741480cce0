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

#include "tilescope/config/config.h"
#include "tilescope/model/measurements.h"
#include "tilescope/model/stages_info.h"

namespace tilescope::cuda {

/// One parameter of a compiled Triton kernel, as Triton's JIT would have specialised it.
struct TritonParam {
  std::string name;
  std::string type;          ///< "*fp16", "i32", "fp32", or "constexpr" (not a kernel parameter)
  bool divisible16 = false;  ///< tt.divisibility=16 (a 16-byte aligned pointer, an int % 16 == 0)
  nlohmann::json value;      ///< a constexpr's value
  bool specialized = false;  ///< an argument equal to 1 that the JIT turns into a constexpr
};

/// What a compiled Triton kernel fixes about its launch (Triton's metadata): the
/// block is 32·numWarps threads, the grid's x is multiplied by numCtas (a cluster),
/// `sharedBytes` is dynamic shared memory, and `scratchParams` pointers follow the
/// kernel's own parameters (global scratch, then profile scratch, Triton >= 3.3).
struct TritonKernelMeta {
  std::string name;  ///< the cubin's kernel symbol
  std::string tritonVersion;
  int numWarps = 4, numStages = 3, numCtas = 1;
  int clusterDims[3] = {1, 1, 1};
  std::int64_t sharedBytes = 0;
  std::int64_t globalScratchSize = 0, globalScratchAlign = 1;  ///< bytes per CTA
  std::int64_t profileScratchSize = 0, profileScratchAlign = 1;
  int scratchParams = 0;
  std::vector<int>
      ptxParamBytes;  ///< the .entry's parameter sizes (the launch checks its packing against them)
  bool cooperative = false, pdl = false;
  std::vector<TritonParam> signature;  ///< every Python parameter, in order
  int defLine = 0;                     ///< the .py line of the kernel's `def`
  std::string ptxasLog;                ///< ptxas -v of the compile (registers, spills)
  nlohmann::json toJson() const;       ///< for Point.extra["triton"]
  static TritonKernelMeta fromJson(const nlohmann::json& j);
};

/// What TileLang decided about a kernel it generated: its launch (T.Kernel's grid and
/// threads, the dynamic shared memory of its pipeline) and parameters.
struct TileLangKernelMeta {
  std::string name;  ///< the generated kernel's symbol (main_kernel)
  std::string tilelangVersion;
  std::int64_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  std::int64_t sharedBytes = 0;
  nlohmann::json params;        ///< [{name, dtype, shape}] of the program's buffers
  std::string generatedSource;  ///< the .cu TileLang wrote (in the kernel cache)
  nlohmann::json toJson() const;
};

/// What cuModuleLoadData gets: a cubin (ELF), a fatbin, or NUL-terminated PTX text.
struct CompiledKernel {
  enum class Format { cubin, fatbin, ptx };
  std::vector<char> image;
  Format format = Format::cubin;
  std::string entry;                       ///< as written in the config
  std::string loweredName;                 ///< the symbol to pass to cuModuleGetFunction ("" when unknown)
  std::vector<std::string> kernels;        ///< every kernel symbol in the image (when it is an ELF)
  std::optional<TritonKernelMeta> triton;  ///< a Triton kernel's launch metadata
  std::optional<TileLangKernelMeta> tilelang;  ///< a TileLang kernel's launch metadata
};

/// Compiles `k` for `arch` ("sm_90"). Never throws for compiler errors: those come
/// back as ok=false with the compiler's log. Resource usage (regs, smemStatic,
/// localBytes, spill bytes, maxThreadsPerBlock when __launch_bounds__ fixes it) is
/// filled whenever the image is a cubin. Cached cubins live under
/// $TILESCOPE_CACHE_DIR, else ~/.cache/tilescope/kernels (cached=true on a hit).
/// `out` may be null (check only).
CompileInfo compileKernel(const KernelSpec& k,
                          const std::vector<std::pair<std::string, DefineValue>>& defines,
                          const std::string& arch, CompiledKernel* out);

/// compileKernel in a child process that is killed after `timeoutS` seconds
/// (<= 0: no limit), for callers with no watchdog of their own (`check`): NVRTC
/// cannot be interrupted in-process, and some sources make it run for hours. A
/// compile that runs out of time, or crashes the compiler, comes back as ok=false
/// with a log saying so.
CompileInfo compileKernelIsolated(const KernelSpec& k,
                                  const std::vector<std::pair<std::string, DefineValue>>& defines,
                                  const std::string& arch, double timeoutS);
/// Compiles a Triton config point (kernel.language "triton") for `arch` through the
/// Python helper (resources/python/tilescope/triton_helper), as a child process with a
/// time limit; cached like compileKernel, keyed by the source (and the .py modules
/// beside it that it imports), the constexprs, the options, the specialisation of
/// the arguments and the Triton version. `alignedPointers`: whether tensor base
/// pointers are 16-byte aligned (diagnose's shifted pointers are not, and Triton's
/// JIT would specialise differently). Never throws for compiler errors; the log then
/// starts with "FILE.py:LINE:COL: error: MESSAGE" and holds Triton's whole message.
CompileInfo compileTriton(const Config& point, const std::string& arch, bool alignedPointers,
                          CompiledKernel* out);

/// The helper's request for one Triton point (pure: the tests check it).
nlohmann::json tritonRequest(const Config& point, int sm, bool alignedPointers);

/// Compiles a TileLang point (kernel.language "tilelang"): the helper has TileLang
/// generate CUDA for `entry(**constexprs)`, which nvcc compiles with TileLang's headers
/// (sm_90a on Hopper: TileLang's Hopper code uses wgmma). The config's launch.grid
/// must equal TileLang's; block and shared memory come from TileLang.
CompileInfo compileTileLang(const Config& point, const std::string& arch, CompiledKernel* out);

/// compileTriton / compileTileLang for Python kernels, compileKernel for the rest.
CompileInfo compilePoint(const Config& point, const std::string& arch, bool alignedPointers,
                         CompiledKernel* out);

/// The PTX of a .cu source (`-lineinfo` in k.options gives its `.loc` lines):
/// NVRTC for the architecture's compute_XX, or nvcc -ptx, with the same defines,
/// options and include folders as compileKernel. Not cached. ok=false with the log.
CompileInfo compilePtx(const KernelSpec& k, const std::vector<std::pair<std::string, DefineValue>>& defines,
                       const std::string& arch, std::string* ptx);

/// The compiler stages of a point (`check --stages`, `run --stages`;
/// docs/report.md, "Compiler stages"), without a GPU: CUDA C++ (and TileLang's
/// generated .cu) compiled again with -lineinfo, to PTX and a cubin whose SASS
/// nvdisasm lists (nvdisasmPath()); Triton's TTIR, TTGIR, LLIR, PTX and SASS from
/// its own compile. Stages that cannot be had are listed absent, with why. Each
/// stage is clipped to kMaxStageBytes. Never throws for compiler errors.
StagesInfo collectStages(const Config& point, const std::string& arch);

/// nvdisasm: $TILESCOPE_NVDISASM, the nvidia-cuda-nvdisasm package of the Python
/// interpreter TileScope uses (scripts/install-deps.sh installs it), the CUDA
/// toolkit's, PATH's, then the one bundled with Triton; "" when none (*why says
/// where it looked).
std::string nvdisasmPath(std::string* why = nullptr);

/// The first error of a compiler log (NVRTC, nvcc, ptxas): its line number in the
/// source (0 when the log names none) and the message without the file prefix.
std::optional<std::pair<int, std::string>> firstCompileError(const std::string& log);

/// "sm_90" for compute capability 9.0 (architecture-specific "a" variants excluded).
std::string archForCc(int major, int minor);

// --- cubin inspection (no GPU) ------------------------------------------------

/// Per-kernel resource usage read from a cubin's ELF sections.
struct CubinKernelInfo {
  std::string name;  ///< symbol (mangled for C++ kernels)
  int regs = -1;
  std::int64_t smemStatic = -1;
  std::int64_t frameBytes = -1;     ///< EIATTR_FRAME_SIZE: local memory per thread
  std::int64_t minStackBytes = -1;  ///< EIATTR_MIN_STACK_SIZE
  int maxThreads = -1;              ///< from __launch_bounds__/maxntid, -1 when not fixed
};

struct CubinInfo {
  bool valid = false;
  std::string error;  ///< why parsing failed
  int smVersion = 0;  ///< 90 for sm_90
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
