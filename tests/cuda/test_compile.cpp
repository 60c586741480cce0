// Compilation and resource usage without a GPU (NVRTC, nvcc, ptxas, cubin ELF).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "compile/nvcc_command.h"
#include "tilescope/cuda/compile.h"

namespace fs = std::filesystem;
using namespace tilescope;
using namespace tilescope::cuda;

namespace {

fs::path kernelDir() { return fs::path(TILESCOPE_TEST_DATA) / "kernels"; }

KernelSpec spec(const std::string& file, const std::string& entry, const std::string& compiler = "nvrtc") {
  KernelSpec k;
  k.source = file;
  k.sourcePath = kernelDir() / file;
  k.entry = entry;
  k.compiler = compiler;
  return k;
}

DefineValue intDefine(std::int64_t v) {
  DefineValue d;
  d.isInt = true;
  d.i = v;
  return d;
}

// Every test gets its own empty cache so that "cached" is deterministic.
class CompileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_cache = fs::temp_directory_path() / ("tilescope-test-cache-" + std::to_string(::getpid()) + "-" +
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

}  // namespace

TEST_F(CompileTest, NvrtcStaticSharedMemoryFollowsTheDefine) {
  for (std::int64_t floats : {1000, 3000}) {
    CompiledKernel ck;
    CompileInfo info = compileKernel(spec("smem_static.cu", "smem_static"),
                                     {{"SMEM_FLOATS", intDefine(floats)}}, "sm_90", &ck);
    ASSERT_TRUE(info.ok) << info.log;
    EXPECT_EQ(info.compiler, "nvrtc");
    EXPECT_EQ(info.smemStatic, floats * 4);
    EXPECT_GT(info.regs, 0);
    EXPECT_EQ(info.localBytes, 0);
    EXPECT_EQ(ck.loweredName, "smem_static");
    EXPECT_EQ(ck.format, CompiledKernel::Format::cubin);
    // The ELF reading agrees with ptxas's own report.
    CubinInfo ci = inspectCubin(ck.image, 90);
    ASSERT_TRUE(ci.valid) << ci.error;
    EXPECT_EQ(ci.smVersion, 90);
    const CubinKernelInfo* ki = ci.find("smem_static");
    ASSERT_NE(ki, nullptr);
    EXPECT_EQ(ki->smemStatic, floats * 4);
    EXPECT_EQ(ki->regs, info.regs);
  }
}

TEST_F(CompileTest, OlderArchitectureHasNoReservedSharedMemory) {
  CompiledKernel ck;
  CompileInfo info = compileKernel(spec("smem_static.cu", "smem_static"), {}, "sm_80", &ck);
  ASSERT_TRUE(info.ok) << info.log;
  EXPECT_EQ(inspectCubin(ck.image).smVersion, 80);
  EXPECT_EQ(info.smemStatic, 4000);
}

TEST_F(CompileTest, SecondCompileComesFromTheCache) {
  CompiledKernel first, second;
  CompileInfo a = compileKernel(spec("smem_static.cu", "smem_static"), {}, "sm_90", &first);
  CompileInfo b = compileKernel(spec("smem_static.cu", "smem_static"), {}, "sm_90", &second);
  ASSERT_TRUE(a.ok && b.ok);
  EXPECT_FALSE(a.cached);
  EXPECT_TRUE(b.cached);
  EXPECT_EQ(first.image, second.image);
  EXPECT_EQ(a.regs, b.regs);
  EXPECT_EQ(a.smemStatic, b.smemStatic);
  // A different define is a different cache entry.
  CompileInfo c =
      compileKernel(spec("smem_static.cu", "smem_static"), {{"SMEM_FLOATS", intDefine(7)}}, "sm_90", nullptr);
  EXPECT_FALSE(c.cached);
  EXPECT_EQ(c.smemStatic, 28);
}

TEST_F(CompileTest, TemplateAndMangledEntries) {
  CompiledKernel ck;
  CompileInfo info = compileKernel(spec("smem_static.cu", "scaled<3>"), {}, "sm_90", &ck);
  ASSERT_TRUE(info.ok) << info.log;
  EXPECT_EQ(ck.loweredName, "_Z6scaledILi3EEvPfi");
  // A plain C++ name matches its mangled symbol; __launch_bounds__ fixes max threads.
  info = compileKernel(spec("smem_static.cu", "bounded"), {}, "sm_90", &ck);
  ASSERT_TRUE(info.ok) << info.log;
  EXPECT_EQ(ck.loweredName, "_Z7boundedPf");
  EXPECT_EQ(info.maxThreadsPerBlock, 128);
}

TEST_F(CompileTest, MissingEntryListsTheModulesKernels) {
  CompileInfo info = compileKernel(spec("smem_static.cu", "no_such_kernel"), {}, "sm_90", nullptr);
  EXPECT_FALSE(info.ok);
  EXPECT_NE(info.log.find("no_such_kernel"), std::string::npos);
  EXPECT_NE(info.log.find("smem_static"), std::string::npos) << info.log;
  auto err = firstCompileError(info.log);
  ASSERT_TRUE(err.has_value());
  EXPECT_NE(err->second.find("no_such_kernel"), std::string::npos);
}

TEST_F(CompileTest, MaxRegCountForcesSpills) {
  KernelSpec k = spec("spill.cu", "spill");
  CompileInfo free = compileKernel(k, {}, "sm_90", nullptr);
  k.options = {"--maxrregcount=24"};
  CompileInfo tight = compileKernel(k, {}, "sm_90", nullptr);
  ASSERT_TRUE(free.ok && tight.ok) << tight.log;
  EXPECT_EQ(free.spillStores, 0);
  EXPECT_LE(tight.regs, 24);
  EXPECT_GT(tight.spillStores, 0);
  EXPECT_GT(tight.spillLoads, 0);
  EXPECT_GT(tight.localBytes, 0);
}

TEST_F(CompileTest, NvccMatchesNvrtc) {
  KernelSpec k = spec("spill.cu", "spill", "nvcc");
  k.options = {"-maxrregcount=24"};
  CompiledKernel ck;
  CompileInfo info = compileKernel(k, {}, "sm_90", &ck);
  ASSERT_TRUE(info.ok) << info.log;
  EXPECT_EQ(info.compiler, "nvcc");
  EXPECT_LE(info.regs, 24);
  EXPECT_GT(info.spillStores, 0);
  EXPECT_EQ(ck.loweredName, "spill");
}

TEST_F(CompileTest, BrokenSourceReportsTheLine) {
  CompileInfo info = compileKernel(spec("broken.cu", "broken"), {}, "sm_90", nullptr);
  EXPECT_FALSE(info.ok);
  auto err = firstCompileError(info.log);
  ASSERT_TRUE(err.has_value()) << info.log;
  EXPECT_EQ(err->first, 5);
  EXPECT_NE(err->second.find("undeclared_value"), std::string::npos);
}

TEST_F(CompileTest, PrebuiltCubinAndPtx) {
  CompiledKernel ck;
  ASSERT_TRUE(compileKernel(spec("smem_static.cu", "smem_static"), {}, "sm_90", &ck).ok);
  fs::path cubin = m_cache / "prebuilt.cubin";
  fs::create_directories(m_cache);
  std::ofstream(cubin, std::ios::binary).write(ck.image.data(), std::streamsize(ck.image.size()));
  KernelSpec k = spec("smem_static.cu", "smem_static");
  k.sourcePath = cubin;
  CompileInfo info = compileKernel(k, {}, "sm_90", nullptr);
  ASSERT_TRUE(info.ok) << info.log;
  EXPECT_EQ(info.compiler, "prebuilt");
  EXPECT_EQ(info.smemStatic, 4000);
  // The same cubin on a different major architecture is flagged.
  info = compileKernel(k, {}, "sm_100", nullptr);
  EXPECT_NE(info.log.find("sm_90"), std::string::npos);

  CompileInfo ptx = compileKernel(spec("vec_add.ptx", "vec_add"), {}, "sm_90", &ck);
  ASSERT_TRUE(ptx.ok) << ptx.log;
  EXPECT_GT(ptx.regs, 0);
  EXPECT_EQ(ck.loweredName, "vec_add");
}

TEST(CompileLog, FirstErrorOfEachCompiler) {
  auto e = firstCompileError("warning: x\nk.cu(12): error: expected a \";\"\nk.cu(14): error: other");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->first, 12);
  EXPECT_EQ(e->second, "expected a \";\"");
  e = firstCompileError("ptxas /tmp/k.ptx, line 7; error   : Unknown symbol 'x'");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->first, 7);
  e = firstCompileError("nvcc fatal   : Unsupported gpu architecture 'sm_1'");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->first, 0);
  EXPECT_NE(e->second.find("sm_1"), std::string::npos);
  EXPECT_FALSE(firstCompileError("ptxas info    : Used 10 registers"));
}

