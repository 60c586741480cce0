// The triage's orchestration (docs/triage.md): job slots over GPUs, one entry at
// a time per slot, every step a child process with a watchdog, the output
// rewritten atomically after each entry so that --resume can pick up after a
// stop and the GUI can open a triage that is still running.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "tilescope/base/format.h"
#include "tilescope/diagnose/diagnose.h"
#include "tilescope/diagnose/tree.h"
#include "triage_detail.h"

namespace tilescope {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::optional<Report> tryLoadReport(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return std::nullopt;
  try {
    return loadReport(p);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

/// The options check understands of those the other verbs get (consent).
std::vector<std::string> checkArgs(const TriageOptions& opts) {
  std::vector<std::string> a;
  if (!opts.device.empty()) a.insert(a.end(), {"--device", opts.device});
  for (const std::string& v : opts.verbArgs)
    if (v == "--allow-outside-paths") a.push_back(v);
  return a;
}

}  // namespace

ChildResult EntryContext::run(const std::vector<std::string>& argv, double timeoutS) const {
  return runChild(
      argv, timeoutS, [](const std::string&) {}, {}, {}, env);
}

std::string EntryContext::relative(const fs::path& p) const {
  return p.lexically_relative(outputDir).generic_string();
}

std::string EntryContext::saveReport(const Report& r, const std::string& name) const {
  tilescope::saveReport(r, dir / name);
  return relative(dir / name);
}

void runConfigEntry(TriageEntry& e, const EntryContext& ctx) {
  const TriageOptions& opts = *ctx.opts;
  const std::string cfg = e.inputs.at(0);
  const fs::path checkOut = ctx.dir / "check.json";
  const ChildResult c = ctx.run(
      concat(concat(opts.exe, {"check", cfg, "-o", checkOut.string()}), checkArgs(opts)), opts.entryTimeoutS);
  const std::optional<Report> check = tryLoadReport(checkOut);
  if (!check) {
    e.status = EntryStatus::not_run;
    e.note = "check did not judge it: " + (c.timedOut ? std::string("timed out") : lastLine(c.stderrText));
    return;
  }
  summarizeReport(e, *check, ctx.tree);
  e.level = "check";
  e.report = ctx.relative(checkOut);
  if (opts.depth == TriageDepth::check || e.verdict == Verdict::compile_error ||
      e.verdict == Verdict::launch_error)
    return;
  const std::string verb = opts.depth == TriageDepth::run ? "run" : "diagnose";
  const fs::path out = ctx.dir / (verb + ".json");
  const ChildResult r =
      ctx.run(concat(concat(opts.exe, {verb, cfg, "-o", out.string()}), opts.verbArgs), opts.entryTimeoutS);
  if (r.exitCode == kExitNoGpu) {
    e.extra["no_gpu"] = true;
    e.note = "no GPU here: judged by check only (--resume on a GPU machine runs the rest)";
    return;
  }
  if (r.timedOut) {
    Finding f;
    f.category = "hang";
    f.treeNode = "fault.hang";
    f.message = verb + " did not finish within " + formatDuration(opts.entryTimeoutS * 1e9) +
                ": the watchdog stopped it";
    e.findings.insert(e.findings.begin(), f);
    e.verdict = Verdict::hang;
    e.category = f.category;
    e.message = f.message;
    e.treeNode = f.treeNode;
    return;
  }
  const std::optional<Report> rep = tryLoadReport(out);
  if (!rep) {
    e.note = verb + " exited with status " + std::to_string(r.exitCode) +
             " without a report: " + lastLine(r.stderrText);
    return;
  }
  summarizeReport(e, *rep, ctx.tree);
  e.level = verb;
  e.report = ctx.relative(out);
}

void diagnoseCaptured(TriageEntry& e, const EntryContext& ctx, const std::vector<fs::path>& configs,
                      bool traceOnly) {
  const TriageOptions& opts = *ctx.opts;
  const bool runOnly = traceOnly || opts.depth == TriageDepth::run;
  const std::string verb = runOnly ? "run" : "diagnose";
  // `run` traces its one capture: the trace is what names the line of a bad access.
  // A kernel traced only to be looked at (no memory failure to follow up) reads no
  // counters: the runner timed it already, and the profiler's passes cost seconds.
  std::vector<std::string> trace;
  if (runOnly) trace = {"--trace"};
  if (traceOnly) trace.insert(trace.end(), {"--counters", "none"});
  std::optional<Report> firstTraced;  // the first kernel's report, for a symptom's line
  fs::path firstTracedOut;
  const Finding* runnerLead = leadFinding(e.findings);
  const int runnerRank = runnerLead ? categoryRank(runnerLead->category) : 1 << 20;
  int n = 0;
  // What each captured kernel's diagnosis said, kept where none of them leads:
  // the reason an entry has no kernel line (docs/triage.md, `kernel_diagnoses`).
  json said = json::array();
  for (const fs::path& cfg : configs) {
    if (n >= opts.maxDiagnosed) break;
    const fs::path out = ctx.dir / ("kernel-" + std::to_string(n++) + ".json");
    ctx.run(concat(concat(concat(opts.exe, {verb, cfg.string(), "-o", out.string()}), trace), opts.verbArgs),
            opts.entryTimeoutS);
    const std::optional<Report> rep = tryLoadReport(out);
    const Finding* lead = rep && rep->verdict != Verdict::ok ? leadFinding(rep->findings) : nullptr;
    json one;
    one["config"] = ctx.relative(cfg);
    one["verdict"] = rep ? std::string(verdictName(rep->verdict)) : std::string("no report");
    one["lead"] = lead ? json(lead->category) : json();
    one["line"] = lead && lead->location.line ? json(*lead->location.line) : json();
    said.push_back(std::move(one));
    if (rep && !firstTraced) firstTraced = rep, firstTracedOut = out;
    // The kernel's finding leads when it is the cause of the runner's (a root cause
    // ranks first) or the same category located at a line; a replay that only
    // differs from the program (a race replayed once) leaves the runner's word.
    if (!lead) continue;
    const int rank = categoryRank(lead->category);
    if (rank > runnerRank || (rank == runnerRank && !lead->location.line)) continue;
    // The kernel's own failure leads: it is located; the runner's view stays beside it.
    const TriageSpeed speed = e.speed;
    const Verdict before = e.verdict;
    std::vector<Finding> runner = e.findings;
    summarizeReport(e, *rep, ctx.tree);
    e.speed = speed;
    e.verdict = worse(before, e.verdict);
    for (Finding& f : runner)
      if (std::none_of(e.findings.begin(), e.findings.end(),
                       [&](const Finding& g) { return g.category == f.category; }))
        e.findings.push_back(std::move(f));
    e.report = ctx.relative(out);
    e.level += "+" + verb;
    e.extra["diagnosed_kernel"] = ctx.relative(cfg);
    return;
  }
  if (configs.empty()) said = "the capture gave no config to " + verb;
  e.extra["kernel_diagnoses"] = said;
  if (firstTraced && locateSymptom(e, *firstTraced)) {
    e.level += "+trace";
    e.extra["traced_kernel"] = ctx.relative(firstTracedOut);
  }
}

std::vector<TriageEntry> mergeWithPrevious(const std::vector<TriageInput>& plan,
                                           const TriageReport* previous) {
  std::map<std::string, const TriageEntry*> before;
  if (previous)
    for (const TriageEntry& e : previous->entries) before[e.id] = &e;
  std::vector<TriageEntry> out;
  for (const TriageInput& in : plan) {
    TriageEntry e = plannedEntry(in);
    const auto it = before.find(in.id);
    // A finished entry is kept unless it was judged without a GPU (it can go further now).
    if (it != before.end() && it->second->status == EntryStatus::done &&
        !it->second->extra.value("no_gpu", false))
      e = *it->second;
    if (it != before.end()) before.erase(it);
    out.push_back(std::move(e));
  }
  if (previous)
    for (const TriageEntry& e : previous->entries)
      if (before.count(e.id)) out.push_back(e);
  return out;
}

namespace {

std::string progressLine(const TriageProgress& p) {
  // One terminal line: names and notes come from the files judged, so control
  // characters are shown (an ESC sequence rewrote the terminal) and lengths cut.
  const auto shown = [](const std::string& t, std::size_t max) {
    return visibleControls(clipForMessage(t, max));
  };
  const TriageEntry& e = *p.entry;
  std::string s =
      "[" + std::to_string(p.done) + "/" + std::to_string(p.total) + "] " + shown(e.name, 200) + ": ";
  if (e.status == EntryStatus::not_run)
    s += "not run (" + shown(e.note, 1000) + ")";
  else
    s +=
        std::string(verdictName(e.verdict)) +
        (e.category.empty() ? ""
                            : " (" + shown(e.category + (e.detail.empty() ? "" : "/" + e.detail), 200) + ")");
  if (e.line) s += " at " + shown(fs::path(e.file).filename().string(), 200) + ":" + std::to_string(*e.line);
  if (e.speed.speedup) s += ", " + formatRatio(*e.speed.speedup) + " vs " + shown(e.speed.against, 100);
  s += ", " + formatDuration(e.seconds * 1e9);
  if (p.etaS && p.done < p.total) s += "; ETA " + formatDuration(*p.etaS * 1e9);
  return s;
}

}  // namespace

TriageReport runTriage(TriageReport report, const TriageOptions& opts) {
  Tree tree;
  const Tree* treePtr = nullptr;
  try {
    tree = loadDefaultTree();
    treePtr = &tree;
  } catch (const std::exception&) {
    // Entries are still judged; their fixes stay empty.
  }
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < report.entries.size(); ++i)
    if (report.entries[i].status == EntryStatus::pending) todo.push_back(i);
  const fs::path outDir = opts.output.parent_path().empty() ? fs::path(".") : opts.output.parent_path();
  const fs::path entriesDir = opts.output.string() + ".d";
  const double secondsBefore = report.seconds;
  const auto t0 = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  std::mutex mu;
  std::atomic<std::size_t> next{0};
  int done = 0;
  const int total = static_cast<int>(todo.size());
  const auto save = [&] {
    report.updatedAt = nowIso8601();
    report.seconds = secondsBefore + elapsed();
    report.complete = std::none_of(report.entries.begin(), report.entries.end(),
                                   [](const TriageEntry& e) { return e.status == EntryStatus::pending; });
    saveTriage(report, opts.output);
  };
  save();  // the plan is on disk before the first entry runs
  const auto slot = [&](int s) {
    const std::string gpu =
        opts.gpus.empty() ? "" : opts.gpus[static_cast<std::size_t>(s) % opts.gpus.size()];
    for (std::size_t j; (j = next.fetch_add(1)) < todo.size();) {
      if (opts.timeLimitS > 0 && elapsed() > opts.timeLimitS) break;  // left pending for --resume
      TriageEntry e;
      {
        std::lock_guard<std::mutex> lock(mu);
        e = report.entries[todo[j]];
      }
      EntryContext ctx;
      ctx.opts = &opts;
      ctx.tree = treePtr;
      ctx.dir = entriesDir / entrySlug(e.id);
      ctx.outputDir = outDir;
      if (!gpu.empty()) ctx.env.push_back("CUDA_VISIBLE_DEVICES=" + gpu);
      const auto te = std::chrono::steady_clock::now();
      try {
        std::error_code ec;
        fs::create_directories(ctx.dir, ec);
        if (e.kind == EntryKind::problem)
          runProblemEntry(e, ctx);
        else
          runConfigEntry(e, ctx);
        if (e.status == EntryStatus::pending) e.status = EntryStatus::done;
      } catch (const std::exception& ex) {
        e.status = EntryStatus::not_run;
        e.note = std::string("the triage of this entry failed: ") + ex.what();
      }
      for (Finding& f : e.findings)
        if (f.evidence.is_null()) f.evidence = json::object();  // as it reads back from the file
      e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - te).count();
      e.gpu = gpu;
      std::lock_guard<std::mutex> lock(mu);
      report.entries[todo[j]] = e;
      ++done;
      save();
      if (opts.onProgress) {
        TriageProgress p{done,
                         total,
                         static_cast<int>(report.entries.size()) - total,
                         elapsed(),
                         triageEta(elapsed(), done, total, opts.jobs),
                         &report.entries[todo[j]],
                         ""};
        p.message = progressLine(p);
        opts.onProgress(p);
      }
    }
  };
  std::vector<std::thread> threads;
  const int slots = std::max(1, std::min(opts.jobs, total));
  for (int s = 0; s < slots; ++s) threads.emplace_back(slot, s);
  for (std::thread& t : threads) t.join();
  save();
  return report;
}

}  // namespace tilescope
