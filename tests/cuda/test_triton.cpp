// The Triton zoo compiled for sm_90 without a GPU (Triton from scripts/install-deps.sh):
// metadata, the launch Triton's metadata implies, the cache, the JIT's specialisation,
// and compile errors with their .py lines, classification and fix.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "measure/measure_detail.h"
#include "tilescope/base/python.h"
#include "tilescope/cuda/compile.h"
#include "tilescope/diagnose/compile_error.h"
#include "tilescope/trace/trace_lines.h"

namespace fs = std::filesystem;
using namespace tilescope;
using namespace tilescope::cuda;

namespace {

const fs::path kZoo = fs::path(TILESCOPE_SOURCE_DIR) / "kernels" / "triton";

/// The 1-based line of `file` that contains `text` (the tests find lines by content).
int lineOf(const fs::path& file, const std::string& text) {
  std::ifstream in(file);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(text) != std::string::npos) return n;
  return 0;
}

class TritonCompile : public ::testing::Test {
 protected:
  void SetUp() override {
    if (pythonPackageVersion("triton").empty())
      FAIL() << "Triton is not installed for " << pythonInterpreter()
             << " (scripts/install-deps.sh makes build-deps/triton-venv)";
    m_cache = fs::temp_directory_path() / ("tilescope-triton-cache-" + std::to_string(::getpid()) + "-" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_cache);
    setenv("TILESCOPE_CACHE_DIR", m_cache.c_str(), 1);
  }
  void TearDown() override {
    fs::remove_all(m_cache);
    unsetenv("TILESCOPE_CACHE_DIR");
  }
  fs::path m_cache;
};

std::vector<fs::path> zooConfigs() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(kZoo))
    if (e.path().string().size() > 12 &&
        e.path().string().rfind(".tscfg.json") == e.path().string().size() - 11)
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

bool expectsCompileError(const fs::path& p) {
  const std::string n = p.filename().string();
  return n.find("dot_shape") != std::string::npos || n.find("dynamic_arange") != std::string::npos;
}

}  // namespace

// Every point of every Triton zoo config compiles (or fails as documented) for sm_90,
// and the metadata gives the launch: block 32·num_warps, Triton's shared memory,
// the kernel symbol, the trailing scratch pointers.
TEST_F(TritonCompile, ZooCompilesForSm90WithItsMetadata) {
  int compiled = 0;
  for (const fs::path& file : zooConfigs()) {
    SCOPED_TRACE(file.filename().string());
    Config cfg = loadConfig(file);
    auto points = expandSweep(cfg);
    // The sweep's points differ only in their options; two of them are enough here.
    if (points.size() > 2) points.erase(points.begin() + 1, points.end() - 1);
    for (const auto& sp : points) {
      CompiledKernel ck;
      CompileInfo info = compileTriton(sp.config, "sm_90", true, &ck);
      if (expectsCompileError(file)) {
        EXPECT_FALSE(info.ok);
        continue;
      }
      ASSERT_TRUE(info.ok) << info.log;
      ASSERT_TRUE(ck.triton.has_value());
      const TritonKernelMeta& m = *ck.triton;
      EXPECT_EQ(m.name, cfg.kernel.entry);
      EXPECT_EQ(ck.loweredName, cfg.kernel.entry);
      EXPECT_EQ(m.numWarps, sp.config.kernel.numWarps);
      EXPECT_EQ(m.numStages, sp.config.kernel.numStages);
      EXPECT_EQ(m.numCtas, 1);
      EXPECT_GE(m.scratchParams, 0);
      EXPECT_LE(m.scratchParams, 2);
      EXPECT_EQ(info.compiler.rfind("triton ", 0), 0u);
      // The cubin is an sm_90 ELF with the kernel, its registers from the cubin.
      CubinInfo ci = inspectCubin(ck.image, 90);
      ASSERT_TRUE(ci.valid) << ci.error;
      EXPECT_EQ(ci.smVersion, 90);
      ASSERT_NE(ci.find(m.name), nullptr);
      EXPECT_GT(info.regs, 0);
      // Spills from ptxas -v of the same compile: only the spill demonstration has them.
      if (file.filename() == "matmul_spill.tscfg.json")
        EXPECT_GT(info.spillStores, 256);
      else
        EXPECT_EQ(info.spillStores, 0);
      EXPECT_EQ(info.maxThreadsPerBlock, 32 * m.numWarps);  // Triton sets .maxntid
      // The launch geometry Triton's launcher would use.
      ResolvedPoint rp = resolvePoint(sp.config);
      detail::LaunchGeometry g = detail::tritonGeometry(rp.launch, m);
      EXPECT_EQ(g.block[0], unsigned(32 * sp.config.kernel.numWarps));
      EXPECT_EQ(g.grid[0], unsigned(rp.launch.grid[0]));
      ++compiled;
    }
  }
  EXPECT_GE(compiled, 14);
}