TEST(CompileLog, PtxasResourcesPerFunction) {
  const std::string log =
      "ptxas info    : Compiling entry function 'a' for 'sm_90'\n"
      "ptxas info    : Function properties for a\n"
      "ptxas         .     8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 1 barriers, 2048 bytes smem\n"
      "ptxas info    : Compiling entry function 'b' for 'sm_90'\n"
      "ptxas info    : Function properties for b\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 12 registers, used 0 barriers\n";
  CompileInfo a, b;
  parsePtxasResources(log, "a", &a);
  parsePtxasResources(log, "b", &b);
  EXPECT_EQ(a.regs, 40);
  EXPECT_EQ(a.smemStatic, 2048);
  EXPECT_EQ(a.spillStores, 4);
  EXPECT_EQ(a.localBytes, 8);
  EXPECT_EQ(b.regs, 12);
  EXPECT_EQ(b.smemStatic, 0);
  EXPECT_EQ(b.spillStores, 0);
}

TEST(CompileLog, ArchForCc) {
  EXPECT_EQ(archForCc(9, 0), "sm_90");
  EXPECT_EQ(archForCc(8, 6), "sm_86");
}

// docs/security.md, "nvcc and /bin/sh": nothing a config writes reaches nvcc's command line, which nvcc
// hands to /bin/sh in double quotes.
TEST(NvccPlan, ConfigTextStaysOffTheCommandLine) {
  DefineValue hostile;
  hostile.isInt = false;
  hostile.s = "1$(touch pwned)";
  const fs::path tmp = "/tmp/tilescope-XXXX";
  detail::NvccPlan plan = detail::planNvcc(
      "nvcc", "sm_90", "/a/k$(x).cu", {{"V", hostile}},
      {"-std=c++17", "-DW=`y`", "-I/a/inc$(z)", "-include", "/a/f.h", "-UQ"}, {"/a/src dir"}, tmp);
  ASSERT_EQ(plan.error, "");
  for (const auto& a : plan.argv) EXPECT_TRUE(detail::shellInert(a)) << a;
  EXPECT_NE(plan.header.find("#define V 1$(touch pwned)\n"), std::string::npos);
  EXPECT_NE(plan.header.find("#define W `y`\n"), std::string::npos);
  EXPECT_NE(plan.header.find("#include \"/a/f.h\"\n"), std::string::npos);
  EXPECT_NE(plan.header.find("#undef Q\n"), std::string::npos);
  EXPECT_EQ(plan.wrapper.substr(plan.wrapper.find("#include")), "#include \"/a/k$(x).cu\"\n");
  ASSERT_EQ(plan.links.size(), 2u);  // the source's folder (a space) and the -I folder
  EXPECT_EQ(plan.links[1].second, "/a/inc$(z)");
  EXPECT_EQ(detail::unmapPaths(plan.links[1].first.string() + "/h.h:3: error", plan, tmp, "k.cu"),
            "/a/inc$(z)/h.h:3: error");
}

