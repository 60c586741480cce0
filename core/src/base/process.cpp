// posix_spawn + poll: a child's stdout is read line by line while a watchdog
// clock runs; the child leads its own process group so a kill reaches anything
// it started too. A descendant that leaves the group (setsid) is found as well
// (docs/security.md, "Folders and files from others"): this process is a child subreaper, so such a process,
// once its parent exits, becomes our child; each spawned child carries a token in its environment
// (TILESCOPE_CHILD=...), and when the child ends (or the watchdog fires) every process of its tree, and every
// adopted process that carries its token, is stopped, then killed, then reaped. Output is split into lines in
// linear time, each pipe's buffer bounded (kMaxChildLineBytes, kMaxStderr).
#include "tilescope/base/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

extern char** environ;

namespace tilescope {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kMaxStderr = 1 << 20;
/// A stdout line longer than this (with no maxStdoutBytes given) ends the child
/// as outputCut: the largest line a worker sends is a report (kMaxReportBytes).
constexpr std::size_t kMaxChildLineBytes = std::size_t{512} << 20;
constexpr const char* kTokenVariable = "TILESCOPE_CHILD";

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

/// Complete lines off the front of `buf`, in linear time: the search for the
/// next newline resumes at `scanned` (the bytes before it hold none) and the
/// buffer is erased once per call, not once per line. `fn` returning true stops
/// the split after that line (the rest stays in `buf`); returns whether it did.
template <class Fn>
bool splitLines(std::string& buf, std::size_t& scanned, Fn&& fn) {
  std::size_t start = 0;
  bool stopped = false;
  for (std::size_t pos; !stopped && (pos = buf.find('\n', std::max(start, scanned))) != std::string::npos;) {
    const std::string line = buf.substr(start, pos - start);
    start = pos + 1;
    stopped = fn(line);
  }
  buf.erase(0, start);
  scanned = stopped ? 0 : buf.size();
  return stopped;
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
  std::string token;  ///< TILESCOPE_CHILD in its environment: how its escaped descendants are known
};

/// The child's environment: ours plus `extraEnv` (later entries win in getenv),
/// then the child's token (one inherited or given is left out).
std::vector<std::string> childEnvironment(const std::vector<std::string>& extraEnv,
                                          const std::string& token) {
  std::vector<std::string> env;
  const std::string tokenPrefix = std::string(kTokenVariable) + "=";
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, tokenPrefix.c_str(), tokenPrefix.size()) != 0) env.emplace_back(*e);
  for (const std::string& e : extraEnv)
    if (e.rfind(tokenPrefix, 0) != 0) env.push_back(e);
  env.push_back(tokenPrefix + token);
  return env;
}

/// A token no other child of this process (or of another) carries.
std::string newToken() {
  static std::atomic<unsigned long> next{0};
  return std::to_string(getpid()) + "." + std::to_string(++next);
}

/// Orphans of our children's trees become ours, not init's (once per process).
void becomeSubreaper() {
  static std::once_flag once;
  std::call_once(once, [] { (void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); });
}

/// The children of every thread of `pid` (/proc/PID/task/*/children).
std::vector<pid_t> childrenOf(pid_t pid) {
  std::vector<pid_t> out;
  std::error_code ec;
  const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& t : std::filesystem::directory_iterator(tasks, ec)) {
    std::ifstream in(t.path() / "children");
    for (long c; in >> c;) out.push_back(static_cast<pid_t>(c));
  }
  return out;
}

/// Whether `pid`'s environment holds TILESCOPE_CHILD=token (false once it is a zombie).
bool carriesToken(pid_t pid, const std::string& token) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  const std::string want = std::string(kTokenVariable) + "=" + token;
  for (std::string var; std::getline(in, var, '\0');)
    if (var == want) return true;
  return false;
}

/// Stops `root` and everything below it (a stopped process forks no more), then
/// kills them all; returns the pids killed.
std::vector<pid_t> killTree(pid_t root) {
  std::vector<pid_t> found{root};
  std::set<pid_t> seen{root};
  for (std::size_t i = 0; i < found.size() && found.size() < 100000; ++i) {
    kill(found[i], SIGSTOP);
    for (pid_t c : childrenOf(found[i]))
      if (seen.insert(c).second) found.push_back(c);
  }
  for (pid_t p : found) kill(p, SIGKILL);
  return found;
}

