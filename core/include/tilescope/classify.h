// The error-log classifier: a pasted log (CUDA runtime, nvcc/NVRTC/ptxas, Triton,
// TileLang, a Python traceback, PyTorch) → a SPEC §4 finding category, a detail, and
// the troubleshooting-tree node to start from. The rules are data
// (resources/classifier.json, schema tilescope.classifier/1): ordered regular
// expressions, the first rule that matches decides (docs/tree.md).
#pragma once

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

namespace tilescope {

inline constexpr const char* kClassifierSchema = "tilescope.classifier/1";

struct Classification {
  std::string category;   ///< SPEC §4 finding category; "" when unknown
  std::string detail;     ///< sub-class (triton_arange_constexpr, python_name_error, ...)
  std::string treeNode;   ///< tree node to start from
  std::string matched;    ///< the line that decided
  double confidence = 0;  ///< 0 when unknown
  std::string source;     ///< cuda | nvrtc | nvcc | triton | tilelang | python | pytorch
  std::string rule;       ///< id of the rule that decided
  bool known() const { return !category.empty(); }
};

struct ClassifierRule {
  std::string id;
  std::string pattern;    ///< ECMAScript regex, searched in each line
  bool icase = false;
  /// "any": any line of the log; "last_exception": only the last Python exception line
  /// (`Name: message` at the start of a line) — where a traceback's real error is.
  std::string scope = "any";
  std::string category, detail, node, source;
  double confidence = 0.9;
  std::regex re;
};

struct Classifier {
  std::vector<ClassifierRule> rules;
  Classification classify(const std::string& text) const;
};

/// Parses resources/classifier.json; throws std::runtime_error naming the rule (id or
/// index) of a malformed rule or a regex that does not compile.
Classifier loadClassifier(const std::filesystem::path& file);
/// resourceDir()/classifier.json, loaded once per process.
const Classifier& defaultClassifier();

/// Classifies with the default classifier.
Classification classifyLog(const std::string& text);

/// The last line of `text` that looks like a Python exception (`pkg.Name: message`,
/// `NameError: ...`), or "" when there is none.
std::string lastExceptionLine(const std::string& text);

}  // namespace tilescope
