// Finding and running the Python interpreter of the Triton/TileLang helper.
#include "tilescope/base/python.h"

#include <cstdlib>
#include <map>
#include <mutex>

#include "tilescope/base/process.h"
#include "tilescope/base/resources.h"

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

std::filesystem::path tritonHelperScript() { return resourceDir() / "python" / "tilescope_triton.py"; }

std::string PythonResult::describe() const {
  if (!started) return "could not start";
  if (timedOut) return "timed out after " + std::to_string(static_cast<int>(seconds)) + " s";
  if (signal) return "killed by " + signalDescription(signal);
  return "exit " + std::to_string(exitCode);
}

PythonResult runPython(const std::vector<std::string>& args, double timeoutS) {
  std::vector<std::string> argv{pythonInterpreter()};
  argv.insert(argv.end(), args.begin(), args.end());
  PythonResult r;
  ChildResult c = runChild(argv, timeoutS, [&](const std::string& line) { r.out += line + "\n"; }, {}, {},
                           {"PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1"});
  r.started = c.started;
  r.exitCode = c.exitCode;
  r.signal = c.timedOut ? 0 : c.signal;
  r.timedOut = c.timedOut;
  r.err = c.started ? c.stderrText : c.startError;
  r.seconds = c.seconds;
  return r;
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

double pythonCompileTimeout() {
  if (const char* env = std::getenv("TILESCOPE_TRITON_TIMEOUT"); env && *env) {
    double v = std::atof(env);
    if (v > 0) return v;
  }
  return 180;
}

}  // namespace tilescope