TEST_F(TritonCompile, MatmulSharedMemoryIsStagesTimesTiles) {
  Config cfg = loadConfig(kZoo / "matmul_4096.tscfg.json");
  for (int stages : {2, 3, 4}) {
    SCOPED_TRACE(stages);
    setPointSymbol(cfg, "num_stages", stages);
    CompiledKernel ck;
    CompileInfo info = compileTriton(cfg, "sm_90", true, &ck);
    ASSERT_TRUE(info.ok) << info.log;
    // Each stage buffers a 128x64 tile of A and a 64x128 tile of B in f16.
    EXPECT_EQ(ck.triton->sharedBytes, stages * (128 * 64 + 64 * 128) * 2);
  }
}

// The arguments the launch passes: the config's args minus the ones the JIT turned
// into constexprs (stride 1), typed as Triton typed them, then the scratch pointers.
TEST_F(TritonCompile, LaunchArgumentsFollowTheCompiledSignature) {
  Config cfg = loadConfig(kZoo / "matmul_f16.tscfg.json");
  CompiledKernel ck;
  CompileInfo info = compileTriton(cfg, "sm_90", true, &ck);
  ASSERT_TRUE(info.ok) << info.log;
  const TritonKernelMeta& m = *ck.triton;
  int specialised = 0, divisible = 0;
  for (const auto& p : m.signature) {
    specialised += p.specialized;
    divisible += p.divisible16;
    if (p.name == "stride_ak" || p.name == "stride_bn" || p.name == "stride_cn") {
      EXPECT_TRUE(p.specialized) << p.name;  // equal to 1
      EXPECT_EQ(p.type, "constexpr");
    }
    if (p.name == "a_ptr") {
      EXPECT_EQ(p.type, "*fp16");
    }
    if (p.name == "M") {
      EXPECT_EQ(p.type, "i32");
    }
  }
  EXPECT_EQ(specialised, 3);
  EXPECT_EQ(divisible, 3 + 6);  // three aligned pointers; M, N, K and the strides of 1024
  std::map<std::string, CUdeviceptr> ptrs{{"A", 0x1000}, {"B", 0x2000}, {"C", 0x3000}};
  CUdeviceptr scratch[2] = {0xa000, 0xb000};
  detail::KernelArgs args;
  std::string error;
  ASSERT_TRUE(detail::buildTritonArgs(cfg.args, m, pointSymbols(cfg), ptrs, scratch, &args, &error)) << error;
  // 3 pointers + M N K + stride_am stride_bk stride_cm + the scratch pointers.
  ASSERT_EQ(args.params.size(), 9u + std::size_t(m.scratchParams));
  CUdeviceptr p0 = 0;
  std::memcpy(&p0, args.params[0], sizeof p0);
  EXPECT_EQ(p0, 0x1000u);
  std::int32_t k = 0, strideAm = 0;
  std::memcpy(&k, args.params[5], 4);
  std::memcpy(&strideAm, args.params[6], 4);
  EXPECT_EQ(k, 1024);
  EXPECT_EQ(strideAm, 1024);
  if (m.scratchParams > 0) {
    CUdeviceptr s0 = 0;
    std::memcpy(&s0, args.params[9], sizeof s0);
    EXPECT_EQ(s0, 0xa000u);
  }
  // A tensor where the kernel wants a scalar is refused with the parameter's name.
  Config bad = cfg;
  bad.args[3] = bad.args[0];
  EXPECT_FALSE(detail::buildTritonArgs(bad.args, m, pointSymbols(bad), ptrs, scratch, &args, &error));
  EXPECT_NE(error.find("parameter M is a scalar"), std::string::npos) << error;
}

