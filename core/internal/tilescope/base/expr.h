// Integer expressions of configs (docs/config.md, Expressions), evaluated through muParser.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tilescope {

/// An expression error: names the expression and, where there is one, the
/// offending symbol or operator.
struct ExprError : std::runtime_error {
  ExprError(std::string expression, std::string symbol, std::string message);
  std::string expression;
  std::string symbol;  ///< the unknown symbol / bad operator, or ""
  std::string problem;
};

using SymbolTable = std::map<std::string, std::int64_t>;

/// Evaluates an integer expression: + - * / % (truncating), parentheses,
/// ceil_div(a,b), min(a,b), max(a,b), pow2ceil(a). Values beyond 2^53 in
/// magnitude are an error (they cannot be represented exactly).
std::int64_t evalInt(const std::string& expression, const SymbolTable& symbols);

/// One integer expression parsed once and evaluated many times while some of
/// its symbols change (a tile origin over every CTA of a grid): evalInt's
/// rules and errors at a small fraction of its cost per value.
class CompiledIntExpr {
 public:
  /// Parses `expression`; its symbols take their values from `symbols`. Throws ExprError.
  CompiledIntExpr(const std::string& expression, const SymbolTable& symbols);
  ~CompiledIntExpr();
  CompiledIntExpr(const CompiledIntExpr&) = delete;
  CompiledIntExpr& operator=(const CompiledIntExpr&) = delete;
  /// Changes a symbol's value; a symbol the expression does not use is ignored.
  void set(const std::string& name, std::int64_t value);
  /// The value with the current symbols. Throws ExprError as evalInt does.
  std::int64_t eval();

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

/// Evaluates a floating-point expression (for `:f32`/`:f64` args).
double evalFloat(const std::string& expression, const SymbolTable& symbols);

/// The identifiers an expression uses (functions excluded).
std::vector<std::string> exprSymbols(const std::string& expression);

}  // namespace tilescope
