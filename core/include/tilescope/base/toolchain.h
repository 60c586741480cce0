// A toolchain to compile a kernel with, as `tilescope-run compare CONFIG
// --toolchain SPEC` names it (docs/toolchains.md):
//   triton==3.5.1        Triton 3.5.1, from a virtual environment of its own
//                        (installed from PyPI on first use, then cached)
//   tilelang==0.1.15     the same for TileLang
//   triton               the Triton of the interpreter TileScope uses
//   python=/path/python  a given interpreter (its Triton or TileLang)
//   nvrtc | nvcc [FLAG...] [device=KEY]
//                        a CUDA C++ compiler, options added to the config's,
//                        and the architecture of a device of the database
// A spec is text from the user: its version and flags are matched by RE2
// patterns, and a bad one is refused naming what was expected.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tilescope {

struct Toolchain {
  std::string spec;                  ///< as given
  std::string package;               ///< triton | tilelang ("" for a CUDA compiler or a given interpreter)
  std::string version;               ///< package==version ("" for the default interpreter's)
  std::string python;                ///< the interpreter to compile with ("" keeps TileScope's)
  std::string compiler;              ///< nvrtc | nvcc ("" keeps the config's)
  std::vector<std::string> options;  ///< compile options added to the config's
  std::string device;                ///< device database key for the architecture ("" keeps the default)
  std::string label() const { return spec; }
};

/// Parses a spec; throws std::invalid_argument naming the problem and the forms.
Toolchain parseToolchain(const std::string& spec);

struct ToolchainInstall {
  std::string cacheDir;    ///< where the environments live ("": toolchainCacheDir())
  bool offline = false;    ///< pip --no-index (with --find-links wheelhouse when set)
  std::string wheelhouse;  ///< pip --find-links (also $TILESCOPE_WHEELHOUSE)
  bool install = true;     ///< false: a missing environment is an error, not installed
  double timeoutS = 900;   ///< the pip install's limit
  std::function<void(const std::string&)> progress;  ///< one line per step
};

/// The oldest Triton TileScope's Triton helper compiles with: it sets
/// triton.knobs (new in 3.4) and reads JITFunction.raw_src (new in 3.5). Under an
/// older one every kernel would fail in the helper, not in the kernel.
inline constexpr const char* kOldestTriton = "3.5.0";

/// "" when TileScope can compile with `package` at `version` (a version that
/// does not read as numbers counts as supported), else why not.
std::string unsupportedVersion(const std::string& package, const std::string& version);

/// The versions of `package` (triton | tilelang) a person is offered by name,
/// newest first, as `package==V` (the workbench's File > Compare toolchains...):
/// the releases TileScope was compared under (docs/measurements.md) that
/// unsupportedVersion() lets through, so a version the comparison refuses is
/// never offered. Empty for another package.
std::vector<std::string> offeredVersions(const std::string& package);

/// $TILESCOPE_TOOLCHAINS, else $XDG_CACHE_HOME/tilescope/toolchains, else ~/.cache/tilescope/toolchains.
std::string toolchainCacheDir();

/// Fills `t.python` for a package==version spec: the cached environment, or one
/// made now (python -m venv, pip install package==version). Returns "" or why
/// not, naming what was tried (the command and pip's last lines).
std::string resolveToolchain(Toolchain& t, const ToolchainInstall& how);

}  // namespace tilescope
