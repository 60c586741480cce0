// The error-log classifier: a pasted log (CUDA runtime, nvcc/NVRTC/ptxas, Triton,
// TileLang, a Python traceback, PyTorch, NCCL, a numerical test, compute-sanitizer) → a
// finding category (vocabulary.h), a detail, and the troubleshooting-tree node to start from,
// with the lines that decided it. The rules are data (resources/classifier.json, schema
// tilescope.classifier/1): regular expressions with a confidence each; every rule is
// tried on every examined line, the most confident hit decides, and below the file's
// threshold the answer is "unknown" with the nearest candidates (docs/tree.md).
// Sanitizer output is parsed into structured findings (tilescope/logs/sanitizer.h) first.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "tilescope/base/regex.h"
#include "tilescope/logs/logtext.h"
#include "tilescope/logs/sanitizer.h"

namespace tilescope {

inline constexpr const char* kClassifierSchema = "tilescope.classifier/1";

/// A line of the log that a rule matched.
struct EvidenceLine {
  std::size_t number = 0;  ///< 1-based line number in the log
  std::string text;        ///< the line with its prefixes stripped (cut at 2 KiB)
  std::string rule;        ///< rule that matched it
  std::size_t count = 1;   ///< lines of the log with the same text (digits aside)
};

/// One possible answer: what a rule (or a sanitizer finding) says the log is.
struct Candidate {
  std::string category, detail, treeNode, source, rule;
  double confidence = 0;
  EvidenceLine line;  ///< the first line that matched
};

struct Classification {
  std::string category;   ///< a finding category (vocabulary.h); "" when unknown
  std::string detail;     ///< sub-class (triton_arange_constexpr, python_name_error, ...)
  std::string treeNode;   ///< tree node to start from
  std::string matched;    ///< the line that decided (prefixes stripped)
  double confidence = 0;  ///< of the decision; for an unknown log, of the best candidate
  std::string source;     ///< cuda | nvrtc | nvcc | triton | tilelang | python | pytorch | ...
  std::string rule;       ///< id of the rule that decided ("sanitizer:<tool>" for a finding)
  /// Ranked, best first, one per category: the decision and the alternatives, or for an
  /// unknown log the nearest candidates below the threshold.
  std::vector<Candidate> candidates;
  std::vector<EvidenceLine> evidence;  ///< the decisive lines, in log order
  SanitizerReport sanitizer;           ///< findings when the log holds sanitizer output
  std::size_t lines = 0;               ///< lines in the log
  std::size_t linesSkipped = 0;        ///< lines not examined (middle of a huge log)
  std::size_t replacedBytes = 0;       ///< invalid UTF-8 bytes replaced
  bool known() const { return !category.empty(); }
};

struct ClassifierRule {
  std::string id;
  std::string pattern;  ///< regex (RE2 syntax, tilescope/base/regex.h), searched in each line
  bool icase = false;
  /// "any": any line of the log; "last_exception": only the last Python exception line
  /// (`Name: message` at the start of a line) — where a traceback's real error is;
  /// "first_error": only the log's first compiler error line (`file(LINE): error: ...`,
  /// `file:LINE:COL: error: ...`) — later errors usually follow from the first.
  std::string scope = "any";
  std::string category, detail, node, source;
  double confidence = 0.9;
  Regex re;
  /// Lower-case literals of which a line must contain one before the regex runs (empty:
  /// always run it); derived from the pattern, digits mapped to '0'.
  std::vector<std::string> needles;
};

struct Classifier {
  std::vector<ClassifierRule> rules;
  double threshold = 0.5;  ///< below it the answer is "unknown"
  Classification classify(const std::string& text) const;
  Classification classify(const LogText& log) const;
};

/// Parses resources/classifier.json; throws std::runtime_error naming the rule (id or
/// index) of a malformed rule or a regex that does not compile.
Classifier loadClassifier(const std::filesystem::path& file);
/// resourceDir()/classifier.json, loaded once per process.
const Classifier& defaultClassifier();

/// Classifies with the default classifier (the last answer is remembered: the tree walk
/// asks about the same pasted log at every node).
Classification classifyLog(const std::string& text);

/// The last line of `text` that looks like a Python exception (`pkg.Name: message`,
/// `NameError: ...`), prefixes stripped, or "" when there is none.
std::string lastExceptionLine(const std::string& text);

/// Literals a line must contain for `pattern` to match (lower case, digits as '0');
/// empty when no such set can be read off the pattern.
std::vector<std::string> requiredLiterals(const std::string& pattern);

}  // namespace tilescope
