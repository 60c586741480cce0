// The predicate language of the troubleshooting tree (docs/tree.md): small JSON
// expressions over a Report or Point JSON that answer a question from evidence.
#include <cmath>

#include "tilescope/base/regex.h"
#include "tilescope/diagnose/tree.h"
#include "tilescope/logs/classify.h"

namespace tilescope {
namespace {

using nlohmann::json;

const char* const kOps[] = {"finding", "verdict", "field", "log", "any", "all", "not", "always"};
const char* const kComparators[] = {"eq",     "ne",       "lt",      "le",          "gt", "ge",
                                    "exists", "contains", "matches", "multiple_of", "in"};

bool isOneOf(const std::string& s, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (s == n) return true;
  return false;
}

// A string or a list of strings: the value matches when it equals one of them ("*": any).
bool matchesNames(const json& spec, const std::string& value) {
  if (spec.is_string()) return spec == "*" || spec.get<std::string>() == value;
  for (const auto& s : spec)
    if (s.is_string() && (s == "*" || s.get<std::string>() == value)) return true;
  return false;
}

void requireNames(const json& spec, const std::string& node, const std::string& key) {
  bool ok = spec.is_string() || (spec.is_array() && !spec.empty());
  if (spec.is_array())
    for (const auto& s : spec) ok = ok && s.is_string();
  if (!ok)
    throw TreeError(node, "predicate '" + key + "' needs a string or a list of strings, got " + spec.dump());
}

// Category names (of findings, or of a classified log) must be the registry's: a
// misspelt one would make the answer silently never hold.
void requireCategories(const json& spec, const std::string& node, const std::string& key) {
  for (const json& s : spec.is_array() ? spec : json::array({spec}))
    if (s != "*" && !isKnownCategory(s.get<std::string>()))
      throw TreeError(node, "predicate '" + key + "' names unknown finding category '" +
                                s.get<std::string>() +
                                "' (the registry is in core/src/model/vocabulary.cpp)");
}

std::string opOf(const json& p, const std::string& node) {
  if (!p.is_object()) throw TreeError(node, "a predicate must be an object, got " + p.dump());
  std::string op;
  for (const char* o : kOps)
    if (p.contains(o)) {
      if (!op.empty())
        throw TreeError(node, "predicate has two operators ('" + op + "' and '" + o + "'): " + p.dump());
      op = o;
    }
  if (op.empty()) throw TreeError(node, "unknown predicate operator in " + p.dump());
  return op;
}

// All findings of a Report (merged) or Point, and of a Report's points.
std::vector<const json*> findingsOf(const json& s) {
  std::vector<const json*> out;
  auto add = [&](const json& o) {
    if (o.contains("findings") && o["findings"].is_array())
      for (const auto& f : o["findings"]) out.push_back(&f);
  };
  add(s);
  if (s.contains("points") && s["points"].is_array())
    for (const auto& p : s["points"]) add(p);
  return out;
}

// Values at a dotted path; "*" steps into every member or element.
void collect(const json& at, const std::vector<std::string>& parts, std::size_t i,
             std::vector<const json*>& out) {
  if (i == parts.size()) {
    out.push_back(&at);
    return;
  }
  const std::string& key = parts[i];
  if (key == "*") {
    if (at.is_object() || at.is_array())
      for (const auto& v : at) collect(v, parts, i + 1, out);
    return;
  }
  if (at.is_object() && at.contains(key))
    collect(at[key], parts, i + 1, out);
  else if (at.is_array() && !key.empty() && std::isdigit(static_cast<unsigned char>(key[0]))) {
    std::size_t idx = std::stoul(key);
    if (idx < at.size()) collect(at[idx], parts, i + 1, out);
  }
}

std::vector<std::string> splitPath(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    auto dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

bool compare(const std::string& cmp, const json& v, const json& arg) {
  if (cmp == "exists") return arg.get<bool>() == !v.is_null();
  if (v.is_null()) return false;
  if (cmp == "eq") return v == arg;
  if (cmp == "ne") return v != arg;
  if (cmp == "in") return std::find(arg.begin(), arg.end(), v) != arg.end();
  if (cmp == "contains")
    return v.is_string() && v.get<std::string>().find(arg.get<std::string>()) != std::string::npos;
  if (cmp == "matches") return v.is_string() && Regex(arg.get<std::string>()).search(v.get<std::string>());
  if (!v.is_number()) return false;
  const double x = v.get<double>(), y = arg.get<double>();
  if (cmp == "lt") return x < y;
  if (cmp == "le") return x <= y;
  if (cmp == "gt") return x > y;
  if (cmp == "ge") return x >= y;
  if (cmp == "multiple_of") return y != 0 && std::fmod(x, y) == 0;
  return false;
}

void addEvidence(json* ev, json fact) {
  if (ev) ev->push_back(std::move(fact));
}

bool evalFinding(const json& p, const json& s, json* ev) {
  for (const json* f : findingsOf(s)) {
    if (!matchesNames(p["finding"], f->value("category", ""))) continue;
    bool ok = true;
    for (const char* mod : {"detail", "severity", "tensor", "experiment"})
      if (p.contains(mod)) ok = ok && matchesNames(p[mod], f->value(mod, ""));
    if (!ok) continue;
    json fact = {{"finding", f->value("category", "")}, {"message", f->value("message", "")}};
    for (const char* k : {"detail", "severity", "tensor", "location", "evidence", "experiment"})
      if (f->contains(k)) fact[k] = (*f)[k];
    addEvidence(ev, std::move(fact));
    return true;
  }
  return false;
}

bool evalVerdict(const json& p, const json& s, json* ev) {
  std::vector<const json*> subjects{&s};
  if (s.contains("points") && s["points"].is_array())
    for (const auto& pt : s["points"]) subjects.push_back(&pt);
  for (const json* o : subjects)
    if (o->contains("verdict") && (*o)["verdict"].is_string() &&
        matchesNames(p["verdict"], (*o)["verdict"])) {
      addEvidence(ev, {{"verdict", (*o)["verdict"]}});
      return true;
    }
  return false;
}

bool evalField(const json& p, const json& s, json* ev) {
  const std::string path = p["field"].get<std::string>();
  std::string cmp;
  for (const char* c : kComparators)
    if (p.contains(c)) cmp = c;
  const auto parts = splitPath(path);
  // A Report answers from its own fields and from any of its points.
  std::vector<const json*> values;
  collect(s, parts, 0, values);
  if (s.contains("points") && s["points"].is_array())
    for (const auto& pt : s["points"]) collect(pt, parts, 0, values);
  if (values.empty() && cmp == "exists") return !p["exists"].get<bool>();
  for (const json* v : values)
    if (compare(cmp, *v, p[cmp])) {
      addEvidence(ev, {{"field", path}, {"value", *v}, {cmp, p[cmp]}});
      return true;
    }
  return false;
}

// Texts a log predicate classifies: a pasted {"log": text}, compile logs, launch
// errors and worker stderr of the subject and its points.
std::vector<std::string> logsOf(const json& s) {
  std::vector<std::string> out;
  auto add = [&](const json& o) {
    if (o.contains("log") && o["log"].is_string()) out.push_back(o["log"]);
    if (o.contains("compile") && o["compile"].is_object() && o["compile"].contains("log") &&
        o["compile"]["log"].is_string())
      out.push_back(o["compile"]["log"]);
    if (o.contains("launch") && o["launch"].is_object() && o["launch"].contains("error") &&
        o["launch"]["error"].is_string())
      out.push_back(o["launch"]["error"]);
    if (o.contains("worker_stderr") && o["worker_stderr"].is_string()) out.push_back(o["worker_stderr"]);
  };
  add(s);
  if (s.contains("points") && s["points"].is_array())
    for (const auto& p : s["points"]) add(p);
  return out;
}

bool evalLog(const json& p, const json& s, json* ev) {
  for (const auto& text : logsOf(s)) {
    if (text.empty()) continue;
    Classification c = classifyLog(text);
    if (!c.known() || !matchesNames(p["log"], c.category)) continue;
    if (p.contains("detail") && !matchesNames(p["detail"], c.detail)) continue;
    if (p.contains("source") && !matchesNames(p["source"], c.source)) continue;
    if (p.contains("node") && !matchesNames(p["node"], c.treeNode)) continue;
    addEvidence(ev, {{"log", c.category},
                     {"detail", c.detail},
                     {"source", c.source},
                     {"matched", c.matched},
                     {"rule", c.rule}});
    return true;
  }
  return false;
}

}  // namespace

void validatePredicate(const json& p, const std::string& node) {
  const std::string op = opOf(p, node);
  auto allow = [&](std::initializer_list<const char*> keys) {
    for (const auto& [k, v] : p.items())
      if (k != op && !isOneOf(k, keys))
        throw TreeError(node, "predicate '" + op + "' does not take '" + k + "': " + p.dump());
  };
  if (op == "finding") {
    allow({"detail", "severity", "tensor", "experiment"});
    for (const char* k : {"finding", "detail", "severity", "tensor", "experiment"})
      if (p.contains(k)) requireNames(p[k], node, k);
    requireCategories(p["finding"], node, "finding");
  } else if (op == "verdict") {
    allow({});
    requireNames(p["verdict"], node, "verdict");
  } else if (op == "log") {
    allow({"detail", "source", "node"});
    for (const char* k : {"log", "detail", "source", "node"})
      if (p.contains(k)) requireNames(p[k], node, k);
    requireCategories(p["log"], node, "log");
  } else if (op == "field") {
    if (!p["field"].is_string() || p["field"].get<std::string>().empty())
      throw TreeError(node, "predicate 'field' needs a dotted path: " + p.dump());
    int n = 0;
    for (const char* c : kComparators) n += p.contains(c);
    if (n != 1)
      throw TreeError(node,
                      "predicate 'field' needs exactly one of eq ne lt le gt ge exists contains matches "
                      "multiple_of in: " +
                          p.dump());
    allow({"eq", "ne", "lt", "le", "gt", "ge", "exists", "contains", "matches", "multiple_of", "in"});
    for (const char* c : {"lt", "le", "gt", "ge", "multiple_of"})
      if (p.contains(c) && !p[c].is_number())
        throw TreeError(node, std::string("'") + c + "' needs a number: " + p.dump());
    if (p.contains("exists") && !p["exists"].is_boolean())
      throw TreeError(node, "'exists' needs true or false: " + p.dump());
    if (p.contains("in") && !p["in"].is_array()) throw TreeError(node, "'in' needs a list: " + p.dump());
    for (const char* c : {"contains", "matches"})
      if (p.contains(c) && !p[c].is_string())
        throw TreeError(node, std::string("'") + c + "' needs a string: " + p.dump());
    if (p.contains("matches")) {
      try {
        Regex re(p["matches"].get<std::string>());
      } catch (const RegexError& e) {
        throw TreeError(node, "'matches' regex does not compile (" + e.reason() + "): " + p.dump());
      }
    }
  } else if (op == "any" || op == "all") {
    allow({});
    if (!p[op].is_array() || p[op].empty())
      throw TreeError(node, "'" + op + "' needs a non-empty list: " + p.dump());
    for (const auto& q : p[op]) validatePredicate(q, node);
  } else if (op == "not") {
    allow({});
    validatePredicate(p["not"], node);
  } else if (op == "always") {
    allow({});
    if (!p["always"].is_boolean()) throw TreeError(node, "'always' needs true or false");
  }
}

bool evalPredicate(const json& p, const json& s, json* ev) {
  const std::string op = opOf(p, "");
  if (op == "finding") return evalFinding(p, s, ev);
  if (op == "verdict") return evalVerdict(p, s, ev);
  if (op == "field") return evalField(p, s, ev);
  if (op == "log") return evalLog(p, s, ev);
  if (op == "always") return p["always"].get<bool>();
  if (op == "not") return !evalPredicate(p["not"], s, nullptr);
  if (op == "any") {
    for (const auto& q : p["any"])
      if (evalPredicate(q, s, ev)) return true;
    return false;
  }
  // all: evidence only when every part holds
  json local = json::array();
  for (const auto& q : p["all"])
    if (!evalPredicate(q, s, &local)) return false;
  if (ev)
    for (auto& f : local) ev->push_back(std::move(f));
  return true;
}

}  // namespace tilescope
