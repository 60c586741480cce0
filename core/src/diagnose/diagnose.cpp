// diagnose's orchestration: the baseline worker run, then group after group of
// experiment runs (each its own worker), each group concluded as its runs come
// in and stopped as soon as its answer is settled; the whole stops at the first
// conclusive error finding or at opts.maxCaptures worker runs. The tree is
// walked over the evidence after the baseline and after every group: the groups
// it asks for join the plan, and the final walk becomes report.tree_path.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

#include "tilescope/diagnose/diagnose.h"
#include "tilescope/diagnose/tree.h"

namespace tilescope {

namespace {

struct Diagnosis {
  const Config& config;
  const SweepPoint& point;
  const DiagnoseOptions& opts;
  Report report;
  std::vector<Finding> conclusions;
  std::vector<DiagnoseExperiment> log;
  int captures = 0;
  bool haveTree = false;
  Tree tree;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  double budget = 0;       ///< seconds; 0: none (setBudget)
  double estimate = 0;     ///< what one more experiment is expected to take
  bool hung = false;       ///< the baseline hung
  bool expensive = false;  ///< the baseline took longer than opts.expensiveCaptureS
  bool timeCut = false;

  /// The budget and the follow-up watchdog once the baseline is known.
  void setBudget(const Point& base) {
    hung = base.verdict == Verdict::hang;
    expensive = !hung && base.wallSeconds > opts.expensiveCaptureS;
    budget = opts.budgetS > 0 ? opts.budgetS
             : hung           ? opts.hangBudgetS
             : expensive      ? opts.expensiveBudgetS
                              : 0;
    estimate = hung ? std::min(opts.hangFollowupS, opts.session.launchTimeoutS) : base.wallSeconds;
    report.diagnose->budgetS = budget;
  }
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  /// Whether `e` would end past the budget: then it and `rest` are listed as not run.
  bool outOfTime(const std::vector<std::string>& names) {
    if (budget <= 0) return false;
    if (elapsed() + estimate <= budget) return false;
    timeCut = true;
    for (const auto& n : names) report.diagnose->notRun.push_back(n);
    return true;
  }

  /// diagnose's own progress; `experiment`: the one about to run.
  void emit(ProgressEvent p, const std::string& experiment = "") const {
    if (!opts.session.onEvent) return;
    p.stage = "diagnose";
    StreamEvent e{std::move(p), {}};
    e.tags.experiment = experiment;
    opts.session.onEvent(e);
  }
  void emit(const std::string& message) const {
    ProgressEvent p;
    p.message = message;
    emit(std::move(p));
  }
  /// A capture starts: capture N of at most opts.maxCaptures.
  void emitCapture(const Experiment& e, const std::string& group) const {
    ProgressEvent p;
    p.message = "experiment " + e.name + ": " + e.why;
    p.group = group;
    p.capture = captures + 1;
    p.maxCaptures = opts.maxCaptures;
    emit(std::move(p), e.name);
  }

  /// `watchdog`: a launch limit below the session's (0: none); `total`: a limit on
  /// the whole worker below the session's (0: none).
  Point run(const Experiment& e, double watchdog = 0, double total = 0) {
    SessionOptions so = opts.session;
    if (hung && e.kind != ExperimentKind::baseline)
      so.launchTimeoutS = std::min(so.launchTimeoutS, opts.hangFollowupS);
    if (watchdog > 0) so.launchTimeoutS = std::min(so.launchTimeoutS, watchdog);
    if (total > 0) so.timeoutS = so.timeoutS > 0 ? std::min(so.timeoutS, total) : total;
    auto args = e.workerArgs();
    so.extraWorkerArgs.insert(so.extraWorkerArgs.end(), args.begin(), args.end());
    so.onEvent = [&](const StreamEvent& ev) {
      if (!opts.session.onEvent) return;
      StreamEvent tagged = ev;
      tagged.tags.experiment = e.name;
      opts.session.onEvent(tagged);
    };
    const int gpu = opts.session.devices.empty() ? 0 : opts.session.devices.front();
    DeviceInfo dev;
    Point p = runWorkerPoint(config, point, e.trial, gpu, so, &dev);
    ++captures;
    if (report.device.name.empty() && !dev.name.empty()) report.device = dev;
    p.experiment = e.name;
    // A worker that died before printing its point: record what it was asked to run.
    for (const auto& [k, v] : e.overrides) {
      if (p.params.contains(k) || p.defines.contains(k)) continue;
      p.inputs.overrides[k] = v;
    }
    p.inputs.alignShift = e.alignShift;
    p.inputs.sentinelVariant = e.sentinelVariant;
    p.inputs.inputScale = e.inputScale;
    log.push_back({experimentKindName(e.kind), e.name, e.why, args, p.verdict, p.wallSeconds, e.compiled});
    return p;
  }

