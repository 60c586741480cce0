// `tilescope-run triage INPUT... -o FILE [--jobs N] [--resume]` (docs/triage.md):
// many configs, capture folders and reference/candidate problems judged at once,
// each in processes of its own, into one tilescope.triage/1 written after every
// entry; progress and an ETA on stderr, tilescope.stream/1 events with --stream.
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <sstream>

#include "commands.h"
#include "options.h"
#include "tilescope/base/format.h"
#include "tilescope/base/process.h"
#include "tilescope/base/python.h"
#include "tilescope/base/resources.h"
#include "tilescope/run/stream.h"
#include "tilescope/triage/triage_run.h"

namespace tilescope::cli {

namespace {

namespace fs = std::filesystem;

struct TriageArgs {
  std::vector<std::string> inputs;
  std::string pairs;  ///< --pairs FILE: a manifest of reference/candidate pairs
  std::string output, depth = "diagnose", capture = "launched", device, remote;
  int jobs = 1, seeds = 3, maxDiagnosed = 2;
  double timeoutS = 600, timeLimitS = 0, maxCpuS = 0;
  std::uint64_t maxFileBytes = 0, maxMemoryBytes = 0;
  bool resume = false, force = false, stream = false, fast = false;
  Consent consent;
};

/// What to set CUDA_VISIBLE_DEVICES to per job slot: the visible set's own
/// entries (ordinals or UUIDs) when the variable is set, else nvidia-smi's indices.
std::vector<std::string> gpuIds() {
  std::vector<std::string> ids;
  if (const char* vis = std::getenv("CUDA_VISIBLE_DEVICES"); vis && *vis) {
    std::stringstream ss(vis);
    for (std::string id; std::getline(ss, id, ',');)
      if (!id.empty()) ids.push_back(id);
    return ids;
  }
  runChild({"nvidia-smi", "--query-gpu=index", "--format=csv,noheader"}, 10, [&](const std::string& line) {
    if (!line.empty() && std::isdigit(static_cast<unsigned char>(line.front()))) ids.push_back(line);
  });
  return ids;
}

void printTaxonomy(const TriageReport& r, std::ostream& out) {
  out << "\ntaxonomy (" << r.entries.size() << " entries):\n";
  for (const TaxonomyRow& row : taxonomy(r.entries)) {
    const std::string name = row.detail.empty() ? row.category : "  " + row.detail;
    out << "  " << std::left << std::setw(40) << name << std::right << std::setw(5) << row.count << "  "
        << std::setw(7) << formatPercent(row.percent / 100) << '\n';
  }
  const SpeedupSummary s = speedupSummary(r.entries);
  if (s.n > 0)
    out << "speedup of the " << s.n << " correct entries with a timing: geomean " << formatRatio(s.geomean)
        << ", median " << formatRatio(s.median) << " (" << formatRatio(s.min) << " … " << formatRatio(s.max)
        << "), " << s.faster << " faster than their reference\n";
}

/// The plan, merged with the earlier output under --resume; "" or the usage error.
std::string plan(const TriageArgs& a, TriageReport& report) {
  std::vector<std::string> problems;
  const fs::path out = fs::absolute(a.output);
  std::vector<TriageInput> inputs = discoverTriageInputs(a.inputs, &problems, fs::path(out.string() + ".d"));
  for (const std::string& p : problems) std::cerr << "triage: " << p << '\n';
  if (!a.pairs.empty()) {
    try {
      mergeTriageInputs(inputs, readTriagePairs(a.pairs, a.consent.outsidePaths));
    } catch (const std::exception& e) {
      return std::string("--pairs: ") + e.what();
    }
  }
  if (inputs.empty()) return "nothing to triage in " + std::to_string(a.inputs.size()) + " input(s)";
  std::error_code ec;
  std::optional<TriageReport> previous;
  if (fs::exists(out, ec)) {
    if (!a.resume && !a.force) return a.output + " exists: --resume continues it, --force starts it again";
    if (a.resume) {
      try {
        previous = loadTriage(out);
      } catch (const std::exception& e) {
        return std::string("--resume: ") + e.what();
      }
    }
  }
  report.toolVersion = toolVersion();
  report.createdAt = previous ? previous->createdAt : nowIso8601();
  report.host = hostName();
  report.inputs = a.inputs;
  if (!a.pairs.empty()) report.inputs.push_back(a.pairs);  // the manifest: a file of inputs
  report.seconds = previous ? previous->seconds : 0;
  report.options = {
      {"depth", a.depth}, {"capture", a.fast ? "failed" : a.capture}, {"jobs", a.jobs}, {"seeds", a.seeds}};
  report.entries = mergeWithPrevious(inputs, previous ? &*previous : nullptr);
  if (!a.remote.empty())
    for (TriageEntry& e : report.entries)
      if (e.kind == EntryKind::problem && e.status == EntryStatus::pending) {
        e.status = EntryStatus::not_run;
        e.note = "--remote runs config entries only: a problem's runner needs this machine's GPU";
      }
  return "";
}

int exitStatus(const TriageReport& r) {
  int done = 0, notOk = 0, noGpu = 0;
  for (const TriageEntry& e : r.entries) {
    done += e.status == EntryStatus::done;
    notOk += e.status == EntryStatus::done && e.verdict != Verdict::ok;
    noGpu += e.extra.value("no_gpu", false);
  }
  if (done == 0 && noGpu > 0) return kExitNoGpu;
  return notOk > 0 || done < static_cast<int>(r.entries.size()) ? kExitFindings : kExitOk;
}

int cmdTriage(const TriageArgs& a) {
  TriageOptions opts;
  try {
    opts.depth = parseTriageDepth(a.depth);
    opts.capture = parseCaptureWhen(a.capture);
    if (a.fast) opts.capture = CaptureWhen::failed;
  } catch (const std::invalid_argument& e) {
    return usageError(e.what());
  }
  TriageReport report;
  if (std::string why = plan(a, report); !why.empty()) return usageError(why);
  opts.exe = {selfExecutable()};
  opts.python = {pythonInterpreter()};
  opts.runner = resourceDir() / "python" / "tilescope" / "triage" / "__main__.py";
  opts.output = fs::absolute(a.output);
  opts.jobs = a.jobs;
  opts.gpus = gpuIds();
  opts.entryTimeoutS = a.timeoutS;
  opts.timeLimitS = a.timeLimitS;
  opts.seeds = a.seeds;
  opts.maxDiagnosed = a.maxDiagnosed;
  opts.device = a.device;
  opts.verbArgs = consentArgs(a.consent);
  opts.allowUnconfined = a.consent.commands;
  if (a.maxFileBytes) opts.limits.fileBytes = a.maxFileBytes;
  opts.limits.cpuS = a.maxCpuS;
  opts.limits.memoryBytes = a.maxMemoryBytes;
  if (!a.remote.empty()) opts.verbArgs.insert(opts.verbArgs.end(), {"--remote", a.remote});
  std::mutex io;
  opts.onProgress = [&](const TriageProgress& p) {
    std::lock_guard<std::mutex> lock(io);
    std::cerr << "triage " << p.message << '\n';
    if (!a.stream) return;
    ProgressEvent ev;
    ev.message = p.message;
    ev.stage = "triage";
    ev.capture = p.done;
    ev.maxCaptures = p.total;
    if (p.entry) ev.findings = {taxonomyKey(*p.entry)};
    StreamEvent se{ev, {}};
    se.tags.total = p.total;
    if (p.entry) se.tags.experiment = p.entry->id;
    std::cout << toLine(se) << '\n' << std::flush;
  };
  int pending = 0;
  for (const TriageEntry& e : report.entries) pending += e.status == EntryStatus::pending;
  std::cerr << "triage: " << report.entries.size() << " entries, " << pending << " to run (depth " << a.depth
            << ", " << a.jobs << " job(s)"
            << (opts.gpus.empty() ? "" : " over " + std::to_string(opts.gpus.size()) + " GPU(s)") << ")\n";
  report = runTriage(std::move(report), opts);
  printTaxonomy(report, std::cerr);
  std::cerr << "triage written to " << a.output
            << (report.complete ? "" : " (incomplete: --resume finishes it)") << '\n';
  return exitStatus(report);
}

}  // namespace

Verb addTriageCommand(CLI::App& app) {
  auto a = std::make_shared<TriageArgs>();
  auto* t = app.add_subcommand(
      "triage",
      "judge many configs, capture folders and reference/candidate problems at once (docs/triage.md)");
  t->add_option("INPUT", a->inputs, "configs, capture folders, folders, Python problem files");
  t->add_option("--pairs", a->pairs,
                "a manifest of problems: REFERENCE<TAB>CANDIDATE[<TAB>NAME] a line, paths inside its folder");
  t->add_option("-o,--output", a->output, "the triage file (tilescope.triage/1), rewritten after every entry")
      ->required();
  t->add_option("--jobs", a->jobs, "entries at once, spread over the local GPUs")->check(CLI::PositiveNumber);
  t->add_flag("--resume", a->resume, "keep the entries the output already finished; run the rest");
  t->add_flag("--force", a->force, "start again over an existing output");
  t->add_option("--depth", a->depth, "check | run | diagnose (default): how far a config entry goes");
  CLI::Option* capture = t->add_option(
      "--capture", a->capture,
      "launched (default: every candidate that ran, its kernels traced once) | failed | always | "
      "never: when a problem's candidate runs again under capture");
  t->add_flag("--fast", a->fast,
              "capture and trace only the candidates whose failure the replay locates (--capture failed)")
      ->excludes(capture);
  t->add_option("--timeout", a->timeoutS, "watchdog per child process in seconds (default 600)");
  t->add_option("--time-limit", a->timeLimitS,
                "start no entry after this many seconds (the rest stay pending)");
  t->add_option("--seeds", a->seeds, "input seeds per problem shape (default 3)")->check(CLI::PositiveNumber);
  t->add_option("--max-diagnosed", a->maxDiagnosed,
                "captured kernels of one problem that get diagnosed (default 2)");
  t->add_option("--device", a->device, "device of the database for check (default h100)");
  t->add_option("--remote", a->remote,
                "run config entries' captures on this ssh host (problems need a local GPU)");
  t->add_flag("--stream", a->stream, "print tilescope.stream/1 progress events on stdout");
  t->add_option("--max-file-bytes", a->maxFileBytes,
                "a problem's runner: the largest file it may write (RLIMIT_FSIZE; default 8 GiB)");
  t->add_option("--max-cpu-s", a->maxCpuS,
                "a problem's runner: CPU seconds of all its threads (RLIMIT_CPU; default 4 x --timeout)");
  t->add_option("--max-memory-bytes", a->maxMemoryBytes,
                "a problem's runner: heap bytes (RLIMIT_DATA; default memory / --jobs, at least 16 GiB)");
  addConsentOptions(t, a->consent);
  return {t, [a] { return cmdTriage(*a); }};
}

}  // namespace tilescope::cli