TEST_F(TritonCompile, CachedBySpecialisationAndConstexprs) {
  Config cfg = loadConfig(kZoo / "add.tscfg.json");
  CompiledKernel first, again, unaligned;
  CompileInfo a = compileTriton(cfg, "sm_90", true, &first);
  ASSERT_TRUE(a.ok) << a.log;
  EXPECT_FALSE(a.cached);
  CompileInfo b = compileTriton(cfg, "sm_90", true, &again);
  EXPECT_TRUE(b.cached);
  EXPECT_EQ(first.image, again.image);
  EXPECT_EQ(again.triton->name, "add_kernel");
  EXPECT_EQ(again.triton->sharedBytes, first.triton->sharedBytes);
  // Shifted base pointers (diagnose) compile as the JIT would for unaligned tensors.
  CompileInfo c = compileTriton(cfg, "sm_90", false, &unaligned);
  ASSERT_TRUE(c.ok);
  EXPECT_FALSE(c.cached);
  for (const auto& p : unaligned.triton->signature)
    if (p.type.rfind("*", 0) == 0) {
      EXPECT_FALSE(p.divisible16) << p.name;
    }
  setPointSymbol(cfg, "BLOCK", 512);
  EXPECT_FALSE(compileTriton(cfg, "sm_90", true, nullptr).cached);
}

// Compile errors: Triton's message at the offending .py line, the classifier's
// detail, the tree's Triton fix.
TEST_F(TritonCompile, CompileErrorsCarryTheLineTheCategoryAndTheFix) {
  struct Case {
    const char* config;
    const char* lineText;
    const char* message;
    const char* detail;
    const char* node;
  };
  const Case cases[] = {
      {"row_sum_bug_dynamic_arange.tscfg.json", "base + k + tl.arange(0, cur_K)",
       "arange's arguments must be of type tl.constexpr", "triton_arange_constexpr",
       "compile.triton.arange_constexpr"},
      {"matmul_bug_dot_shape.tscfg.json", "acc = tl.dot(a, b, acc)", "", "triton_dot_shape",
       "compile.triton.dot_shape"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.config);
    Config cfg = loadConfig(kZoo / c.config);
    CompileInfo info = compileTriton(cfg, "sm_90", true, nullptr);
    ASSERT_FALSE(info.ok);
    auto first = firstCompileError(info.log);
    ASSERT_TRUE(first.has_value()) << info.log;
    const int want = lineOf(cfg.kernel.sourcePath, c.lineText);
    ASSERT_GT(want, 0);
    EXPECT_EQ(first->first, want) << info.log;
    EXPECT_NE(first->second.find(c.message), std::string::npos) << first->second;
    auto [line, column] = compileErrorPosition(info.log);
    EXPECT_EQ(line, want);
    EXPECT_GT(column, 0);
    Finding f = pythonCompileErrorFinding(cfg, info, line, column, first->second);
    EXPECT_EQ(f.category, "compile_error");
    EXPECT_EQ(f.detail, c.detail) << info.log;
    EXPECT_EQ(f.treeNode, c.node);
    EXPECT_EQ(f.location.file, cfg.kernel.source);
    EXPECT_EQ(f.location.line, want);
    EXPECT_NE(f.evidence.value("source_line", std::string()).find(c.lineText), std::string::npos);
    EXPECT_FALSE(f.evidence.value("fix", std::string()).empty());
    EXPECT_EQ(f.evidence["example"]["language"], "triton");
    EXPECT_EQ(f.message.rfind(cfg.kernel.source + ":" + std::to_string(want) + ": ", 0), 0u) << f.message;
  }
}

TEST_F(TritonCompile, SignatureMismatchAndMissingTritonAreClear) {
  Config cfg = loadConfig(kZoo / "add.tscfg.json");
  cfg.args.pop_back();
  CompileInfo info = compileTriton(cfg, "sm_90", true, nullptr);
  ASSERT_FALSE(info.ok);
  EXPECT_NE(
      info.log.find(
          "args: kernel add_kernel takes 4 arguments besides its constexprs (x_ptr, y_ptr, out_ptr, n)"),
      std::string::npos)
      << info.log;
  cfg = loadConfig(kZoo / "add.tscfg.json");
  cfg.kernel.entry = "no_such_kernel";
  info = compileTriton(cfg, "sm_90", true, nullptr);
  EXPECT_NE(info.log.find("no function 'no_such_kernel'"), std::string::npos) << info.log;
  EXPECT_NE(info.log.find("add_kernel"), std::string::npos);  // the kernels it has

  setenv("TILESCOPE_PYTHON", "/nonexistent/python3", 1);
  info = compileTriton(loadConfig(kZoo / "add.tscfg.json"), "sm_90", true, nullptr);
  unsetenv("TILESCOPE_PYTHON");
  EXPECT_FALSE(info.ok);
  EXPECT_NE(info.log.find("Triton is not installed for /nonexistent/python3"), std::string::npos) << info.log;
}

