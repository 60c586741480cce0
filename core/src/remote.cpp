// ssh destinations and remote command lines (see remote.h for why).
#include "tilescope/remote.h"

#include <stdexcept>

namespace tilescope {

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
      std::string shown = (c >= 0x20 && c < 0x7f) ? std::string("'") + c + "'" : "byte " + std::to_string(static_cast<unsigned char>(c));
      return std::string(what) + " contains " + shown + " (allowed: letters, digits, . _ -" + (host ? " :" : "") + ")";
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

}  // namespace tilescope
