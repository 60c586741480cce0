// Every malformed config fixture (tests/data/config/bad_*.tscfg.json, written by
// make_fixtures.py) must fail with a ConfigError naming the JSON path and the problem.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tilescope/base/json_input.h"
#include "tilescope/config/config.h"

namespace {

using tilescope::ConfigError;

const std::filesystem::path kDir = std::filesystem::path(TILESCOPE_TEST_DATA) / "config";

struct BadCase {
  const char* fixture;                // bad_<fixture>.tscfg.json
  const char* path;                   // ConfigError::path
  std::vector<const char*> contains;  // substrings of ConfigError::problem
};

/// Loads the fixture and resolves every sweep point; returns the first error.
std::optional<ConfigError> firstError(const std::filesystem::path& file) {
  try {
    auto config = tilescope::loadConfig(file);
    for (const auto& point : tilescope::expandSweep(config)) tilescope::resolvePoint(point.config);
  } catch (const ConfigError& e) {
    return e;
  }
  return std::nullopt;
}

class ConfigErrorTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(ConfigErrorTest, NamesPathAndProblem) {
  const BadCase& c = GetParam();
  auto error = firstError(kDir / (std::string("bad_") + c.fixture + ".tscfg.json"));
  ASSERT_TRUE(error.has_value()) << c.fixture << " loaded and resolved without an error";
  EXPECT_EQ(error->path, c.path) << error->what();
  for (const char* part : c.contains)
    EXPECT_NE(error->problem.find(part), std::string::npos)
        << "missing '" << part << "' in: " << error->what();
  EXPECT_EQ(std::string(error->what()), error->path + ": " + error->problem);
}

const BadCase kCases[] = {
    {"unknown_top_key", "tensor", {"unknown key"}},
    {"unknown_tensor_key", "tensors.A.dtpye", {"unknown key", "dtype"}},
    {"unknown_kernel_key", "kernel.define", {"unknown key", "defines"}},
    {"unknown_launch_key", "launch.smem", {"unknown key", "shared_bytes"}},
    {"unknown_run_key", "run.timeout", {"unknown key", "timeout_s"}},
    {"run_metric_shape",
     "run.metrics[1]",
     {"'DRAM bytes read' is not a metric name", "unit__counter.rollup"}},
    {"run_counters_type", "run.counters", {"expected true, false, \"basic\", \"full\" or \"none\""}},
    {"dtype", "tensors.A.dtype", {"unknown dtype 'f8'"}},
    {"shape_syntax", "tensors.C.shape[1]", {"unexpected end of expression", "'N *'"}},
    {"shape_operator", "tensors.C.shape[1]", {"unexpected '^'", "'N ^ 2'"}},
    {"unknown_symbol", "tensors.C.shape[1]", {"unknown symbol 'Q' in expression 'Q * 2'"}},
    {"string_define_symbol", "tensors.in.shape[0]", {"define 'TAG' is a string"}},
    {"div_zero", "launch.shared_bytes", {"division by zero", "'BLOCK_M / (STAGES - 2)'"}},
    {"mod_zero", "launch.grid[2]", {"modulo by zero", "'M % (K - 4096)'"}},
    {"param_2p53", "params.M", {"9007199254740993", "2^53"}},
    {"expr_2p53", "tensors.A.shape[0]", {"result of '*' reaches 2^53", "'M * M * M * M * M'"}},
    {"huge_tensor", "tensors.C.shape", {"2199023255552 bytes", "1 TiB"}},
    {"shape_zero", "tensors.B.shape[0]", {"must be > 0", "'K - 4096' is 0"}},
    {"grid_zero", "launch.grid[0]", {"must be >= 1", "is 0"}},
    {"missing_source", "kernel.source", {"no_such_kernel.cu", "does not exist"}},
    {"source_type", "kernel.source", {"unsupported source type '.py'"}},
    {"missing_entry", "kernel.entry", {"missing"}},
    {"arg_suffix", "args[3]", {"unknown argument type ':i16'"}},
    {"arg_unknown_tensor", "args[2]", {"'D' is neither a tensor nor a known symbol"}},
    {"arg_i32_range", "args[3]", {"17179869184", "does not fit :i32", ":i64"}},
    {"tiles_unknown_tensor", "tiles.D", {"unknown tensor 'D'"}},
    {"tiles_input", "tiles.A", {"not an output"}},
    {"tiles_rank", "tiles.C.tile", {"has 1 entries", "rank 2"}},
    {"reference_unknown_tensor", "reference.b", {"unknown tensor 'X'"}},
    {"reference_op", "reference.op", {"unknown reference op 'conv'"}},
    {"reference_npy_no_expected", "tensors.C.expected", {"reference op 'npy'"}},
    {"baseline", "baseline", {"unknown baseline 'cudnn'"}},
    {"sweep_key", "sweep.BLOCK_Q", {"'BLOCK_Q' is neither a define"}},
    {"sweep_empty", "sweep.BLOCK_M", {"empty list"}},
    {"sweep_float", "sweep.BLOCK_N[1]", {"expected an integer", "64.5"}},
    {"trials_twice", "sweep.trials", {"also given at the top level"}},
    {"schema", "schema", {"expected \"tilescope.config/1\"", "tilescope.config/2"}},
    {"no_schema", "schema", {"missing"}},
    {"expected_on_input", "tensors.in.expected", {"only an output tensor"}},
    {"init", "tensors.A.init", {"unknown init 'normal'"}},
    {"npy_missing", "tensors.in.init", {"nothing.npy", "does not exist"}},
    {"npy_shape",
     "tensors.in.init",
     {"shape mismatch", "a_4x8_f32.npy", "<f4 of shape [4, 8]", "f32 (<f4) of shape [4, 4]"}},
    {"npy_dtype",
     "tensors.in.init",
     {"dtype mismatch", "a_4x8_f16.npy", "<f2 of shape [4, 8]", "f32 (<f4) of shape [4, 8]"}},
    {"npy_fortran", "tensors.in.init", {"fortran_2x2_f32.npy", "fortran_order", "C-order"}},
    {"tolerance", "tolerance.rtol", {"must be >= 0"}},
    {"strides_rank", "tensors.A.strides", {"has 1 entries but shape has 2"}},
    {"run_reps_order", "run.max_reps", {"max_reps is below min_reps (100)"}},
    {"define_function_name", "kernel.defines.min", {"'min' is a function name"}},
    {"param_tile_name", "params.pid_x", {"'pid_x' is reserved for tiles expressions"}},
};

INSTANTIATE_TEST_SUITE_P(ConfigErrors, ConfigErrorTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<BadCase>& info) {
                           return std::string(info.param.fixture);
                         });

