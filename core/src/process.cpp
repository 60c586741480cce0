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

#include <algorithm>
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

namespace {

/// A started child: its pid (leading its own process group) and the read ends of
/// its stdout and stderr pipes.
struct Child {
  pid_t pid = 0;
  int out = -1, err = -1;
  Clock::time_point start;
};

/// The child's environment: ours plus `extraEnv` (later entries win in getenv).
std::vector<std::string> childEnvironment(const std::vector<std::string>& extraEnv) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) env.emplace_back(*e);
  env.insert(env.end(), extraEnv.begin(), extraEnv.end());
  return env;
}

/// posix_spawn(p) of argv in a new process group with stdout and stderr on pipes.
/// Returns "" or why it could not start.
std::string spawnChild(const std::vector<std::string>& argv, const std::vector<std::string>& extraEnv, Child& c) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return std::string("pipe: ") + std::strerror(errno);
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
  std::vector<std::string> envStore = childEnvironment(extraEnv);
  std::vector<char*> envp;
  for (auto& e : envStore) envp.push_back(e.data());
  envp.push_back(nullptr);

  c.start = Clock::now();
  int rc = argv[0].find('/') == std::string::npos
               ? posix_spawnp(&c.pid, argv[0].c_str(), &fa, &attr, args.data(), envp.data())
               : posix_spawn(&c.pid, argv[0].c_str(), &fa, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close(out[1]);
  close(err[1]);
  if (rc != 0) {
    close(out[0]);
    close(err[0]);
    return argv[0] + ": " + std::strerror(rc);
  }
  c.out = out[0];
  c.err = err[0];
  return {};
}

/// The total limit and the current phase's, as the watchdog callback sets them.
struct Limits {
  double totalS = 0;     // from the start, 0 = none
  double phaseS = 0;     // from phaseStart, 0 = none
  Clock::time_point start, phaseStart;
  std::string phase;

  /// Seconds until the first limit passes (1e9 without limits).
  double left() const {
    double left = 1e9;
    if (totalS > 0) left = std::min(left, totalS - since(start));
    if (phaseS > 0) left = std::min(left, phaseS - since(phaseStart));
    return left;
  }
  std::string firedPhase() const { return phaseS > 0 && phaseS - since(phaseStart) <= 0 ? phase : "total"; }
  void onLine(const WatchdogFn& watchdog, const std::string& line) {
    if (!watchdog) return;
    std::string name;
    const double lim = watchdog(line, &name);
    if (lim > 0) {
      phaseS = lim;
      phaseStart = Clock::now();
      phase = name;
    } else if (lim < 0) {
      phaseS = 0;  // the phase ended: back to the total limit only
    }
  }
};

/// Reads the child's stdout (line by line: the watchdog first, then onLine) and
/// stderr until both close or a limit passes; then the whole group is killed.
void pumpChild(const Child& c, double timeoutS, const std::function<void(const std::string&)>& onLine,
               const WatchdogFn& watchdog, const std::function<void(const std::string&)>& onStderr, ChildResult& r) {
  std::string outBuf, errBuf;
  bool outOpen = true, errOpen = true;
  Limits limits{timeoutS, 0, c.start, c.start, {}};
  char chunk[65536];
  while (outOpen || errOpen) {
    const double left = limits.left();
    if (left <= 0) {
      r.timedOut = true;
      r.timeoutPhase = limits.firedPhase();
      kill(-c.pid, SIGKILL);
      break;
    }
    pollfd fds[2] = {{outOpen ? c.out : -1, POLLIN, 0}, {errOpen ? c.err : -1, POLLIN, 0}};
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
        drainLines(outBuf, [&](const std::string& line) {
          limits.onLine(watchdog, line);
          if (onLine) onLine(line);
        });
      } else {
        if (r.stderrText.size() < kMaxStderr) r.stderrText.append(chunk, static_cast<std::size_t>(got));
        errBuf.append(chunk, static_cast<std::size_t>(got));
        drainLines(errBuf, onStderr);
      }
    }
  }
  if (!outBuf.empty() && onLine && !r.timedOut) onLine(outBuf);
}

/// Closes the pipes, waits for the child and kills what it left in its group.
void reapChild(const Child& c, ChildResult& r) {
  close(c.out);
  close(c.err);
  int status = 0;
  while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) r.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  // Anything the child left in its group (it led the group) goes too.
  kill(-c.pid, SIGKILL);
  r.seconds = since(c.start);
}

}  // namespace

ChildResult runChild(const std::vector<std::string>& argv, double timeoutS,
                     const std::function<void(const std::string&)>& onLine, const WatchdogFn& watchdog,
                     const std::function<void(const std::string&)>& onStderr,
                     const std::vector<std::string>& extraEnv) {
  ChildResult r;
  if (argv.empty()) {
    r.startError = "no program given";
    return r;
  }
  Child child;
  r.startError = spawnChild(argv, extraEnv, child);
  if (!r.startError.empty()) return r;
  r.started = true;
  pumpChild(child, timeoutS, onLine, watchdog, onStderr, r);
  reapChild(child, r);
  return r;
}

}  // namespace tilescope
