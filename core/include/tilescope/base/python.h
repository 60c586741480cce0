// The Python side of Triton and TileLang kernels: which interpreter TileScope runs
// its helper (resources/python/tilescope/triton_helper) with, and running it as a child
// process with a time limit (a compiler that hangs ends only the helper).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace tilescope {

/// The interpreter for the helper, first that applies: $TILESCOPE_PYTHON; the virtual
/// environment scripts/install-deps.sh makes (build-deps/triton-venv beside the source
/// tree's resources/); python3 on PATH.
std::string pythonInterpreter();

/// resourceDir()/python: the root of TileScope's Python package `tilescope`
/// (the helpers, the capture's recorder, the triage runner).
std::filesystem::path pythonPackageRoot();

/// pythonPackageRoot()/tilescope/triton_helper/__main__.py: the Triton and TileLang helper.
std::filesystem::path tritonHelperScript();

struct PythonResult {
  bool started = false;
  int exitCode = -1;
  int signal = 0;  ///< a crash inside the compiler (an MLIR assertion aborts)
  bool timedOut = false;
  bool outputCut = false;  ///< stopped for printing more than kMaxPythonOutputBytes
  std::string out, err;    ///< stdout, stderr
  double seconds = 0;
  std::string describe() const;  ///< "exit 1", "SIGABRT (Aborted)", "timed out after 120 s"
};

/// Runs the interpreter with `args` (no shell), stdout and stderr collected, killed
/// after `timeoutS` seconds.
PythonResult runPython(const std::vector<std::string>& args, double timeoutS);

/// The most a helper may print on stdout (its answers are a few kilobytes; a
/// kernel file's own prints at import count too): past it the helper is stopped.
inline constexpr std::size_t kMaxPythonOutputBytes = std::size_t{16} << 20;

/// Whether a config's Python files may run unconfined (the user passed
/// --allow-commands). Off by default: runKernelHelper confines them.
void setPythonKernelsTrusted(bool trusted);
bool pythonKernelsTrusted();

/// Runs the helper on a config's kernel file (compile, signature, tilelang):
/// confined (sandbox.h) unless pythonKernelsTrusted(), with `kernelDir`
/// readable and `workDir` writable (empty: a private temporary folder of its
/// own, removed afterwards). Where no sandbox can start, the helper does
/// not run: the result is not started and `err` says why and what would fix it.
PythonResult runKernelHelper(const std::vector<std::string>& args, double timeoutS,
                             const std::filesystem::path& kernelDir, const std::filesystem::path& workDir);

/// What the interpreter reads besides a kernel: its prefixes and sys.path (a
/// venv's python links into its base installation, which may be in $HOME):
/// the readable folders of a sandbox that runs it (sandbox.h). Memoised.
std::vector<std::filesystem::path> interpreterPaths();

/// A kernel's (or a problem's) folder as a sandbox may show it: the folder, or
/// its .py files alone where the folder would uncover a hidden one (a kernel
/// kept directly in $HOME must not show ~/.ssh).
std::vector<std::filesystem::path> kernelReadable(const std::filesystem::path& dir);

/// Whether the interpreter imports `module` (memoised per interpreter and module).
bool pythonHasModule(const std::string& module);

/// The installed version of a distribution ("3.6.0"), or "" when it is not
/// installed (importlib.metadata: no import of the package itself). Memoised.
std::string pythonPackageVersion(const std::string& distribution);

/// The include folders of TileLang's CUDA headers (`tl_templates/...` and its
/// CUTLASS/CuTe), first found of: $TILESCOPE_TILELANG_HOME, the interpreter's installed
/// tilelang package, the copy scripts/install-deps.sh unpacks (build-deps/tilelang).
/// Empty when none has them.
std::vector<std::string> tilelangIncludeDirs();

/// Seconds the helper may compile one kernel: $TILESCOPE_TRITON_TIMEOUT, else 180,
/// at most the cap set below.
double pythonCompileTimeout();

/// Caps pythonCompileTimeout (0: no cap): what is left of `check`'s total time.
void capPythonCompileTimeout(double seconds);

}  // namespace tilescope