  /// The report as it stands: points so far, conclusions first.
  void refreshFindings() {
    const Point& base = report.points.front();
    report.findings = orderFindings(conclusions, base.findings);
    report.verdict = worse(base.verdict, verdictForFindings(conclusions));
  }

  std::vector<std::string> treeRequests() {
    if (!haveTree) return {};
    refreshFindings();
    try {
      return experimentsRequested(walkTree(tree, toJson(report)));
    } catch (const std::exception& e) {
      report.diagnose->treeError = e.what();
      haveTree = false;
      return {};
    }
  }

  /// Experiments the evidence called for that cannot run here: each group once.
  void noteSkipped(const std::vector<DiagnoseSkipped>& skipped) {
    auto& all = report.diagnose->skipped;
    for (const auto& s : skipped) {
      if (std::any_of(all.begin(), all.end(), [&](const auto& a) { return a.group == s.group; })) continue;
      all.push_back(s);
      emit(s.group + " skipped: " + s.reason);
    }
  }

  bool conclusive() const {
    return std::any_of(conclusions.begin(), conclusions.end(),
                       [](const Finding& f) { return f.severity == Severity::error; });
  }

  // The trace locates what the baseline shows; its findings join the
  // conclusions only at the end, so they neither stop the experiments nor take
  // the first place from the experiment that proves the bug.
  std::vector<Finding> traced{};
  bool traceRan = false;
  void runTrace() {
    if (!opts.trace || traceRan || captures >= opts.maxCaptures) return;
    const auto why = traceCalledFor(report.points.front(), conclusions);
    if (!why) return;
    if (hung) {  // the watchdog kills a hung traced launch before anything is read back
      noteSkipped({{"trace", "trace: " + *why,
                    "the baseline hung: a traced launch would hang too, and the watchdog kills it before "
                    "its trace can be read back"}});
      return;
    }
    if (outOfTime({"trace"})) return;
    traceRan = true;
    Experiment e;
    e.kind = ExperimentKind::trace;
    e.name = "trace";
    e.why = *why;
    e.trace = true;
    emitCapture(e, "trace");
    // A traced launch runs many times slower than the kernel: under a budget it
    // gets what the budget leaves once its own setup (one baseline) is paid.
    // The worker as a whole gets what is left of the budget: a tracer that spends
    // its time outside the launch phase (patching, read-back) is cut there too.
    const double watchdog = budget > 0 ? std::max(opts.hangFollowupS, budget - elapsed() - estimate) : 0;
    // (2 s of the budget stay for stopping the worker and writing the report: on
    // the H200 a 2^31-element diagnose ended 1.5 s past its 45 s without them.)
    const double total = budget > 0 ? std::max(opts.hangFollowupS, budget - elapsed() - 2) : 0;
    Point p = run(e, watchdog, total);
    traced = traceConclusions(p);
    weighWildReads(traced, report.points.front());
    std::string summary = p.trace.traced() ? std::to_string(traced.size()) + " traced finding(s)"
                                           : "trace " + p.trace.status + ": " + p.trace.reason;
    if (p.verdict == Verdict::hang && watchdog > 0 &&
        (watchdog < opts.session.launchTimeoutS || total < defaultWorkerTimeout(config))) {
      char buf[200];
      std::snprintf(buf, sizeof buf,
                    "trace cut: the traced launch ran past what the time budget (%.0f s) left it "
                    "(%.0f s for the launch, %.0f s in all)",
                    budget, watchdog, total);
      summary = buf;
    }
    DiagnoseConclusion entry{"trace", 1, true, summary, {}};
    for (const auto& f : traced) entry.findings.push_back(f.category);
    report.diagnose->conclusions.push_back(entry);
    report.points.push_back(std::move(p));
  }

  /// Why the experiments stopped at the budget; the groups not yet started join the list.
  std::string budgetStop(const std::vector<std::vector<Experiment>>& groups,
                         const std::set<ExperimentKind>& done) {
    for (const auto& g : groups)
      if (!done.count(g.front().kind))
        for (const auto& e : g) report.diagnose->notRun.push_back(e.name);
    char buf[96];
    std::snprintf(buf, sizeof buf, "time budget (%.0f s%s) reached", budget,
                  opts.budgetS > 0 ? ""
                  : hung           ? ", the baseline hung"
                                   : ", the baseline took longer than the expensive limit");
    return std::string(buf) + ": " + std::to_string(report.diagnose->notRun.size()) +
           " experiment(s) not run";
  }

