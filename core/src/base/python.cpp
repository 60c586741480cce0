// Finding and running the Python interpreter of the Triton/TileLang helper.
#include "tilescope/base/python.h"

#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>

#include "tilescope/base/process.h"
#include "tilescope/base/resources.h"
#include "tilescope/base/sandbox.h"

namespace tilescope {

namespace {

bool isExecutable(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec);
}

std::mutex g_memoMutex;
std::map<std::string, std::string> g_memo;  // interpreter + query -> answer

/// Memoised answer of a query to the interpreter (the same within one process).
std::string memoised(const std::string& key, const std::vector<std::string>& args) {
  const std::string full = pythonInterpreter() + "\n" + key;
  {
    std::lock_guard<std::mutex> lock(g_memoMutex);
    if (auto it = g_memo.find(full); it != g_memo.end()) return it->second;
  }
  PythonResult r = runPython(args, 60);
  std::string answer = r.exitCode == 0 ? r.out : "";
  while (!answer.empty() && (answer.back() == '\n' || answer.back() == '\r')) answer.pop_back();
  std::lock_guard<std::mutex> lock(g_memoMutex);
  g_memo[full] = answer;
  return answer;
}

}  // namespace

std::string pythonInterpreter() {
  if (const char* env = std::getenv("TILESCOPE_PYTHON"); env && *env) return env;
  const auto venv =
      (resourceDir() / ".." / "build-deps" / "triton-venv" / "bin" / "python3").lexically_normal();
  if (isExecutable(venv)) return venv.string();
  return "python3";
}

std::filesystem::path pythonPackageRoot() { return resourceDir() / "python"; }

std::filesystem::path tritonHelperScript() {
  return pythonPackageRoot() / "tilescope" / "triton_helper" / "__main__.py";
}

std::string PythonResult::describe() const {
  if (!started) return "could not start";
  if (timedOut) return "timed out after " + std::to_string(static_cast<int>(seconds)) + " s";
  if (outputCut)
    return "stopped: more than " + std::to_string(kMaxPythonOutputBytes >> 20) + " MiB on stdout";
  if (signal) return "killed by " + signalDescription(signal);
  return "exit " + std::to_string(exitCode);
}

namespace {

const std::vector<std::string> kPythonEnv{"PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1"};

PythonResult runArgv(const std::vector<std::string>& argv, double timeoutS,
                     const std::vector<std::string>& env) {
  PythonResult r;
  ChildResult c = runChild(
      argv, timeoutS, [&](const std::string& line) { r.out += line + "\n"; }, {}, {}, env,
      kMaxPythonOutputBytes);
  r.started = c.started;
  r.exitCode = c.exitCode;
  r.signal = c.timedOut || c.outputCut ? 0 : c.signal;
  r.timedOut = c.timedOut;
  r.outputCut = c.outputCut;
  r.err = c.started ? c.stderrText : c.startError;
  if (c.outputCut)
    r.err += "\nerror: the Python helper printed more than " + std::to_string(kMaxPythonOutputBytes >> 20) +
             " MiB on stdout (the kernel file's own prints count) and was stopped";
  r.seconds = c.seconds;
  return r;
}

std::atomic<bool> g_kernelsTrusted{false};

}  // namespace

std::vector<std::filesystem::path> interpreterPaths() {
  const std::string text = memoised(
      "paths", {"-c",
                "import sys\nfor p in [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, "
                "sys.executable] + sys.path:\n    print(p)"});
  std::vector<std::filesystem::path> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto nl = text.find('\n', start);
    const std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    if (!line.empty()) out.emplace_back(line);
    start = nl == std::string::npos ? text.size() : nl + 1;
  }
  const std::string interp = pythonInterpreter();
  if (interp.find('/') != std::string::npos) out.push_back(std::filesystem::path(interp).parent_path());
  return out;
}

std::vector<std::filesystem::path> kernelReadable(const std::filesystem::path& dir) {
  for (const auto& h : sandboxHiddenRoots()) {
    if (!pathInside(h, dir)) continue;
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
      if (e.path().extension() == ".py" && e.is_regular_file(ec)) files.push_back(e.path());
    return files;
  }
  return {dir};
}

