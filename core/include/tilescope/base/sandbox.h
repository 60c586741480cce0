// Confinement for code that arrives inside a config (docs/security.md, "Python kernels"): a Triton or
// TileLang kernel file is Python, and compiling it runs it. Without the user's
// consent it runs under bubblewrap (docs/security.md, "Python kernels"):
//   - the file system read-only; /home, /root, $HOME, /tmp, /var/tmp and /run
//     replaced by empty private folders, except the folders named readable
//     (the interpreter, its packages, the helper, the kernel's folder);
//   - one writable folder (the compile's private temporary folder);
//   - no network (its own empty network namespace), its own PID, IPC and UTS
//     namespaces, a minimal /dev (no GPU), a new session (no terminal);
//   - only a short list of environment variables (no tokens reach a log).
// A triage problem's runner (docs/triage.md, "The sandbox") runs under the same sandbox with the GPU:
// `gpu` binds the NVIDIA device nodes, and the driver's folders stay visible.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace tilescope {

struct SandboxPaths {
  std::vector<std::filesystem::path> readable;  ///< folders or files visible read-only
  std::filesystem::path writable;               ///< the one folder it may write (also its HOME and cwd)
  std::vector<std::string> env;                 ///< NAME=VALUE set inside, besides the kept variables
  /// Bind the NVIDIA device nodes (gpuDeviceNodes()) into the minimal /dev, and
  /// keep the folders of LD_LIBRARY_PATH visible (a driver under /run/nvidia).
  bool gpu = false;
};

/// The NVIDIA device nodes of this machine: /dev/nvidiactl, /dev/nvidia0..N,
/// /dev/nvidia-uvm(-tools), /dev/nvidia-modeset, /dev/nvidia-caps (none without a GPU).
std::vector<std::filesystem::path> gpuDeviceNodes();

/// The largest private temporary folder (/tmp and the other hidden roots are
/// tmpfs in memory inside the sandbox): a file system that fills RAM is a limit too.
inline constexpr unsigned long long kSandboxTmpfsBytes = 1ull << 30;

/// The command that runs `argv` confined as described above.
std::vector<std::string> confinedArgv(const std::vector<std::string>& argv, const SandboxPaths& paths);

/// "" when confinement works on this machine, else why not and how to fix it
/// (bubblewrap missing, user namespaces disabled). Probed once per process.
std::string sandboxProblem();

/// The folders confinement hides (/home, /root, $HOME, /tmp, /var/tmp, /run).
std::vector<std::filesystem::path> sandboxHiddenRoots();

/// Whether `p` is `root` or inside it (component-wise, after resolving symlinks).
bool pathInside(const std::filesystem::path& p, const std::filesystem::path& root);

}  // namespace tilescope
