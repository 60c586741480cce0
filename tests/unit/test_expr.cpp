// Integer expressions of configs (docs/config.md, Expressions): C-like truncating arithmetic through
// muParser, the helper functions, and the 2^53 exactness limit.
#include <gtest/gtest.h>

#include <cstdint>

#include "tilescope/base/expr.h"

namespace {

using namespace tilescope;

const SymbolTable kSyms{{"M", 100}, {"N", -7}, {"BLOCK_M", 64}, {"K", 4096}};

std::int64_t ev(const std::string& e) { return evalInt(e, kSyms); }

ExprError errorOf(const std::string& e, const SymbolTable& s = kSyms) {
  try {
    evalInt(e, s);
  } catch (const ExprError& x) {
    return x;
  }
  ADD_FAILURE() << "'" << e << "' evaluated without an error";
  return ExprError(e, "", "");
}

TEST(Expr, TruncatingDivisionAndModuloLikeC) {
  for (std::int64_t a : {-9, -7, -1, 0, 1, 7, 9, 100})
    for (std::int64_t b : {-4, -3, -1, 1, 3, 4}) {
      SymbolTable s{{"a", a}, {"b", b}};
      EXPECT_EQ(evalInt("a / b", s), a / b) << a << " / " << b;
      EXPECT_EQ(evalInt("a % b", s), a % b) << a << " % " << b;
    }
  EXPECT_EQ(ev("-7 / 2"), -3);
  EXPECT_EQ(ev("N % 3"), -1);
  EXPECT_EQ(ev("100 / 10 / 5"), 2);  // left associative
}

TEST(Expr, PrecedenceAndParentheses) {
  EXPECT_EQ(ev("2 + 3 * 4"), 14);
  EXPECT_EQ(ev("(2 + 3) * 4"), 20);
  EXPECT_EQ(ev("10 - 2 - 3"), 5);
  EXPECT_EQ(ev("M % 7 * 2"), (100 % 7) * 2);
  EXPECT_EQ(ev("M - 3 * -2"), 106);
  EXPECT_EQ(ev("-M - -3"), -97);
  EXPECT_EQ(ev("2 * (M + N) / 3"), 2 * (100 - 7) / 3);
}

TEST(Expr, Functions) {
  EXPECT_EQ(ev("ceil_div(M, BLOCK_M)"), 2);
  EXPECT_EQ(ev("ceil_div(128, BLOCK_M)"), 2);
  EXPECT_EQ(ev("ceil_div(129, BLOCK_M)"), 3);
  EXPECT_EQ(ev("ceil_div(N, 2)"), -3);  // -3.5 rounded toward +infinity
  EXPECT_EQ(ev("ceil_div(7, -2)"), -3);
  EXPECT_EQ(ev("ceil_div(-7, -2)"), 4);
  EXPECT_EQ(ev("pow2ceil(65)"), 128);
  EXPECT_EQ(ev("pow2ceil(64)"), 64);
  EXPECT_EQ(ev("pow2ceil(1)"), 1);
  EXPECT_EQ(ev("pow2ceil(0)"), 1);
  EXPECT_EQ(ev("min(3, M)"), 3);
  EXPECT_EQ(ev("max(3, M)"), 100);
  EXPECT_EQ(ev("min(N, max(1, 2))"), -7);
  EXPECT_EQ(ev("ceil_div(K, BLOCK_M) * BLOCK_M + pow2ceil(3)"), 4096 + 4);
}

TEST(Expr, Boundary2To53) {
  const std::int64_t below = (std::int64_t{1} << 53) - 1;
  EXPECT_EQ(ev("9007199254740991"), below);
  EXPECT_EQ(ev("4503599627370495 * 2 + 1"), below);
  EXPECT_NE(errorOf("9007199254740992").problem.find("2^53"), std::string::npos);
  EXPECT_NE(errorOf("9007199254740993").problem.find("2^53"), std::string::npos);
  ExprError mul = errorOf("4503599627370496 * 2");
  EXPECT_EQ(mul.symbol, "*");
  ExprError add = errorOf("9007199254740991 + 1");
  EXPECT_EQ(add.symbol, "+");
  EXPECT_EQ(errorOf("-9007199254740991 - 1").symbol, "-");
  EXPECT_EQ(errorOf("K * K * K * K * K").symbol, "*");
  // A symbol's value is checked too.
  EXPECT_EQ(errorOf("X", {{"X", std::int64_t{1} << 53}}).symbol, "X");
}

TEST(Expr, DivisionByZeroNamesTheExpression) {
  ExprError e = errorOf("M / (BLOCK_M - 64)");
  EXPECT_EQ(e.symbol, "/");
  EXPECT_EQ(e.expression, "M / (BLOCK_M - 64)");
  EXPECT_NE(std::string(e.what()).find("division by zero"), std::string::npos);
  EXPECT_NE(std::string(e.what()).find("'M / (BLOCK_M - 64)'"), std::string::npos);
  EXPECT_EQ(errorOf("M % 0").symbol, "%");
  EXPECT_EQ(errorOf("ceil_div(M, 0)").symbol, "ceil_div");
}

TEST(Expr, UnknownSymbolIsNamed) {
  ExprError e = errorOf("Q * 2");
  EXPECT_EQ(e.symbol, "Q");
  EXPECT_EQ(std::string(e.what()), "unknown symbol 'Q' in expression 'Q * 2'");
  EXPECT_EQ(errorOf("M + BLOCK_Q").symbol, "BLOCK_Q");
  EXPECT_EQ(errorOf("foo(3)").symbol, "foo");
}

TEST(Expr, BadOperatorsAndSyntax) {
  EXPECT_EQ(errorOf("2 ^ 3").symbol, "^");
  EXPECT_EQ(errorOf("2 ** 3").symbol, "*");
  EXPECT_EQ(errorOf("M << 2").symbol, "<");
  EXPECT_EQ(errorOf("1.5 * M").symbol, "1.5");
  EXPECT_EQ(errorOf("2e3").symbol, "2e3");
  EXPECT_NE(errorOf("(M").problem.find("parenthesis"), std::string::npos);
  EXPECT_NE(errorOf("M *").problem.find("unexpected end"), std::string::npos);
  EXPECT_NE(errorOf("min(1)").problem.find("min"), std::string::npos);
  EXPECT_EQ(errorOf("   ").problem, "empty expression");
  EXPECT_EQ(errorOf("M 3").symbol, "3");
}

TEST(Expr, FloatEvaluation) {
  EXPECT_DOUBLE_EQ(evalFloat("1e-6", kSyms), 1e-6);
  EXPECT_DOUBLE_EQ(evalFloat("M / 8", kSyms), 12.5);
  EXPECT_DOUBLE_EQ(evalFloat("0.5 * K", kSyms), 2048.0);
  EXPECT_DOUBLE_EQ(evalFloat("ceil_div(M, 8)", kSyms), 13.0);
  EXPECT_THROW(evalFloat("Q", kSyms), ExprError);
}

TEST(Expr, SymbolsOfAnExpression) {
  EXPECT_EQ(exprSymbols("ceil_div(M, BLOCK_M) + M * K"), (std::vector<std::string>{"M", "BLOCK_M", "K"}));
  EXPECT_TRUE(exprSymbols("3 * 4").empty());
  EXPECT_EQ(exprSymbols("pid_x * BLOCK_N"), (std::vector<std::string>{"pid_x", "BLOCK_N"}));
  EXPECT_THROW(exprSymbols("M +* 2"), ExprError);
}

}  // namespace

// docs/security.md, "Denial of service": a tile origin is parsed once and evaluated per CTA.
TEST(CompiledIntExpr, MatchesEvalIntAsItsSymbolsChange) {
  const SymbolTable base{{"H", 16}, {"pid_x", 0}, {"pid_y", 0}};
  CompiledIntExpr e("(pid_y / H) * 64 + ceil_div(pid_x, 3) % 5", base);
  for (std::int64_t x : {0, 1, 7, 65535})
    for (std::int64_t y : {0, 5, 16, 255}) {
      e.set("pid_x", x);
      e.set("pid_y", y);
      SymbolTable s = base;
      s["pid_x"] = x;
      s["pid_y"] = y;
      EXPECT_EQ(e.eval(), evalInt("(pid_y / H) * 64 + ceil_div(pid_x, 3) % 5", s));
    }
  e.set("unused", 1);  // not an error: the expression does not use it
  CompiledIntExpr d("10 / pid_x", base);
  EXPECT_THROW(d.eval(), ExprError);  // division by zero, as evalInt says it
  EXPECT_THROW(CompiledIntExpr("nope + 1", base), ExprError);
}
