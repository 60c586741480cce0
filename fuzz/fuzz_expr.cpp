// Fuzzes the expression evaluator (tilescope/base/expr.h). Input: the first line is
// the expression; each further line "NAME=VALUE" adds a symbol.
#include <charconv>
#include <sstream>

#include "fuzz_common.h"
#include "tilescope/base/expr.h"

using namespace tilescope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(fuzz::text(data, size));
  std::string expression, line;
  std::getline(in, expression);
  SymbolTable symbols;
  while (std::getline(in, line)) {
    auto eq = line.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::int64_t v = 0;
    std::from_chars(line.data() + eq + 1, line.data() + line.size(), v);
    symbols[line.substr(0, eq)] = v;
  }
  try {
    const std::int64_t v = evalInt(expression, symbols);
    if (v >= (std::int64_t{1} << 53) || v <= -(std::int64_t{1} << 53))
      fuzz::violated("evalInt returned " + std::to_string(v));
  } catch (const ExprError& e) {
    if (e.problem.empty()) fuzz::violated("ExprError without a problem");
  }
  try {
    (void)evalFloat(expression, symbols);
  } catch (const ExprError& e) {
    if (e.problem.empty()) fuzz::violated("ExprError without a problem");
  }
  try {
    (void)exprSymbols(expression);
  } catch (const ExprError& e) {
    if (e.problem.empty()) fuzz::violated("ExprError without a problem");
  }
  return 0;
}
