// bubblewrap command lines for a config's Python (see sandbox.h).
#include "tilescope/base/sandbox.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <set>

#include "tilescope/base/process.h"

extern char** environ;

namespace tilescope {

namespace fs = std::filesystem;

namespace {

fs::path resolved(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? p.lexically_normal() : c;
}

// Variables the helper and the compilers need. Everything else (tokens, agent
// sockets, proxies) stays outside: what the code prints can reach a report.
bool keptVariable(const std::string& name) {
  static const std::set<std::string> kKept = {"PATH",       "LANG",       "LC_ALL",       "LC_CTYPE",
                                              "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV",  "LD_LIBRARY_PATH",
                                              "CUDA_HOME",  "CUDA_PATH",  "CONDA_PREFIX", "TERM"};
  if (kKept.count(name)) return true;
  for (const char* prefix : {"TRITON_", "TILESCOPE_", "TILELANG_", "TVM_"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

/// Component-wise prefix, on the paths as written: /a/bc is not inside /a/b.
bool lexicallyInside(const fs::path& a, const fs::path& r) {
  auto ai = a.begin();
  for (auto ri = r.begin(); ri != r.end(); ++ri, ++ai) {
    if (ri->empty() && std::next(ri) == r.end()) break;  // a trailing separator
    if (ai == a.end() || *ai != *ri) return false;
  }
  return true;
}

}  // namespace

std::vector<fs::path> gpuDeviceNodes() {
  std::vector<fs::path> nodes;
  std::error_code ec;
  for (const auto& de : fs::directory_iterator("/dev", ec)) {
    const std::string name = de.path().filename().string();
    if (name.rfind("nvidia", 0) == 0) nodes.push_back(de.path());
  }
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

bool pathInside(const fs::path& p, const fs::path& root) {
  return lexicallyInside(resolved(p), resolved(root));
}

std::vector<fs::path> sandboxHiddenRoots() {
  std::vector<fs::path> roots{"/home", "/root", "/tmp", "/var/tmp", "/run"};
  if (const char* home = std::getenv("HOME"); home && *home) {
    const fs::path h = resolved(home);
    if (h != "/" &&
        std::none_of(roots.begin(), roots.end(), [&](const fs::path& r) { return pathInside(h, r); }))
      roots.push_back(h);
  }
  return roots;
}

std::vector<std::string> confinedArgv(const std::vector<std::string>& argv, const SandboxPaths& paths) {
  std::vector<std::string> a{
      "bwrap",  "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/", "--dev", "/dev",
      "--proc", "/proc"};
  std::error_code ec;
  const std::vector<fs::path> hidden = sandboxHiddenRoots();
  const std::string tmpfsSize = std::to_string(kSandboxTmpfsBytes);
  for (const auto& h : hidden)
    if (fs::is_directory(h, ec) && !fs::is_symlink(h, ec))
      a.insert(a.end(), {"--size", tmpfsSize, "--tmpfs", h.string()});
  std::vector<fs::path> readable = paths.readable;
  if (paths.gpu) {
    for (const fs::path& n : gpuDeviceNodes()) a.insert(a.end(), {"--dev-bind", n.string(), n.string()});
    // The driver's libraries where a container puts them (LD_LIBRARY_PATH), also under /run.
    if (const char* ld = std::getenv("LD_LIBRARY_PATH"); ld && *ld) {
      const std::string s = ld;
      for (std::size_t i = 0, j; i <= s.size(); i = j + 1) {
        j = s.find(':', i);
        if (j == std::string::npos) j = s.size();
        if (j > i && s[i] == '/') readable.emplace_back(s.substr(i, j - i));
      }
    }
  }
  // What must stay visible under a hidden folder, by its name and by where it
  // resolves to (a venv's python links into ~/.pyenv); parents before children.
  std::set<std::string> shown;
  for (const auto& r : readable)
    for (const fs::path& p : {fs::absolute(r, ec).lexically_normal(), resolved(r)})
      if (fs::exists(p, ec) &&
          std::any_of(hidden.begin(), hidden.end(), [&](const fs::path& h) { return lexicallyInside(p, h); }))
        shown.insert(p.string());
  std::vector<std::string> sorted(shown.begin(), shown.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) { return x.size() < y.size(); });
  // A path inside one already bound is visible through it: binding it again
  // fails where it is a symlink (a venv's bin/python3 in a checkout under /tmp:
  // "bwrap: Can't create file at ...").
  std::vector<std::string> binds;
  for (const auto& b : sorted)
    if (std::none_of(binds.begin(), binds.end(), [&](const std::string& k) { return lexicallyInside(b, k); }))
      binds.push_back(b);
  for (const auto& b : binds) a.insert(a.end(), {"--ro-bind", b, b});
  const std::string work = resolved(paths.writable).string();
  a.insert(a.end(), {"--bind", work, work, "--chdir", work, "--clearenv"});
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    const auto eq = kv.find('=');
    if (eq != std::string::npos && keptVariable(kv.substr(0, eq)))
      a.insert(a.end(), {"--setenv", kv.substr(0, eq), kv.substr(eq + 1)});
  }
  for (const auto& kv : std::vector<std::string>{"HOME=" + work, "TMPDIR=" + work})
    a.insert(a.end(), {"--setenv", kv.substr(0, kv.find('=')), kv.substr(kv.find('=') + 1)});
  for (const auto& kv : paths.env)
    if (const auto eq = kv.find('='); eq != std::string::npos)
      a.insert(a.end(), {"--setenv", kv.substr(0, eq), kv.substr(eq + 1)});
  a.push_back("--");
  a.insert(a.end(), argv.begin(), argv.end());
  return a;
}

std::string sandboxProblem() {
  static std::once_flag once;
  static std::string problem;
  std::call_once(once, [] {
    std::error_code ec;
    const fs::path probeDir = fs::temp_directory_path(ec);
    ChildResult r = runChild(confinedArgv({"true"}, {{}, ec ? fs::path("/") : probeDir, {}}), 20, {});
    if (r.started && r.exitCode == 0 && !r.timedOut) return;
    std::string why = r.started ? r.stderrText : r.startError;
    while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
    problem = r.started ? "bubblewrap (bwrap) cannot confine a process here (" + why.substr(0, 300) +
                              "): user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone, "
                              "or a container's seccomp profile)"
                        : "bubblewrap (bwrap) is not installed (apt-get install bubblewrap)";
  });
  return problem;
}

}  // namespace tilescope
