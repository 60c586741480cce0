#include "tilescope/logs/classify.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <mutex>
#include <unordered_map>

#include "tilescope/base/resources.h"

namespace tilescope {
namespace {

using sv = std::string_view;

constexpr std::size_t kEvidencePerCandidate = 3;
constexpr std::size_t kCandidates = 4;
/// A sanitizer finding is the log's own account of the fault: it outranks every rule.
constexpr double kSanitizerConfidence = 0.97;

// Lower case with every digit as '0': lines that differ in numbers only (thread ids,
// addresses, timestamps) fold together, and rule needles compare the same way.
std::string lineKey(sv s) {
  std::string k(s);
  for (char& c : k) {
    if (c >= 'A' && c <= 'Z')
      c = char(c - 'A' + 'a');
    else if (c >= '0' && c <= '9')
      c = '0';
  }
  return k;
}

bool identStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `pkg.mod.Name: message` or `Name` where Name is CamelCase and ends in Error, Exception,
// Exit, Interrupt or OutOfResources.
bool isExceptionLine(sv s) {
  std::size_t i = 0, lastStart = 0;
  for (;;) {
    if (i >= s.size() || !identStart(s[i])) return false;
    lastStart = i;
    while (i < s.size() && identChar(s[i])) ++i;
    if (i < s.size() && s[i] == '.') {
      ++i;
      continue;
    }
    break;
  }
  const sv name = s.substr(lastStart, i - lastStart);
  if (name.empty() || !std::isupper(static_cast<unsigned char>(name.front()))) return false;
  bool suffix = false;
  for (sv end : {"Error", "Exception", "Exit", "Interrupt", "OutOfResources"})
    suffix = suffix || (name.size() >= end.size() && name.substr(name.size() - end.size()) == end);
  if (!suffix) return false;
  return i == s.size() || (s[i] == ':' && (i + 1 == s.size() || s[i + 1] == ' '));
}

bool containsIcase(sv text, sv needle) {
  auto it = std::search(text.begin(), text.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}

// A rule names the error's own source; the wrapper that reported it refines it: NVRTC
// names its program "<null>" or says NVRTC; CuPy, JAX/XLA, Triton and PyTorch wrap CUDA
// errors in their own exceptions and messages.
std::string refineSource(const std::string& source, sv text) {
  auto has = [&](std::initializer_list<sv> markers) {
    for (sv m : markers)
      if (text.find(m) != sv::npos) return true;
    return false;
  };
  if (source == "nvcc" && (containsIcase(text, "nvrtc") || has({"<null>("}))) return "nvrtc";
  if (source == "cuda") {
    if (has({"cupy", "CuPy"})) return "cupy";
    if (has({"XlaRuntimeError", "jaxlib", "/xla/", "pjrt", "RESOURCE_EXHAUSTED", "xla_extension"}))
      return "jax";
    if (has({"Triton Error [CUDA]"})) return "triton";
    if (has({"/torch/", "torch.", "TORCH_", "RuntimeError: CUDA", "AcceleratorError",
             "c10::", "aten/src/ATen", "ATen/native", "THCUNN"}))
      return "pytorch";
  }
  return source;
}

// A compiler's error line: nvcc/NVRTC's `file(LINE): error: ...` (`catastrophic error`,
// `error #20-D`) or a GCC/Clang-style `file:LINE[:COL]: [fatal ]error: ...`.
bool isCompilerError(sv s) {
  static const Regex re(R"(\(\d+\): (catastrophic )?error( #\d+(-D)?)?: |:\d+(:\d+)?: (fatal )?error: )");
  return s.find("error") != sv::npos && re.search(s);
}

struct Unique {
  std::size_t line;   // index into LogLines::lines of the first occurrence
  std::size_t count;  // occurrences
};

struct RuleHits {
  std::vector<std::size_t> uniques;  // first few matching unique lines, in log order
  std::size_t count = 0;
};

Candidate candidateOf(const ClassifierRule& r, const LogLine& l, std::size_t count, sv text) {
  Candidate c;
  c.category = r.category;
  c.detail = r.detail;
  c.treeNode = r.node;
  c.source = refineSource(r.source, text);
  c.rule = r.id;
  c.confidence = r.confidence;
  c.line = EvidenceLine{l.number, std::string(l.text), r.id, count};
  return c;
}

/// The distinct lines of a log (numbers aside), each with the first place it
/// appears, and which of them is the last exception line.
struct DistinctLines {
  std::vector<Unique> uniques;
  std::vector<std::string> keys;  ///< lineKey of each
  std::size_t lastException = 0;  ///< index into uniques; uniques.size() when none
  std::size_t firstError = 0;  ///< the first compiler error line (isCompilerError); uniques.size() when none
};

DistinctLines distinctLines(const LogLines& ll) {
  DistinctLines d;
  std::unordered_map<std::string, std::size_t> seen;
  seen.reserve(ll.lines.size());
  for (std::size_t i = 0; i < ll.lines.size(); ++i) {
    if (ll.lines[i].text.empty()) continue;
    std::string k = lineKey(ll.lines[i].text);
    auto [it, inserted] = seen.try_emplace(std::move(k), d.uniques.size());
    if (inserted) {
      d.uniques.push_back({i, 1});
      d.keys.push_back(it->first);
    } else {
      ++d.uniques[it->second].count;
    }
  }
  d.firstError = d.uniques.size();
  for (std::size_t u = 0; u < d.uniques.size(); ++u)
    if (isCompilerError(ll.lines[d.uniques[u].line].text)) {
      d.firstError = u;
      break;
    }
  d.lastException = d.uniques.size();
  for (std::size_t i = ll.lines.size(); i-- > 0;)
    if (isExceptionLine(ll.lines[i].text)) {
      const std::string k = lineKey(ll.lines[i].text);
      for (std::size_t u = 0; u < d.uniques.size(); ++u)
        if (d.keys[u] == k) d.lastException = u;
      break;
    }
  return d;
}

/// What might explain a log, each with the distinct lines that are its evidence.
struct Candidates {
  std::vector<Candidate> list;
  std::vector<std::vector<std::size_t>> evidenceOf;  ///< per candidate: indices into uniques
};

/// Every rule on every distinct line, its literals first.
void ruleCandidates(const std::vector<ClassifierRule>& rules, const LogLines& ll, const DistinctLines& d,
                    sv text, Candidates& out) {
  for (const ClassifierRule& r : rules) {
    RuleHits hits;
    auto test = [&](std::size_t u) {
      const std::string& k = d.keys[u];
      if (!r.needles.empty() && std::none_of(r.needles.begin(), r.needles.end(), [&](const std::string& n) {
            return k.find(n) != std::string::npos;
          }))
        return;
      const sv t = ll.lines[d.uniques[u].line].text;
      if (!r.re.search(t)) return;
      if (hits.uniques.size() < kEvidencePerCandidate) hits.uniques.push_back(u);
      ++hits.count;
    };
    if (r.scope == "last_exception") {
      if (d.lastException < d.uniques.size()) test(d.lastException);
    } else if (r.scope == "first_error") {
      if (d.firstError < d.uniques.size()) test(d.firstError);
    } else {
      for (std::size_t u = 0; u < d.uniques.size(); ++u) test(u);
    }
    if (hits.uniques.empty()) continue;
    const Unique& first = d.uniques[hits.uniques.front()];
    out.list.push_back(candidateOf(r, ll.lines[first.line], first.count, text));
    out.evidenceOf.push_back(hits.uniques);
  }
}

/// Sanitizer output: its primary finding is a candidate of its own.
void sanitizerCandidate(const LogText& log, const LogLines& ll, Classification& cls, Candidates& out) {
  if (!looksLikeSanitizerOutput(log.text)) return;
  cls.sanitizer = parseSanitizerLog(log.text);
  const SanitizerFinding* f = cls.sanitizer.primary();
  if (!f) return;
  const FindingClass fc = classifyFinding(*f);
  Candidate c;
  c.category = fc.category;
  c.detail = fc.detail;
  c.treeNode = fc.node;
  c.source = cls.sanitizer.legacy ? "cuda-memcheck" : "compute-sanitizer";
  c.rule = "sanitizer:" + f->tool + ":" + f->kind;
  c.confidence = kSanitizerConfidence;
  std::string lineText = f->message;
  for (const LogLine& l : ll.lines)
    if (f->logLine > 0 && l.number == f->logLine) lineText = std::string(l.text);
  c.line = EvidenceLine{f->logLine, lineText, c.rule, std::size_t(f->count)};
  out.list.push_back(c);
  out.evidenceOf.push_back({});
}

/// The best candidates, one per category, ranked by confidence, then the rule's
/// place in the file (sanitizer last among equals), with their evidence lines.
void rankCandidates(const Candidates& found, const LogLines& ll, const DistinctLines& d,
                    Classification& cls) {
  std::vector<std::size_t> order(found.list.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return found.list[a].confidence > found.list[b].confidence;
  });
  std::vector<std::string> seenCategories;
  std::vector<EvidenceLine> evidence;
  for (std::size_t i : order) {
    const Candidate& c = found.list[i];
    if (std::find(seenCategories.begin(), seenCategories.end(), c.category) != seenCategories.end()) continue;
    seenCategories.push_back(c.category);
    cls.candidates.push_back(c);
    if (found.evidenceOf[i].empty()) evidence.push_back(c.line);
    for (std::size_t u : found.evidenceOf[i]) {
      const LogLine& l = ll.lines[d.uniques[u].line];
      evidence.push_back({l.number, std::string(l.text), c.rule, d.uniques[u].count});
    }
    if (cls.candidates.size() >= kCandidates) break;
  }
  // The decisive lines: the decision's (or the best candidate's) first, then the rest.
  std::sort(evidence.begin(), evidence.end(),
            [](const EvidenceLine& a, const EvidenceLine& b) { return a.number < b.number; });
  evidence.erase(
      std::unique(evidence.begin(), evidence.end(),
                  [](const EvidenceLine& a, const EvidenceLine& b) { return a.number == b.number; }),
      evidence.end());
  cls.evidence = std::move(evidence);
}

}  // namespace

std::string lastExceptionLine(const std::string& text) {
  const LogLines ll = splitLogLines(std::string_view(text));
  for (auto it = ll.lines.rbegin(); it != ll.lines.rend(); ++it)
    if (isExceptionLine(it->text)) return std::string(it->text);
  return "";
}

Classification Classifier::classify(const std::string& text) const {
  try {
    return classify(prepareLog(text, "the log"));
  } catch (const LogError&) {
    return {};  // binary data: nothing to classify
  }
}

Classification Classifier::classify(const LogText& log) const {
  Classification out;
  out.replacedBytes = log.replacedBytes;
  const LogLines ll = splitLogLines(log);
  out.lines = ll.total;
  out.linesSkipped = ll.skipped;
  const DistinctLines distinct = distinctLines(ll);
  Candidates found;
  ruleCandidates(rules, ll, distinct, log.text, found);
  sanitizerCandidate(log, ll, out, found);
  rankCandidates(found, ll, distinct, out);
  if (!out.candidates.empty()) {
    const Candidate& best = out.candidates.front();
    out.confidence = best.confidence;
    if (best.confidence >= threshold) {
      out.category = best.category;
      out.detail = best.detail;
      out.treeNode = best.treeNode;
      out.source = best.source;
      out.rule = best.rule;
      out.matched = best.line.text;
    }
  }
  return out;
}

const Classifier& defaultClassifier() {
  static std::once_flag once;
  static Classifier c;
  std::call_once(once, [] { c = loadClassifier(resourceDir() / "classifier.json"); });
  return c;
}

Classification classifyLog(const std::string& text) {
  // The tree walk evaluates a {"log": ...} predicate at many nodes for the same paste.
  static std::mutex mu;
  static std::size_t lastHash = 0;
  static std::string lastText;
  static Classification last;
  const std::size_t h = std::hash<std::string>{}(text);
  {
    std::lock_guard<std::mutex> lock(mu);
    if (h == lastHash && text == lastText) return last;
  }
  Classification c = defaultClassifier().classify(text);
  std::lock_guard<std::mutex> lock(mu);
  lastHash = h;
  lastText = text;
  last = c;
  return c;
}

}  // namespace tilescope