/// Every process of this child's tree that escaped its group (setsid) and was
/// adopted by us once its parent ended, killed and reaped; a few rounds, since
/// killing a process hands its own children to us.
void killEscaped(const std::string& token, const std::vector<pid_t>& killedBefore) {
  if (token.empty()) return;
  std::set<pid_t> killed(killedBefore.begin(), killedBefore.end());  // reaped once they are ours
  for (int round = 0; round < 50; ++round) {
    bool any = false;
    for (pid_t c : childrenOf(getpid())) {
      if (killed.count(c)) {
        any |= waitpid(c, nullptr, WNOHANG) == 0;  // still dying
        continue;
      }
      if (!carriesToken(c, token)) continue;
      for (pid_t p : killTree(c)) killed.insert(p);
      any = true;
    }
    if (!any) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(round == 0 ? 1 : 10));
  }
}

/// posix_spawn(p) of argv in a new process group with stdout and stderr on pipes
/// (and stdin, when stdinWrite is given: its write end goes there).
/// Returns "" or why it could not start.
std::string spawnChild(const std::vector<std::string>& argv, const std::vector<std::string>& extraEnv,
                       Child& c, int* stdinWrite) {
  int out[2], err[2], in[2] = {-1, -1};
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 || (stdinWrite && pipe2(in, O_CLOEXEC) != 0))
    return std::string("pipe: ") + std::strerror(errno);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (stdinWrite) posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  becomeSubreaper();
  c.token = newToken();
  std::vector<std::string> envStore = childEnvironment(extraEnv, c.token);
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
  if (stdinWrite) close(in[0]);
  if (rc != 0) {
    close(out[0]);
    close(err[0]);
    if (stdinWrite) close(in[1]);
    return argv[0] + ": " + std::strerror(rc);
  }
  if (stdinWrite) *stdinWrite = in[1];
  c.out = out[0];
  c.err = err[0];
  return {};
}

