// A reference/candidate problem as an entry (docs/triage.md, "Problems"): the
// Python runner's answer as a report, then the candidate under `capture` and its
// failing kernels under `diagnose`.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <fstream>
#include <set>

#include "tilescope/base/format.h"
#include "tilescope/base/process.h"
#include "tilescope/capture/capture.h"
#include "tilescope/diagnose/tree.h"
#include "tilescope/logs/classify.h"
#include "triage_detail.h"
#include "triage_runner.h"

namespace tilescope {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

CorrectnessInfo caseCorrectness(const RunnerCompare& cmp) {
  CorrectnessInfo ci;
  ci.checked = cmp.given;
  ci.reference = "reference module";
  ci.tensor = cmp.output;
  ci.maxAbsErr = cmp.maxAbsErr;
  ci.maxRelErr = cmp.maxRelErr;
  ci.mismatches = runnerCount(cmp.mismatches);
  ci.elements = runnerCount(cmp.elements);
  ci.nan = runnerCount(cmp.nan);
  ci.inf = runnerCount(cmp.inf);
  ci.rtol = cmp.rtol;
  ci.atol = cmp.atol;
  return ci;
}

/// The runner's timing as the first point's kernel and baseline times.
void caseTiming(Point& p, const RunnerTiming& t) {
  const double cand = t.candidateNs, ref = t.referenceNs;
  if (cand <= 0) return;
  p.timing.measured = true;
  p.timing.kernelNs.median = cand;
  p.timing.kernelNs.n = static_cast<int>(runnerCount(t.reps, 1e9));
  p.timing.note = "CUDA events around the module's forward (the runner), median";
  if (ref > 0) {
    p.baseline.name = "reference";
    p.baseline.measured = true;
    p.baseline.kernelNs.median = ref;
    p.speedup = ref / cand;
  }
}

std::string findingCase(const Finding& f) {
  if (!f.evidence.is_object()) return "";
  const auto it = f.evidence.find("case");
  return it != f.evidence.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

Report problemReport(const TriageEntry& e, const json& runner, const Tree* tree) {
  return problemReport(e, readRunnerAnswer(runner), tree);
}

Report problemReport(const TriageEntry& e, const RunnerAnswer& runner, const Tree* tree) {
  Report r;
  r.toolVersion = toolVersion();
  r.createdAt = nowIso8601();
  r.host = hostName();
  r.verb = "triage";
  r.config = {{"name", e.name}, {"triage", {{"kind", "problem"}, {"inputs", e.inputs}}}};
  if (e.inputs.size() == 2) r.config["kernel"] = {{"source", e.inputs[1]}, {"entry", "ModelNew"}};
  r.device.name = runner.gpu;
  for (std::size_t i = 0; i < runner.cases.size(); ++i) {
    const RunnerCase& c = runner.cases[i];
    Point p;
    p.index = static_cast<int>(i);
    p.label = c.label.value_or("case " + std::to_string(i));
    p.params = c.shape;
    p.correctness.push_back(caseCorrectness(c.compare));
    p.extra["seed"] = c.seed;
    r.points.push_back(std::move(p));
  }
  if (r.points.empty()) {
    Point p;
    p.label = runner.phase.value_or("run");
    r.points.push_back(std::move(p));
  }
  Point& first = r.points.front();
  if (runner.exception) {
    // The exception's text is the log the tree's `log` predicates classify.
    first.compile.attempted = true;
    first.compile.compiler = "python";
    first.compile.log = runner.exception->text;
  }
  first.workerStderr = runner.stderrText.value_or("");
  caseTiming(first, runner.timing);
  for (const Finding& f : e.findings) {
    const std::string c = findingCase(f);
    auto it = std::find_if(r.points.begin(), r.points.end(), [&](const Point& p) { return p.label == c; });
    (it == r.points.end() ? first : *it).findings.push_back(f);
  }
  for (Point& p : r.points) p.verdict = verdictForFindings(p.findings);
  r.finalize();
  if (tree) applyWalk(r, walkTree(*tree, toJson(r)));
  return r;
}

namespace {

/// The runner's answer, or why there is none (the process died, hung, printed nothing).
/// The file is the confined code's: a regular file of at most 64 MiB, not a link.
std::optional<json> readRunner(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(file, ec)) || fs::file_size(file, ec) > (64u << 20))
    return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  try {
    json j = parseJson(in);
    if (j.is_object() && j.value("schema", "") == kRunnerSchema) return j;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

/// "last progress: phase forward, 2 cases judged" from the runner's partial answer.
std::string progressOf(const json& partial) {
  if (!partial.is_object()) return "";
  const RunnerAnswer progress = readRunnerAnswer(partial);
  if (!progress.phase) return "";
  const std::size_t n = progress.cases.size();
  return "last progress: phase " + *progress.phase + ", " + std::to_string(n) +
         (n == 1 ? " case" : " cases") + " judged";
}

/// The last line the runner wrote on stderr that is not blank.
std::string lastOutput(const std::string& tail) {
  std::string last;
  for (std::size_t i = 0; i < tail.size();) {
    const auto nl = tail.find('\n', i);
    const std::size_t end = nl == std::string::npos ? tail.size() : nl;
    const std::string line(trimmed(std::string_view(tail).substr(i, std::min<std::size_t>(end - i, 400))));
    if (!line.empty()) last = line;
    i = end + 1;
  }
  return last;
}

/// A finding for a runner a limit stopped: which limit, its value, and what it saw.
json limitFinding(const char* category, const std::string& message, const char* limit, json evidence,
                  const json& partial, const std::string& tail) {
  std::string m = message;
  if (const std::string p = progressOf(partial); !p.empty()) m += "; " + p, evidence["progress"] = p;
  if (const std::string out = lastOutput(tail); !out.empty()) evidence["last_output"] = out;
  evidence["limit"] = limit;
  return {{"category", category}, {"severity", "error"}, {"message", m}, {"evidence", std::move(evidence)}};
}

}  // namespace

json runnerWithoutAnswer(const ChildResult& r, const json& limits, double timeoutS,
                         const std::string& candidate, const json& partial) {
  json j = {{"schema", kRunnerSchema}, {"status", "failed"}, {"phase", "run"}};
  if (partial.is_object())  // what the runner had seen when it stopped: its phase and cases
    for (const char* k : {"phase", "cases", "launches", "environment", "limits"})
      if (partial.contains(k)) j[k] = partial[k];
  if (partial.is_object()) j["partial"] = true;
  std::string tail =
      r.stderrText.size() > 8192 ? r.stderrText.substr(r.stderrText.size() - 8192) : r.stderrText;
  j["stderr"] = tail;
  const double memory = limits.value("max_memory_bytes", 0.0), cpu = limits.value("max_cpu_s", 0.0);
  if (r.timedOut) {
    j["findings"] = json::array({limitFinding(
        "hang",
        "the runner did not finish within " + std::to_string(int(timeoutS)) + " s: the watchdog stopped it",
        "wall_clock", {{"timeout_s", timeoutS}}, partial, tail)});
  } else if (r.signal == SIGXCPU || r.signal == SIGXFSZ) {
    // A limit of the sandbox fired (runnerLimitArgs): name it and its value.
    const bool isCpu = r.signal == SIGXCPU;
    const std::string what = isCpu ? "its CPU-time limit (RLIMIT_CPU, " + formatDuration(cpu * 1e9) + ")"
                                   : "its file-size limit (RLIMIT_FSIZE, " +
                                         formatBytes(limits.value("max_file_bytes", 0.0)) + ")";
    j["findings"] = json::array(
        {limitFinding("crash", "the runner was stopped by " + what + ": " + signalDescription(r.signal),
                      isCpu ? "RLIMIT_CPU" : "RLIMIT_FSIZE", {{"signal", r.signal}}, partial, tail)});
  } else if (r.signal == SIGKILL) {
    // Not the watchdog (timedOut): the kernel's OOM killer, at the host's memory or a
    // cgroup's; the runner's RLIMIT_DATA fails allocations (MemoryError) instead.
    std::string why =
        "the runner was killed by SIGKILL, not by the watchdog: the kernel's OOM killer (the "
        "problem needs more than the host's memory";
    if (memory > 0) why += "; the runner's memory limit was RLIMIT_DATA, " + formatBytes(memory);
    why += ")";
    if (cpu > 0)
      why += ", or the CPU-time limit's hard value (RLIMIT_CPU, " + formatDuration((cpu + 5) * 1e9) + ")";
    j["findings"] = json::array({limitFinding(
        "crash", why, "oom_killer", {{"signal", r.signal}, {"max_memory_bytes", memory}}, partial, tail)});
  } else if (!r.started || (r.signal == 0 && tail.find("CUDA error") == std::string::npos &&
                            tail.find(fs::path(candidate).filename().string()) == std::string::npos)) {
    j["status"] = "error";
    j["error"] = "the runner failed: " + (r.started ? lastLine(tail) : r.startError);
  } else if (!lastExceptionLine(tail).empty() || tail.find("CUDA error") != std::string::npos) {
    j["exception"] = {{"type", "Error"}, {"message", lastExceptionLine(tail)}, {"text", tail}};
  } else {
    const std::string how = r.signal
                                ? "killed by " + signalDescription(r.signal)
                                : "exited with status " + std::to_string(r.exitCode) + " without an answer";
    j["findings"] = json::array({{{"category", "crash"},
                                  {"severity", "error"},
                                  {"message", "the runner was " + how},
                                  {"evidence", {{"signal", r.signal}}}}});
  }
  return j;
}

namespace {

/// The case the capture replays: the first that failed, else the first.
std::string replayCase(const RunnerAnswer& runner) {
  for (const RunnerCase& c : runner.cases)
    if (c.status != "ok") return c.label.value_or("");
  return runner.cases.empty() ? "" : runner.cases.front().label.value_or("");
}

/// Findings about memory accesses: the replay's guard zones and trace locate
/// them, and `diagnose` follows them up. A wrong value, a race or a trap replays
/// as the program ran: its kernels are traced (`run --trace`), not diagnosed.
bool locatedByReplay(const TriageEntry& e) {
  static const std::set<std::string> located = {"oob_write",         "oob_read", "illegal_address",
                                                "misaligned_access", "nan_inf",  "device_assert"};
  return e.verdict != Verdict::ok && located.count(e.category) > 0;
}

bool wantCapture(const TriageEntry& e, const TriageOptions& opts) {
  if (opts.depth == TriageDepth::check || opts.capture == CaptureWhen::never) return false;
  if (opts.capture == CaptureWhen::always) return true;
  // A compile error launched nothing; a crash or a hang would only repeat under capture.
  if (e.verdict == Verdict::compile_error || e.verdict == Verdict::hang || e.category == "crash")
    return false;
  if (e.launches == 0) return true;  // the capture's count decides a no-kernel verdict
  // `launched`: every other candidate too, so that a silent out-of-bounds read of a
  // healthy-looking one is found and a symptom gets its kernel's line.
  return opts.capture == CaptureWhen::launched || locatedByReplay(e);
}

struct CapturedKernels {
  int total = 0;
  std::vector<std::string> own;      ///< kernel names of the candidate's own launches
  std::vector<fs::path> configs;     ///< their configs, faulting launches first
  std::vector<std::string> library;  ///< names of library launches (at most 8)
};

CapturedKernels readCapture(const fs::path& dir) {
  CapturedKernels k;
  const CaptureInfo info = loadCaptureInfo(dir);
  std::vector<std::pair<bool, fs::path>> cfgs;
  for (const CapturedLaunch& l : info.launches) {
    ++k.total;
    if (isLibraryKernel(l.kernel)) {
      if (k.library.size() < 8) k.library.push_back(l.kernel);
      continue;
    }
    k.own.push_back(l.kernel);
    if (!l.config.empty()) cfgs.emplace_back(l.fault.empty(), dir / l.config);
  }
  std::stable_sort(cfgs.begin(), cfgs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [ok, p] : cfgs) k.configs.push_back(p);
  return k;
}

/// The capture's launch count decides a no-kernel verdict either way; a capture
/// that saw none where the runner counted some (the program faulted before its
/// launches were recorded) decides nothing.
void reconcileLaunches(TriageEntry& e, std::vector<Finding>& findings, const CapturedKernels& k) {
  if (k.own.empty() && e.launches != 0) {
    e.note = e.launches > 0 ? "the capture recorded none of the " + std::to_string(e.launches) +
                                  " launches of the candidate's own the runner counted"
                            : "the capture recorded no launch of the candidate's own";
    return;
  }
  e.launches = static_cast<int>(k.own.size());
  e.extra["capture_launches"] = {{"total", k.total}, {"own", k.own.size()}, {"library", k.library}};
  const auto isNoKernel = [](const Finding& f) { return f.category == "no_kernel"; };
  if (!k.own.empty()) {
    findings.erase(std::remove_if(findings.begin(), findings.end(), isNoKernel), findings.end());
  } else if (std::none_of(findings.begin(), findings.end(), isNoKernel)) {
    Finding f;
    f.category = "no_kernel";
    f.treeNode = "wrong.no_kernel";
    f.message = "no kernel of the candidate ran: the capture saw " + std::to_string(k.total) +
                " launch(es), all of libraries";
    f.evidence = {{"source", "capture"}, {"launches", k.total}, {"library_kernels", k.library}};
    findings.insert(findings.begin(), std::move(f));
  }
}

/// Seconds since the last lap, added to `extra.phase_seconds[name]`.
struct PhaseClock {
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
  void lap(TriageEntry& e, const char* name) {
    const auto now = std::chrono::steady_clock::now();
    e.extra["phase_seconds"][name] =
        std::round(std::chrono::duration<double>(now - last).count() * 1e3) / 1e3;
    last = now;
  }
};

}  // namespace

void runProblemEntry(TriageEntry& e, const EntryContext& ctx) {
  const TriageOptions& opts = *ctx.opts;
  if (const std::string refused = untrustedRefusal(opts); !refused.empty()) {
    e.status = EntryStatus::not_run;
    e.note = refused;
    return;
  }
  e.extra["sandbox"] = sandboxDescription(opts);
  // What the problem's code can write is in sandbox/ alone: the entry's reports
  // beside it are written by TileScope, never through a link the code planted.
  const fs::path box = ctx.sandboxDir();
  struct RemoveHome {  // the entry's private caches, however the entry ends
    fs::path dir;
    ~RemoveHome() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } removeHome{box / "home"};
  const fs::path runnerOut = box / "runner.json";
  // Absolute: the confined runner's working directory is its sandbox folder.
  const std::string ref = fs::absolute(e.inputs.at(0)).string(), cand = fs::absolute(e.inputs.at(1)).string();
  const std::vector<fs::path> files{ref, cand};
  const std::vector<std::string> limits = runnerLimitArgs(opts.limits, opts.entryTimeoutS, opts.jobs);
  std::vector<std::string> argv = opts.python;
  argv.insert(argv.end(), {fs::absolute(opts.runner).string(), "--reference", ref, "--candidate", cand,
                           "--out", fs::absolute(runnerOut).string(), "--seeds", std::to_string(opts.seeds)});
  argv.insert(argv.end(), limits.begin(), limits.end());
  if (opts.depth == TriageDepth::check) argv.push_back("--no-timing");
  // Where the entry's time went (`extra.phase_seconds`): the bench sums it per phase.
  PhaseClock clock;
  const ChildResult r = ctx.runUntrusted(argv, files, opts.entryTimeoutS);
  clock.lap(e, "runner");
  const json answer = readRunner(runnerOut).value_or(json());
  RunnerAnswer runner = answer.is_null() ? RunnerAnswer{} : readRunnerAnswer(answer);
  // "running": the runner's progress, written at each phase; it stopped before its answer.
  if (answer.is_null() || runner.status == "running")
    runner = readRunnerAnswer(
        runnerWithoutAnswer(r, sandboxDescription(opts), opts.entryTimeoutS, e.inputs.at(1), answer));
  if (runner.status == "error") {
    e.status = EntryStatus::not_run;
    e.note = runner.error.value_or("the runner could not run");
    if (runner.noGpu) e.extra["no_gpu"] = true;
    return;
  }
  if (!runner.stderrText) runner.stderrText = r.stderrText.substr(0, 8192);
  std::vector<Finding> findings = runnerFindings(runner);
  e.launches = runner.launchesOwn ? static_cast<int>(runnerCount(*runner.launchesOwn, 1e9)) : -1;
  e.findings = findings;
  e.level = "runner";
  Report rep = problemReport(e, runner, ctx.tree);
  summarizeReport(e, rep, ctx.tree);
  if (wantCapture(e, opts)) {
    const fs::path capDir = box / "capture";
    std::error_code ec;
    fs::remove_all(capDir, ec);
    std::vector<std::string> cap = opts.exe;
    cap.insert(cap.end(), {"capture", "-o", fs::absolute(capDir).string(), "--timeout",
                           std::to_string(int(opts.entryTimeoutS)), "--"});
    cap.insert(cap.end(), opts.python.begin(), opts.python.end());
    // No guard zones of the runner's own: the capture's tensors must end where the program's do.
    cap.insert(cap.end(), {fs::absolute(opts.runner).string(), "--replay", "--no-guards", "--reference", ref,
                           "--candidate", cand, "--case", replayCase(runner), "--out",
                           fs::absolute(box / "replay.json").string()});
    cap.insert(cap.end(), limits.begin(), limits.end());
    const ChildResult c = ctx.runUntrusted(cap, files, opts.entryTimeoutS + 30);
    clock.lap(e, "capture");
    if (!fs::exists(capDir / "capture.json", ec)) {
      e.note = "the capture did not run: " + lastLine(c.stderrText.empty() ? c.startError : c.stderrText);
    } else {
      try {
        const CapturedKernels k = readCapture(capDir);
        reconcileLaunches(e, findings, k);
        e.findings = findings;
        rep = problemReport(e, runner, ctx.tree);
        summarizeReport(e, rep, ctx.tree);
        e.level = "runner+capture";
        diagnoseCaptured(e, ctx, k.configs, !locatedByReplay(e));
        clock.lap(e, "kernels");
      } catch (const std::exception& ex) {
        e.note = std::string("the capture could not be read: ") + ex.what();
      }
    }
  }
  // The runner's view is kept whichever report leads (a diagnosed kernel's may).
  const std::string runnerReport = ctx.saveReport(rep, "report.json");
  if (e.report.empty()) e.report = runnerReport;
}

}  // namespace tilescope
