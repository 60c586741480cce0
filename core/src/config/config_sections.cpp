// Kernel sources, defines, string arguments and tensor names of a config (config_fields.cpp reads the
// sections).
#include <algorithm>
#include <cctype>

#include "config_detail.h"
#include "tilescope/base/json_input.h"

namespace tilescope::detail {

void parseSource(const Node& n, const std::filesystem::path& dir, KernelSpec& k) {
  k.source = n.str();
  if (k.source.empty()) n.fail("empty path");
  std::filesystem::path p(k.source);
  std::string ext = p.extension().string();
  if (ext == ".py")
    n.fail("unsupported source type '.py' in '" + k.source +
           "': a Triton kernel needs \"language\": \"triton\" in kernel (docs/config.md)");
  if (ext != ".cu" && ext != ".ptx" && ext != ".cubin" && ext != ".fatbin")
    n.fail("unsupported source type '" + ext + "' in '" + k.source +
           "' (expected .cu, .ptx, .cubin or .fatbin)");
  k.sourcePath = p.is_absolute() ? p : (dir / p).lexically_normal();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(k.sourcePath, ec))
    n.fail("source file '" + k.sourcePath.string() + "' does not exist");
}

namespace {

bool isIdentifier(const std::string& s) {
  auto start = [](unsigned char c) { return std::isalpha(c) || c == '_'; };
  return !s.empty() && start(static_cast<unsigned char>(s[0])) &&
         std::all_of(s.begin(), s.end(), [&](unsigned char c) { return start(c) || std::isdigit(c); });
}

}  // namespace

void parseDefines(const Node& n, KernelSpec& k, bool allowBool) {
  n.needObject();
  for (auto it = n.j.begin(); it != n.j.end(); ++it) {
    Node d = n.member(it);
    // A define becomes a -D flag (a compiler may hand it to /bin/sh) and a symbol of
    // expressions; a constexpr a Python keyword argument: each must be a C identifier.
    if (!isIdentifier(it.key()))
      d.fail(nlohmann::json(clipForMessage(it.key())).dump() +
             " is not a name (letters, digits and _, not starting with a digit)");
    DefineValue v;
    if (d.j.is_number_integer() || d.j.is_number_unsigned()) {
      v.i = d.integer();
    } else if (d.j.is_string()) {
      v.isInt = false;
      v.s = d.str();
      if (!allowBool && v.s.find_first_of(std::string("\n\r\0", 3)) != std::string::npos)
        d.fail("a define's value cannot hold a line break or a NUL (it becomes one -D flag)");
    } else if (d.j.is_number_float()) {
      v.isInt = false;  // a -D flag only: expressions are integer
      v.isNumber = true;
      v.s = d.j.dump();
    } else if (allowBool && d.j.is_boolean()) {
      v.isInt = false;
      v.isBool = true;
      v.s = d.j.dump();
    } else {
      d.fail(std::string("expected an integer") + (allowBool ? ", a number, a boolean" : "") +
             " or a string, found " + jsonKind(d.j));
    }
    k.defines.emplace_back(it.key(), v);
  }
}

ArgSpec parseArg(const Node& n, const Config& c, const SymbolCheck& symbols) {
  ArgSpec a;
  a.text = n.j.is_string() ? n.str() : n.expr();
  a.integer = n.j.is_number_integer();
  if (n.j.is_string() && c.tensor(a.text)) {
    a.isTensor = true;
    a.tensor = a.text;
    return a;
  }
  a.expr = a.text;
  auto colon = a.text.rfind(':');
  if (colon != std::string::npos) {
    std::string suffix = a.text.substr(colon + 1);
    a.expr = a.text.substr(0, colon);
    static const std::pair<const char*, ScalarType> kTypes[] = {
        {"i32", ScalarType::i32}, {"i64", ScalarType::i64}, {"u32", ScalarType::u32},
        {"u64", ScalarType::u64}, {"f32", ScalarType::f32}, {"f64", ScalarType::f64}};
    bool found = false;
    for (const auto& [name, type] : kTypes)
      if (suffix == name) a.type = type, found = true;
    if (!found)
      n.fail("unknown argument type ':" + clipForMessage(suffix) + "' in '" + clipForMessage(a.text) +
             "' (expected :i32 :i64 :u32 :u64 :f32 :f64)");
  }
  if (a.expr.find_first_not_of(" \t") == std::string::npos) n.fail("empty expression in '" + a.text + "'");
  if (a.type == ScalarType::f32 || a.type == ScalarType::f64) {
    // Floating args: check by evaluating with every known symbol (values do not matter here).
    SymbolTable probe;
    for (const auto& s : symbols.names) probe[s] = 1;
    try {
      evalFloat(a.expr, probe);
    } catch (const ExprError& e) {
      n.fail(e.what());
    }
  } else {
    // A bare unknown name is most likely a misspelt tensor: say so.
    bool bareName =
        !a.expr.empty() && (std::isalpha(static_cast<unsigned char>(a.expr[0])) || a.expr[0] == '_') &&
        std::all_of(a.expr.begin(), a.expr.end(),
                    [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; });
    if (bareName && !symbols.names.count(a.expr) && !symbols.stringDefines.count(a.expr))
      n.fail("'" + clipForMessage(a.expr) + "' is neither a tensor nor a known symbol (unknown symbol '" +
             clipForMessage(a.expr) + "')");
    if (!exactIntegerLiteral(a.expr, a.type)) symbols.check(n, a.expr);
  }
  return a;
}

std::string tensorRef(const Node& n, const Config& c, bool mustBeOutput) {
  std::string name = n.str();
  const TensorSpec* t = c.tensor(name);
  if (!t) n.fail("unknown tensor '" + clipForMessage(name) + "'");
  if (mustBeOutput && !t->output) n.fail("tensor '" + name + "' is not an output (\"output\": true)");
  return name;
}

}  // namespace tilescope::detail
