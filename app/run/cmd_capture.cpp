// `tilescope-run capture -o DIR [--kernel REGEX] [--launch-skip N] [--launch-count N] -- COMMAND [ARGS...]`
// (docs/capture.md): runs the user's program unmodified with TileScope's two
// recorders in it (the CUDA injection library through CUDA_INJECTION64_PATH,
// the Triton recorder through PYTHONPATH), follows their events, and turns the
// recorded launches into configs and DIR/capture.json.
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "commands.h"
#include "options.h"
#include "tilescope/base/format.h"
#include "tilescope/base/process.h"
#include "tilescope/base/resources.h"
#include "tilescope/capture/capture.h"
#include "tilescope/capture/selection.h"
#include "tilescope/model/report.h"
#include "tilescope/run/remote.h"
#include "tilescope/run/stream.h"

namespace tilescope::cli {

namespace fs = std::filesystem;

namespace {

struct CaptureArgs {
  std::string output, kernel, maxBytes = "4G", remote, cwd;
  std::int64_t skip = 0, count = 0;  ///< count 0: unlimited
  bool stream = false, keepCachingAllocator = false;
  double timeoutS = 0;
  std::vector<std::string> command;
};

/// "4G", "512M", "64k", "1000": bytes; throws std::invalid_argument.
std::uint64_t parseBytes(const std::string& s) {
  std::size_t used = 0;
  const double v = std::stod(s, &used);
  std::string unit = s.substr(used);
  double factor = 1;
  if (unit == "k" || unit == "K" || unit == "KiB")
    factor = 1024.0;
  else if (unit == "M" || unit == "MiB")
    factor = 1024.0 * 1024;
  else if (unit == "G" || unit == "GiB")
    factor = 1024.0 * 1024 * 1024;
  else if (!unit.empty() && unit != "B")
    throw std::invalid_argument("--max-bytes '" + s + "': unknown unit '" + unit + "'");
  if (!(v >= 0) || v * factor > 1e15) throw std::invalid_argument("--max-bytes '" + s + "': out of range");
  return std::uint64_t(v * factor);
}

/// libtilescope_inject.so: $TILESCOPE_INJECTION, beside this executable (the
/// build tree), or where `install` puts it.
std::string findInjection() {
  if (const char* e = std::getenv("TILESCOPE_INJECTION"); e && *e) return e;
  const fs::path self = fs::path(selfExecutable()).parent_path();
#ifdef TILESCOPE_INJECT_INSTALL_PATH
  const fs::path installed = TILESCOPE_INJECT_INSTALL_PATH;
#else
  const fs::path installed;
#endif
  for (const fs::path& p : {self / "libtilescope_inject.so", installed}) {
    if (p.empty()) continue;
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return fs::weakly_canonical(p, ec).string();
  }
  return "";
}

/// Follows DIR/events.jsonl while the program runs: progress on stderr, and
/// capture events on stdout with --stream.
class EventFollower {
 public:
  EventFollower(fs::path file, bool stream) : m_file(std::move(file)), m_stream(stream) {
    m_thread = std::thread([this] {
      while (!m_stop.load()) {
        poll();
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
      }
      poll();
    });
  }
  ~EventFollower() { stop(); }
  void stop() {
    if (m_thread.joinable()) {
      m_stop = true;
      m_thread.join();
    }
  }
  int launches() const { return m_launches; }

