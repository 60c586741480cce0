// Running tilescope-run on another machine through ssh: the host name is
// checked before it reaches ssh's command line (a "host" such as
// `-oProxyCommand=...` is an ssh option and runs a local command), ssh is told
// where its options end (`--`), and the remote command is quoted for the
// remote shell, which ssh hands one joined line.
//
// A remote run copies what the config reads (the config, its sources, the
// headers they include, .npy files) into a fresh folder on the host and runs
// the workers there (RemoteFolder); `--remote-shared` instead passes the local
// paths, for hosts that share the filesystem.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "tilescope/base/format.h"  // shellQuote
#include "tilescope/config/config.h"

namespace tilescope {

/// What is wrong with `host` as an ssh destination ("" when it is acceptable):
/// `[user@]host`, where user is letters, digits, `.`, `_`, `-` and host is a
/// DNS name, an ssh config alias, an IPv4 address or an IPv6 address (letters,
/// digits, `.`, `_`, `-`, `:`); neither may start with `-`; at most 255 bytes.
std::string remoteHostProblem(const std::string& host);

/// The command that runs `tilescope-run ARGS...` on `host`:
/// {"ssh", "-o", "BatchMode=yes", "--", host, "tilescope-run", quoted args...}.
/// Throws std::invalid_argument with remoteHostProblem() for a bad host.
std::vector<std::string> sshCommand(const std::string& host, const std::vector<std::string>& remoteArgs = {});

/// ssh's exit status when it could not connect or authenticate (the remote
/// command's own status otherwise).
inline constexpr int kSshConnectionFailed = 255;

/// A remote folder that could not be made or filled.
class RemoteError : public std::runtime_error {
 public:
  RemoteError(const std::string& message, bool unreachable)
      : std::runtime_error(message), m_unreachable(unreachable) {}
  bool unreachable() const { return m_unreachable; }  ///< ssh could not connect

 private:
  bool m_unreachable;
};

/// The files a worker on another host reads to capture `config`, relative to the
/// config's folder, each once: the config file; the kernel's and a reference
/// kernel's sources, the headers they #include (includes.h: every #include line,
/// whatever #if surrounds it; the toolkit's own headers excluded) and their
/// -include files; .npy inputs and expected outputs; for Triton and TileLang
/// kernels, every .py file beside the source (the modules it may import).
/// Throws RemoteError naming the JSON path of a file outside the config's folder.
std::vector<std::filesystem::path> remoteFiles(const Config& config,
                                               const std::filesystem::path& toolkitRoot);

/// The local command (`sh -c`) that packs `files` (relative to `dir`) with tar and
/// unpacks them over ssh into a new folder on `host` (mktemp -d under the remote
/// $TMPDIR or /tmp); its stdout's last line is that folder's absolute path.
std::vector<std::string> remoteStageCommand(const std::string& host, const std::filesystem::path& dir,
                                            const std::vector<std::filesystem::path>& files);

/// The ssh command that makes `capture --remote`'s folder on the host
/// (`/tmp/tilescope-capture.XXXXXX`); it prints the folder's path.
std::vector<std::string> remoteCaptureFolderCommand(const std::string& host);

/// The ssh command that removes a folder made by remoteStageCommand or
/// remoteCaptureFolderCommand. Throws std::invalid_argument for a path that is
/// neither (a guard before rm -rf).
std::vector<std::string> remoteCleanupCommand(const std::string& host, const std::string& remoteDir);

/// A copy of a config's files on a remote host, removed again on destruction.
class RemoteFolder {
 public:
  /// Copies remoteFiles(config, toolkitRoot) to `host`. Throws RemoteError: a
  /// file outside the config's folder, or ssh/tar failing (unreachable() when
  /// ssh could not connect).
  RemoteFolder(const std::string& host, const Config& config, const std::filesystem::path& toolkitRoot,
               double timeoutS = 120);
  ~RemoteFolder();
  RemoteFolder(const RemoteFolder&) = delete;
  RemoteFolder& operator=(const RemoteFolder&) = delete;

  const std::string& dir() const { return m_dir; }  ///< the folder on the host
  std::string configPath() const;                   ///< the copied config's path on the host
  std::size_t files() const { return m_files; }
  std::uintmax_t bytes() const { return m_bytes; }

 private:
  std::string m_host, m_dir, m_configName;
  std::size_t m_files = 0;
  std::uintmax_t m_bytes = 0;
};

}  // namespace tilescope
