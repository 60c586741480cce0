// Toolchain specs and the per-version Python environments (docs/toolchains.md).
#include "tilescope/base/toolchain.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "tilescope/base/format.h"
#include "tilescope/base/process.h"
#include "tilescope/base/python.h"
#include "tilescope/base/regex.h"

namespace tilescope {

namespace fs = std::filesystem;

namespace {

const char* kForms =
    "expected triton==VERSION, tilelang==VERSION, triton, tilelang, python=PATH, or nvrtc|nvcc followed by "
    "compile options and device=KEY";

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ' ' || c == '\t') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

void cudaToolchain(Toolchain& t, const std::vector<std::string>& w) {
  static const Regex flag(R"(-[A-Za-z][A-Za-z0-9_\-=.,+/]*)");
  static const Regex device(R"(device=([a-z0-9_\-]+))");
  t.compiler = w.front();
  for (std::size_t i = 1; i < w.size(); ++i) {
    RegexMatch m;
    if (device.fullMatch(w[i], m))
      t.device = m.str(1);
    else if (flag.fullMatch(w[i]))
      t.options.push_back(w[i]);
    else
      throw std::invalid_argument("toolchain '" + t.spec + "': '" + w[i] +
                                  "' is neither a compile option (-...) nor device=KEY");
  }
}

bool runs(const std::string& python, const std::string& code, std::string* out = nullptr) {
  ChildResult c = runChild({python, "-c", code}, 120, [&](const std::string& l) {
    if (out) *out += l;
  });
  return c.started && c.exitCode == 0;
}

std::string lastLines(const std::string& text, int n) {
  std::vector<std::string> lines;
  std::string cur;
  for (char c : text) {
    if (c == '\n') {
      if (!trimmed(cur).empty()) lines.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!trimmed(cur).empty()) lines.push_back(cur);
  std::string out;
  for (std::size_t i = lines.size() > std::size_t(n) ? lines.size() - n : 0; i < lines.size(); ++i)
    out += std::string(out.empty() ? "" : " | ") + std::string(trimmed(lines[i]));
  return out;
}

/// The environment's interpreter when it holds package==version.
bool holds(const fs::path& env, const Toolchain& t) {
  std::string got;
  const fs::path py = env / "bin" / "python3";
  std::error_code ec;
  if (!fs::is_regular_file(py, ec)) return false;
  return runs(py.string(), "import importlib.metadata as m; print(m.version('" + t.package + "'))", &got) &&
         std::string(trimmed(got)) == t.version;
}

}  // namespace

Toolchain parseToolchain(const std::string& spec) {
  Toolchain t;
  t.spec = std::string(trimmed(spec));
  static const Regex pinned(
      R"((triton|tilelang)==([0-9]+(?:\.[0-9]+){0,3}(?:(?:a|b|rc|\.post|\.dev)[0-9]+)?))");
  RegexMatch m;
  if (pinned.fullMatch(t.spec, m)) {
    t.package = m.str(1);
    t.version = m.str(2);
    return t;
  }
  if (t.spec == "triton" || t.spec == "tilelang") {
    t.package = t.spec;
    return t;
  }
  if (t.spec.rfind("python=", 0) == 0) {
    t.python = t.spec.substr(7);
    if (t.python.empty()) throw std::invalid_argument("toolchain 'python=': no interpreter named");
    return t;
  }
  const auto w = words(t.spec);
  if (!w.empty() && (w.front() == "nvrtc" || w.front() == "nvcc")) {
    cudaToolchain(t, w);
    return t;
  }
  if (t.spec.rfind("triton", 0) == 0 || t.spec.rfind("tilelang", 0) == 0)
    throw std::invalid_argument("toolchain '" + t.spec + "': not a version (" + kForms + ")");
  throw std::invalid_argument("toolchain '" + t.spec + "': unknown (" + kForms + ")");
}

namespace {

/// The leading numbers of a version ("3.5.0rc1" -> 3, 5, 0, 0; "3.5" -> 3, 5, 0, 0),
/// or none when it does not start with a number.
std::vector<int> versionNumbers(const std::string& v) {
  std::vector<int> out;
  std::size_t i = 0;
  while (i < v.size() && out.size() < 4 && std::isdigit(static_cast<unsigned char>(v[i]))) {
    int n = 0;
    for (; i < v.size() && std::isdigit(static_cast<unsigned char>(v[i])); ++i)
      n = std::min(n * 10 + (v[i] - '0'), 1000000);
    out.push_back(n);
    if (i < v.size() && v[i] == '.') ++i;
  }
  if (!out.empty()) out.resize(4, 0);
  return out;
}

}  // namespace

std::string unsupportedVersion(const std::string& package, const std::string& version) {
  if (package != "triton") return {};
  const std::vector<int> v = versionNumbers(version), oldest = versionNumbers(kOldestTriton);
  if (v.empty() || !std::lexicographical_compare(v.begin(), v.end(), oldest.begin(), oldest.end())) return {};
  return "Triton " + version + " is older than " + kOldestTriton +
         ", the oldest that TileScope's Triton helper compiles with (it uses triton.knobs and "
         "JITFunction.raw_src): every kernel would fail in the helper, not in the kernel";
}

std::vector<std::string> offeredVersions(const std::string& package) {
  // Newest first. Triton's older releases stay listed so that the floor
  // (kOldestTriton) alone decides which are offered.
  static const std::vector<std::string> kTriton = {"3.6.0", "3.5.1", "3.5.0", "3.4.0", "3.3.1", "3.2.0"};
  static const std::vector<std::string> kTileLang = {"0.1.15"};
  const std::vector<std::string>* known = package == "triton"     ? &kTriton
                                          : package == "tilelang" ? &kTileLang
                                                                  : nullptr;
  std::vector<std::string> out;
  if (known)
    for (const std::string& v : *known)
      if (unsupportedVersion(package, v).empty()) out.push_back(v);
  return out;
}

std::string toolchainCacheDir() {
  if (const char* e = std::getenv("TILESCOPE_TOOLCHAINS"); e && *e) return e;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return (fs::path(x) / "tilescope" / "toolchains").string();
  const char* home = std::getenv("HOME");
  return (fs::path(home && *home ? home : "/tmp") / ".cache" / "tilescope" / "toolchains").string();
}

std::string resolveToolchain(Toolchain& t, const ToolchainInstall& how) {
  if (!t.python.empty() || t.package.empty() || t.version.empty()) return {};
  const fs::path root = how.cacheDir.empty() ? toolchainCacheDir() : how.cacheDir;
  const fs::path env = root / (t.package + "-" + t.version);
  auto say = [&](const std::string& m) {
    if (how.progress) how.progress(m);
  };
  if (holds(env, t)) {
    t.python = (env / "bin" / "python3").string();
    return {};
  }
  if (!how.install)
    return t.spec + ": no environment at " + env.string() + " (and installing was not allowed)";
  // Made beside its final place and renamed, so that a half-made one is never taken.
  std::error_code ec;
  fs::create_directories(root, ec);
  const fs::path tmp = root / (t.package + "-" + t.version + ".tmp-" + std::to_string(::getpid()));
  fs::remove_all(tmp, ec);
  say("make a virtual environment for " + t.spec + " in " + env.string());
  const std::string base = pythonInterpreter();
  std::string out;
  ChildResult v =
      runChild({base, "-m", "venv", tmp.string()}, 300, [&](const std::string& l) { out += l + "\n"; });
  if (!v.started || v.exitCode != 0) {
    fs::remove_all(tmp, ec);
    return t.spec + ": `" + base + " -m venv " + tmp.string() +
           "` failed: " + lastLines(out + v.stderrText + v.startError, 3);
  }
  std::vector<std::string> pip{(tmp / "bin" / "python3").string(), "-m", "pip", "install", "-q",
                               "--disable-pip-version-check"};
  std::string wheels = how.wheelhouse;
  if (const char* w = std::getenv("TILESCOPE_WHEELHOUSE"); wheels.empty() && w && *w) wheels = w;
  if (how.offline) pip.push_back("--no-index");
  if (!wheels.empty()) pip.insert(pip.end(), {"--find-links", wheels});
  pip.push_back(t.package + "==" + t.version);
  std::string cmd;
  for (const auto& a : pip) cmd += (cmd.empty() ? "" : " ") + a;
  say("install " + t.spec + (how.offline ? " (offline)" : "") + ": " + cmd);
  out.clear();
  ChildResult p = runChild(pip, how.timeoutS, [&](const std::string& l) { out += l + "\n"; });
  if (!p.started || p.exitCode != 0 || p.timedOut) {
    fs::remove_all(tmp, ec);
    const std::string why = p.timedOut ? "timed out" : lastLines(out + p.stderrText + p.startError, 3);
    return t.spec + " did not install (tried `" + cmd + "`): " + why;
  }
  fs::remove_all(env, ec);
  fs::rename(tmp, env, ec);
  if (ec) {
    fs::remove_all(tmp, ec);
    return t.spec + ": could not move the environment to " + env.string() + ": " + ec.message();
  }
  t.python = (env / "bin" / "python3").string();
  return {};
}

}  // namespace tilescope