 private:
  void poll() {
    std::ifstream in(m_file, std::ios::binary);
    if (!in) return;
    in.seekg(m_offset);
    std::string line;
    while (std::getline(in, line)) {
      if (in.eof()) break;  // a line still being written: read it next time
      m_offset += std::streamoff(line.size() + 1);
      show(line);
    }
  }
  void show(const std::string& line) {
    nlohmann::json e;
    try {
      e = nlohmann::json::parse(line);
    } catch (const std::exception&) {
      return;
    }
    const std::string kind = e.value("event", "");
    if (kind == "launch") {
      ++m_launches;
      std::string grid;
      if (e.contains("grid") && e["grid"].is_array())
        for (const auto& g : e["grid"]) grid += (grid.empty() ? "" : "x") + g.dump();
      std::cerr << "capture: " << e.value("recorder", "?") << " launch";
      if (e.contains("index") && e["index"].is_number()) std::cerr << " #" << e["index"].dump();
      std::cerr << ": " << e.value("kernel", "?") << " grid " << grid << " -> launches/" << e.value("id", "?")
                << (e.contains("fault") ? "  (" + e.value("fault", "") + " in the program)" : "") << '\n';
    } else if (kind == "note") {
      std::cerr << "capture: note (" << e.value("recorder", "?") << "): " << e.value("message", "") << '\n';
    } else {
      return;
    }
    if (!m_stream) return;
    // Through the stream codec: what is printed is what the GUI's reader reads.
    e["schema"] = kStreamSchema;
    e["capture_event"] = kind;
    e["event"] = "capture";
    try {
      if (const auto ev = parseStreamEvent(dumpJson(e))) std::cout << toLine(*ev) << std::endl;
    } catch (const StreamError& x) {
      std::cerr << "capture: a recorder's event was not forwarded: " << x.what() << '\n';
    }
  }

