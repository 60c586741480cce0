// posix_spawn + poll: a child's stdout is read line by line while a watchdog
// clock runs; the child leads its own process group so a kill reaches anything
// it started too.
#include "tilescope/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

extern char** environ;

namespace tilescope {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kMaxStderr = 1 << 20;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

void drainLines(std::string& buf, const std::function<void(const std::string&)>& fn) {
  std::size_t pos;
  while ((pos = buf.find('\n')) != std::string::npos) {
    std::string line = buf.substr(0, pos);
    buf.erase(0, pos + 1);
    if (fn) fn(line);
  }
}

}  // namespace

std::string signalDescription(int sig) {
  const char* name = sigabbrev_np(sig);
  const char* what = strsignal(sig);
  std::string s = name ? std::string("SIG") + name : "signal " + std::to_string(sig);
  if (what) s += std::string(" (") + what + ")";
  return s;
}

std::string selfExecutable() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

ChildResult runChild(const std::vector<std::string>& argv, double timeoutS,
                     const std::function<void(const std::string&)>& onLine, const WatchdogFn& watchdog,
                     const std::function<void(const std::string&)>& onStderr,
                     const std::vector<std::string>& extraEnv) {
  ChildResult r;
  if (argv.empty()) {
    r.startError = "no program given";
    return r;
  }
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    r.startError = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> envStore;
  for (char** e = environ; *e; ++e) envStore.emplace_back(*e);
  for (const auto& e : extraEnv) envStore.push_back(e);
  std::vector<char*> envp;
  for (auto& e : envStore) envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_t pid = 0;
  auto start = Clock::now();
  int rc = argv[0].find('/') == std::string::npos
               ? posix_spawnp(&pid, argv[0].c_str(), &fa, &attr, args.data(), envp.data())
               : posix_spawn(&pid, argv[0].c_str(), &fa, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close(out[1]);
  close(err[1]);
  if (rc != 0) {
    close(out[0]);
    close(err[0]);
    r.startError = argv[0] + ": " + std::strerror(rc);
    return r;
  }
  r.started = true;

  std::string outBuf, errBuf;
  bool outOpen = true, errOpen = true;
  double phaseLimit = 0;               // seconds from phaseStart, 0 = none
  auto phaseStart = start;
  std::string phase;
  char chunk[65536];
  while (outOpen || errOpen) {
    double left = 1e9;
    if (timeoutS > 0) left = std::min(left, timeoutS - since(start));
    if (phaseLimit > 0) left = std::min(left, phaseLimit - since(phaseStart));
    if (left <= 0) {
      r.timedOut = true;
      r.timeoutPhase = (phaseLimit > 0 && phaseLimit - since(phaseStart) <= 0) ? phase : "total";
      kill(-pid, SIGKILL);
      break;
    }
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    if (!outOpen) fds[0].fd = -1;
    if (!errOpen) fds[1].fd = -1;
    int ms = static_cast<int>(std::min(left * 1000.0 + 1, 1000.0));
    int n = poll(fds, 2, ms);
    if (n < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = read(fds[i].fd, chunk, sizeof chunk);
      if (got <= 0) {
        (i == 0 ? outOpen : errOpen) = false;
        continue;
      }
      if (i == 0) {
        outBuf.append(chunk, static_cast<std::size_t>(got));
        std::size_t pos;
        while ((pos = outBuf.find('\n')) != std::string::npos) {
          std::string line = outBuf.substr(0, pos);
          outBuf.erase(0, pos + 1);
          if (watchdog) {
            std::string name;
            double lim = watchdog(line, &name);
            if (lim > 0) {
              phaseLimit = lim;
              phaseStart = Clock::now();
              phase = name;
            } else if (lim < 0) {
              phaseLimit = 0;  // the phase ended: back to the total limit only
            }
          }
          if (onLine) onLine(line);
        }
      } else {
        if (r.stderrText.size() < kMaxStderr) r.stderrText.append(chunk, static_cast<std::size_t>(got));
        errBuf.append(chunk, static_cast<std::size_t>(got));
        drainLines(errBuf, onStderr);
      }
    }
  }
  if (!outBuf.empty() && onLine && !r.timedOut) onLine(outBuf);
  close(out[0]);
  close(err[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) r.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  // Anything the child left in its group (it led the group) goes too.
  kill(-pid, SIGKILL);
  r.seconds = since(start);
  return r;
}

}  // namespace tilescope
