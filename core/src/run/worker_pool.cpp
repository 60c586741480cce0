// The workers: each capture runs in a `tilescope-run worker` process (a fresh
// one, or a warm one serving capture after capture), whose stdout is the
// stream; its last `point` event is the result. A worker that dies or outlives
// its limits is described from the outside: `fault` with the signal, or `hang`
// with the phase that did not finish.
#include <algorithm>
#include <cstdio>
#include <optional>

#include "tilescope/base/json_input.h"
#include "tilescope/base/process.h"
#include "tilescope/logs/device_output.h"
#include "tilescope/model/vocabulary.h"
#include "tilescope/run/remote.h"
#include "tilescope/run/session.h"

namespace tilescope {

namespace {

Point pointShell(const SweepPoint& sp, int trial) {
  Point p;
  p.index = sp.index;
  p.trial = trial;
  p.label = sp.label();
  p.defines = pointDefines(sp.config);
  for (const auto& [k, v] : sp.config.params) p.params[k] = v;
  return p;
}

Finding hangFinding(const ChildResult& r, double limit, const std::string& phase) {
  Finding f;
  f.category = "hang";
  f.severity = Severity::error;
  bool inLaunch = phase == "launch";
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", limit);  // 20, or 0.5 for a short follow-up watchdog
  f.message = inLaunch ? std::string("the kernel did not finish within ") + seconds +
                             " s of its launch; the watchdog killed the worker"
                       : std::string("the worker did not finish within ") + seconds +
                             " s (phase: " + (phase.empty() ? "total" : phase) + "); the watchdog killed it";
  f.evidence = {{"limit_s", limit}, {"phase", phase.empty() ? "total" : phase}, {"elapsed_s", r.seconds}};
  f.location.phase = phase.empty() ? "total" : phase;
  f.treeNode = "fault.hang";
  return f;
}

/// The command that starts a worker with `args` (quoted for ssh's remote shell).
std::vector<std::string> workerArgv(const SessionOptions& opts, const std::vector<std::string>& args) {
  std::vector<std::string> argv = opts.workerCommand;
  for (const auto& a : args) argv.push_back(opts.workerThroughShell ? shellQuote(a) : a);
  return argv;
}

/// The worker was killed without its point: `illegal_address`, the best guess from outside.
Finding workerFault(const std::string& message, nlohmann::json evidence) {
  Finding f;
  f.category = "illegal_address";
  f.severity = Severity::error;
  f.message = message;
  f.evidence = std::move(evidence);
  f.treeNode = "fault.illegal_address";
  return f;
}

/// Reads one worker's stream for one capture and turns whatever happened to the
/// worker (a result, a crash, a hang) into its Point. Each line is read once: the
/// watchdog sees it first (runChild calls it before onLine), onLine reuses what
/// it read. The last line of a worker that ended without a newline reaches onLine only.
class PointReader {
 public:
  PointReader(const SweepPoint& sp, int trial, const SessionOptions& opts, DeviceInfo* deviceOut)
      : m_sp(sp), m_trial(trial), m_opts(opts), m_deviceOut(deviceOut), m_result(pointShell(sp, trial)) {}

  bool gotPoint() const { return m_gotPoint; }
  const Point& point() const { return m_result; }
  /// A line that could not be read and was meant as the result (a `point`, or no
  /// event that can be named).
  bool unreadableResult() const {
    return !m_readError.empty() && (m_readErrorEvent == "point" || m_readErrorEvent.empty());
  }

  double watchdog(const std::string& line, std::string* name) {
    read(line);
    const auto* e = m_readEvent ? std::get_if<PhaseEvent>(&m_readEvent->body) : nullptr;
    if (!e) return 0;
    m_lastPhase = phaseName(e->phase);
    *name = m_lastPhase;
    if (e->phase == Phase::launch) return m_opts.launchTimeoutS;
    return -1;  // any other phase: the launch finished
  }

