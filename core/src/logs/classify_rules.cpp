// Loading the classifier's rules (resources/classifier.json) and reading off each
// pattern the literals a line must contain before its regular expression is worth
// running: a CI log has 100,000 lines of which a handful matter, and a substring
// search is cheaper than even a linear-time regex.
#include <cctype>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "tilescope/logs/classify.h"
#include "tilescope/model/vocabulary.h"

namespace tilescope {
namespace {

using nlohmann::json;

char keyChar(char c) {
  if (c >= 'A' && c <= 'Z') return char(c - 'A' + 'a');
  if (c >= '0' && c <= '9') return '0';
  return c;
}

// Splits at top-level '|' (outside groups, classes and escapes).
std::vector<std::string> topLevelAlternatives(const std::string& p) {
  std::vector<std::string> out(1);
  int depth = 0;
  bool inClass = false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      out.back() += c;
      out.back() += p[++i];
      continue;
    }
    if (inClass) {
      inClass = c != ']';
    } else if (c == '[') {
      inClass = true;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      --depth;
    } else if (c == '|' && depth == 0) {
      out.emplace_back();
      continue;
    }
    out.back() += c;
  }
  return out;
}

// The longest run of characters every match of `alt` contains, outside groups.
std::string longestLiteral(const std::string& alt) {
  std::string best, run;
  auto endRun = [&] {
    if (run.size() > best.size()) best = run;
    run.clear();
  };
  for (std::size_t i = 0; i < alt.size(); ++i) {
    const char c = alt[i];
    const char next = i + 1 < alt.size() ? alt[i + 1] : '\0';
    const bool optionalNext = next == '?' || next == '*' || next == '{';
    if (c == '\\' && i + 1 < alt.size()) {
      const char e = alt[++i];
      const char after = i + 1 < alt.size() ? alt[i + 1] : '\0';
      const bool escapedLiteral = !std::isalnum(static_cast<unsigned char>(e));
      if (!escapedLiteral) {  // \d \w \s \b ...
        endRun();
        continue;
      }
      if (after == '?' || after == '*' || after == '{') {
        endRun();
        continue;
      }
      run += keyChar(e);
      if (after == '+') endRun();
      continue;
    }
    if (c == '(' || c == '[') {
      endRun();
      // Skip the balanced group or class: its literals are not guaranteed.
      int depth = 0;
      bool inClass = false;
      for (; i < alt.size(); ++i) {
        const char g = alt[i];
        if (g == '\\') {
          ++i;
          continue;
        }
        if (inClass) {
          if (g == ']') inClass = false;
          if (!inClass && depth == 0) break;
          continue;
        }
        if (g == '[')
          inClass = true;
        else if (g == '(')
          ++depth;
        else if (g == ')' && --depth == 0)
          break;
      }
      continue;
    }
    if (c == '.' || c == '^' || c == '$' || c == '?' || c == '*' || c == '+' || c == '{' || c == '}' ||
        c == ')') {
      endRun();
      if (c == '{')
        while (i < alt.size() && alt[i] != '}') ++i;
      continue;
    }
    if (optionalNext) {
      endRun();
      continue;
    }
    run += keyChar(c);
    if (next == '+') endRun();
  }
  endRun();
  return best;
}

ClassifierRule ruleFromJson(const json& r, std::size_t index) {
  const std::string where = "classifier rule " + (r.is_object() && r.contains("id") && r["id"].is_string()
                                                      ? "'" + r["id"].get<std::string>() + "'"
                                                      : "#" + std::to_string(index));
  if (!r.is_object()) throw std::runtime_error(where + ": not an object");
  static const char* known[] = {"id",     "pattern", "icase",  "scope",      "category",
                                "detail", "node",    "source", "confidence", "example"};
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
  if (!isKnownCategory(rule.category))
    throw std::runtime_error(where + ": unknown finding category '" + rule.category +
                             "' (the registry is in core/src/model/vocabulary.cpp)");
  if (rule.scope != "any" && rule.scope != "last_exception" && rule.scope != "first_error")
    throw std::runtime_error(where + ": scope must be 'any', 'last_exception' or 'first_error', not '" +
                             rule.scope + "'");
  if (r.contains("icase")) {
    if (!r["icase"].is_boolean()) throw std::runtime_error(where + ": 'icase' must be true or false");
    rule.icase = r["icase"].get<bool>();
  }
  if (r.contains("confidence")) {
    if (!r["confidence"].is_number()) throw std::runtime_error(where + ": 'confidence' must be a number");
    rule.confidence = r["confidence"].get<double>();
    if (!(rule.confidence > 0 && rule.confidence <= 1))
      throw std::runtime_error(where + ": 'confidence' must be in (0, 1]");
  }
  try {
    rule.re = Regex(rule.pattern, RegexOptions{rule.icase});
  } catch (const RegexError& e) {
    throw std::runtime_error(where + ": pattern does not compile (" + e.reason() + "): " + rule.pattern);
  }
  rule.needles = requiredLiterals(rule.pattern);
  return rule;
}

}  // namespace

std::vector<std::string> requiredLiterals(const std::string& pattern) {
  std::vector<std::string> needles;
  for (const std::string& alt : topLevelAlternatives(pattern)) {
    std::string lit = longestLiteral(alt);
    // Three characters prune little and risk nothing; shorter ones are not worth it.
    if (lit.size() < 3) return {};
    needles.push_back(std::move(lit));
  }
  return needles;
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
  if (!j.is_object() || !j.contains("schema") || !j["schema"].is_string() || j["schema"] != kClassifierSchema)
    throw std::runtime_error(file.string() + ": schema must be '" + std::string(kClassifierSchema) + "'");
  if (!j.contains("rules") || !j["rules"].is_array())
    throw std::runtime_error(file.string() + ": 'rules' must be an array");
  Classifier c;
  if (j.contains("threshold")) {
    if (!j["threshold"].is_number())
      throw std::runtime_error(file.string() + ": 'threshold' must be a number");
    c.threshold = j["threshold"].get<double>();
  }
  for (std::size_t i = 0; i < j["rules"].size(); ++i) c.rules.push_back(ruleFromJson(j["rules"][i], i));
  return c;
}

}  // namespace tilescope
