// Running tilescope-run on another machine through ssh: the host name is
// checked before it reaches ssh's command line (a "host" such as
// `-oProxyCommand=...` is an ssh option and runs a local command), ssh is told
// where its options end (`--`), and the remote command is quoted for the
// remote shell, which ssh hands one joined line.
#pragma once

#include <string>
#include <vector>

#include "tilescope/format.h"  // shellQuote

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

}  // namespace tilescope
