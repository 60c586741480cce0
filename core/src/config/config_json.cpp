// JSON access with paths for the config loader: every accessor fails with a
// ConfigError naming the JSON path and what was expected.
#include <cmath>

#include "config_detail.h"
#include "tilescope/base/json_input.h"

namespace tilescope {

ConfigError::ConfigError(std::string p, std::string message)
    : std::runtime_error((p.empty() ? std::string(kConfigTopLevel) : p) + ": " + message),
      path(std::move(p)),
      problem(std::move(message)) {}

namespace detail {

void Node::fail(const std::string& problem) const { throw ConfigError(path, problem); }

Node Node::at(const std::string& key) const {
  needObject();
  std::string childPath = jsonPathChild(path, key);
  auto it = j.find(key);
  if (it == j.end()) throw ConfigError(childPath, "missing (required)");
  return Node{*it, childPath};
}

Node Node::at(std::size_t index) const { return Node{j.at(index), jsonPathIndex(path, index)}; }

Node Node::member(const Json::const_iterator& it) const {
  Node child{it.value(), jsonPathChild(path, it.key())};
  if (it.key().empty()) child.fail("empty name");
  if (it.key().size() > ConfigLimits::kMaxNameBytes)
    child.fail("name of " + std::to_string(it.key().size()) + " bytes, over the limit of " +
               std::to_string(ConfigLimits::kMaxNameBytes));
  return child;
}

void Node::needShortArray() const {
  needArray();
  if (j.size() > ConfigLimits::kMaxListLength)
    fail(std::to_string(j.size()) + " entries, over the limit of " +
         std::to_string(ConfigLimits::kMaxListLength));
}

void Node::onlyKeys(std::initializer_list<const char*> allowed) const {
  needObject();
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool known = false;
    for (const char* a : allowed) known = known || it.key() == a;
    if (!known) {
      std::string list;
      for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
      throw ConfigError(jsonPathChild(path, it.key()), "unknown key (allowed here: " + list + ")");
    }
  }
}

void Node::needObject() const {
  if (!j.is_object()) fail("expected an object, found " + jsonKind(j));
}

void Node::needArray() const {
  if (!j.is_array()) fail("expected an array, found " + jsonKind(j));
}

std::string Node::str(std::size_t maxBytes) const {
  if (!j.is_string()) fail("expected a string, found " + jsonKind(j));
  const auto& s = j.get_ref<const std::string&>();
  if (s.size() > maxBytes)
    fail("string of " + std::to_string(s.size()) + " bytes, over the limit of " + std::to_string(maxBytes));
  return s;
}

std::int64_t Node::integer() const {
  if (j.is_number_unsigned() && j.get<std::uint64_t>() >= (std::uint64_t{1} << 53))
    fail(j.dump() + " reaches 2^53 (not exactly representable)");
  if (j.is_number_integer()) {
    auto v = j.get<std::int64_t>();
    if (v >= (std::int64_t{1} << 53) || v <= -(std::int64_t{1} << 53))
      fail(j.dump() + " reaches 2^53 (not exactly representable)");
    return v;
  }
  fail("expected an integer, found " + jsonKind(j) +
       (j.is_number() ? " (" + clipForMessage(j.dump()) + ")" : ""));
}

double Node::number() const {
  if (!j.is_number()) fail("expected a number, found " + jsonKind(j));
  return j.get<double>();
}

bool Node::boolean() const {
  if (!j.is_boolean()) fail("expected true or false, found " + jsonKind(j));
  return j.get<bool>();
}

std::string Node::expr() const {
  if (j.is_number_integer()) return std::to_string(integer());
  if (j.is_string()) {
    auto s = str();
    if (s.find_first_not_of(" \t") == std::string::npos) fail("empty expression");
    return s;
  }
  fail("expected an integer or an expression string, found " + jsonKind(j));
}

std::vector<std::string> Node::exprList() const {
  needShortArray();
  if (j.empty()) fail("expected a non-empty list of expressions");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < j.size(); ++i) out.push_back(at(i).expr());
  return out;
}

void SymbolCheck::check(const Node& where, const std::string& expression) const {
  std::vector<std::string> used;
  try {
    used = exprSymbols(expression);
  } catch (const ExprError& e) {
    where.fail(e.what());
  }
  for (const auto& name : used) {
    if (names.count(name)) continue;
    const std::string shown = clipForMessage(name);
    std::string why = stringDefines.count(name) ? "define '" + shown + "' is a string, not an integer symbol"
                                                : "unknown symbol '" + shown + "'";
    where.fail(why + " in expression '" + clipForMessage(expression) + "'");
  }
}

}  // namespace detail
}  // namespace tilescope
