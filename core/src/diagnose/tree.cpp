// Loading and validating the troubleshooting tree (schema tilescope.tree/1).
#include "tilescope/diagnose/tree.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <set>

#include "tilescope/base/resources.h"

namespace tilescope {
namespace {

using nlohmann::json;

void checkKeys(const json& j, std::initializer_list<const char*> known, const std::string& node,
               const std::string& what) {
  for (const auto& [k, v] : j.items()) {
    bool ok = false;
    for (const char* n : known) ok = ok || k == n;
    if (!ok) throw TreeError(node, what + ": unknown key '" + k + "'");
  }
}

std::string getString(const json& j, const char* key, const std::string& node, bool required) {
  if (!j.contains(key)) {
    if (required) throw TreeError(node, std::string("missing '") + key + "'");
    return {};
  }
  if (!j[key].is_string()) throw TreeError(node, std::string("'") + key + "' must be a string");
  return j[key].get<std::string>();
}

TreeNode nodeFromJson(const std::string& id, const json& j) {
  if (!j.is_object()) throw TreeError(id, "a node must be an object");
  checkKeys(
      j, {"title", "question", "answers", "experiment", "rank", "explanation", "fix", "examples", "sources"},
      id, "node");
  TreeNode n;
  n.id = id;
  n.title = getString(j, "title", id, true);
  n.question = getString(j, "question", id, false);
  n.experiment = getString(j, "experiment", id, false);
  n.rank = getString(j, "rank", id, false);
  if (!n.rank.empty() && n.rank != "estimated_gain")
    throw TreeError(id, "'rank' must be \"estimated_gain\", not '" + n.rank + "'");
  n.explanation = getString(j, "explanation", id, false);
  n.fix = getString(j, "fix", id, false);
  if (j.contains("answers")) {
    if (!j["answers"].is_array()) throw TreeError(id, "'answers' must be an array");
    std::set<std::string> ids;
    for (const auto& a : j["answers"]) {
      if (!a.is_object()) throw TreeError(id, "an answer must be an object");
      checkKeys(a, {"id", "label", "when", "next"}, id, "answer");
      TreeAnswer ans;
      ans.id = getString(a, "id", id, true);
      ans.label = getString(a, "label", id, true);
      ans.next = getString(a, "next", id, true);
      if (!ids.insert(ans.id).second) throw TreeError(id, "answer id '" + ans.id + "' appears twice");
      if (a.contains("when") && !a["when"].is_null()) {
        validatePredicate(a["when"], id);
        ans.when = a["when"];
      }
      n.answers.push_back(std::move(ans));
    }
  }
  if (j.contains("examples")) {
    for (const auto& e : j["examples"]) {
      checkKeys(e, {"language", "before", "after", "rank"}, id, "example");
      TreeExample ex{getString(e, "language", id, true), getString(e, "before", id, true),
                     getString(e, "after", id, true)};
      if (e.contains("rank")) {
        if (!e["rank"].is_number_integer() || e["rank"].get<int>() < 1 || e["rank"].get<int>() > 8)
          throw TreeError(id, "example rank: expected an output rank from 1 to 8");
        ex.rank = e["rank"].get<int>();
      }
      n.examples.push_back(std::move(ex));
    }
  }
  if (j.contains("sources"))
    for (const auto& s : j["sources"]) n.sources.push_back(s.get<std::string>());
  return n;
}

void validateNode(const TreeNode& n, const Tree& t) {
  if (n.isLeaf()) {
    if (n.fix.empty()) throw TreeError(n.id, "a leaf must have a 'fix'");
    if (n.explanation.empty()) throw TreeError(n.id, "a leaf must have an 'explanation'");
    if (!n.question.empty()) throw TreeError(n.id, "a node with a question must have answers");
  } else {
    if (n.question.empty()) throw TreeError(n.id, "a node with answers must have a 'question'");
    for (const auto& a : n.answers)
      if (!t.contains(a.next))
        throw TreeError(n.id, "answer '" + a.id + "' leads to unknown node '" + a.next + "'");
  }
  if (!n.experiment.empty()) {
    const auto& known = knownExperiments();
    if (std::find(known.begin(), known.end(), n.experiment) == known.end())
      throw TreeError(n.id, "unknown experiment '" + n.experiment + "'");
  }
}

// Every node reachable from the root, and no cycle (a walk must end).
void validateShape(const Tree& t) {
  enum { white, grey, black };
  std::map<std::string, int> colour;
  std::function<void(const TreeNode&)> visit = [&](const TreeNode& n) {
    colour[n.id] = grey;
    for (const auto& a : n.answers) {
      int c = colour.count(a.next) ? colour[a.next] : white;
      if (c == grey) throw TreeError(n.id, "answer '" + a.id + "' closes a cycle back to '" + a.next + "'");
      if (c == white) visit(*t.find(a.next));
    }
    colour[n.id] = black;
  };
  visit(*t.find(t.root));
  for (const auto& n : t.nodes)
    if (!colour.count(n.id)) throw TreeError(n.id, "node is unreachable from the root '" + t.root + "'");
}

}  // namespace

TreeError::TreeError(std::string node, const std::string& message)
    : std::runtime_error(node.empty() ? message : "tree node '" + node + "': " + message),
      m_node(std::move(node)) {}

const std::vector<std::string>& knownExperiments() {
  static const std::vector<std::string> k{"trials", "align_shift", "small_shapes",
                                          "poison", "input_scale", "warps"};
  return k;
}

const TreeAnswer* TreeNode::answer(const std::string& answerId) const {
  for (const auto& a : answers)
    if (a.id == answerId) return &a;
  return nullptr;
}

const TreeNode* Tree::find(const std::string& id) const {
  for (const auto& n : nodes)
    if (n.id == id) return &n;
  return nullptr;
}

const TreeNode* Tree::findNearest(const std::string& id) const {
  std::string at = id;
  while (!at.empty()) {
    if (const TreeNode* n = find(at)) return n;
    auto dot = at.rfind('.');
    if (dot == std::string::npos) break;
    at.resize(dot);
  }
  return nullptr;
}

Tree treeFromJson(const json& j, const std::string& origin) {
  if (!j.is_object()) throw TreeError("", origin + ": the tree must be a JSON object");
  if (j.value("schema", "") != kTreeSchema)
    throw TreeError("", origin + ": schema must be '" + std::string(kTreeSchema) + "'");
  for (const auto& [k, v] : j.items())
    if (k != "schema" && k != "root" && k != "nodes" && k != "description")
      throw TreeError("", origin + ": unknown key '" + k + "'");
  if (!j.contains("nodes") || !j["nodes"].is_object())
    throw TreeError("", origin + ": 'nodes' must be an object");
  Tree t;
  t.root = j.value("root", "");
  for (const auto& [id, nj] : j["nodes"].items()) t.nodes.push_back(nodeFromJson(id, nj));
  if (t.root.empty() || !t.contains(t.root))
    throw TreeError(t.root, origin + ": root node '" + t.root + "' does not exist");
  for (const auto& n : t.nodes) validateNode(n, t);
  validateShape(t);
  return t;
}

Tree loadTree(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw TreeError("", "cannot open troubleshooting tree " + file.string());
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    throw TreeError("", file.string() + ": " + e.what());
  }
  return treeFromJson(j, file.string());
}

Tree loadDefaultTree() { return loadTree(resourceDir() / "tree.json"); }

}  // namespace tilescope