  void onLine(const std::string& line) {
    read(line);
    if (!m_readError.empty()) {
      if (m_streamError.empty()) m_streamError = clipForMessage(m_readError, 2000);
      if (m_readErrorEvent == "partial") m_partial.reset();  // a malformed checkpoint is no checkpoint
      return;
    }
    if (!m_readEvent) return;  // not an event: a library's or a wrapper's text
    StreamEvent& e = *m_readEvent;
    if (auto* p = std::get_if<PointEvent>(&e.body)) {
      m_result = p->point;
      m_gotPoint = true;
    } else if (auto* c = std::get_if<PartialEvent>(&e.body)) {
      m_partial = c->point;
    } else if (auto* g = std::get_if<ProgressEvent>(&e.body)) {
      m_lastProgress = g->message;
    } else if (auto* d = std::get_if<DeviceEvent>(&e.body)) {
      if (m_deviceOut) *m_deviceOut = d->device;
      m_result.gpu = d->gpu;  // a capture that dies before its point still says where it ran
    }
    if (m_opts.onEvent) {
      e.tags.pointIndex = m_sp.index;
      e.tags.trial = m_trial;
      m_opts.onEvent(e);
    }
  }

  /// The point, given how the worker's part in it ended (`total`: its limit).
  Point finish(const ChildResult& r, double total);

 private:
  Point keepPartial(const ChildResult& r, double total);  ///< died in the profiling pass
  Point unreachable(const ChildResult& r);                ///< ssh could not connect
  Point noResult(const ChildResult& r);                   ///< ended without its point
  void read(const std::string& line) {
    if (!m_readLine.empty() && line == m_readLine) return;
    m_readLine = line;
    m_readEvent.reset();
    m_readError.clear();
    m_readErrorEvent.clear();
    try {
      m_readEvent = parseStreamEvent(line);
    } catch (const StreamError& e) {
      m_readError = e.what();
      m_readErrorEvent = e.event();
    }
  }