/// The total limit and the current phase's, as the watchdog callback sets them.
struct Limits {
  double totalS = 0;  // from the start, 0 = none
  double phaseS = 0;  // from phaseStart, 0 = none
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

/// What pumpChild reads from: a started child's pipes, the text read but not yet
/// split into lines, and which pipes are still open.
struct Stream {
  pid_t pid = 0;
  int out = -1, err = -1;
  std::string outBuf, errBuf;
  std::string token;
  std::vector<pid_t> killed;  ///< what the watchdog killed: reaped with the child
  bool outOpen = true, errOpen = true;
  std::size_t outScanned = 0;  ///< splitLines' resume point
  bool errDropping = false;    ///< the rest of a stderr line over kMaxStderr is dropped
};

/// The whole tree goes: the group, and the descendants that left it.
void killChild(Stream& s) {
  for (pid_t p : killTree(s.pid)) s.killed.push_back(p);
  kill(-s.pid, SIGKILL);
}

/// A stderr chunk: kept in the result up to kMaxStderr, passed on line by line;
/// a line over kMaxStderr is passed cut and the rest of it dropped.
void takeStderr(Stream& s, const char* chunk, std::size_t got, ChildResult& r,
                const std::function<void(const std::string&)>& onStderr) {
  if (r.stderrText.size() < kMaxStderr)
    r.stderrText.append(chunk, std::min(got, kMaxStderr - r.stderrText.size()));
  if (!onStderr) return;
  for (std::size_t i = 0; i < got;) {
    const char* nl = static_cast<const char*>(std::memchr(chunk + i, '\n', got - i));
    const std::size_t end = nl ? static_cast<std::size_t>(nl - chunk) : got;
    if (!s.errDropping)
      s.errBuf.append(chunk + i, std::min(end - i, kMaxStderr - std::min(kMaxStderr, s.errBuf.size())));
    if (!nl && s.errBuf.size() >= kMaxStderr && !s.errDropping) {
      onStderr(s.errBuf);
      s.errBuf.clear();
      s.errDropping = true;
    }
    if (nl) {
      if (!s.errDropping) onStderr(s.errBuf);
      s.errBuf.clear();
      s.errDropping = false;
    }
    i = end + 1;
  }
}

/// Reads the child's stdout (line by line: the watchdog first, then onLine) and
/// stderr until both close, `done` accepts a stdout line (true is returned; the
/// child runs on), or a limit counted from `start` passes (the whole group is killed).
bool pumpChild(Stream& s, Clock::time_point start, double timeoutS,
               const std::function<void(const std::string&)>& onLine, const WatchdogFn& watchdog,
               const std::function<void(const std::string&)>& onStderr,
               const std::function<bool(const std::string&)>& done, ChildResult& r,
               std::size_t maxStdoutBytes = 0) {
  Limits limits{timeoutS, 0, start, start, {}};
  std::size_t stdoutBytes = 0;
  char chunk[65536];
  // Lines are handled one at a time so that nothing after the accepted one is consumed.
  auto takeLines = [&]() {
    return splitLines(s.outBuf, s.outScanned, [&](const std::string& line) {
      limits.onLine(watchdog, line);
      if (onLine) onLine(line);
      return done && done(line);
    });
  };
  if (takeLines()) return true;
  while (s.outOpen || s.errOpen) {
    const double left = limits.left();
    if (left <= 0) {
      r.timedOut = true;
      r.timeoutPhase = limits.firedPhase();
      killChild(s);
      break;
    }
    pollfd fds[2] = {{s.outOpen ? s.out : -1, POLLIN, 0}, {s.errOpen ? s.err : -1, POLLIN, 0}};
    int ms = static_cast<int>(std::min(left * 1000.0 + 1, 1000.0));
    int n = poll(fds, 2, ms);
    if (n < 0 && errno != EINTR) break;
    // stderr first: what the child wrote before its answer belongs to this request.
    for (int i : {1, 0}) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = read(fds[i].fd, chunk, sizeof chunk);
      if (got <= 0) {
        (i == 0 ? s.outOpen : s.errOpen) = false;
        continue;
      }
      if (i == 0) {
        stdoutBytes += static_cast<std::size_t>(got);
        if ((maxStdoutBytes > 0 && stdoutBytes > maxStdoutBytes) ||
            s.outBuf.size() + static_cast<std::size_t>(got) > kMaxChildLineBytes) {
          r.outputCut = true;  // a line without end, or output without end: nothing more is read
          killChild(s);
          s.outBuf.clear();
          s.outScanned = 0;
          return false;
        }
        s.outBuf.append(chunk, static_cast<std::size_t>(got));
        if (takeLines()) return true;
      } else {
        takeStderr(s, chunk, static_cast<std::size_t>(got), r, onStderr);
      }
    }
  }
  if (!s.outBuf.empty() && onLine && !r.timedOut) onLine(s.outBuf);
  if (!s.errBuf.empty() && onStderr && !s.errDropping) onStderr(s.errBuf);
  s.outBuf.clear();
  s.errBuf.clear();
  s.outScanned = 0;
  return false;
}

