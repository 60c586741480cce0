// Pure summaries of a triage (docs/triage.md): an entry's lead finding, location,
// fix and speed from its report; the findings of the Python runner's answer.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <string_view>

#include "tilescope/base/format.h"
#include "tilescope/base/regex.h"
#include "tilescope/diagnose/diagnose.h"
#include "tilescope/diagnose/tree.h"
#include "tilescope/logs/classify.h"
#include "tilescope/triage/triage_run.h"
#include "triage_runner.h"

namespace tilescope {

namespace fs = std::filesystem;
using nlohmann::json;

const char* triageDepthName(TriageDepth d) {
  switch (d) {
    case TriageDepth::check:
      return "check";
    case TriageDepth::run:
      return "run";
    case TriageDepth::diagnose:
      break;
  }
  return "diagnose";
}

TriageDepth parseTriageDepth(const std::string& s) {
  for (TriageDepth d : {TriageDepth::check, TriageDepth::run, TriageDepth::diagnose})
    if (s == triageDepthName(d)) return d;
  throw std::invalid_argument("--depth '" + s + "': expected check, run or diagnose");
}

CaptureWhen parseCaptureWhen(const std::string& s) {
  if (s == "launched") return CaptureWhen::launched;
  if (s == "failed") return CaptureWhen::failed;
  if (s == "always") return CaptureWhen::always;
  if (s == "never") return CaptureWhen::never;
  throw std::invalid_argument("--capture '" + s + "': expected launched, failed, always or never");
}

namespace {

/// A warning that still means the result cannot be trusted (a trap seen once,
/// a timing that does not scale: categories of wrong results) leads when there
/// is no error; resource warnings of a passing kernel do not.
bool failingWarning(const Finding& f) {
  const CategoryInfo* c = findCategory(f.category);
  return f.severity == Severity::warning && c && c->verdict == Verdict::incorrect;
}

std::string lineOf(const fs::path& file, int line) {
  std::ifstream in(file);
  std::string text;
  for (int i = 1; i <= line && std::getline(in, text); ++i)
    if (i == line) return text;
  return "";
}

/// The text of the located line: the finding's own evidence, else the file,
/// read relative to the entry's first input's folder when it is relative.
std::string sourceLineOf(const Finding& f, const TriageEntry& e) {
  if (f.evidence.is_object()) {
    const auto it = f.evidence.find("source_line");
    if (it != f.evidence.end() && it->is_string()) return it->get<std::string>();
  }
  if (!f.location.line || f.location.file.empty()) return "";
  fs::path p(f.location.file);
  if (p.is_relative() && !e.inputs.empty()) p = fs::path(e.inputs.front()).parent_path() / p;
  std::error_code ec;
  return fs::is_regular_file(p, ec) ? lineOf(p, *f.location.line) : "";
}

/// Where the troubleshooting walk from the lead finding's node ends, and its fix.
void applyFix(TriageEntry& e, const Report& report, const Finding& lead, const Tree* tree) {
  e.treeNode = lead.treeNode;
  if (!tree) return;
  const TreeNode* start = tree->findNearest(lead.treeNode.empty() ? "start" : lead.treeNode);
  if (!start) start = tree->find(tree->root);
  if (!start) return;
  const TreeWalk walk = walkTree(*tree, toJson(report), {}, start->id);
  e.treeNode = walk.stoppedAt.empty() ? start->id : walk.stoppedAt;
  if (walk.complete && walk.leaf) e.fix = walk.leaf->fix;
}

void applySpeed(TriageEntry& e, const Report& report) {
  for (const Point& p : report.points) {
    if (!p.timing.measured || p.timing.kernelNs.median <= 0) continue;
    e.speed.kernelNs = p.timing.kernelNs.median;
    if (p.baseline.measured && p.baseline.kernelNs.median > 0) {
      e.speed.baselineNs = p.baseline.kernelNs.median;
      e.speed.against = p.baseline.name;
      e.speed.speedup = p.speedup ? *p.speedup : *e.speed.baselineNs / *e.speed.kernelNs;
    }
    return;
  }
}

}  // namespace

const Finding* leadFinding(const std::vector<Finding>& findings) {
  // The root cause among the errors (the registry's rank, as diagnose names the
  // bug); among equals the first that is located at a line, else the first.
  const Finding* best = nullptr;
  const auto better = [&](const Finding& f) {
    if (!best) return true;
    const int a = categoryRank(f.category), b = categoryRank(best->category);
    return a < b || (a == b && f.location.line && !best->location.line);
  };
  for (const Finding& f : findings)
    if (f.severity == Severity::error && better(f)) best = &f;
  if (best) return best;
  for (const Finding& f : findings)
    if (failingWarning(f)) return &f;
  return nullptr;
}

void summarizeReport(TriageEntry& e, const Report& report, const Tree* tree) {
  e.status = EntryStatus::done;
  e.verdict = report.verdict;
  e.findings = report.findings;
  // An absent evidence reads back as {} once written: the entry holds it so from the start.
  for (Finding& f : e.findings)
    if (f.evidence.is_null()) f.evidence = json::object();
  e.category.clear();
  e.detail.clear();
  e.message.clear();
  e.errorClass.clear();
  e.errorSubclass.clear();
  e.treeNode.clear();
  e.fix.clear();
  e.file.clear();
  e.line.reset();
  e.sourceLine.clear();
  if (const Finding* lead = leadFinding(report.findings)) {
    e.category = lead->category;
    e.detail = lead->detail;
    e.message = lead->message;
    const FailureClass fc = failureClass(*lead);
    e.errorClass = fc.errorClass;
    e.errorSubclass = fc.subclass;
    // The lead's own location, else the first finding of the same category that has one.
    const Finding* located = lead;
    if (!lead->location.line)
      for (const Finding& f : report.findings)
        if (f.category == lead->category && f.location.line) {
          located = &f;
          break;
        }
    e.file = located->location.file;
    e.line = located->location.line;
    e.sourceLine = sourceLineOf(*located, e);
    applyFix(e, report, *lead, tree);
  }
  applySpeed(e, report);
}

bool locateSymptom(TriageEntry& e, const Report& traced) {
  // Symptoms of the output's values: the store that wrote them is where to look.
  static const std::set<std::string> symptoms = {"mismatch",           "nan_inf",        "all_zero", "race",
                                                 "uninitialized_read", "constant_output"};
  const Finding* found = leadFinding(e.findings);
  if (!found || found->location.line || !symptoms.count(found->category)) return false;
  Finding* lead = &e.findings[std::size_t(found - e.findings.data())];
  const TraceInfo* trace = nullptr;
  for (const Point& p : traced.points)
    if (p.trace.traced()) {
      trace = &p.trace;
      break;
    }
  if (!trace) return false;
  // The busiest line that stores to global memory (most thread accesses; a tie: the first).
  const TraceLine* store = nullptr;
  int stores = 0;
  for (const TraceLine& l : trace->lines) {
    if (!l.write || l.line <= 0 || !std::count(l.spaces.begin(), l.spaces.end(), "global")) continue;
    ++stores;
    if (!store || l.accesses > store->accesses) store = &l;
  }
  if (!store) return false;
  lead->location.kernel = trace->kernel;
  lead->location.file = store->file;
  lead->location.line = store->line;
  if (!lead->evidence.is_object()) lead->evidence = json::object();
  lead->evidence["line_from"] = "the traced kernel's store to global memory (" + std::to_string(stores) +
                                " storing line" + (stores == 1 ? "" : "s") + ", this one the busiest)";
  e.file = store->file;
  e.line = store->line;
  e.sourceLine = sourceLineOf(*lead, e);
  return true;
}

namespace {

bool allDigits(std::string_view d) {
  return !d.empty() && d.size() < 10 &&
         std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// "at 11:15:" (Triton's CompilationError counts from the kernel's def line), also
/// after a "triton.compiler.errors.CompilationError: " prefix: the "11:15", else "".
std::string tritonAt(std::string_view line) {
  if (const auto p = line.find("Error: at "); p != std::string_view::npos) line.remove_prefix(p + 7);
  if (line.rfind("at ", 0) != 0 || line.size() < 7 || line.back() != ':') return "";
  const std::string_view lc = line.substr(3, line.size() - 4);
  const auto colon = lc.find(':');
  if (colon == std::string_view::npos || !allDigits(lc.substr(0, colon)) || !allDigits(lc.substr(colon + 1)))
    return "";
  return std::string(lc);
}

std::vector<std::string> linesOf(const std::string& text, std::size_t maxLines) {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < text.size() && lines.size() < maxLines;) {
    const auto nl = text.find('\n', i);
    const std::size_t end = nl == std::string::npos ? text.size() : nl;
    lines.emplace_back(trimmed(std::string_view(text).substr(i, std::min<std::size_t>(end - i, 2048))));
    i = end + 1;
  }
  return lines;
}

bool endsBlock(const std::string& line) {
  return line.rfind("Traceback (most recent call last)", 0) == 0 ||
         line.rfind("The above exception", 0) == 0 ||
         line.rfind("During handling of the above exception", 0) == 0;
}

/// `ValueError("x")` (Triton's repr of the error it wraps) → "ValueError: x".
std::string unRepr(const std::string& reason) {
  static const Regex dq(R"re(([A-Za-z_][\w.]*)\("(.*)"\))re"), sq(R"re(([A-Za-z_][\w.]*)\('(.*)'\))re");
  RegexMatch m;
  if (!dq.fullMatch(reason, m) && !sq.fullMatch(reason, m)) return reason;
  const std::string inner = m.str(2);
  std::string out;
  for (std::size_t i = 0; i < inner.size(); ++i) {
    if (inner[i] == '\\' && i + 1 < inner.size() && (inner[i + 1] == '\'' || inner[i + 1] == '"')) ++i;
    out += inner[i];
  }
  return m.str(1) + ": " + out;
}

/// The cause Triton gave below the header at lines[at]: the lines after the
/// caret under the quoted source (the block's last line when there is no caret).
std::string tritonReason(const std::vector<std::string>& lines, std::size_t at) {
  constexpr std::size_t kMaxReason = 400;
  std::size_t end = at + 1;
  while (end < lines.size() && !endsBlock(lines[end])) ++end;
  std::size_t from = end;
  for (std::size_t i = at + 1; i < end; ++i)
    if (lines[i] == "^") from = i + 1;
  if (from >= end && end > at + 1 && lines[end - 1] != "^") from = end - 1;
  std::string reason;
  for (std::size_t i = from; i < end && reason.size() < kMaxReason; ++i)
    if (!lines[i].empty()) reason += (reason.empty() ? "" : " ") + lines[i];
  if (reason.size() > kMaxReason) reason = reason.substr(0, kMaxReason) + "...";
  return unRepr(reason);
}

/// The cause in a whole traceback: the first (innermost) Triton block that
/// gives one, else the last exception line before the chain's wrapper.
std::string tracebackCause(const std::string& text) {
  const std::vector<std::string> lines = linesOf(text, 2000);
  std::size_t chain = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (chain == lines.size() && lines[i].rfind("The above exception", 0) == 0) chain = i;
    if (tritonAt(lines[i]).empty()) continue;
    if (std::string r = tritonReason(lines, i); !r.empty()) return r;
  }
  std::string inner;
  for (std::size_t i = 0; i < chain; ++i) inner += lines[i] + "\n";
  return chain < lines.size() ? lastExceptionLine(inner) : "";
}

/// "torch.OutOfMemoryError: CUDA out of memory" names its own type.
bool namesItsType(std::string_view line) {
  static const Regex typed(R"(^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Failure|Warning): )");
  return typed.search(std::string(line.substr(0, 200)));
}

}  // namespace

