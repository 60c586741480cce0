// The config loader on valid configs: docs/config.md's example, defaults, file order,
// sweep expansion, point resolution and the report document.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "tilescope/base/expr.h"
#include "tilescope/config/config.h"

namespace {

using namespace tilescope;

const std::filesystem::path kDir = std::filesystem::path(TILESCOPE_TEST_DATA) / "config";

/// A minimal valid document; tests add members to it or replace them (`extra` is
/// `, "key": value, ...`; a key given twice is an error of its own).
std::string minimal(const std::string& extra = "") {
  auto doc = nlohmann::ordered_json::parse(R"j({"schema": "tilescope.config/1",
    "kernel": {"source": "copy.cu", "entry": "copy_scaled", "defines": {"Z": 3, "Y": 2}},
    "params": {"N": 10, "A": 1},
    "tensors": {"x": {"dtype": "f32", "shape": ["N"]}, "b": {"dtype": "bf16", "shape": [2, "N"]}},
    "args": ["x", "N"],
    "launch": {"grid": [1], "block": [32]}})j");
  if (!extra.empty()) {
    const auto more = nlohmann::ordered_json::parse("{" + extra.substr(1) + "}");
    for (const auto& [key, value] : more.items()) doc[key] = value;
  }
  return doc.dump();
}

TEST(Config, SpecExampleLoads) {
  Config c = loadConfig(kDir / "gemm_example.tscfg.json");
  EXPECT_EQ(c.name, "gemm_tiled_f16");
  EXPECT_EQ(c.kernel.entry, "gemm_tiled");
  EXPECT_EQ(c.kernel.sourcePath, kDir / "gemm_tiled.cu");
  EXPECT_EQ(c.kernel.options, std::vector<std::string>{"-std=c++17"});
  ASSERT_EQ(c.kernel.defines.size(), 5u);
  EXPECT_EQ(c.kernel.defines[0].first, "BLOCK_M");  // file order, not sorted
  EXPECT_EQ(c.kernel.defines[4].first, "STAGES");
  EXPECT_EQ(c.kernel.defines[4].second.flagText(), "2");
  ASSERT_EQ(c.tensors.size(), 3u);
  EXPECT_EQ(c.tensors[2].name, "C");
  EXPECT_TRUE(c.tensors[2].output);
  EXPECT_EQ(c.tensors[0].dtype, DType::f16);
  ASSERT_EQ(c.args.size(), 6u);
  EXPECT_TRUE(c.args[0].isTensor);
  EXPECT_FALSE(c.args[3].isTensor);
  EXPECT_EQ(c.args[3].type, ScalarType::i32);
  EXPECT_EQ(c.launch.grid[2], "1");
  ASSERT_EQ(c.tiles.size(), 1u);
  EXPECT_EQ(c.tiles[0].origin[1], "pid_x * BLOCK_N");
  EXPECT_EQ(c.reference.op, "gemm");
  EXPECT_EQ(c.reference.out, "C");
  EXPECT_EQ(c.baseline.kind, "cublas");
  ASSERT_EQ(c.sweep.size(), 3u);
  EXPECT_EQ(c.sweep[2].name, "NUM_WARPS");
  EXPECT_EQ(c.path, kDir / "gemm_example.tscfg.json");
  EXPECT_EQ(c.raw->at("params").at("M"), 4096);
}

TEST(Config, SpecExampleResolves) {
  Config c = loadConfig(kDir / "gemm_example.tscfg.json");
  ResolvedPoint p = resolvePoint(c);
  EXPECT_EQ(p.symbols.at("BLOCK_K"), 32);
  EXPECT_EQ(p.launch.grid[0], 4096 / 64);
  EXPECT_EQ(p.launch.grid[1], 4096 / 64);
  EXPECT_EQ(p.launch.block[0], 4 * 32);
  EXPECT_EQ(p.launch.sharedBytes, 2 * (64 * 32 + 32 * 64) * 2);
  const ResolvedTensor* C = p.tensor("C");
  ASSERT_NE(C, nullptr);
  EXPECT_EQ(C->shape, (std::vector<std::int64_t>{4096, 4096}));
  EXPECT_EQ(C->strides, (std::vector<std::int64_t>{4096, 1}));
  EXPECT_EQ(C->bytes(), 4096u * 4096u * 2u);
  // The tile of CTA (3, 2): origin row pid_y * BLOCK_M, column pid_x * BLOCK_N.
  auto s = tileSymbols(p.symbols, p.launch, 3, 2, 0);
  EXPECT_EQ(evalInt(c.tiles[0].origin[0], s), 128);
  EXPECT_EQ(evalInt(c.tiles[0].origin[1], s), 192);
  EXPECT_EQ(s.at("nctas_x"), 64);
}