/// Closes the pipes, waits for the child and kills what it left in its group.
void reapChild(Stream& s, ChildResult& r) {
  close(s.out);
  close(s.err);
  s.out = s.err = -1;
  int status = 0;
  while (waitpid(s.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) r.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  // What the child left behind goes too: what was adopted (by its token; the
  // killed are reaped), then the rest of its group (it led the group).
  killEscaped(s.token, s.killed);
  kill(-s.pid, SIGKILL);
  s.killed.clear();
}

/// write() that neither raises SIGPIPE nor dies of it when the reader is gone.
bool writeAll(int fd, const std::string& text) {
  sigset_t pipe, old;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, &old);
  bool ok = true;
  for (std::size_t doneBytes = 0; ok && doneBytes < text.size();) {
    const ssize_t n = ::write(fd, text.data() + doneBytes, text.size() - doneBytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      ok = false;
    else
      doneBytes += std::size_t(n);
  }
  if (!ok) {  // consume the SIGPIPE this thread raised before unblocking it
    const timespec zero{0, 0};
    while (sigtimedwait(&pipe, nullptr, &zero) > 0) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return ok;
}

}  // namespace

ChildResult runChild(const std::vector<std::string>& argv, double timeoutS,
                     const std::function<void(const std::string&)>& onLine, const WatchdogFn& watchdog,
                     const std::function<void(const std::string&)>& onStderr,
                     const std::vector<std::string>& extraEnv, std::size_t maxStdoutBytes) {
  ChildResult r;
  if (argv.empty()) {
    r.startError = "no program given";
    return r;
  }
  Child child;
  r.startError = spawnChild(argv, extraEnv, child, nullptr);
  if (!r.startError.empty()) return r;
  r.started = true;
  Stream s;
  s.pid = child.pid;
  s.out = child.out;
  s.err = child.err;
  s.token = child.token;
  pumpChild(s, child.start, timeoutS, onLine, watchdog, onStderr, {}, r, maxStdoutBytes);
  reapChild(s, r);
  r.seconds = since(child.start);
  return r;
}

ServedChild::~ServedChild() {
  if (m_pid <= 0) return;
  killTree(m_pid);
  kill(-m_pid, SIGKILL);
  (void)finish(0);
}

std::string ServedChild::start(const std::vector<std::string>& argv,
                               const std::vector<std::string>& extraEnv) {
  if (argv.empty()) return "no program given";
  Child child;
  int in = -1;
  if (std::string why = spawnChild(argv, extraEnv, child, &in); !why.empty()) return why;
  m_pid = child.pid;
  m_token = child.token;
  m_in = in;
  m_out = child.out;
  m_err = child.err;
  m_outBuf.clear();
  m_errBuf.clear();
  return {};
}

ChildResult ServedChild::request(const std::string& line, double timeoutS,
                                 const std::function<void(const std::string&)>& onLine,
                                 const WatchdogFn& watchdog,
                                 const std::function<bool(const std::string&)>& done) {
  ChildResult r;
  if (m_pid <= 0) {
    r.startError = "the worker is not running";
    return r;
  }
  const auto start = Clock::now();
  if (!writeAll(m_in, line + "\n")) {
    r = finish(2);
    r.unread = true;
    return r;
  }
  r.started = true;
  Stream s{m_pid, m_out, m_err, std::move(m_outBuf), std::move(m_errBuf), m_token, {}};
  const bool answered = pumpChild(s, start, timeoutS, onLine, watchdog, {}, done, r);
  m_outBuf = std::move(s.outBuf);
  m_errBuf = std::move(s.errBuf);
  if (!answered) {  // it died or was killed: reap it
    close(m_in);
    m_in = -1;
    reapChild(s, r);
    m_out = m_err = -1;
    m_pid = 0;
  }
  r.seconds = since(start);
  return r;
}

void ServedChild::release(double graceS) {
  if (m_pid <= 0) return;
  if (m_in >= 0) close(m_in);
  m_in = -1;
  std::thread([s = Stream{m_pid, m_out, m_err, std::move(m_outBuf), std::move(m_errBuf), m_token, {}},
               graceS]() mutable {
    ChildResult r;
    pumpChild(s, Clock::now(), graceS > 0 ? graceS : 0.001, {}, {}, {}, {}, r);
    reapChild(s, r);
  }).detach();
  m_out = m_err = -1;
  m_pid = 0;
}

ChildResult ServedChild::finish(double graceS) {
  ChildResult r;
  if (m_pid <= 0) return r;
  r.started = true;
  const auto start = Clock::now();
  if (m_in >= 0) close(m_in);
  m_in = -1;
  Stream s{m_pid, m_out, m_err, std::move(m_outBuf), std::move(m_errBuf), m_token, {}};
  // Whatever it still says is read (and dropped) until it exits or the grace passes.
  pumpChild(s, start, graceS > 0 ? graceS : 0.001, {}, {}, {}, {}, r);
  reapChild(s, r);
  m_out = m_err = -1;
  m_pid = 0;
  r.seconds = since(start);
  return r;
}

}  // namespace tilescope