TEST(NvccPlan, RefusesWhatCannotBeMovedOffTheCommandLine) {
  auto error = [](std::vector<std::string> options, std::string define = "V") {
    DefineValue v;
    return detail::planNvcc("nvcc", "sm_90", "/a/k.cu", {{define, v}}, options, {}, "/tmp/t").error;
  };
  EXPECT_EQ(error({"-O3", "-Xptxas", "-v", "--use_fast_math"}), "");
  EXPECT_NE(error({"-maxrregcount=32$(x)"}).find("/bin/sh"), std::string::npos);
  EXPECT_NE(error({"-DX$(y)=1"}).find("not a macro name"), std::string::npos);
  EXPECT_NE(error({}, "A B"), "");
  EXPECT_NE(error({"-include", "/a/\"q.h"}), "");
  EXPECT_TRUE(detail::isMacroName("F(a,b)"));
  EXPECT_FALSE(detail::isMacroName("F(a,"));
  EXPECT_FALSE(detail::isMacroName("1A"));
}

TEST_F(CompileTest, NvccCompilesThroughTheWrapperAndNamesTheRealFile) {
  KernelSpec k = spec("broken.cu", "broken", "nvcc");
  CompileInfo info = compileKernel(k, {}, "sm_90", nullptr);
  EXPECT_FALSE(info.ok);
  auto err = firstCompileError(info.log);
  ASSERT_TRUE(err.has_value()) << info.log;
  EXPECT_EQ(err->first, 5);
  EXPECT_EQ(info.log.find("kernel.cu"), std::string::npos) << info.log;
  EXPECT_EQ(info.log.find("tilescope_defines.h"), std::string::npos) << info.log;
}