TEST(ConfigErrors, EveryBadFixtureHasACase) {
  // A fixture without a case here would never be checked.
  for (const auto& entry : std::filesystem::directory_iterator(kDir)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("bad_", 0) != 0 || name == "bad_json.tscfg.json") continue;
    std::string fixture = name.substr(4, name.size() - 4 - std::string(".tscfg.json").size());
    bool found = false;
    for (const auto& c : kCases) found = found || fixture == c.fixture;
    EXPECT_TRUE(found) << name << " has no expected error in test_config_errors.cpp";
  }
}

TEST(ConfigErrors, NotJsonNamesFileLineAndColumn) {
  auto file = kDir / "bad_json.tscfg.json";
  auto error = firstError(file);
  ASSERT_TRUE(error.has_value());
  // The missing comma: line 3 ends with "x", the parser fails on line 4's string.
  EXPECT_EQ(error->path.rfind(file.string() + ":4:", 0), 0u) << error->what();
  EXPECT_EQ(error->problem.rfind("invalid JSON: ", 0), 0u) << error->what();
}

TEST(ConfigErrors, MissingFileCannotOpen) {
  auto file = kDir / "no_such_config.tscfg.json";
  auto error = firstError(file);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(std::string(error->what()), file.string() + ": cannot open (no such file)");
}

TEST(ConfigErrors, TextLabelInJsonErrors) {
  try {
    tilescope::parseConfigText("{\"schema\": }", kDir, "inline");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.path, "inline:1:12") << e.what();
  }
}

// Found by fuzz_config: a key "" was reported at "(top level)".
TEST(ConfigErrors, AnEmptyOrDottedKeyIsQuotedInItsPath) {
  try {
    tilescope::parseConfigText(R"({"schema": "tilescope.config/1", "": 1})", kDir, "inline");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.path, "[\"\"]") << e.what();
    EXPECT_NE(e.problem.find("unknown key"), std::string::npos) << e.what();
  }
  EXPECT_EQ(tilescope::jsonPathChild("tensors", "a.b"), "tensors[\"a.b\"]");
  EXPECT_EQ(tilescope::jsonPathChild("tensors", "A"), "tensors.A");
}

TEST(ConfigErrors, TopLevelMustBeAnObject) {
  EXPECT_THROW(tilescope::parseConfigText("[1, 2]", kDir), ConfigError);
}

}  // namespace
