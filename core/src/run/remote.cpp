// ssh destinations and remote command lines (see remote.h for why).
#include "tilescope/run/remote.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "tilescope/base/json_input.h"
#include "tilescope/base/process.h"
#include "tilescope/base/regex.h"
#include "tilescope/config/config_inputs.h"
#include "tilescope/config/trust.h"

namespace tilescope {

namespace fs = std::filesystem;

namespace {

bool allowed(char c, bool host) {
  const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  return alnum || c == '.' || c == '_' || c == '-' || (host && c == ':');
}

std::string partProblem(const std::string& part, const char* what, bool host) {
  if (part.empty()) return std::string("empty ") + what;
  if (part.front() == '-') return std::string(what) + " starts with '-' (ssh would read it as an option)";
  for (char c : part)
    if (!allowed(c, host)) {
      std::string shown = (c >= 0x20 && c < 0x7f) ? std::string("'") + c + "'"
                                                  : "byte " + std::to_string(static_cast<unsigned char>(c));
      return std::string(what) + " contains " + shown + " (allowed: letters, digits, . _ -" +
             (host ? " :" : "") + ")";
    }
  return "";
}

}  // namespace

std::string remoteHostProblem(const std::string& host) {
  if (host.size() > 255) return "host name longer than 255 bytes";
  const auto at = host.find('@');
  if (at != std::string::npos && host.find('@', at + 1) != std::string::npos) return "more than one '@'";
  if (at != std::string::npos) {
    std::string p = partProblem(host.substr(0, at), "user name", false);
    if (!p.empty()) return p;
  }
  return partProblem(at == std::string::npos ? host : host.substr(at + 1), "host name", true);
}

std::vector<std::string> sshCommand(const std::string& host, const std::vector<std::string>& remoteArgs) {
  const std::string problem = remoteHostProblem(host);
  if (!problem.empty()) throw std::invalid_argument("remote host '" + host + "': " + problem);
  // BatchMode: fail instead of prompting for a password nobody can type.
  // "--": nothing after it is an ssh option, whatever the host name holds.
  std::vector<std::string> argv{"ssh", "-o", "BatchMode=yes", "--", host, "tilescope-run"};
  for (const auto& a : remoteArgs) argv.push_back(shellQuote(a));
  return argv;
}

namespace {

/// remoteFiles' check of one file: inside `root` (else a RemoteError naming
/// `jsonPath`); a regular file goes into `files` relative to `root`.
void addInside(const fs::path& root, const fs::path& file, const std::string& jsonPath,
               std::set<fs::path>& files) {
  std::error_code ec;
  const fs::path real = fs::weakly_canonical(file, ec);
  if (ec || !insideRoots(real, {root}))
    throw RemoteError(
        jsonPath + ": " + (ec ? file : real).string() + " lies outside the config's folder (" +
            root.string() +
            "), which is what a remote run copies; use --remote-shared if the host sees the same paths",
        false);
  if (fs::is_regular_file(real, ec)) files.insert(real.lexically_relative(root));
}

// What remoteStageCommand's remote side prints: an absolute mktemp folder.
const Regex& stagedDirPattern() {
  static const Regex re(R"(/([^\x00-\x1f]*/)?tilescope\.[A-Za-z0-9]{8})");
  return re;
}

// Every folder TileScope makes on a host: remoteStageCommand's and remoteCaptureFolderCommand's.
const Regex& madeDirPattern() {
  static const Regex re(R"(/([^\x00-\x1f]*/)?(tilescope\.[A-Za-z0-9]{8}|tilescope-capture\.[A-Za-z0-9]{6}))");
  return re;
}

}  // namespace

std::vector<fs::path> remoteFiles(const Config& config, const fs::path& toolkitRoot) {
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(config.dir.empty() ? fs::current_path() : config.dir, ec);
  const fs::path toolkit = toolkitRoot.empty() ? fs::path() : fs::weakly_canonical(toolkitRoot, ec);
  std::set<fs::path> files;
  for (const ConfigInput& in : configInputs(config, toolkitRoot)) {
    std::string jsonPath = in.jsonPath;
    switch (in.kind) {
      case ConfigInput::Kind::includeDir:       // its headers that are read are listed as includes
      case ConfigInput::Kind::computedInclude:  // nothing to copy that is known
        continue;
      case ConfigInput::Kind::module:  // those beside the source that lie in the folder
        if (!insideRoots(in.path, {root})) continue;
        break;
      case ConfigInput::Kind::include:
        jsonPath += " (#include " + in.path.filename().string() + ")";
        [[fallthrough]];
      case ConfigInput::Kind::preInclude:
        if (in.path.empty() || (!toolkit.empty() && insideRoots(in.path, {toolkit})))
          continue;  // the host has its own toolkit
        break;
      default:
        break;
    }
    addInside(root, in.path, jsonPath, files);
  }
  return {files.begin(), files.end()};
}

std::vector<std::string> remoteStageCommand(const std::string& host, const fs::path& dir,
                                            const std::vector<fs::path>& files) {
  const std::string problem = remoteHostProblem(host);
  if (!problem.empty()) throw std::invalid_argument("remote host '" + host + "': " + problem);
  // "./" keeps a file named "-x" from reading as a tar option.
  std::string pack = "tar -C " + shellQuote(dir.string()) + " -cf -";
  for (const auto& f : files) pack += " " + shellQuote("./" + f.generic_string());
  // Run by the remote user's shell: a private folder (mktemp -d is mode 700).
  const std::string unpack =
      "d=$(mktemp -d \"${TMPDIR:-/tmp}/tilescope.XXXXXXXX\") && tar -xf - -C \"$d\" && echo \"$d\"";
  return {"sh", "-c", pack + " | ssh -o BatchMode=yes -- " + shellQuote(host) + " " + shellQuote(unpack)};
}

std::vector<std::string> remoteCaptureFolderCommand(const std::string& host) {
  const std::string problem = remoteHostProblem(host);
  if (!problem.empty()) throw std::invalid_argument("remote host '" + host + "': " + problem);
  // The host's /tmp (not $TMPDIR): the name is what remoteCleanupCommand accepts.
  return {"ssh", "-o", "BatchMode=yes", "--", host, "mktemp", "-d", "/tmp/tilescope-capture.XXXXXX"};
}

std::vector<std::string> remoteCleanupCommand(const std::string& host, const std::string& remoteDir) {
  const std::string problem = remoteHostProblem(host);
  if (!problem.empty()) throw std::invalid_argument("remote host '" + host + "': " + problem);
  if (!madeDirPattern().fullMatch(remoteDir) || remoteDir.find("/../") != std::string::npos)
    throw std::invalid_argument("'" + clipForMessage(remoteDir) +
                                "' is not a folder TileScope made on the host");
  return {"ssh", "-o", "BatchMode=yes", "--", host, "rm -rf -- " + shellQuote(remoteDir)};
}

RemoteFolder::RemoteFolder(const std::string& host, const Config& config, const fs::path& toolkitRoot,
                           double timeoutS)
    : m_host(host), m_configName(config.path.filename().string()) {
  const std::vector<fs::path> files = remoteFiles(config, toolkitRoot);
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(config.dir, ec);
  for (const auto& f : files) m_bytes += fs::file_size(root / f, ec);
  m_files = files.size();
  // The config file's own path below the folder (it may be a symbolic link's name).
  m_configName = fs::weakly_canonical(config.path, ec).lexically_relative(root).generic_string();
  std::string lastLine;
  const ChildResult r =
      runChild(remoteStageCommand(host, root, files), timeoutS, [&](const std::string& line) {
        if (!line.empty()) lastLine = line;
      });
  auto why = [&] {
    std::string e = r.stderrText;
    while (!e.empty() && (e.back() == '\n' || e.back() == '\r')) e.pop_back();
    return e.empty() ? std::string() : ": " + clipForMessage(e, 400);
  };
  if (!r.started) throw RemoteError("cannot start ssh: " + r.startError, false);
  if (r.timedOut)
    throw RemoteError(
        "copying the config to '" + host + "' took longer than " + std::to_string(int(timeoutS)) + " s",
        false);
  if (r.exitCode == kSshConnectionFailed)
    throw RemoteError("cannot reach host '" + host + "' over ssh" + why(), true);
  if (r.exitCode != 0 || !stagedDirPattern().fullMatch(lastLine))
    throw RemoteError(
        "copying the config to '" + host + "' failed (exit " + std::to_string(r.exitCode) + ")" + why(),
        false);
  m_dir = lastLine;
}

RemoteFolder::~RemoteFolder() {
  if (m_dir.empty()) return;
  try {
    runChild(remoteCleanupCommand(m_host, m_dir), 60, [](const std::string&) {});
  } catch (...) {
    // Best effort: a folder left in the host's temporary directory harms nothing.
  }
}

std::string RemoteFolder::configPath() const { return m_dir + "/" + m_configName; }

}  // namespace tilescope
