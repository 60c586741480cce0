// `classify [LOGFILE|-]`: a pasted error log → finding category, detail, tree node, the
// decisive lines and, for sanitizer output, the structured findings (README.md, the command line). Exit 0
// when classified, 1 when unknown (below the confidence threshold), 2 when the log
// cannot be read (missing, a directory, binary data) or the rules are broken.
#include <iomanip>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "options.h"
#include "tilescope/logs/classify.h"

namespace tilescope::cli {

namespace {

constexpr std::size_t kShown = 200;

// A line for the terminal: control characters (colour codes, carriage returns) shown
// as '?', long lines cut.
std::string shown(const std::string& s) {
  std::string out;
  for (char c : s.substr(0, kShown)) out += static_cast<unsigned char>(c) < 0x20 && c != '\t' ? '?' : c;
  if (s.size() > kShown) out += " …";
  return out;
}

std::string number(double v) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(2) << v;
  return o.str();
}

nlohmann::json evidenceJson(const EvidenceLine& e) {
  return {{"line", e.number}, {"text", e.text}, {"rule", e.rule}, {"count", e.count}};
}

nlohmann::json toJson(const Classification& c, const LogText& log, double threshold) {
  nlohmann::json cands = nlohmann::json::array(), ev = nlohmann::json::array();
  for (const Candidate& k : c.candidates)
    cands.push_back({{"category", k.category},
                     {"detail", k.detail},
                     {"tree_node", k.treeNode},
                     {"source", k.source},
                     {"rule", k.rule},
                     {"confidence", k.confidence},
                     {"line", evidenceJson(k.line)}});
  for (const EvidenceLine& e : c.evidence) ev.push_back(evidenceJson(e));
  nlohmann::json j = {{"classified", c.known()}, {"category", c.category}, {"detail", c.detail},
                      {"tree_node", c.treeNode}, {"matched", c.matched},   {"confidence", c.confidence},
                      {"threshold", threshold},  {"source", c.source},     {"rule", c.rule},
                      {"candidates", cands},     {"evidence", ev}};
  j["log"] = {{"bytes", log.originalBytes},
              {"lines", c.lines},
              {"lines_not_examined", c.linesSkipped},
              {"bytes_not_examined", log.gapBytes},
              {"invalid_utf8_replaced", c.replacedBytes},
              {"stream_cut", log.streamCut}};
  if (!c.sanitizer.findings.empty() || !c.sanitizer.tool.empty() || !c.sanitizer.xmlError.empty())
    j["sanitizer"] = tilescope::toJson(c.sanitizer);
  return j;
}

void printText(const Classification& c, const LogText& log, double threshold) {
  if (c.known()) {
    std::cout << "category:   " << c.category << '\n'
              << "detail:     " << c.detail << '\n'
              << "source:     " << c.source << '\n'
              << "tree node:  " << c.treeNode << '\n'
              << "confidence: " << number(c.confidence) << '\n'
              << "matched:    " << shown(c.matched) << '\n';
  } else if (c.candidates.empty()) {
    std::cout << "unknown: no classifier rule matched\n";
  } else {
    std::cout << "unknown: no rule is confident enough (best " << number(c.confidence) << " < threshold "
              << number(threshold) << ")\n";
  }
  const std::size_t alternatives = c.known() ? 1 : 0;
  if (c.candidates.size() > alternatives) {
    std::cout << (c.known() ? "\nalso considered:\n" : "\nnearest candidates:\n");
    for (std::size_t i = alternatives; i < c.candidates.size(); ++i) {
      const Candidate& k = c.candidates[i];
      std::cout << "  " << number(k.confidence) << "  " << k.category << " / " << k.detail << " -> "
                << k.treeNode << "  (rule " << k.rule << ", line " << k.line.number << ")\n";
    }
  }
  if (!c.sanitizer.findings.empty()) {
    std::cout << "\n"
              << (c.sanitizer.legacy ? "cuda-memcheck" : "compute-sanitizer " + c.sanitizer.tool)
              << (c.sanitizer.xml ? " (XML)" : "") << ": " << c.sanitizer.findings.size() << " finding"
              << (c.sanitizer.findings.size() == 1 ? "" : "s");
    if (c.sanitizer.errorSummary >= 0) std::cout << ", ERROR SUMMARY " << c.sanitizer.errorSummary;
    std::cout << '\n';
    std::size_t n = 0;
    for (const SanitizerFinding& f : c.sanitizer.findings) {
      if (++n > 10) {
        std::cout << "  … " << c.sanitizer.findings.size() - 10 << " more (--json lists them all)\n";
        break;
      }
      std::cout << "  " << shown(describe(f)) << '\n';
    }
  }
  if (!c.evidence.empty()) {
    std::cout << "\ndecisive lines:\n";
    for (const EvidenceLine& e : c.evidence) {
      std::cout << "  " << std::setw(7) << e.number << ": " << shown(e.text);
      if (e.count > 1) std::cout << "  (×" << e.count << ")";
      std::cout << '\n';
    }
  }
  std::cout << "\nlog: " << c.lines << " lines";
  if (c.linesSkipped) std::cout << ", " << c.linesSkipped << " in the middle not examined";
  if (c.replacedBytes) std::cout << ", " << c.replacedBytes << " invalid UTF-8 bytes replaced";
  if (log.streamCut) std::cout << ", input cut after " << log.originalBytes << " bytes";
  std::cout << '\n';
}

}  // namespace

int cmdClassify(const std::string& input, bool json) {
  LogText log;
  try {
    log = input.empty() || input == "-" ? readLog(std::cin, "standard input") : readLogFile(input);
  } catch (const LogError& e) {
    return usageError(e.what());
  }
  const Classifier* classifier = nullptr;
  try {
    classifier = &defaultClassifier();
  } catch (const std::exception& e) {
    return usageError(std::string("classifier rules: ") + e.what());
  }
  const Classification c = classifier->classify(log);
  if (json)
    std::cout
        << toJson(c, log, classifier->threshold).dump(1, ' ', false, nlohmann::json::error_handler_t::replace)
        << '\n';
  else
    printText(c, log, classifier->threshold);
  return c.known() ? kExitOk : kExitFindings;
}

Verb addClassifyCommand(CLI::App& app) {
  auto input = std::make_shared<std::string>("-");
  auto json = std::make_shared<bool>(false);
  auto* cl = app.add_subcommand("classify",
                                "classify a pasted error log (CUDA, NVRTC/nvcc, Triton, TileLang, Python)");
  cl->add_option("LOGFILE", *input, "log file, or - for stdin (default)");
  cl->add_flag("--json", *json, "print JSON");
  return {cl, [input, json] { return cmdClassify(*input, *json); }};
}

}  // namespace tilescope::cli