PythonResult runPython(const std::vector<std::string>& args, double timeoutS) {
  std::vector<std::string> argv{pythonInterpreter()};
  argv.insert(argv.end(), args.begin(), args.end());
  return runArgv(argv, timeoutS, kPythonEnv);
}

void setPythonKernelsTrusted(bool trusted) { g_kernelsTrusted = trusted; }
bool pythonKernelsTrusted() { return g_kernelsTrusted; }

PythonResult runKernelHelper(const std::vector<std::string>& args, double timeoutS,
                             const std::filesystem::path& kernelDir, const std::filesystem::path& workDir) {
  if (pythonKernelsTrusted()) return runPython(args, timeoutS);
  if (const std::string why = sandboxProblem(); !why.empty()) {
    PythonResult r;
    r.err =
        "not run: compiling a Python kernel runs the file's code, which TileScope confines in a sandbox "
        "without your consent, and " +
        why + ". Run with --allow-commands if you trust this kernel (docs/security.md)";
    return r;
  }
  // A private folder of its own when the caller has none (init-triton's signature).
  std::string own;
  if (workDir.empty()) {
    std::error_code ec;
    own = (std::filesystem::temp_directory_path(ec) / "tilescope-py-XXXXXX").string();
    if (ec || !::mkdtemp(own.data())) {
      PythonResult r;
      r.err = "could not create a private temporary folder";
      return r;
    }
  }
  struct Remove {
    std::string dir;
    ~Remove() {
      std::error_code ec;
      if (!dir.empty()) std::filesystem::remove_all(dir, ec);
    }
  } remove{own};
  SandboxPaths paths;
  paths.readable = interpreterPaths();
  paths.readable.push_back(pythonPackageRoot());  // the helper imports the whole package
  for (const auto& p : kernelReadable(kernelDir)) paths.readable.push_back(p);
  paths.writable = workDir.empty() ? std::filesystem::path(own) : workDir;
  // The helper limits the size of the files the kernel's code may write (RLIMIT_FSIZE).
  paths.env = {"PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1", "TILESCOPE_CONFINED=1"};
  std::vector<std::string> argv{pythonInterpreter()};
  argv.insert(argv.end(), args.begin(), args.end());
  return runArgv(confinedArgv(argv, paths), timeoutS, {});
}

bool pythonHasModule(const std::string& module) {
  return memoised("has " + module, {"-c", "import importlib.util; print(bool(importlib.util.find_spec('" +
                                              module + "')))"}) == "True";
}

std::string pythonPackageVersion(const std::string& distribution) {
  return memoised("version " + distribution,
                  {"-c", "import importlib.metadata as m\ntry:\n print(m.version('" + distribution +
                             "'))\nexcept Exception:\n pass"});
}

std::vector<std::string> tilelangIncludeDirs() {
  auto layout = [](const std::filesystem::path& root) -> std::vector<std::string> {
    std::error_code ec;
    if (root.empty() ||
        !std::filesystem::is_regular_file(root / "src" / "tl_templates" / "cuda" / "common.h", ec))
      return {};
    return {(root / "src").string(), (root / "3rdparty" / "cutlass" / "include").string()};
  };
  if (const char* env = std::getenv("TILESCOPE_TILELANG_HOME"); env && *env)
    if (auto dirs = layout(env); !dirs.empty()) return dirs;
  // find_spec locates the package without importing it (an import takes many seconds).
  const std::string pkg =
      memoised("tilelang home", {"-c",
                                 "import importlib.util, os; s = importlib.util.find_spec('tilelang'); "
                                 "print(os.path.dirname(s.origin) if s and s.origin else '')"});
  if (auto dirs = layout(pkg); !dirs.empty()) return dirs;
  return layout((resourceDir() / ".." / "build-deps" / "tilelang").lexically_normal());
}

namespace {
std::atomic<double> g_timeoutCap{0};
}

void capPythonCompileTimeout(double seconds) { g_timeoutCap = seconds; }

double pythonCompileTimeout() {
  double limit = 180;
  if (const char* env = std::getenv("TILESCOPE_TRITON_TIMEOUT"); env && *env) {
    double v = std::atof(env);
    if (v > 0) limit = v;
  }
  const double cap = g_timeoutCap;
  return cap > 0 ? std::min(limit, cap) : limit;
}

}  // namespace tilescope
