#include "tilescope/classify.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <mutex>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "tilescope/resources.h"

namespace tilescope {
namespace {

using nlohmann::json;

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  return lines;
}

std::string trim(const std::string& s) {
  const char* ws = " \t\r\n";
  auto b = s.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  auto e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

// Lines longer than this are cut before matching: std::regex backtracks recursively and
// a multi-megabyte line (a dumped tensor) would take seconds; error text is near the start.
constexpr std::size_t kMaxLine = 4096;

ClassifierRule ruleFromJson(const json& r, std::size_t index) {
  const std::string where = "classifier rule " + (r.contains("id") && r["id"].is_string()
                                                      ? "'" + r["id"].get<std::string>() + "'"
                                                      : "#" + std::to_string(index));
  if (!r.is_object()) throw std::runtime_error(where + ": not an object");
  static const char* known[] = {"id", "pattern", "icase", "scope", "category", "detail",
                                "node", "source", "confidence", "example"};
  for (const auto& [k, v] : r.items()) {
    bool ok = false;
    for (const char* n : known) ok = ok || k == n;
    if (!ok) throw std::runtime_error(where + ": unknown key '" + k + "'");
  }
  ClassifierRule rule;
  auto str = [&](const char* key, std::string& out, bool required) {
    if (!r.contains(key)) {
      if (required) throw std::runtime_error(where + ": missing '" + key + "'");
      return;
    }
    if (!r[key].is_string()) throw std::runtime_error(where + ": '" + key + "' must be a string");
    out = r[key].get<std::string>();
  };
  str("id", rule.id, true);
  str("pattern", rule.pattern, true);
  str("category", rule.category, true);
  str("detail", rule.detail, false);
  str("node", rule.node, true);
  str("source", rule.source, true);
  str("scope", rule.scope, false);
  if (rule.scope != "any" && rule.scope != "last_exception")
    throw std::runtime_error(where + ": scope must be 'any' or 'last_exception', not '" + rule.scope + "'");
  if (r.contains("icase")) rule.icase = r["icase"].get<bool>();
  if (r.contains("confidence")) rule.confidence = r["confidence"].get<double>();
  auto flags = std::regex::ECMAScript | std::regex::optimize;
  if (rule.icase) flags |= std::regex::icase;
  try {
    rule.re = std::regex(rule.pattern, flags);
  } catch (const std::regex_error& e) {
    throw std::runtime_error(where + ": pattern does not compile (" + e.what() + "): " + rule.pattern);
  }
  return rule;
}

bool containsIcase(const std::string& text, const std::string& needle) {
  auto it = std::search(text.begin(), text.end(), needle.begin(), needle.end(),
                        [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b)); });
  return it != text.end();
}

// A rule names the error's own source; the wrapper that reported it refines it: NVRTC
// names its program "<null>" or says NVRTC, PyTorch wraps runtime errors in
// "RuntimeError: CUDA error" / torch.AcceleratorError, Triton in "Triton Error [CUDA]".
std::string refineSource(const std::string& source, const std::string& text) {
  if (source == "nvcc" && (containsIcase(text, "nvrtc") || text.find("<null>(") != std::string::npos)) return "nvrtc";
  if (source == "cuda") {
    if (text.find("Triton Error [CUDA]") != std::string::npos) return "triton";
    if (containsIcase(text, "torch") || text.find("RuntimeError: CUDA") != std::string::npos ||
        text.find("AcceleratorError") != std::string::npos)
      return "pytorch";
  }
  return source;
}

}  // namespace

std::string lastExceptionLine(const std::string& text) {
  // `Name: message` or `pkg.mod.Name: message` at the start of a line, where Name ends
  // in Error/Exception/Exit/Interrupt or is a known bare name (OutOfResources, ...).
  static const std::regex exc(R"(^([A-Za-z_][\w]*\.)*[A-Z]\w*(Error|Exception|Exit|Interrupt|OutOfResources)(: .*|$))",
                              std::regex::ECMAScript | std::regex::optimize);
  std::string last;
  for (const auto& raw : splitLines(text)) {
    std::string line = trim(raw.size() > kMaxLine ? raw.substr(0, kMaxLine) : raw);
    if (std::regex_search(line, exc)) last = line;
  }
  return last;
}

Classification Classifier::classify(const std::string& text) const {
  std::vector<std::string> lines;
  for (auto& l : splitLines(text)) {
    std::string t = trim(l.size() > kMaxLine ? l.substr(0, kMaxLine) : l);
    if (!t.empty()) lines.push_back(std::move(t));
  }
  const std::string lastExc = lastExceptionLine(text);
  for (const auto& rule : rules) {
    const std::string* hit = nullptr;
    if (rule.scope == "last_exception") {
      if (!lastExc.empty() && std::regex_search(lastExc, rule.re)) hit = &lastExc;
    } else {
      for (const auto& line : lines)
        if (std::regex_search(line, rule.re)) {
          hit = &line;
          break;
        }
    }
    if (!hit) continue;
    Classification c;
    c.category = rule.category;
    c.detail = rule.detail;
    c.treeNode = rule.node;
    c.matched = *hit;
    c.confidence = rule.confidence;
    c.source = refineSource(rule.source, text);
    c.rule = rule.id;
    return c;
  }
  return {};
}

Classifier loadClassifier(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot open classifier rules " + file.string());
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    throw std::runtime_error(file.string() + ": " + e.what());
  }
  if (j.value("schema", "") != kClassifierSchema)
    throw std::runtime_error(file.string() + ": schema must be '" + std::string(kClassifierSchema) + "'");
  if (!j.contains("rules") || !j["rules"].is_array())
    throw std::runtime_error(file.string() + ": 'rules' must be an array");
  Classifier c;
  for (std::size_t i = 0; i < j["rules"].size(); ++i) c.rules.push_back(ruleFromJson(j["rules"][i], i));
  return c;
}

const Classifier& defaultClassifier() {
  static std::once_flag once;
  static Classifier c;
  std::call_once(once, [] { c = loadClassifier(resourceDir() / "classifier.json"); });
  return c;
}

Classification classifyLog(const std::string& text) { return defaultClassifier().classify(text); }

}  // namespace tilescope