TEST(Config, Defaults) {
  Config c = parseConfigText(minimal(), kDir);
  EXPECT_EQ(c.kernel.compiler, "nvrtc");
  EXPECT_DOUBLE_EQ(c.tolerance.rtol, 1e-2);
  EXPECT_DOUBLE_EQ(c.tolerance.atol, 1e-2);
  EXPECT_EQ(c.trials, 1);
  EXPECT_EQ(c.baseline.kind, "none");
  EXPECT_EQ(c.reference.op, "none");
  EXPECT_EQ(c.launch.sharedBytes, "0");
  EXPECT_EQ(c.launch.block, (std::vector<std::string>{"32", "1", "1"}));
  EXPECT_EQ(c.name, "copy_scaled");  // the entry when no name is given
  EXPECT_EQ(c.tensors[0].init, "");
  EXPECT_DOUBLE_EQ(c.tensors[0].scale, 1.0);
  // Seeds default to a hash of the name: stable, and different per tensor.
  EXPECT_NE(c.tensors[0].seed, c.tensors[1].seed);
  EXPECT_EQ(c.tensors[0].seed, parseConfigText(minimal(), kDir).tensors[0].seed);
}

TEST(Config, SymbolsDefinesThenParamsAndFileOrder) {
  Config c = parseConfigText(minimal(), kDir);
  EXPECT_EQ(c.kernel.defines[0].first, "Z");
  EXPECT_EQ(c.params[0].first, "N");
  EXPECT_EQ(c.tensors[0].name, "x");
  auto s = pointSymbols(c);
  EXPECT_EQ(s, (std::map<std::string, std::int64_t>{{"A", 1}, {"N", 10}, {"Y", 2}, {"Z", 3}}));
  ResolvedPoint p = resolvePoint(c);
  EXPECT_EQ(p.tensor("b")->bytes(), 2u * 10u * 2u);  // bf16 is 2 bytes
}

TEST(Config, SmallConfigEveryOptionalSection) {
  Config c = loadConfig(kDir / "small.tscfg.json");
  EXPECT_EQ(c.description, "out = in * alpha on a 4x4 f32 tensor");
  EXPECT_FALSE(c.kernel.defines[0].second.isInt);
  EXPECT_EQ(c.kernel.defines[0].second.flagText(), "fast");
  EXPECT_EQ(c.tensors[0].init, "npy:../npy/c_4x4_f32.npy");
  EXPECT_EQ(c.tensors[1].expected, "npy:../npy/c_4x4_f32.npy");
  EXPECT_EQ(c.args[2].type, ScalarType::i64);
  EXPECT_EQ(c.args[2].expr, "R * S");
  EXPECT_EQ(c.args[3].type, ScalarType::f32);
  EXPECT_EQ(c.reference.op, "npy");
  EXPECT_EQ(c.baseline.kind, "command");
  EXPECT_EQ(c.baseline.command, "python3 bench.py");
  EXPECT_DOUBLE_EQ(c.run.timeoutS, 5);
  EXPECT_DOUBLE_EQ(c.run.slowFactor, 2.0);
  EXPECT_EQ(c.run.minReps, 5);
  EXPECT_EQ(c.run.maxReps, 50);
  EXPECT_EQ(c.run.warmup, 1);
  EXPECT_DOUBLE_EQ(c.run.timeBudgetS, RunSettings{}.timeBudgetS);
  EXPECT_EQ(c.trials, 3);
  ResolvedPoint p = resolvePoint(c);
  EXPECT_EQ(p.launch.grid[0], 1);
  EXPECT_EQ(resolveScalarArg(c.args[2], p.symbols, "args[2]").i, 16);
}

