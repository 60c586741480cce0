// `tilescope-run worker --set NAME=VALUE` (applySetOverride): what it changes, and
// the message each malformed or unknown override gets.
#include <gtest/gtest.h>

#include <string>

#include "tilescope/config/config.h"

namespace {

using namespace tilescope;

Config cudaConfig() {
  Config c;
  c.name = "t";
  DefineValue bm;
  bm.i = 32;
  DefineValue flag;
  flag.isInt = false;
  flag.s = "__half";
  c.kernel.defines = {{"BM", bm}, {"T", flag}};
  c.params = {{"N", 100}};
  return c;
}

/// The ConfigError an override throws, as "path: message"; "" when it applies.
std::string errorOf(Config c, const std::string& kv) {
  try {
    applySetOverride(c, kv);
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.path, "--set");
    return e.what();
  }
  return "";
}

}  // namespace

TEST(SetOverride, SetsADefineAndAParam) {
  Config c = cudaConfig();
  applySetOverride(c, "BM=64");
  applySetOverride(c, "N=-7");
  const auto symbols = pointSymbols(c);
  EXPECT_EQ(symbols.at("BM"), 64);
  EXPECT_EQ(symbols.at("N"), -7);
  EXPECT_EQ(c.params.front().second, -7);
}

TEST(SetOverride, MakesANonIntegerDefineAnInteger) {
  Config c = cudaConfig();
  ASSERT_FALSE(pointSymbols(c).count("T"));
  applySetOverride(c, "T=2");
  EXPECT_EQ(pointSymbols(c).at("T"), 2);
}

TEST(SetOverride, UnknownNameIsAnErrorNamingIt) {
  const std::string e = errorOf(cudaConfig(), "BLOCK_Q=4");
  EXPECT_NE(e.find("'BLOCK_Q' is neither a define nor a param"), std::string::npos) << e;
  EXPECT_EQ(e.find("Triton"), std::string::npos) << e;
}

TEST(SetOverride, TritonLaunchOptionsAreSymbols) {
  Config c = cudaConfig();
  c.kernel.language = "triton";
  applySetOverride(c, "num_warps=8");
  EXPECT_EQ(c.kernel.numWarps, 8);
  const std::string e = errorOf(c, "num_wraps=8");
  EXPECT_NE(e.find("'num_wraps' is neither a define nor a param nor a Triton launch option"),
            std::string::npos)
      << e;
  // A CUDA kernel has no launch options: num_warps is unknown there.
  EXPECT_NE(errorOf(cudaConfig(), "num_warps=8").find("'num_warps' is neither"), std::string::npos);
}

TEST(SetOverride, MalformedAssignmentsNameTheProblem) {
  EXPECT_NE(errorOf(cudaConfig(), "BM").find("expected NAME=VALUE, got 'BM'"), std::string::npos);
  for (const std::string bad : {"BM=", "BM=abc", "BM=12abc", "BM=1.5", "BM= 4"}) {
    const std::string e = errorOf(cudaConfig(), bad);
    EXPECT_NE(e.find("'BM': the value '" + bad.substr(3) + "' is not an integer"), std::string::npos)
        << bad << ": " << e;
  }
  const std::string big = errorOf(cudaConfig(), "BM=99999999999999999999");
  EXPECT_NE(big.find("is not an integer in int64 range"), std::string::npos) << big;
}

TEST(SetOverride, FailedOverrideLeavesTheConfigAlone) {
  Config c = cudaConfig();
  EXPECT_THROW(applySetOverride(c, "BM=x"), ConfigError);
  EXPECT_EQ(pointSymbols(c).at("BM"), 32);
}
