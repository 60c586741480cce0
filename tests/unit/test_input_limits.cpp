// Limits on untrusted input (docs/config.md#limits): JSON depth, size, members, duplicate
// keys, string lengths, sweep sizes, wrong-typed sections. Each must be a clear
// error naming where, never a crash, a hang or an exception of another type.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "tilescope/base/json_input.h"
#include "tilescope/config/config.h"

namespace tilescope {
namespace {

const std::filesystem::path kZoo = std::filesystem::path(TILESCOPE_SOURCE_DIR) / "kernels" / "gemm";

std::string zooText(const std::string& name = "gemm_tiled_f16.tscfg.json") {
  std::ifstream in(kZoo / name);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// The zoo config with `key`'s value (a top-level key) replaced by `value` text.
std::string withTopLevel(const std::string& key, const std::string& value) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(zooText());
  j[key] = nlohmann::ordered_json::parse(value);
  return j.dump();
}

ConfigError errorOf(const std::string& text) {
  try {
    Config c = parseConfigText(text, kZoo, "t.tscfg.json");
    for (const auto& p : expandSweep(c)) (void)resolvePoint(p.config);
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for: " << text.substr(0, 200);
  return ConfigError("", "");
}

TEST(JsonInput, DepthLimitNamesThePath) {
  std::string deep = "{\"a\": {\"b\": [" + std::string(100, '[') + std::string(100, ']') + "]}}";
  JsonLimits l;
  l.maxDepth = 8;
  try {
    (void)parseJson(deep, l);
    FAIL() << "accepted 100 levels";
  } catch (const JsonInputError& e) {
    EXPECT_FALSE(e.syntax);
    EXPECT_EQ(e.where, "a.b[0][0][0][0][0][0]");  // the ninth level: {, {, [, then six more [
    EXPECT_NE(e.problem.find("nested deeper than 8"), std::string::npos) << e.what();
  }
}

TEST(JsonInput, ThreeHundredThousandBracketsDoNotOverflowTheStack) {
  const std::string deep = std::string(300000, '[') + std::string(300000, ']');
  EXPECT_THROW((void)parseJson(deep, JsonLimits{}), JsonInputError);
  const std::string cfg = "{\"schema\": \"tilescope.config/1\", \"description\": " + deep + "}";
  ConfigError e = errorOf(cfg);
  EXPECT_EQ(e.path.rfind("description[0][0]", 0), 0u) << e.path;
  EXPECT_NE(e.problem.find("nested deeper than"), std::string::npos) << e.what();
}

TEST(JsonInput, MembersDuplicatesAndHugeNumbers) {
  JsonLimits l;
  l.maxMembers = 3;
  try {
    (void)parseJsonOrdered(R"({"x": {"a":1,"b":2,"c":3,"d":4}})", l);
    FAIL();
  } catch (const JsonInputError& e) {
    EXPECT_EQ(e.where, "x.d");
    EXPECT_NE(e.problem.find("more than 3 members"), std::string::npos);
  }
  try {
    (void)parseJsonOrdered(R"({"S": 1, "t": [1, {"S": 2, "S": 3}]})", JsonLimits{});
    FAIL();
  } catch (const JsonInputError& e) {
    EXPECT_EQ(e.where, "t[1].S");
    EXPECT_NE(e.problem.find("duplicate key 'S'"), std::string::npos);
  }
  try {
    (void)parseJsonOrdered(R"({"shape": [3, -1e400]})", JsonLimits{});
    FAIL();
  } catch (const JsonInputError& e) {
    EXPECT_EQ(e.where, "shape[1]");
    EXPECT_NE(e.problem.find("1e400"), std::string::npos) << e.what();
  }
  try {
    (void)parseJsonOrdered("{\"a\": tru}", JsonLimits{});
    FAIL();
  } catch (const JsonInputError& e) {
    EXPECT_TRUE(e.syntax);
    EXPECT_EQ(e.where, "1:10");  // where the literal turned out wrong
  }
}

TEST(JsonInput, FilesThatAreNotSmallRegularFilesAreRefused) {
  EXPECT_THROW((void)readInputFile("/dev/zero", 1 << 20), JsonInputError);
  EXPECT_THROW((void)readInputFile(kZoo, 1 << 20), JsonInputError);  // a directory
  EXPECT_THROW((void)readInputFile(kZoo / "gemm_tiled_f16.tscfg.json", 16), JsonInputError);
  EXPECT_EQ(readInputFile(kZoo / "gemm_tiled_f16.tscfg.json", 1 << 20), zooText());
}

TEST(JsonInput, ClipKeepsUtf8Whole) {
  const std::string s =
      "ab\xc3\xa9"
      "cd";  // "abécd"
  EXPECT_EQ(clipForMessage(s, 3), "ab…");
  EXPECT_EQ(clipForMessage(s, 4), "ab\xc3\xa9…");
  EXPECT_EQ(clipForMessage("short", 80), "short");
}

TEST(ConfigLimits, WrongTypedSectionsAreClearErrors) {
  struct Case {
    const char* key;
    const char* value;
    const char* path;
    const char* says;
  };
  const Case cases[] = {
      {"kernel", "5", "kernel", "expected an object, found an integer"},
      {"tensors", "[]", "tensors", "expected an object, found an array"},
      {"launch", "true", "launch", "expected an object, found a boolean"},
      {"reference", "null", "reference", "expected an object, found null"},
      {"baseline", "7", "baseline", "expected a baseline name"},
      {"tiles", "\"x\"", "tiles", "expected an object, found a string"},
      {"sweep", "[1]", "sweep", "expected an object"},
      {"tolerance", "1", "tolerance", "expected an object"},
      {"run", "[]", "run", "expected an object"},
      {"params", "null", "params", "expected an object"},
  };
  for (const Case& c : cases) {
    ConfigError e = errorOf(withTopLevel(c.key, c.value));
    EXPECT_EQ(e.path, c.path) << c.key << ": " << e.what();
    EXPECT_NE(e.problem.find(c.says), std::string::npos) << c.key << ": " << e.what();
  }
  ConfigError top = errorOf("null");
  EXPECT_EQ(top.path, "");
  EXPECT_EQ(std::string(top.what()), "(top level): expected an object, found null");
}

TEST(ConfigLimits, LongStringsAndNamesAreRefused) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(zooText());
  j["kernel"]["entry"] = std::string(1000000, 'k');
  ConfigError e = errorOf(j.dump());
  EXPECT_EQ(e.path, "kernel.entry");
  EXPECT_NE(e.problem.find("over the limit of 4096"), std::string::npos) << e.problem;
  EXPECT_LT(std::string(e.what()).size(), 300u);

  j = nlohmann::ordered_json::parse(zooText());
  j["params"][std::string(5000, 'P')] = 1;
  e = errorOf(j.dump());
  EXPECT_EQ(e.path.substr(0, 7), "params.");
  EXPECT_NE(e.problem.find("over the limit of 256"), std::string::npos) << e.problem;
  EXPECT_LT(std::string(e.what()).size(), 300u);
}

TEST(ConfigLimits, HugeSweepsAreRefusedBeforeExpansion) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(zooText("gemm_tiled_sweep.tscfg.json"));
  // 1000 x 1000 x 1000 = 10^9 points.
  nlohmann::ordered_json values = nlohmann::ordered_json::array();
  for (int i = 1; i <= 1000; ++i) values.push_back(i);
  j["sweep"] = {{"M", values}, {"N", values}, {"K", values}};
  const auto t0 = std::chrono::steady_clock::now();
  ConfigError e = errorOf(j.dump());
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
  EXPECT_EQ(e.path, "sweep.N");
  EXPECT_NE(e.problem.find("over the limit of 10000"), std::string::npos) << e.problem;

  // Sixteen axes of 16 values: 2^64 points, which wraps a 64-bit count to 0.
  Config c = parseConfigText(zooText("gemm_tiled_sweep.tscfg.json"), kZoo);
  c.sweep.clear();
  for (int a = 0; a < 16; ++a) c.sweep.push_back({"M", std::vector<std::int64_t>(16, 64)});
  EXPECT_EQ(sweepPointCount(c), SIZE_MAX);
  EXPECT_THROW((void)expandSweep(c), ConfigError);

  // Points x trials.
  j = nlohmann::ordered_json::parse(zooText("gemm_tiled_sweep.tscfg.json"));
  j["trials"] = 100000;
  e = errorOf(j.dump());
  EXPECT_EQ(e.path, "trials");
  EXPECT_NE(e.problem.find("captures"), std::string::npos) << e.problem;
}

TEST(ConfigLimits, ParseConfigMeetsTheSameLimits) {
  nlohmann::json deep = 1;
  for (int i = 0; i < 200; ++i) deep = nlohmann::json::array({deep});
  nlohmann::json j = nlohmann::json::parse(zooText());
  j["description"] = deep;
  EXPECT_THROW((void)parseConfig(j, kZoo), ConfigError);
}

}  // namespace
}  // namespace tilescope
