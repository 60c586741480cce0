// Integer expressions through muParser (docs/config.md, Expressions).
//
// muParser computes in double. Doubles hold every integer up to 2^53 exactly, so
// we replace its operators and number reader with integer versions that check
// each intermediate result against 2^53: inside that range double arithmetic on
// integers is exact, and `/` and `%` are done on int64 to truncate toward zero
// like C++ (and CUDA) does.
#include "tilescope/base/expr.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <set>

#include "tilescope/base/json_input.h"

#include <muParser.h>
#include <muParserBase.h>

namespace tilescope {

ExprError::ExprError(std::string expr, std::string sym, std::string message)
    : std::runtime_error(message + " in expression '" + clipForMessage(expr, 160) + "'"),
      expression(std::move(expr)),
      symbol(std::move(sym)),
      problem(std::move(message)) {}

namespace {

// Every value must stay below 2^53 in magnitude. A double result that reaches
// 2^53 may be a rounded 2^53 + 1, so 2^53 itself is already out of range.
constexpr double kExactLimit = 9007199254740992.0;  // 2^53
bool exact(double v) { return std::fabs(v) < kExactLimit; }

/// Thrown from inside muParser callbacks; evalInt adds the expression text.
struct EvalFailure {
  std::string symbol;
  std::string problem;
};

std::string intText(double v) { return std::to_string(static_cast<long long>(v)); }

double checked(double v, const char* op) {
  if (!exact(v))
    throw EvalFailure{op, std::string("result of '") + op + "' reaches 2^53 (not exactly representable)"};
  return v;
}

double opAdd(double a, double b) { return checked(a + b, "+"); }
double opSub(double a, double b) { return checked(a - b, "-"); }
double opMul(double a, double b) { return checked(a * b, "*"); }
double opDiv(double a, double b) {
  if (b == 0) throw EvalFailure{"/", "division by zero ('" + intText(a) + " / 0')"};
  return static_cast<double>(static_cast<std::int64_t>(a) / static_cast<std::int64_t>(b));
}
double opMod(double a, double b) {
  if (b == 0) throw EvalFailure{"%", "modulo by zero ('" + intText(a) + " % 0')"};
  return static_cast<double>(static_cast<std::int64_t>(a) % static_cast<std::int64_t>(b));
}
double opNeg(double a) { return -a; }
double opPlus(double a) { return a; }

double fnCeilDiv(double a, double b) {
  if (b == 0) throw EvalFailure{"ceil_div", "division by zero in ceil_div(" + intText(a) + ", 0)"};
  auto x = static_cast<std::int64_t>(a), y = static_cast<std::int64_t>(b);
  std::int64_t q = x / y;
  // Round toward +infinity: bump the truncated quotient when there is a remainder
  // and the exact quotient is positive.
  if (x % y != 0 && ((x < 0) == (y < 0))) ++q;
  return static_cast<double>(q);
}
double fnMin(double a, double b) { return a < b ? a : b; }
double fnMax(double a, double b) { return a > b ? a : b; }
double fnPow2Ceil(double a) {
  if (a <= 1) return 1;
  double p = 1;
  while (p < a) p *= 2;
  return checked(p, "pow2ceil");
}

/// Integer literals only: digits, no fraction or exponent.
int readIntLiteral(const mu::char_type* s, int* pos, mu::value_type* val) {
  const mu::char_type* p = s;
  if (*p < '0' || *p > '9') return 0;
  while (*p >= '0' && *p <= '9') ++p;
  std::string text(s, p);
  if (*p == '.' || *p == 'e' || *p == 'E') {
    std::string more = text;
    const mu::char_type* q = p;
    while (*q && (std::isalnum(static_cast<unsigned char>(*q)) || *q == '.')) more += *q++;
    more = clipForMessage(more, 64);
    throw EvalFailure{more, "'" + more + "' is not an integer"};
  }
  std::uint64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || !exact(static_cast<double>(n)) ||
      n >= (std::uint64_t{1} << 53))
    throw EvalFailure{clipForMessage(text, 64),
                      "literal " + clipForMessage(text, 64) + " reaches 2^53 (not exactly representable)"};
  double v = static_cast<double>(n);
  *pos += static_cast<int>(p - s);
  *val = v;
  return 1;
}

/// Variables are created on first use, from the symbol table; an unknown name
/// stops the parse with its name (muParser's own message would only say "unexpected token").
struct VarScope {
  const SymbolTable* symbols = nullptr;  // null: record names only
  std::deque<double> storage;
  std::vector<std::string> used;
};

mu::value_type* makeVar(const mu::char_type* name, void* user) {
  auto* scope = static_cast<VarScope*>(user);
  scope->used.emplace_back(name);
  double v = 0;
  if (scope->symbols) {
    auto it = scope->symbols->find(name);
    if (it == scope->symbols->end())
      throw EvalFailure{name, "unknown symbol '" + clipForMessage(name, 64) + "'"};
    if (!exact(static_cast<double>(it->second)) || std::llabs(it->second) >= (1LL << 53))
      throw EvalFailure{name, std::string("value of '") + name + "' reaches 2^53"};
    v = static_cast<double>(it->second);
  }
  scope->storage.push_back(v);
  return &scope->storage.back();
}

class IntParser : public mu::ParserBase {
 public:
  IntParser() {
    InitCharSets();
    InitFun();
    InitConst();
    InitOprt();
  }
  void InitCharSets() override {
    DefineNameChars("0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
    DefineOprtChars("+-*/%");
    DefineInfixOprtChars("+-");
  }
  void InitFun() override {
    DefineFun("ceil_div", fnCeilDiv);
    DefineFun("min", fnMin);
    DefineFun("max", fnMax);
    DefineFun("pow2ceil", fnPow2Ceil);
  }
  void InitConst() override { AddValIdent(readIntLiteral); }
  void InitOprt() override {
    EnableBuiltInOprt(false);
    DefineInfixOprt("-", opNeg);
    DefineInfixOprt("+", opPlus);
    DefineOprt("+", opAdd, mu::prADD_SUB);
    DefineOprt("-", opSub, mu::prADD_SUB);
    DefineOprt("*", opMul, mu::prMUL_DIV);
    DefineOprt("/", opDiv, mu::prMUL_DIV);
    DefineOprt("%", opMod, mu::prMUL_DIV);
  }
};

double fnCeilDivF(double a, double b) { return std::ceil(a / b); }
double fnPow2CeilF(double a) { return a <= 1 ? 1 : std::exp2(std::ceil(std::log2(a))); }

/// The floating parser: muParser's own, plus our functions.
class FloatParser : public mu::Parser {
 public:
  FloatParser() {
    DefineFun("ceil_div", fnCeilDivF);
    DefineFun("pow2ceil", fnPow2CeilF);
  }
};

/// muParser's token is the rest of the expression from the bad spot; keep the
/// one operator or name that is wrong.
std::string offendingToken(const std::string& rest) {
  std::size_t i = rest.find_first_not_of(" \t");
  if (i == std::string::npos) return "";
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
  if (!word(rest[i])) return rest.substr(i, 1);
  std::size_t j = i;
  while (j < rest.size() && word(rest[j])) ++j;
  return clipForMessage(rest.substr(i, j - i), 64);
}

[[noreturn]] void rethrowParserError(const std::string& expr, const mu::ParserError& e) {
  std::string token = offendingToken(e.GetToken());
  std::string problem;
  switch (e.GetCode()) {
    case mu::ecUNASSIGNABLE_TOKEN:
    case mu::ecUNEXPECTED_OPERATOR:
    case mu::ecUNEXPECTED_VAL:
    case mu::ecUNEXPECTED_VAR:
    case mu::ecUNEXPECTED_FUN:
      problem = "unexpected '" + token + "' at position " + std::to_string(e.GetPos() + 1);
      break;
    case mu::ecUNEXPECTED_EOF:
      problem = "unexpected end of expression";
      break;
    case mu::ecEMPTY_EXPRESSION:
      problem = "empty expression";
      break;
    default:
      problem = e.GetMsg();
      break;
  }
  throw ExprError(expr, token, problem);
}

template <class Parser>
double evaluate(Parser& parser, const std::string& expr, VarScope& scope) {
  try {
    parser.SetVarFactory(makeVar, &scope);
    parser.SetExpr(expr);
    return parser.Eval();
  } catch (const EvalFailure& f) {
    throw ExprError(expr, f.symbol, f.problem);
  } catch (const mu::ParserError& e) {
    rethrowParserError(expr, e);
  }
}

bool blank(const std::string& s) { return s.find_first_not_of(" \t\n") == std::string::npos; }

}  // namespace

std::int64_t evalInt(const std::string& expression, const SymbolTable& symbols) {
  if (blank(expression)) throw ExprError(expression, "", "empty expression");
  IntParser parser;
  VarScope scope;
  scope.symbols = &symbols;
  double v = evaluate(parser, expression, scope);
  if (!exact(v)) throw ExprError(expression, "", "value reaches 2^53");
  return static_cast<std::int64_t>(v);
}

struct CompiledIntExpr::Impl {
  std::string expression;
  SymbolTable symbols;
  IntParser parser;
  VarScope scope;
  std::map<std::string, double*> vars;
};

CompiledIntExpr::CompiledIntExpr(const std::string& expression, const SymbolTable& symbols)
    : m_impl(std::make_unique<Impl>()) {
  if (blank(expression)) throw ExprError(expression, "", "empty expression");
  Impl& m = *m_impl;
  m.expression = expression;
  m.symbols = symbols;
  m.scope.symbols = &m.symbols;
  try {
    m.parser.SetVarFactory(makeVar, &m.scope);
    m.parser.SetExpr(expression);
    for (const auto& [name, ptr] : m.parser.GetUsedVar()) m.vars[name] = ptr;  // creates them
  } catch (const EvalFailure& f) {
    throw ExprError(expression, f.symbol, f.problem);
  } catch (const mu::ParserError& e) {
    rethrowParserError(expression, e);
  }
}

CompiledIntExpr::~CompiledIntExpr() = default;

void CompiledIntExpr::set(const std::string& name, std::int64_t value) {
  auto it = m_impl->vars.find(name);
  if (it == m_impl->vars.end()) return;
  if (std::llabs(value) >= (1LL << 53))
    throw ExprError(m_impl->expression, name, std::string("value of '") + name + "' reaches 2^53");
  *it->second = static_cast<double>(value);
}

std::int64_t CompiledIntExpr::eval() {
  double v = 0;
  try {
    v = m_impl->parser.Eval();
  } catch (const EvalFailure& f) {
    throw ExprError(m_impl->expression, f.symbol, f.problem);
  } catch (const mu::ParserError& e) {
    rethrowParserError(m_impl->expression, e);
  }
  if (!exact(v)) throw ExprError(m_impl->expression, "", "value reaches 2^53");
  return static_cast<std::int64_t>(v);
}

double evalFloat(const std::string& expression, const SymbolTable& symbols) {
  if (blank(expression)) throw ExprError(expression, "", "empty expression");
  FloatParser parser;
  VarScope scope;
  scope.symbols = &symbols;
  return evaluate(parser, expression, scope);
}

std::vector<std::string> exprSymbols(const std::string& expression) {
  if (blank(expression)) throw ExprError(expression, "", "empty expression");
  IntParser parser;
  VarScope scope;  // no table: every name is accepted and recorded
  try {
    parser.SetVarFactory(makeVar, &scope);
    parser.SetExpr(expression);
    parser.GetUsedVar();
  } catch (const EvalFailure& f) {
    throw ExprError(expression, f.symbol, f.problem);
  } catch (const mu::ParserError& e) {
    rethrowParserError(expression, e);
  }
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (auto& name : scope.used)
    if (seen.insert(name).second) out.push_back(name);
  return out;
}

}  // namespace tilescope