  /// Runs one group until its conclusion is settled; returns false when the
  /// capture limit cut it short.
  bool runGroup(const std::vector<Experiment>& group) {
    const ExperimentKind kind = group.front().kind;
    const Point base = report.points.front();
    std::vector<ExperimentRun> runs;
    Conclusion c;
    bool cut = false;
    for (std::size_t i = 0; i < group.size(); ++i) {
      const Experiment& e = group[i];
      if (captures >= opts.maxCaptures) {
        cut = true;
        break;
      }
      std::vector<std::string> rest;
      for (std::size_t j = i; j < group.size(); ++j) rest.push_back(group[j].name);
      if (outOfTime(rest)) {
        cut = true;
        break;
      }
      emitCapture(e, experimentKindName(kind));
      Point p = run(e);
      report.points.push_back(p);
      runs.push_back({e, p});
      c = conclude(kind, base, point.config, runs);
      if (c.settled) break;
    }
    if (!runs.empty()) {
      DiagnoseConclusion entry{
          experimentKindName(kind), static_cast<int>(runs.size()), c.settled, c.summary, {}};
      for (const auto& f : c.findings) entry.findings.push_back(f.category);
      report.diagnose->conclusions.push_back(entry);
      ProgressEvent settled;
      settled.message =
          std::string(experimentKindName(kind)) + ": " + (c.summary.empty() ? "no conclusion" : c.summary);
      settled.group = experimentKindName(kind);
      for (const auto& f : c.findings) settled.findings.push_back(f.category);
      emit(settled);
      conclusions.insert(conclusions.end(), c.findings.begin(), c.findings.end());
    }
    return !cut;
  }
};

Experiment baselineExperiment() {
  Experiment e;
  e.kind = ExperimentKind::baseline;
  e.name = "baseline";
  e.why = "the capture `run` makes";
  e.timing = true;
  return e;
}

}  // namespace

Report diagnose(const Config& config, const DiagnoseOptions& opts) {
  std::vector<SweepPoint> points = expandSweep(config);
  Diagnosis d{config, points.front(), opts, {}, {}, {}, 0, false, {}};
  Report& report = d.report;
  report.verb = "diagnose";
  report.toolVersion = toolVersion();
  report.createdAt = nowIso8601();
  report.host = hostName();
  report.config = configToJson(d.point.config);
  report.diagnose = DiagnoseInfo{};
  report.diagnose->maxCaptures = opts.maxCaptures;
  if (opts.useTree) {
    try {
      d.tree = loadDefaultTree();
      d.haveTree = true;
    } catch (const std::exception& e) {
      report.diagnose->treeError = e.what();
    }
  }

  d.emit("baseline capture of " + (d.point.label().empty() ? config.name : d.point.label()));
  report.points.push_back(d.run(baselineExperiment()));
  const Point& base = report.points.front();
  d.setBudget(base);
  if (base.status.noGpu) {
    report.verdict = base.verdict;
    report.noGpu = true;
    report.diagnose->experiments = d.log;
    return report;
  }

  d.runTrace();

  std::set<ExperimentKind> done;
  std::string stopped = "every planned experiment ran";
  for (;;) {
    if (d.conclusive()) {
      stopped = "conclusive: " + d.conclusions.front().category;
      break;
    }
    const auto requests = d.treeRequests();
    auto groups = planExperiments(report.points.front(), d.point.config, opts, requests);
    d.noteSkipped(skippedExperiments(report.points.front(), d.point.config, opts, requests));
    auto next = std::find_if(groups.begin(), groups.end(),
                             [&](const auto& g) { return !done.count(g.front().kind); });
    if (next == groups.end()) break;
    done.insert(next->front().kind);
    if (!d.runGroup(*next)) {
      stopped = d.timeCut ? d.budgetStop(groups, done)
                          : "capture limit (" + std::to_string(opts.maxCaptures) + ") reached";
      break;
    }
  }

  d.runTrace();  // a race the trials proved
  d.conclusions.insert(d.conclusions.end(), d.traced.begin(), d.traced.end());
  d.refreshFindings();
  report.diagnose->experiments = d.log;
  report.diagnose->captures = d.captures;
  report.diagnose->stopped = stopped;
  if (d.haveTree) {
    try {
      applyWalk(report, walkTree(d.tree, toJson(report)));
    } catch (const std::exception& e) {
      report.diagnose->treeError = e.what();
    }
  }
  d.emit("diagnose finished after " + std::to_string(d.captures) + " capture(s): " + stopped);
  return report;
}

}  // namespace tilescope