TEST(Config, ScalarArgs) {
  std::map<std::string, std::int64_t> s{{"N", 3}};
  ArgSpec f;
  f.expr = "1e-6";
  f.type = ScalarType::f32;
  EXPECT_DOUBLE_EQ(resolveScalarArg(f, s, "args[0]").f, 1e-6);
  f.expr = "N / 2";  // floating: no truncation
  EXPECT_DOUBLE_EQ(resolveScalarArg(f, s, "args[0]").f, 1.5);
  ArgSpec i;
  i.expr = "N / 2";
  EXPECT_EQ(resolveScalarArg(i, s, "args[1]").i, 1);
  i.expr = "-N";
  i.type = ScalarType::u32;
  EXPECT_THROW(resolveScalarArg(i, s, "args[1]"), ConfigError);
  Config c = parseConfigText(minimal(R"j(, "tensors": {"x": {"dtype": "f32", "shape": [1]}},
     "args": ["x", "N:i64", "1e-6:f32", "N / 4:f64", "Y:u32"])j"),
                             kDir);
  // (the duplicate keys are resolved by the JSON parser: the last wins)
  ASSERT_EQ(c.args.size(), 5u);
  EXPECT_EQ(c.args[4].type, ScalarType::u32);
  EXPECT_EQ(c.args[3].expr, "N / 4");
}

// A captured 64-bit integer is often above 2^53 (a hash, a packed pair of
// 32-bit fields): a plain literal of a :u64 or :i64 argument is exact over the
// whole range; an expression still refuses what it cannot represent.
TEST(Config, SixtyFourBitLiteralsAreExact) {
  const std::map<std::string, std::int64_t> none;
  ArgSpec a;
  a.type = ScalarType::u64;
  a.expr = "4359484439294640128";
  EXPECT_EQ(resolveScalarArg(a, none, "args[1]").i, std::int64_t(4359484439294640128));
  a.expr = "18446744073709551615";
  EXPECT_EQ(std::uint64_t(resolveScalarArg(a, none, "args[1]").i), 18446744073709551615ull);
  a.type = ScalarType::i64;
  a.expr = "-9223372036854775807";
  EXPECT_EQ(resolveScalarArg(a, none, "args[1]").i, -9223372036854775807);
  a.expr = "4359484439294640128 + 1";  // an expression: exact below 2^53 only
  EXPECT_THROW(resolveScalarArg(a, none, "args[1]"), ConfigError);
  a.expr = "18446744073709551615";  // past i64
  EXPECT_THROW(resolveScalarArg(a, none, "args[1]"), ConfigError);
  a.type = ScalarType::u32;
  a.expr = "4359484439294640128";
  EXPECT_THROW(resolveScalarArg(a, none, "args[1]"), ConfigError);
  // And through the loader, as capture writes it.
  Config c = parseConfigText(
      minimal(R"j(, "args": ["x", "4359484439294640128:u64", "18446744073709551615:u64", "-5:i64"])j"), kDir);
  const ResolvedPoint p = resolvePoint(c);
  EXPECT_EQ(resolveScalarArg(c.args[1], p.symbols, "args[1]").i, std::int64_t(4359484439294640128));
  EXPECT_EQ(std::uint64_t(resolveScalarArg(c.args[2], p.symbols, "args[2]").i), 18446744073709551615ull);
  EXPECT_THROW(parseConfigText(minimal(R"j(, "args": ["x", "4359484439294640128:u32"])j"), kDir),
               ConfigError);
}

// `launch.shared_opt_in` (docs/config.md): read, resolved, written back only when set.
TEST(Config, SharedOptInIsReadResolvedAndWritten) {
  const std::string base = R"j(, "tensors": {"x": {"dtype": "f32", "shape": [1]}}, "args": ["x"],
     "launch": {"grid": [1], "block": [32], "shared_bytes": 65536)j";
  Config c = parseConfigText(minimal(base + R"j(, "shared_opt_in": true})j"), kDir);
  EXPECT_TRUE(c.launch.sharedOptIn);
  EXPECT_TRUE(resolvePoint(c).launch.sharedOptIn);
  EXPECT_EQ(configToJson(c)["launch"]["shared_opt_in"], true);
  c = parseConfigText(minimal(base + "}"), kDir);
  EXPECT_FALSE(resolvePoint(c).launch.sharedOptIn);
  EXPECT_FALSE(configToJson(c)["launch"].contains("shared_opt_in"));
  EXPECT_THROW(parseConfigText(minimal(base + R"j(, "shared_opt_in": 1})j"), kDir), ConfigError);
}

