// The Python side of Triton and TileLang kernels: which interpreter TileScope runs
// its helper (resources/python/tilescope_triton.py) with, and running it as a child
// process with a time limit (a compiler that hangs ends only the helper).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace tilescope {

/// The interpreter for the helper, first that applies: $TILESCOPE_PYTHON; the virtual
/// environment scripts/install-deps.sh makes (build-deps/triton-venv beside the source
/// tree's resources/); python3 on PATH.
std::string pythonInterpreter();

/// resourceDir()/python/tilescope_triton.py.
std::filesystem::path tritonHelperScript();

struct PythonResult {
  bool started = false;
  int exitCode = -1;
  int signal = 0;  ///< a crash inside the compiler (an MLIR assertion aborts)
  bool timedOut = false;
  std::string out, err;  ///< stdout, stderr
  double seconds = 0;
  std::string describe() const;  ///< "exit 1", "SIGABRT (Aborted)", "timed out after 120 s"
};

/// Runs the interpreter with `args` (no shell), stdout and stderr collected, killed
/// after `timeoutS` seconds.
PythonResult runPython(const std::vector<std::string>& args, double timeoutS);

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

/// Seconds the helper may compile one kernel: $TILESCOPE_TRITON_TIMEOUT, else 180.
double pythonCompileTimeout();

}  // namespace tilescope