  fs::path m_file;
  bool m_stream;
  std::streamoff m_offset = 0;
  std::atomic<bool> m_stop{false};
  std::atomic<int> m_launches{0};
  std::thread m_thread;
};

/// SIGTERM or SIGINT (the workbench's Cancel, Ctrl-C): the handler only
/// records it; StopOnSignal's thread does the stopping.
volatile std::sig_atomic_t g_stopSignal = 0;
void onStopSignal(int sig) { g_stopSignal = sig; }

/// Kills the process group of every child of this process. runChild makes the
/// program the leader of a group of its own, so a signal that ends
/// tilescope-run alone would leave the program running, unwatched.
void killChildGroups() {
  const std::string self = std::to_string(::getpid());
  std::error_code ec;
  for (const fs::directory_entry& d : fs::directory_iterator("/proc", ec)) {
    const std::string name = d.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(d.path() / "stat");
    std::string stat;
    if (!std::getline(in, stat)) continue;
    // "pid (comm) state ppid ...": comm may itself hold spaces and parentheses.
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    std::string state, ppid;
    rest >> state >> ppid;
    if (ppid != self) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
  }
}

/// While alive: SIGTERM/SIGINT stop the program (and whatever it started in
/// its group), so that runChild returns and capture.json still says how the
/// capture ended and lists every launch recorded until then.
class StopOnSignal {
 public:
  StopOnSignal() {
    std::signal(SIGTERM, onStopSignal);
    std::signal(SIGINT, onStopSignal);
    m_thread = std::thread([this] {
      while (!m_done.load()) {
        if (g_stopSignal) killChildGroups();  // again each time: a child started late goes too
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    });
  }
  ~StopOnSignal() {
    m_done = true;
    m_thread.join();
    std::signal(SIGTERM, SIG_DFL);
    std::signal(SIGINT, SIG_DFL);
  }
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;
  /// The signal that asked to stop, 0 when none did.
  static int signal() { return g_stopSignal; }

 private:
  std::atomic<bool> m_done{false};
  std::thread m_thread;
};

ProgramExit exitOf(const ChildResult& r) {
  ProgramExit e;
  e.seconds = r.seconds;
  if (!r.started) {
    e.status = "not_started";
    e.message = "could not start: " + r.startError;
  } else if (r.timedOut) {
    e.status = "timeout";
    e.message = "stopped after --timeout";
  } else if (r.signal != 0) {
    e.status = "signal";
    e.code = r.signal;
    e.message = "killed by signal " + std::to_string(r.signal) + " (" + signalDescription(r.signal) + ")";
  } else {
    e.status = "exited";
    e.code = r.exitCode;
    e.message = "exited with status " + std::to_string(r.exitCode);
  }
  return e;
}

void printSummary(const CaptureInfo& info, const fs::path& dir) {
  int configs = 0;
  for (const CapturedLaunch& l : info.launches) configs += !l.config.empty();
  std::cerr << "capture: the program " << info.exit.message << " after "
            << formatDuration(info.exit.seconds * 1e9) << "; " << info.launches.size() << " launch"
            << (info.launches.size() == 1 ? "" : "es") << " recorded, " << configs << " config"
            << (configs == 1 ? "" : "s") << " in " << dir.string() << '\n';
  for (const CapturedLaunch& l : info.launches) {
    std::cerr << "  " << (l.index >= 0 ? "#" + std::to_string(l.index) : l.id) << "  " << l.kernel << "  ";
    if (!l.config.empty())
      std::cerr << l.config;
    else
      std::cerr << "no config: " << l.reason;
    if (l.kernelNs) std::cerr << "  (" << formatDuration(*l.kernelNs) << " in the program)";
    std::cerr << '\n';
  }
  for (const std::string& n : info.notes) std::cerr << "  note: " << n << '\n';
}

int captureRemote(const CaptureArgs& a, const fs::path& dir);

int captureLocal(const CaptureArgs& a, const fs::path& dir, const LaunchSelection& sel) {
#if TILESCOPE_HAVE_CUDA
  // The driver's device nodes, not cuInit: initialising CUDA here would add its
  // start-up to the program's run time, which the capture is measured against.
  std::error_code nodeErr;
  if (!fs::exists("/dev/nvidiactl", nodeErr) && !fs::exists("/dev/dxg", nodeErr)) {
    std::cerr
        << "tilescope-run capture: no GPU here (no NVIDIA driver device /dev/nvidiactl): capture needs one "
           "(or --remote HOST)\n";
    return kExitNoGpu;
  }
#else
  std::cerr
      << "tilescope-run capture: this tilescope-run was built without CUDA: capture needs a GPU build\n";
  return kExitNoGpu;
#endif
  const std::string injection = findInjection();
  if (injection.empty()) {
    std::cerr << "tilescope-run capture: libtilescope_inject.so was not found beside " << selfExecutable()
              << " (or set TILESCOPE_INJECTION)\n";
    return kExitNoGpu;
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return usageError("-o " + dir.string() + ": " + ec.message());

  std::vector<std::string> env = sel.environment();
  env.push_back("TILESCOPE_CAPTURE_DIR=" + dir.string());
  env.push_back("CUDA_INJECTION64_PATH=" + injection);
  env.push_back("TILESCOPE_CAPTURE_INJECTION=" + injection);
  const std::string site = (resourceDir() / "python" / "tilescope" / "capture" / "site").string();
  const char* pp = std::getenv("PYTHONPATH");
  env.push_back("PYTHONPATH=" + site + (pp && *pp ? ":" + std::string(pp) : ""));
  // One cudaMalloc per tensor: a pointer's allocation is its tensor, so the
  // replay's guard zones sit at the tensor's end (docs/capture.md).
  if (!a.keepCachingAllocator) env.push_back("PYTORCH_NO_CUDA_MEMORY_CACHING=1");
  // Inductor kernels from a warm cache go through its static CUDA launcher,
  // which Triton's hooks never see: a fresh cache of the capture's own makes
  // them compile and launch through Triton (the CUDA recorder would otherwise
  // see them as plain cubins). A cache the user chose is kept.
  std::string inductorCache;
  if (!std::getenv("TORCHINDUCTOR_CACHE_DIR")) {
    char t[] = "/tmp/tilescope-inductor-XXXXXX";
    if (::mkdtemp(t)) inductorCache = t;
    if (!inductorCache.empty()) env.push_back("TORCHINDUCTOR_CACHE_DIR=" + inductorCache);
  }

  CaptureInfo info;
  info.command = a.command;
  info.cwd = fs::current_path(ec).string();
  info.host = hostName();
  info.startedAt = nowIso8601();
  info.selection = {{"kernel", sel.kernelRegex}, {"launch_skip", sel.skip}, {"max_bytes", sel.maxBytes}};
  if (sel.count) info.selection["launch_count"] = *sel.count;
  info.exit.status = "running";
  writeFileAtomically(dir / "capture.json", dumpJson(toJson(info), 1) + "\n");

  std::cerr << "capture: running " << a.command.front() << " with the recorders (" << injection << ")\n";
  EventFollower follower(dir / "events.jsonl", a.stream);
  // The program's own output passes through (to stderr under --stream, whose
  // stdout is the event stream).
  auto out = [&a](const std::string& line) { (a.stream ? std::cerr : std::cout) << line << std::endl; };
  auto err = [](const std::string& line) { std::cerr << line << std::endl; };
  ChildResult res;
  {
    StopOnSignal stopper;
    res = runChild(a.command, a.timeoutS, out, {}, err, env);
  }
  follower.stop();
  if (!inductorCache.empty()) fs::remove_all(inductorCache, ec);
  info.exit = exitOf(res);
  if (const int sig = StopOnSignal::signal())
    info.exit.message = std::string("was stopped: the capture was cancelled (") +
                        (sig == SIGINT ? "SIGINT" : "SIGTERM") + ")";
  if (!a.keepCachingAllocator)
    info.notes.push_back("PyTorch's caching allocator was off (PYTORCH_NO_CUDA_MEMORY_CACHING=1)");
  writeCaptureFolder(dir, info);
  printSummary(info, dir);
  if (a.stream) std::cout << toLine({CaptureDoneEvent{dir.string(), toJson(info)}, {}}) << std::endl;
  return info.exit.status == "exited" && info.exit.code == 0 ? kExitOk : kExitFindings;
}

int cmdCapture(const CaptureArgs& a) {
  if (a.command.empty())
    return usageError("capture: no command (tilescope-run capture -o DIR -- COMMAND [ARGS...])");
  LaunchSelection sel;
  sel.kernelRegex = a.kernel;
  sel.skip = a.skip;
  if (a.count > 0) sel.count = a.count;
  try {
    sel.maxBytes = parseBytes(a.maxBytes);
    LaunchSelector check(sel);  // a bad regex is a usage error here, not in the program
  } catch (const std::exception& e) {
    return usageError(e.what());
  }
  std::error_code ec;
  const fs::path dir = fs::absolute(a.output, ec);
  if (fs::exists(dir, ec) && !(fs::is_directory(dir, ec) && fs::is_empty(dir, ec)))
    return usageError("-o " + a.output + ": exists and is not an empty folder (captures never overwrite)");
  if (!a.cwd.empty() && ::chdir(a.cwd.c_str()) != 0)
    return usageError("--cwd " + a.cwd + ": " + std::strerror(errno));
  if (!a.remote.empty()) return captureRemote(a, dir);
  return captureLocal(a, dir, sel);
}

int captureRemote(const CaptureArgs& a, const fs::path& dir) {
  if (const std::string p = remoteHostProblem(a.remote); !p.empty()) return usageError("--remote: " + p);
  // A folder on the host, the capture there, the folder copied back, removed.
  std::string remoteDir;
  ChildResult mk =
      runChild(remoteCaptureFolderCommand(a.remote), 60, [&](const std::string& l) { remoteDir = l; });
  if (!mk.started || mk.exitCode != 0 || remoteDir.empty()) {
    std::string why = mk.stderrText.empty() ? mk.startError : mk.stderrText;
    while (!why.empty() && std::isspace(static_cast<unsigned char>(why.back()))) why.pop_back();  // one line
    std::cerr << "tilescope-run capture: --remote " << a.remote << " cannot be reached: " << why << '\n';
    return kExitNoGpu;
  }
  // The removal is built (and the host's answer checked) before anything runs there.
  std::vector<std::string> cleanup;
  try {
    cleanup = remoteCleanupCommand(a.remote, remoteDir);
  } catch (const std::exception& e) {
    std::cerr << "tilescope-run capture: --remote " << a.remote << ": mktemp answered: " << e.what() << '\n';
    return kExitNoGpu;
  }
  std::vector<std::string> args = {"capture", "-o", remoteDir + "/c"};
  if (!a.kernel.empty()) args.insert(args.end(), {"--kernel", a.kernel});
  if (a.skip) args.insert(args.end(), {"--launch-skip", std::to_string(a.skip)});
  if (a.count) args.insert(args.end(), {"--launch-count", std::to_string(a.count)});
  args.insert(args.end(), {"--max-bytes", a.maxBytes});
  if (!a.cwd.empty()) args.insert(args.end(), {"--cwd", a.cwd});
  if (a.stream) args.push_back("--stream");
  if (a.keepCachingAllocator) args.push_back("--keep-caching-allocator");
  if (a.timeoutS > 0) args.insert(args.end(), {"--timeout", std::to_string(a.timeoutS)});
  args.push_back("--");
  args.insert(args.end(), a.command.begin(), a.command.end());
  ChildResult run;
  {
    // Cancel stops ssh (the remote program is left to the host: ssh without a
    // terminal does not pass the signal on).
    StopOnSignal stopper;
    run = runChild(
        sshCommand(a.remote, args), 0, [](const std::string& l) { std::cout << l << std::endl; }, {},
        [](const std::string& l) { std::cerr << l << std::endl; });
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  const std::string fetch = "ssh -o BatchMode=yes -- " + shellQuote(a.remote) + " " +
                            shellQuote("tar -C " + shellQuote(remoteDir + "/c") + " -cf - .") + " | tar -C " +
                            shellQuote(dir.string()) + " -xf -";
  const ChildResult got = runChild({"sh", "-c", fetch}, 600, {});
  if (const ChildResult rm = runChild(cleanup, 60, {}); !rm.started || rm.exitCode != 0)
    std::cerr << "tilescope-run capture: warning: " << remoteDir << " is left on " << a.remote << '\n';
  if (!got.started || got.exitCode != 0) {
    std::cerr << "tilescope-run capture: copying the capture back from " << a.remote
              << " failed: " << got.stderrText << '\n';
    return kExitNoGpu;
  }
  try {
    CaptureInfo info = loadCaptureInfo(dir);
    info.remote = a.remote;
    writeFileAtomically(dir / "capture.json", dumpJson(toJson(info), 1) + "\n");
  } catch (const std::exception& e) {
    std::cerr << "tilescope-run capture: " << e.what() << '\n';
  }
  return run.exitCode;
}

}  // namespace

Verb addCaptureCommand(CLI::App& app) {
  auto a = std::make_shared<CaptureArgs>();
  auto* c = app.add_subcommand(
      "capture", "run a program unmodified and record its kernel launches as configs (needs a GPU)");
  c->add_option("-o,--output", a->output, "the capture folder (new or empty)")->required();
  c->add_option("--kernel", a->kernel, "record only kernels whose name matches this regular expression");
  c->add_option("--launch-skip", a->skip, "skip this many matching launches")->check(CLI::NonNegativeNumber);
  c->add_option("--launch-count", a->count, "record at most this many matching launches")
      ->check(CLI::PositiveNumber);
  c->add_option("--max-bytes", a->maxBytes, "do not save a buffer larger than this (default 4G)");
  c->add_option("--timeout", a->timeoutS, "stop the program after this many seconds");
  c->add_option("--cwd", a->cwd, "run the program in this folder");
  c->add_option("--remote", a->remote, "run the program on this host over ssh and copy the capture back");
  c->add_flag("--stream", a->stream, "print tilescope.stream/1 capture events on stdout (for the GUI)");
  c->add_flag("--keep-caching-allocator", a->keepCachingAllocator,
              "leave PyTorch's caching allocator on (pointers then reach to the end of its blocks)");
  c->add_option("COMMAND", a->command, "the program and its arguments, after --")->required();
  return {c, [a] { return cmdCapture(*a); }};
}

}  // namespace tilescope::cli