std::string exceptionHeadline(const std::string& type, const std::string& message, const std::string& text) {
  const std::vector<std::string> lines = linesOf(message, 400);
  const std::string first = lines.empty() ? "" : lines.front();
  const std::string at = tritonAt(first);
  const bool generic = type.empty() || type == "Error" || type == "Exception";
  if (at.empty()) {
    if (generic && namesItsType(first)) return first;
    return type + (first.empty() ? "" : ": " + first);
  }
  std::string kind = type;
  if (const auto p = first.find(": at "); p != std::string::npos && generic) {
    kind = first.substr(0, p);
    if (const auto dot = kind.rfind('.'); dot != std::string::npos) kind = kind.substr(dot + 1);
  }
  std::string reason = tritonReason(lines, 0);
  if (reason.empty() && !text.empty()) reason = tracebackCause(text);
  const std::string where = kind + " at " + at;
  return reason.empty() ? where : reason + " (" + where + ")";
}

std::vector<Finding> runnerFindings(const json& runner) { return runnerFindings(readRunnerAnswer(runner)); }

std::vector<Finding> runnerFindings(const RunnerAnswer& runner) {
  std::vector<Finding> out;
  if (const auto& ex = runner.exception) {
    const std::string& text = ex->text;
    const std::string& type = ex->type;
    const std::string& message = ex->message;
    const Classification c = classifyLog(text.empty() ? type + ": " + message : text);
    Finding f;
    f.severity = Severity::error;
    f.category = "compile_error";
    f.detail = "python_exception";
    f.treeNode = "compile.python.other";
    // Below the threshold the nearest answer still names the exception's kind.
    const Candidate* best = c.candidates.empty() ? nullptr : &c.candidates.front();
    if (c.known()) {
      f.category = c.category;
      f.detail = c.detail;
      f.treeNode = c.treeNode;
    } else if (best) {
      f.category = best->category;
      f.detail = best->detail;
      f.treeNode = best->treeNode;
    }
    f.message = exceptionHeadline(type, message, text);
    f.location.file = ex->file;
    // A line the runner wrote: only a plausible one is kept (no overflowing cast).
    if (ex->line > 0 && ex->line < (1 << 30)) f.location.line = static_cast<int>(ex->line);
    f.evidence = {{"source", "runner"}, {"phase", runner.phase.value_or("")}, {"exception", type}};
    if (ex->sourceLine) f.evidence["source_line"] = *ex->sourceLine;
    // A limit of the sandbox that fired (limits.py: RLIMIT_DATA as MemoryError, RLIMIT_FSIZE).
    if (ex->limit) f.evidence["limit"] = *ex->limit;
    if (c.known() || best)
      f.evidence["classifier"] = {{"rule", c.known() ? c.rule : best->rule},
                                  {"confidence", c.known() ? c.confidence : best->confidence},
                                  {"matched", c.known() ? c.matched : best->line.text}};
    out.push_back(std::move(f));
  }
  for (Finding f : runner.findings) {
    if (!isKnownCategory(f.category)) continue;  // an older runner's word: not ours to judge by
    if (f.treeNode.empty()) f.treeNode = std::string(categoryInfo(f.category).treeNode);
    out.push_back(std::move(f));
  }
  // Errors first, root causes before the symptoms they cause (the registry's rank).
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return static_cast<int>(a.severity) > static_cast<int>(b.severity);
    const CategoryInfo* ca = findCategory(a.category);
    const CategoryInfo* cb = findCategory(b.category);
    return (ca ? ca->rank : 99) < (cb ? cb->rank : 99);
  });
  return out;
}

bool isLibraryKernel(const std::string& name) {
  static const Regex lib(kLibraryKernelPattern);
  return lib.search(name);
}

std::optional<double> triageEta(double elapsedS, int done, int total, int jobs) {
  if (done <= 0 || total <= done) return done > 0 ? std::optional<double>(0.0) : std::nullopt;
  // The entries run `jobs` at a time, each taking about elapsed * jobs / done:
  // what is left takes ceil(left / jobs) such rounds. The last few entries take
  // a whole entry's time, not a share of the rate.
  const int slots = std::max(1, std::min(jobs, total));
  const int left = total - done;
  const int rounds = (left + slots - 1) / slots;
  return elapsedS * slots / done * rounds;
}

std::string entrySlug(const std::string& id) {
  std::string base = fs::path(id).filename().string();
  if (base.empty()) base = "entry";
  std::string safe;
  for (char ch : base)
    safe += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_') ? ch : '_';
  if (safe.size() > 48) safe.resize(48);
  // FNV-1a of the whole id: two inputs with one file name get two folders.
  std::uint32_t h = 2166136261u;
  for (unsigned char ch : id) h = (h ^ ch) * 16777619u;
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", h);
  return safe + "-" + hex;
}

}  // namespace tilescope