// `launch.cluster` (docs/config.md): resolved per point, each dimension
// dividing the grid's, named in its error.
TEST(Config, ClusterLaunch) {
  Config c = parseConfigText(minimal(R"j(, "tensors": {"x": {"dtype": "f32", "shape": [1]}}, "args": ["x"],
     "launch": {"grid": [12, 2], "block": [128], "cluster": [4, 2]})j"),
                             kDir);
  const ResolvedPoint p = resolvePoint(c);
  EXPECT_EQ(p.launch.cluster[0], 4);
  EXPECT_EQ(p.launch.cluster[1], 2);
  EXPECT_EQ(p.launch.cluster[2], 1);
  c.launch.cluster = {"8", "1", "1"};
  try {
    (void)resolvePoint(c);
    FAIL() << "a cluster of 8 on a grid of 12 was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("launch.cluster[0]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("does not divide grid 12"), std::string::npos) << e.what();
  }
  c.launch.cluster = {"4", "2", "4"};  // 32 CTAs
  EXPECT_THROW((void)resolvePoint(c), ConfigError);
}

TEST(Config, StridedTensorSpan) {
  Config c = parseConfigText(
      minimal(R"j(, "tensors": {"x": {"dtype": "f64", "shape": ["N", 4], "strides": ["N * 2", 1]}})j"), kDir);
  ResolvedPoint p = resolvePoint(c);
  const ResolvedTensor* x = p.tensor("x");
  EXPECT_EQ(x->elements, 40);
  EXPECT_EQ(x->spanElements, 1 + 9 * 20 + 3);
  EXPECT_EQ(x->bytes(), static_cast<std::uint64_t>(1 + 9 * 20 + 3) * 8u);
}

TEST(Config, ReferenceKernelSeesItsOwnDefines) {
  Config c = parseConfigText(minimal(R"j(, "reference": {"op": "kernel", "source": "copy.cu", "entry": "ref",
       "defines": {"RB": 64}, "args": ["x", "N"], "launch": {"grid": ["ceil_div(N, RB)"], "block": ["RB"]}})j"),
                             kDir);
  EXPECT_EQ(c.reference.kernel.entry, "ref");
  EXPECT_EQ(c.reference.args.size(), 2u);
  auto s = pointSymbols(c);
  s["RB"] = 64;
  EXPECT_EQ(resolveLaunch(c.reference.launch, s, "reference.launch").block[0], 64);
  EXPECT_NO_THROW(resolvePoint(c));
}

TEST(Config, SweepExpandsInFileOrderFirstKeySlowest) {
  Config c = loadConfig(kDir / "gemm_example.tscfg.json");
  auto points = expandSweep(c);
  ASSERT_EQ(points.size(), 8u);
  EXPECT_EQ(points[0].label(), "BLOCK_M=64 BLOCK_N=32 NUM_WARPS=4");
  EXPECT_EQ(points[1].label(), "BLOCK_M=64 BLOCK_N=32 NUM_WARPS=8");
  EXPECT_EQ(points[2].label(), "BLOCK_M=64 BLOCK_N=64 NUM_WARPS=4");
  EXPECT_EQ(points[7].label(), "BLOCK_M=128 BLOCK_N=64 NUM_WARPS=8");
  std::set<std::string> labels;
  for (const auto& p : points) {
    labels.insert(p.label());
    EXPECT_TRUE(p.config.sweep.empty());
    auto s = pointSymbols(p.config);
    EXPECT_EQ(s.at("BLOCK_M"), p.values[0].second);
    EXPECT_EQ(s.at("NUM_WARPS"), p.values[2].second);
    ResolvedPoint r = resolvePoint(p.config);
    EXPECT_EQ(r.launch.block[0], p.values[2].second * 32);
    EXPECT_EQ(r.launch.grid[0], 4096 / p.values[1].second);
  }
  EXPECT_EQ(labels.size(), 8u);
  EXPECT_EQ(points[5].index, 5);
}