// The cubin's line table names the .py file, so traced PCs map to Python lines: the
// tracer's own reader (parseCubinLineTable) finds rows of the kernel in add.py, at
// lines of the kernel's body, the store among them.
TEST_F(TritonCompile, CubinCarriesPythonLineInfo) {
  Config cfg = loadConfig(kZoo / "add.tscfg.json");
  CompiledKernel ck;
  ASSERT_TRUE(compileTriton(cfg, "sm_90", true, &ck).ok);
  std::string error;
  LineTable table = parseCubinLineTable(ck.image, &error);
  ASSERT_FALSE(table.empty()) << error;
  const fs::path py = (kZoo / "add.py").lexically_normal();
  const int first = ck.triton->defLine, store = lineOf(py, "tl.store(out_ptr + offs, x + y, mask=mask)");
  ASSERT_GT(first, 0);
  int rows = 0;
  bool sawStore = false;
  for (const LineRow& r : table.rows()) {
    if (r.function != "add_kernel") continue;
    if (r.line == 0) continue;  // DWARF line 0: code the compiler made up (no source line)
    ++rows;
    EXPECT_EQ(fs::path(r.file).lexically_normal(), py) << r.file;
    EXPECT_GE(r.line, first);
    EXPECT_LE(r.line, store + 1);
    sawStore = sawStore || r.line == store;
  }
  EXPECT_GT(rows, 3);
  EXPECT_TRUE(sawStore);
  ASSERT_NE(table.lookup("add_kernel", 0), nullptr);
}

// TileLang (where the helper's interpreter has tilelang; CI's has not): TileLang
// generates CUDA, nvcc compiles it with TileLang's headers, the launch is TileLang's.
TEST(TileLangCompile, GemmThroughTileLang) {
  if (pythonPackageVersion("tilelang").empty())
    GTEST_SKIP() << "tilelang is not installed for " << pythonInterpreter();
  const fs::path dir = fs::path(TILESCOPE_SOURCE_DIR) / "kernels" / "tilelang";
  const std::string text = R"j({"schema": "tilescope.config/1",
    "kernel": {"language": "tilelang", "source": "gemm.py", "entry": "gemm",
               "constexprs": {"M": 512, "N": 512, "K": 512, "num_stages": 2}},
    "tensors": {"A": {"dtype": "f16", "shape": ["M", "K"]}, "B": {"dtype": "f16", "shape": ["K", "N"]},
                "C": {"dtype": "f16", "shape": ["M", "N"], "output": true}},
    "args": ["A", "B", "C"],
    "launch": {"grid": ["ceil_div(N, 128)", "ceil_div(M, 128)"]}})j";
  Config cfg = parseConfigText(text, dir);
  CompiledKernel ck;
  CompileInfo info = compilePoint(cfg, "sm_90", true, &ck);
  ASSERT_TRUE(info.ok) << info.log;
  ASSERT_TRUE(ck.tilelang.has_value());
  EXPECT_EQ(ck.tilelang->block[0], 128);
  EXPECT_EQ(ck.tilelang->grid[0], 4);
  EXPECT_EQ(ck.tilelang->sharedBytes, 2 * (128 * 32 + 32 * 128) * 2);
  EXPECT_GT(info.regs, 128);  // a 128x128 f32 accumulator over 128 threads
  // A grid that is not TileLang's is refused with both.
  setPointSymbol(cfg, "M", 256);
  cfg.launch.grid[1] = "1";
  info = compilePoint(cfg, "sm_90", true, nullptr);
  EXPECT_FALSE(info.ok);
  EXPECT_NE(info.log.find("launch.grid: TileLang launches main_kernel with grid [4, 2, 1]"),
            std::string::npos)
      << info.log;
}
