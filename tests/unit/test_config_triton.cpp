// The config loader on Triton kernels (kernel.language "triton", docs/config.md):
// constexprs, launch options as symbols and sweep keys, the derived block, the
// errors a Triton author meets, and TileLang's "not installed" message.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "tilescope/config/config.h"
#include "tilescope/diagnose/diagnose.h"

namespace {

using namespace tilescope;

const std::filesystem::path kZoo = std::filesystem::path(TILESCOPE_SOURCE_DIR) / "kernels" / "triton";

std::string doc(const std::string& kernelExtra = "",
                const std::string& launch = R"x("grid": ["ceil_div(N, BLOCK)"])x",
                const std::string& extra = "") {
  return R"j({"schema": "tilescope.config/1",
    "kernel": {"language": "triton", "source": "add.py", "entry": "add_kernel",
               "constexprs": {"BLOCK": 1024, "BUG_NO_STORE_MASK": false})j" +
         kernelExtra + R"j(},
    "params": {"N": 1000},
    "tensors": {"x": {"dtype": "f32", "shape": ["N"]}, "y": {"dtype": "f32", "shape": ["N"]},
                "out": {"dtype": "f32", "shape": ["N"], "output": true}},
    "args": ["x", "y", "out", "N"],
    "launch": {)j" +
         launch + "}" + extra + "}";
}

std::string errorOf(const std::string& text) {
  try {
    parseConfigText(text, kZoo);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(ConfigTriton, LoadsWithDefaultsAndDerivedBlock) {
  Config c = parseConfigText(doc(), kZoo);
  EXPECT_EQ(c.kernel.language, "triton");
  EXPECT_TRUE(c.kernel.isTriton());
  EXPECT_EQ(c.kernel.numWarps, 4);
  EXPECT_EQ(c.kernel.numStages, 3);
  EXPECT_EQ(c.kernel.numCtas, 1);
  ASSERT_EQ(c.kernel.defines.size(), 2u);
  EXPECT_TRUE(c.kernel.defines[1].second.isBool);
  EXPECT_EQ(c.kernel.defines[1].second.toJson(), nlohmann::json(false));
  ResolvedPoint p = resolvePoint(c);
  EXPECT_EQ(p.launch.block[0], 128);   // 32 * num_warps
  EXPECT_EQ(p.launch.grid[0], 1);      // ceil_div(1000, 1024)
  EXPECT_EQ(p.launch.sharedBytes, 0);  // known once compiled
  EXPECT_EQ(p.symbols.at("num_warps"), 4);
  EXPECT_EQ(p.symbols.at("BLOCK"), 1024);
}

TEST(ConfigTriton, OptionsAreSymbols) {
  Config c = parseConfigText(doc(R"x(, "num_warps": 8, "num_stages": 4, "num_ctas": 2)x",
                                 R"x("grid": ["ceil_div(N, BLOCK) * num_warps", "num_stages", "num_ctas"])x"),
                             kZoo);
  ResolvedPoint p = resolvePoint(c);
  EXPECT_EQ(p.launch.block[0], 256);
  EXPECT_EQ(p.launch.grid[0], 8);
  EXPECT_EQ(p.launch.grid[1], 4);
  EXPECT_EQ(p.launch.grid[2], 2);
}

TEST(ConfigTriton, ConstexprKinds) {
  std::string text = doc();
  text.insert(text.find("\"BUG_NO_STORE_MASK\""), R"x("EPS": 1e-5, "ACT": "relu", "DT": "tl.float16", )x");
  Config c = parseConfigText(text, kZoo);
  std::map<std::string, nlohmann::json> values;
  for (const auto& [name, v] : c.kernel.defines) values[name] = v.toJson();
  EXPECT_EQ(values["EPS"], nlohmann::json(1e-5));
  EXPECT_EQ(values["ACT"], nlohmann::json("relu"));
  EXPECT_EQ(values["DT"], nlohmann::json("tl.float16"));
  // Only integers are expression symbols.
  EXPECT_EQ(pointSymbols(c).count("EPS"), 0u);
  EXPECT_EQ(pointSymbols(c).count("BLOCK"), 1u);
}

TEST(ConfigTriton, SweepOverConstexprsWarpsAndStages) {
  Config c =
      parseConfigText(doc("", R"x("grid": ["ceil_div(N, BLOCK)"])x",
                          R"x(, "sweep": {"BLOCK": [256, 512], "num_warps": [4, 8], "num_stages": [2, 3]})x"),
                      kZoo);
  auto points = expandSweep(c);
  ASSERT_EQ(points.size(), 8u);
  EXPECT_EQ(points[0].label(), "BLOCK=256 num_warps=4 num_stages=2");
  EXPECT_EQ(points[7].label(), "BLOCK=512 num_warps=8 num_stages=3");
  EXPECT_EQ(points[3].config.kernel.numWarps, 8);
  EXPECT_EQ(points[3].config.kernel.numStages, 3);
  EXPECT_EQ(resolvePoint(points[3].config).launch.block[0], 256);
  EXPECT_EQ(pointDefines(points[3].config)["num_warps"], 8);
  // A point's document loads again as the same point.
  nlohmann::json j = configToJson(points[5].config);
  EXPECT_EQ(j["kernel"]["num_warps"], 4);
  EXPECT_EQ(j["kernel"]["constexprs"]["BLOCK"], 512);
  EXPECT_FALSE(j["kernel"].contains("defines"));
  Config again = parseConfig(j, kZoo);
  EXPECT_EQ(again.kernel.numWarps, points[5].config.kernel.numWarps);
  EXPECT_EQ(again.kernel.numStages, points[5].config.kernel.numStages);
  EXPECT_EQ(pointSymbols(again), pointSymbols(points[5].config));
  EXPECT_TRUE(again.sweep.empty());
}

TEST(ConfigTriton, SetPointSymbolReachesOptions) {
  Config c = parseConfigText(doc(), kZoo);
  EXPECT_TRUE(setPointSymbol(c, "num_warps", 16));
  EXPECT_TRUE(setPointSymbol(c, "BLOCK", 256));
  EXPECT_TRUE(setPointSymbol(c, "N", 77));
  EXPECT_FALSE(setPointSymbol(c, "nope", 1));
  EXPECT_EQ(resolvePoint(c).launch.block[0], 512);
  EXPECT_EQ(resolvePoint(c).launch.grid[0], 1);
  EXPECT_EQ(pointSymbols(c).at("N"), 77);
  // diagnose's warps experiment varies num_warps of a Triton kernel.
  auto warps = warpDefines(c);
  ASSERT_EQ(warps.size(), 1u);
  EXPECT_EQ(warps[0].first, "num_warps");
  EXPECT_EQ(warps[0].second, 16);
}

TEST(ConfigTriton, ErrorsNameThePathAndTheFix) {
  EXPECT_NE(errorOf(doc("", R"x("grid": [1], "block": [128])x"))
                .find("launch.block: a Triton kernel's block is 32·num_warps"),
            std::string::npos);
  EXPECT_NE(
      errorOf(doc("", R"x("grid": [1], "shared_bytes": 0)x")).find("launch.shared_bytes: the shared memory"),
      std::string::npos);
  EXPECT_NE(errorOf(doc(R"x(, "num_warps": 6)x")).find("kernel.num_warps: num_warps must be a power of two"),
            std::string::npos);
  EXPECT_NE(errorOf(doc(R"x(, "num_ctas": 0)x")).find("kernel.num_ctas"), std::string::npos);
  EXPECT_NE(errorOf(doc(R"x(, "defines": {"A": 1})x")).find("kernel.defines: unknown key"),
            std::string::npos);
  EXPECT_NE(errorOf(doc("", R"x("grid": [1])x", R"x(, "sweep": {"num_warps": [4, 6]})x"))
                .find("sweep.num_warps[1]"),
            std::string::npos);
  EXPECT_NE(errorOf(doc("", R"x("grid": [1])x", R"x(, "sweep": {"num_stuff": [4]})x")).find("nor num_warps"),
            std::string::npos);
  // A param may not take an option's name.
  std::string clash = doc();
  clash.replace(clash.find("\"N\": 1000"), 9, "\"N\": 1000, \"num_warps\": 2");
  EXPECT_NE(errorOf(clash).find("params.num_warps: 'num_warps' is a launch option"), std::string::npos);
  // Nor a constexpr (its path is kernel.constexprs, where a CUDA kernel's is kernel.defines).
  std::string reserved = doc();
  reserved.replace(reserved.find("\"BLOCK\": 1024"), 13, "\"BLOCK\": 1024, \"pid_x\": 1");
  EXPECT_NE(errorOf(reserved).find("kernel.constexprs.pid_x: 'pid_x' is reserved"), std::string::npos)
      << errorOf(reserved);
  // A .py source without the language, and a .cu with it.
  std::string noLang = doc();
  noLang.erase(noLang.find("\"language\": \"triton\", "), 22);
  EXPECT_NE(
      errorOf(noLang).find("kernel.source: unsupported source type '.py' in 'add.py': a Triton kernel needs "
                           "\"language\": \"triton\""),
      std::string::npos)
      << errorOf(noLang);
  std::string cu = doc();
  cu.replace(cu.find("add.py"), 6, "../gemm/gemm_tiled.cu");
  EXPECT_NE(errorOf(cu).find("kernel.source: a triton kernel's source is a .py file"), std::string::npos);
}

TEST(ConfigTriton, TileLangNotInstalledIsSaidClearly) {
  setenv("TILESCOPE_PYTHON", "/nonexistent/python3", 1);
  std::string tl = doc();
  tl.replace(tl.find("\"triton\""), 8, "\"tilelang\"");
  const std::string e = errorOf(tl);
  unsetenv("TILESCOPE_PYTHON");
  EXPECT_NE(e.find("kernel.language: TileLang is not installed for /nonexistent/python3"), std::string::npos)
      << e;
}

TEST(ConfigTriton, EveryZooConfigLoadsAndResolves) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kZoo)) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 11 || name.substr(name.size() - 11) != ".tscfg.json") continue;
    SCOPED_TRACE(name);
    Config c = loadConfig(entry.path());
    if (!c.kernel.isTriton()) continue;
    for (const auto& sp : expandSweep(c)) {
      ResolvedPoint p = resolvePoint(sp.config);
      EXPECT_EQ(p.launch.block[0], 32 * sp.config.kernel.numWarps);
    }
    ++n;
  }
  EXPECT_GE(n, 15);
}

}  // namespace
