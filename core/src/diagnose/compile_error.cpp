// compile_error findings of Python kernels: message, .py line, classification, fix.
#include "tilescope/diagnose/compile_error.h"

#include <charconv>
#include <fstream>

#include "tilescope/base/regex.h"
#include "tilescope/diagnose/tree.h"
#include "tilescope/logs/classify.h"

namespace tilescope {

namespace {

const Tree* defaultTreeOrNull() {
  static const Tree* tree = []() -> const Tree* {
    try {
      static Tree t = loadDefaultTree();
      return &t;
    } catch (const std::exception&) {
      return nullptr;  // a finding without the fix is still a finding
    }
  }();
  return tree;
}

std::string fileLine(const std::filesystem::path& file, int line) {
  std::ifstream in(file);
  std::string text;
  for (int i = 1; i <= line && std::getline(in, text); ++i)
    if (i == line) return text;
  return "";
}

}  // namespace

std::pair<int, int> compileErrorPosition(const std::string& log) {
  // The log's first line is Triton's text (a 200,000-character name in it is
  // possible): matched in linear time, numbers that do not fit an int read as 0.
  static const Regex first(R"(^[^\n]*?:(\d+):(\d+): error: )");
  RegexMatch m;
  if (!first.search(log, m)) return {0, 0};
  auto number = [](std::string_view digits) {
    int v = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    return ec == std::errc() && end == digits.data() + digits.size() ? v : 0;
  };
  return {number(m[1]), number(m[2])};
}

Finding pythonCompileErrorFinding(const Config& cfg, const CompileInfo& ci, int line, int column,
                                  const std::string& firstError) {
  const std::string lang = cfg.kernel.language;
  Classification c = classifyLog(ci.log);
  Finding f;
  f.category = "compile_error";
  f.severity = Severity::error;
  f.detail = c.known() && c.category == "compile_error" ? c.detail : lang;
  f.treeNode = c.known() && !c.treeNode.empty() ? c.treeNode : "compile." + lang + ".other";
  f.message = cfg.kernel.source + (line > 0 ? ":" + std::to_string(line) : "") + ": " + firstError;
  f.location.file = cfg.kernel.source;
  f.location.kernel = cfg.kernel.entry;
  nlohmann::json ev{
      {"compiler", ci.compiler}, {"arch", ci.arch}, {"first_error", firstError}, {"language", lang}};
  if (line > 0) {
    f.location.line = line;
    if (column > 0) f.location.extra["column"] = column;
    const std::string text = fileLine(cfg.kernel.sourcePath, line);
    if (!text.empty()) ev["source_line"] = text;
  }
  if (c.known())
    ev["classifier"] = {{"category", c.category},
                        {"detail", c.detail},
                        {"rule", c.rule},
                        {"source", c.source},
                        {"node", c.treeNode}};
  if (const Tree* tree = defaultTreeOrNull()) {
    if (const TreeNode* node = tree->findNearest(f.treeNode)) {
      f.treeNode = node->id;
      ev["tree_title"] = node->title;
      if (!node->fix.empty()) ev["fix"] = node->fix;
      // The kernel's language first, else host code or a shell line; never another kernel language's.
      const TreeExample* example = nullptr;
      for (const TreeExample* e : examplesFor(*node, lang))
        if (!example || (e->language == lang && example->language != lang)) example = e;
      if (example)
        ev["example"] = {
            {"language", example->language}, {"before", example->before}, {"after", example->after}};
    }
  }
  f.evidence = std::move(ev);
  return f;
}

}  // namespace tilescope