  const SweepPoint& m_sp;
  int m_trial;
  const SessionOptions& m_opts;
  DeviceInfo* m_deviceOut;
  std::string m_readLine;
  std::optional<StreamEvent> m_readEvent;
  std::string m_readError, m_readErrorEvent;
  std::string m_lastPhase, m_lastProgress;
  Point m_result;
  bool m_gotPoint = false;
  std::optional<Point> m_partial;  // the capture before the profiling pass
  std::string m_streamError;       // the first line that could not be read
};

Point PointReader::finish(const ChildResult& r, double total) {
  m_result.index = m_sp.index;
  m_result.trial = m_trial;
  m_result.label = m_sp.label();
  m_result.workerStderr = r.stderrText;
  m_result.wallSeconds = r.seconds;
  m_result.status.streamError = m_streamError;
  if (!r.started) {
    m_result.verdict = Verdict::launch_error;
    m_result.launch.error = r.startError;
    m_result.status.workerError = r.startError;
    return m_result;
  }
  if (!m_gotPoint && m_partial && (r.timedOut || r.signal != 0 || r.exitCode != kExitNoGpu))
    return keepPartial(r, total);
  if (r.timedOut) {
    double limit = r.timeoutPhase == "launch" ? m_opts.launchTimeoutS : total;
    m_result.findings.push_back(hangFinding(r, limit, r.timeoutPhase));
    m_result.verdict = worse(m_result.verdict, Verdict::hang);
    return m_result;
  }
  if (!m_gotPoint && !m_opts.remoteHost.empty() && r.exitCode == kSshConnectionFailed) return unreachable(r);
  if (r.signal != 0 && !m_gotPoint) {
    m_result.findings.push_back(
        workerFault("the worker was killed by " + signalDescription(r.signal) +
                        (m_lastPhase.empty() ? "" : " during phase '" + m_lastPhase + "'"),
                    {{"signal", r.signal}, {"phase", m_lastPhase}}));
    m_result.verdict = worse(m_result.verdict, Verdict::fault);
    return m_result;
  }
  if (m_gotPoint) {
    locateDeviceAssert(m_result, r.stderrText);  // CUDA prints failed asserts on stderr
    return m_result;
  }
  return noResult(r);
}

Point PointReader::keepPartial(const ChildResult& r, double total) {
  // The kernel ran, was checked and timed; the worker died in the profiling
  // pass (CUPTI's profilers over the kernel or the baseline's library calls).
  // That is the tool's failure, not the kernel's: keep the capture, say what died.
  Point kept = std::move(*m_partial);
  const std::string how = r.timedOut ? "stopped by the watchdog after " + std::to_string(int(total)) + " s"
                          : r.signal != 0 ? "killed by " + signalDescription(r.signal)
                                          : "ended with status " + std::to_string(r.exitCode);
  const std::string where = "the worker was " + how + " in the profiling pass" +
                            (m_lastProgress.empty() ? std::string() : " (at: " + m_lastProgress + ")");
  kept.counters.passFailed = true;
  if (kept.counters.collected) {  // the checkpoint after the kernel's counters: only the baseline's are lost
    kept.counters.baselineNote =
        where + "; the kernel's counters are kept, the baseline's counters and the PC samples are lost";
    kept.status.workerError = kept.counters.baselineNote;
  } else {
    kept.counters.note =
        where + "; the capture before it is kept, without counters (run with --no-counters to skip the pass)";
    kept.status.workerError = kept.counters.note;
  }
  kept.status.workerExit = r.signal != 0 ? 128 + r.signal : r.exitCode;  // as a shell reports it
  m_result = std::move(kept);
  m_result.workerStderr = r.stderrText;
  m_result.wallSeconds = r.seconds;
  m_result.status.streamError = m_streamError;
  return m_result;
}

Point PointReader::unreachable(const ChildResult& r) {
  // ssh itself failed (no route, unknown host, refused key): nothing ran there.
  // Like a machine without a GPU, no capture is possible: no_gpu stops the
  // session's callers, remote_unreachable says why.
  std::string why = r.stderrText.substr(0, 2000);
  while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
  m_result.status.noGpu = true;
  m_result.status.remoteUnreachable = true;
  m_result.status.workerExit = r.exitCode;
  m_result.status.workerError =
      "cannot reach host '" + m_opts.remoteHost + "' over ssh" + (why.empty() ? "" : ": " + why);
  return m_result;
}

Point PointReader::noResult(const ChildResult& r) {
  // The worker ended without a result: a configuration problem it reported on
  // stderr (exit 2), no GPU (exit 3), an internal error, or a result line
  // that could not be read (a broken or mismatched worker).
  std::string why = !m_streamError.empty() ? "its result could not be read: " + m_streamError
                    : r.stderrText.empty() ? "no output"
                                           : r.stderrText.substr(0, 2000);
  m_result.status.workerExit = r.exitCode;
  m_result.status.workerError = why;
  if (r.exitCode == kExitNoGpu) {
    m_result.status.noGpu = true;
  } else {
    // Nothing says the kernel faulted: the tool's side failed (docs/security.md, "Worker results and remote
    // baselines").
    Finding f;
    f.category = "worker_error";
    f.severity = Severity::error;
    f.message = "the worker exited with status " + std::to_string(r.exitCode) + " without a result: " + why;
    f.evidence = {{"exit_code", r.exitCode}, {"phase", m_lastPhase}};
    f.treeNode = std::string(categoryInfo(f.category).treeNode);
    m_result.findings.push_back(f);
    m_result.verdict = worse(m_result.verdict, categoryInfo(f.category).verdict);
  }
  return m_result;
}

}  // namespace

Point runWorkerPoint(const Config& config, const SweepPoint& sp, int trial, int device,
                     const SessionOptions& opts, DeviceInfo* deviceOut) {
  std::vector<std::string> args = {"worker",  opts.configPath,       "--point", std::to_string(sp.index),
                                   "--trial", std::to_string(trial), "--gpu",   std::to_string(device)};
  args.insert(args.end(), opts.extraWorkerArgs.begin(), opts.extraWorkerArgs.end());
  const double total = opts.timeoutS > 0 ? opts.timeoutS : defaultWorkerTimeout(config);
  PointReader reader(sp, trial, opts, deviceOut);
  ChildResult r = runChild(
      workerArgv(opts, args), total, [&](const std::string& line) { reader.onLine(line); },
      [&](const std::string& line, std::string* name) { return reader.watchdog(line, name); });
  return reader.finish(r, total);
}

WarmWorker::WarmWorker() : m_child(std::make_unique<ServedChild>()) {}
WarmWorker::~WarmWorker() { retire(); }

void WarmWorker::retire() {
  if (m_child->running()) (void)m_child->finish(10);
}

void WarmWorker::release() {
  if (m_child->running()) m_child->release(10);
}

Point WarmWorker::capture(const Config& config, const SweepPoint& sp, int trial, int device,
                          const SessionOptions& opts, DeviceInfo* deviceOut) {
  const double total = opts.timeoutS > 0 ? opts.timeoutS : defaultWorkerTimeout(config);
  for (int attempt = 0;; ++attempt) {
    if (!m_child->running() || device != m_device) {
      retire();
      std::vector<std::string> args = {"worker", opts.configPath, "--serve", "--gpu", std::to_string(device)};
      args.insert(args.end(), opts.extraWorkerArgs.begin(), opts.extraWorkerArgs.end());
      m_device = device;
      m_served = 0;
      ++m_started;
      if (std::string why = m_child->start(workerArgv(opts, args)); !why.empty()) {
        ChildResult r;
        r.startError = why;
        return PointReader(sp, trial, opts, deviceOut).finish(r, total);
      }
    }
    PointReader reader(sp, trial, opts, deviceOut);
    // The answer ends with its point, or with a line that should have been the
    // point and cannot be read (the worker's state is unknown then: it is ended).
    ChildResult r = m_child->request(
        toRequestLine({sp.index, trial}), total, [&](const std::string& line) { reader.onLine(line); },
        [&](const std::string& line, std::string* name) { return reader.watchdog(line, name); },
        [&](const std::string&) { return reader.gotPoint() || reader.unreadableResult(); });
    // A worker that served earlier captures and had ended before this request
    // ran none of it: a fresh one does. One that never served any died starting,
    // which is this capture's outcome (no GPU, a config it cannot load).
    if (attempt == 0 && m_served > 0 && (r.unread || (!reader.gotPoint() && r.exitCode == kExitWorkerStale)))
      continue;
    ++m_served;
    if (m_child->running() && (!reader.gotPoint() || needsFreshWorker(reader.point()))) {
      // What it says on its way out (a failed assert's text) belongs to this capture.
      const ChildResult end = m_child->finish(10);
      r.stderrText += end.stderrText;
      if (!reader.gotPoint()) {
        r.exitCode = end.exitCode;
        r.signal = end.signal;
      }
    }
    return reader.finish(r, total);
  }
}

bool needsFreshWorker(const Point& p) {
  if (p.status.stickyError.value_or(false) || p.verdict == Verdict::fault || p.verdict == Verdict::hang)
    return true;
  // A profiling pass that failed may leave CUPTI's state behind it broken.
  if (p.counters.passFailed) return true;
  // A write past a tensor may have landed in memory the next capture uses.
  return std::any_of(p.findings.begin(), p.findings.end(), [](const Finding& f) {
    return f.category == "oob_write" || f.category == "illegal_address" || f.category == "uninitialized_read";
  });
}

}  // namespace tilescope