TEST(Config, SweepOverParamsAndTrialsInsideSweep) {
  Config c = parseConfigText(minimal(R"j(, "sweep": {"N": [1, 2, 3], "trials": 4})j"), kDir);
  EXPECT_EQ(c.trials, 4);
  auto points = expandSweep(c);
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[2].label(), "N=3");
  EXPECT_EQ(resolvePoint(points[2].config).tensor("x")->elements, 3);
  EXPECT_EQ(points[2].config.trials, 4);
}

TEST(Config, NoSweepIsOnePoint) {
  Config c = parseConfigText(minimal(), kDir);
  auto points = expandSweep(c);
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].label(), "");
  EXPECT_TRUE(points[0].values.empty());
}

TEST(Config, ConfigToJsonSubstitutesThePoint) {
  Config c = loadConfig(kDir / "gemm_example.tscfg.json");
  auto points = expandSweep(c);
  nlohmann::json j = configToJson(points[7].config);
  EXPECT_EQ(j.at("kernel").at("defines").at("BLOCK_M"), 128);
  EXPECT_EQ(j.at("kernel").at("defines").at("NUM_WARPS"), 8);
  EXPECT_EQ(j.at("kernel").at("defines").at("STAGES"), 2);
  EXPECT_FALSE(j.contains("sweep"));
  EXPECT_EQ(j.at("schema"), kConfigSchema);
  EXPECT_EQ(j.at("tensors").at("A").at("shape")[0], "M");
  // The document of the whole config keeps its sweep and its base values.
  nlohmann::json whole = configToJson(c);
  EXPECT_TRUE(whole.contains("sweep"));
  EXPECT_EQ(whole.at("kernel").at("defines").at("BLOCK_M"), 64);
  // A point's document loads again as that point.
  Config again = parseConfig(j, kDir);
  EXPECT_EQ(pointSymbols(again), pointSymbols(points[7].config));
}

TEST(Config, ParseConfigFromJsonValue) {
  auto doc = nlohmann::json::parse(minimal());
  Config c = parseConfig(doc, kDir);
  EXPECT_EQ(c.tensors.size(), 2u);
  doc["tensors"]["x"]["shape"] = {"N", "W"};
  try {
    parseConfig(doc, kDir);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.path, "tensors.x.shape[1]");
    EXPECT_EQ(e.problem, "unknown symbol 'W' in expression 'W'");
  }
}

TEST(Config, NameCollisions) {
  EXPECT_THROW(parseConfigText(minimal(R"j(, "params": {"Z": 1})j"), kDir), ConfigError);  // define and param
  EXPECT_THROW(parseConfigText(minimal(R"j(, "params": {"min": 1})j"), kDir), ConfigError);  // function name
  EXPECT_THROW(parseConfigText(minimal(R"j(, "params": {"pid_x": 1})j"), kDir), ConfigError);
  try {
    parseConfigText(minimal(R"j(, "tensors": {"N": {"dtype": "f32", "shape": [1]}})j"), kDir);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.path, "tensors.N");
  }
}

TEST(Config, PidOnlyInTiles) {
  try {
    parseConfigText(minimal(R"j(, "launch": {"grid": ["pid_x"], "block": [1]})j"), kDir);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.path, "launch.grid[0]");
    EXPECT_NE(e.problem.find("unknown symbol 'pid_x'"), std::string::npos);
  }
}

TEST(Config, DTypeNames) {
  for (DType t :
       {DType::f32, DType::f16, DType::bf16, DType::f64, DType::i32, DType::i64, DType::u8, DType::i8})
    EXPECT_EQ(parseDType(dtypeName(t)), t);
  EXPECT_FALSE(parseDType("float32").has_value());
  EXPECT_EQ(dtypeSize(DType::bf16), 2u);
  EXPECT_EQ(dtypeSize(DType::i64), 8u);
  EXPECT_TRUE(isFloating(DType::bf16));
  EXPECT_FALSE(isFloating(DType::u8));
}

}  // namespace
