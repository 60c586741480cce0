// Child processes with a watchdog: how a capture is isolated from the process
// that asked for it (a kernel that faults, hangs or crashes ends only its worker).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace tilescope {

struct ChildResult {
  bool started = false;
  std::string startError;    ///< why it could not start
  int exitCode = -1;         ///< when it exited normally
  int signal = 0;            ///< when a signal ended it (SIGKILL from the watchdog included)
  bool timedOut = false;     ///< the watchdog killed it
  std::string timeoutPhase;  ///< which limit fired ("total" or the phase named by the watchdog callback)
  std::string stderrText;    ///< everything it wrote on stderr (capped at 1 MiB)
  double seconds = 0;
  bool unread = false;     ///< ServedChild: it had ended before it could read the request
  bool outputCut = false;  ///< killed for writing more than its stdout limit
};

/// Called with each stdout line: returns > 0 to start a phase limit of that many
/// seconds from now (and names the phase), < 0 to end the current phase limit,
/// 0 for no change. The total limit applies throughout.
using WatchdogFn = std::function<double(const std::string& line, std::string* phase)>;

/// Runs argv[0] (found on PATH if it has no '/') with argv, in its own process
/// group. Each stdout line goes to onLine as it arrives; stderr is collected and
/// also passed to onStderr line by line when given (a line cut at 1 MiB). The
/// whole tree is killed (SIGKILL) when `timeoutS` (> 0) passes, when a phase
/// limit set by `watchdog` passes, or when it has written more than
/// `maxStdoutBytes` (> 0) on stdout or a stdout line over 512 MiB (`outputCut`).
/// Output is read in time linear in its size. When the child ends, what it
/// leaves behind goes too: its group, and descendants that left the group
/// (setsid) — this process becomes a child subreaper (PR_SET_CHILD_SUBREAPER) on
/// the first child, and each child's environment carries TILESCOPE_CHILD=<token>
/// by which its adopted orphans are known (one that clears its environment and
/// whose parent has exited is not found).
ChildResult runChild(const std::vector<std::string>& argv, double timeoutS,
                     const std::function<void(const std::string&)>& onLine, const WatchdogFn& watchdog = {},
                     const std::function<void(const std::string&)>& onStderr = {},
                     const std::vector<std::string>& extraEnv = {}, std::size_t maxStdoutBytes = 0);

/// A child that serves requests one after another (a warm worker): each request
/// is a line written to its stdin, its answer the stdout lines up to the one
/// `done` accepts. Limits, watchdog and ChildResult are per request, as runChild's
/// are per process: `timeoutS` counts from the request, and a child that dies or
/// is killed during a request is reaped and the result says how. Closing its
/// stdin (finish) is the end of the requests.
class ServedChild {
 public:
  ServedChild() = default;
  ~ServedChild();  ///< kills the child's group if it still runs
  ServedChild(const ServedChild&) = delete;
  ServedChild& operator=(const ServedChild&) = delete;

  /// Starts argv as runChild does, with a pipe on its stdin. "" or why not.
  std::string start(const std::vector<std::string>& argv, const std::vector<std::string>& extraEnv = {});
  bool running() const { return m_pid > 0; }

  /// Writes `line` and reads the answer. A child that had ended before it could
  /// read the request is reaped: `unread`, with how it ended.
  ChildResult request(const std::string& line, double timeoutS,
                      const std::function<void(const std::string&)>& onLine, const WatchdogFn& watchdog,
                      const std::function<bool(const std::string&)>& done);

  /// Closes stdin and waits up to `graceS` for the child to exit (then kills it);
  /// the result holds what it wrote on stderr meanwhile and how it ended.
  ChildResult finish(double graceS);

  /// Closes stdin and lets the child end on its own: a background thread drains
  /// and reaps it, killing its group after `graceS`. For a child whose answers
  /// are all in, when nobody needs to know how it ended (a warm worker at the
  /// end of a session tearing its CUDA context down: 0.4 s the report need not
  /// wait for).
  void release(double graceS);

 private:
  int m_pid = 0, m_in = -1, m_out = -1, m_err = -1;
  std::string m_outBuf, m_errBuf;
  std::string m_token;  ///< TILESCOPE_CHILD in its environment (process.cpp)
};

/// "SIGSEGV (segmentation fault)" for a signal number.
std::string signalDescription(int sig);

/// The path of the running executable (/proc/self/exe).
std::string selfExecutable();

}  // namespace tilescope
