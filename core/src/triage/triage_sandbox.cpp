// The sandbox of a problem's Python (docs/triage.md, "The sandbox"): a triage
// folder is code from anyone (generated kernels, downloaded benchmark problems),
// and judging a problem means importing its reference and candidate. The runner
// and the capture of its replay therefore run under the same bubblewrap
// confinement as a Triton kernel's compile (sandbox.h), with the GPU's device
// nodes bound and the entry's own folder as the one writable place.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <thread>

#include "tilescope/base/python.h"
#include "tilescope/base/resources.h"
#include "tilescope/base/sandbox.h"
#include "triage_detail.h"

namespace tilescope {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::uint64_t physicalMemoryBytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
}

struct Limits {
  std::uint64_t fileBytes, memoryBytes;
  double cpuS;
};

Limits effective(const RunnerLimits& l, double timeoutS, int jobs) {
  Limits e{l.fileBytes, l.memoryBytes, l.cpuS};
  // CPU seconds count every thread: four cores' worth for the whole watchdog.
  if (e.cpuS <= 0 && timeoutS > 0) e.cpuS = std::ceil(4 * timeoutS);
  if (e.memoryBytes == 0) {
    const std::uint64_t share = physicalMemoryBytes() / std::uint64_t(std::max(1, jobs));
    e.memoryBytes = std::max<std::uint64_t>(share, 16ull << 30);
  }
  return e;
}

/// The folders TileScope's own processes read inside the sandbox: the runner,
/// the capture's recorder and resources, tilescope-run and its injection library.
std::vector<fs::path> toolPaths(const TriageOptions& opts) {
  std::vector<fs::path> p = interpreterPaths();
  p.push_back(opts.runner.parent_path());
  p.push_back(resourceDir());
  if (!opts.exe.empty()) {
    const fs::path exeDir = fs::path(opts.exe.front()).parent_path();
    p.push_back(exeDir);
    p.push_back(exeDir / ".." / "lib" / "tilescope");
  }
  if (const char* inj = std::getenv("TILESCOPE_INJECTION"); inj && *inj) p.emplace_back(inj);
  return p;
}

}  // namespace

std::vector<std::string> runnerLimitArgs(const RunnerLimits& l, double timeoutS, int jobs) {
  const Limits e = effective(l, timeoutS, jobs);
  std::vector<std::string> a;
  if (e.fileBytes) a.insert(a.end(), {"--max-file-bytes", std::to_string(e.fileBytes)});
  if (e.cpuS > 0) a.insert(a.end(), {"--max-cpu-s", std::to_string(static_cast<long long>(e.cpuS))});
  if (e.memoryBytes) a.insert(a.end(), {"--max-memory-bytes", std::to_string(e.memoryBytes)});
  return a;
}

std::string untrustedRefusal(const TriageOptions& opts) {
  const std::string why = sandboxProblem();
  if (why.empty() || opts.allowUnconfined) return "";
  return "not run: judging a problem imports its Python files, which TileScope runs in a sandbox, and " +
         why + ". Run with --allow-commands if you trust every problem of this triage (docs/security.md)";
}

json sandboxDescription(const TriageOptions& opts) {
  const std::string why = sandboxProblem();
  if (!why.empty()) return {{"kind", "none"}, {"why", why}, {"consent", opts.allowUnconfined}};
  const Limits e = effective(opts.limits, opts.entryTimeoutS, opts.jobs);
  return {{"kind", "bubblewrap"},
          {"network", false},
          {"gpu", !gpuDeviceNodes().empty()},
          {"tmpfs_bytes", kSandboxTmpfsBytes},
          {"max_file_bytes", e.fileBytes},
          {"max_cpu_s", e.cpuS},
          {"max_memory_bytes", e.memoryBytes}};
}

fs::path EntryContext::sandboxDir() const {
  const fs::path box = dir / "sandbox";
  std::error_code ec;
  fs::create_directories(box, ec);
  return box;
}

ChildResult EntryContext::runUntrusted(const std::vector<std::string>& argv,
                                       const std::vector<fs::path>& files, double timeoutS) const {
  if (const std::string refused = untrustedRefusal(*opts); !refused.empty()) {
    ChildResult r;
    r.startError = refused;
    return r;
  }
  if (!sandboxProblem().empty()) return run(argv, timeoutS);  // consent, and no sandbox here
  SandboxPaths paths;
  paths.readable = toolPaths(*opts);
  for (const fs::path& f : files)
    for (const fs::path& p : kernelReadable(fs::absolute(f).parent_path())) paths.readable.push_back(p);
  paths.writable = sandboxDir();
  paths.gpu = true;
  // Caches of the entry's own (a shared Triton or TileScope cache one problem
  // could write would be another's input), under its folder's home/.
  const fs::path home = paths.writable / "home";
  std::error_code ec;
  fs::create_directories(home, ec);
  paths.env = env;  // CUDA_VISIBLE_DEVICES: --clearenv drops what runChild would set
  for (const std::string& kv :
       std::vector<std::string>{"HOME=" + home.string(), "TMPDIR=" + home.string(),
                                "TRITON_CACHE_DIR=" + (home / "triton").string(),
                                "TILESCOPE_CACHE_DIR=" + (home / "tilescope").string(),
                                "PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1", "TILESCOPE_CONFINED=1"})
    paths.env.push_back(kv);
  ChildResult r = run(confinedArgv(argv, paths), timeoutS);
  // bwrap exits with 128 + N where its child died of signal N (SIGXCPU from RLIMIT_CPU).
  if (r.started && !r.timedOut && r.signal == 0 && r.exitCode > 128 && r.exitCode <= 128 + 64) {
    r.signal = r.exitCode - 128;
    r.exitCode = -1;
  }
  return r;
}

}  // namespace tilescope
