// The compile cache and the compile's isolation (docs/security.md, "Temporary files and the compile cache"):
// keys cover every header read, only a private folder is used, entries are
// verified, quoted includes never come from the working directory, and a
// compile that does not end is stopped. No GPU needed (NVRTC).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tilescope/cuda/compile.h"

namespace fs = std::filesystem;
using namespace tilescope;
using namespace tilescope::cuda;

namespace {

class CacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char t[] = "/tmp/tilescope-cachetest-XXXXXX";
    m_dir = mkdtemp(t);
    m_cache = m_dir / "cache";
    setenv("TILESCOPE_CACHE_DIR", m_cache.c_str(), 1);
    fs::create_directories(m_dir / "cfg" / "inc");
    std::ofstream(m_dir / "cfg" / "k.cu") << "#include <val.h>\n"
                                             "__global__ void k(float* o) {\n"
                                             "  __shared__ float s[VAL * 256];\n"
                                             "  s[threadIdx.x] = threadIdx.x;\n"
                                             "  __syncthreads();\n"
                                             "  o[threadIdx.x] = s[(threadIdx.x + 1) % (VAL * 256)];\n"
                                             "}\n";
    header(1);
  }
  void TearDown() override {
    unsetenv("TILESCOPE_CACHE_DIR");
    std::error_code ec;
    fs::permissions(m_cache, fs::perms::owner_all, fs::perm_options::replace, ec);
    fs::remove_all(m_dir, ec);
  }
  void header(int v) { std::ofstream(m_dir / "cfg" / "inc" / "val.h") << "#define VAL " << v << "\n"; }
  KernelSpec spec() const {
    KernelSpec k;
    k.source = "k.cu";
    k.sourcePath = m_dir / "cfg" / "k.cu";
    k.baseDir = m_dir / "cfg";
    k.entry = "k";
    k.options = {"-Iinc"};  // relative: against the config's folder, whatever the working directory
    return k;
  }
  CompileInfo compile() const { return compileKernel(spec(), {}, "sm_90", nullptr); }
  fs::path m_dir, m_cache;
};

TEST_F(CacheTest, AHeaderFoundThroughIncludePathsIsPartOfTheKey) {
  CompileInfo a = compile();
  ASSERT_TRUE(a.ok) << a.log;
  EXPECT_FALSE(a.cached);
  EXPECT_EQ(a.smemStatic, 1024);
  EXPECT_TRUE(compile().cached);
  header(2);  // the source is unchanged; only the header found through -I is
  CompileInfo b = compile();
  ASSERT_TRUE(b.ok) << b.log;
  EXPECT_FALSE(b.cached) << "the old cubin was used after its header changed";
  EXPECT_EQ(b.smemStatic, 2048);
  EXPECT_TRUE(compile().cached);
}

TEST_F(CacheTest, TheCacheFolderIsPrivate) {
  ASSERT_TRUE(compile().ok);
  struct stat st {};
  ASSERT_EQ(::stat(m_cache.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 077, 0u) << "cache folder mode " << std::oct << (st.st_mode & 0777);
}

TEST_F(CacheTest, AFolderOthersCanWriteIsNotUsed) {
  ASSERT_TRUE(compile().ok);
  fs::permissions(m_cache, fs::perms::all, fs::perm_options::replace);  // 0777: anyone could plant a cubin
  CompileInfo again = compile();
  ASSERT_TRUE(again.ok) << again.log;
  EXPECT_FALSE(again.cached);
}

TEST_F(CacheTest, AnAlteredOrLinkedEntryIsAMissNotALoad) {
  ASSERT_TRUE(compile().ok);
  std::vector<fs::path> cubins;
  for (const auto& e : fs::directory_iterator(m_cache))
    if (e.path().extension() == ".cubin") cubins.push_back(e.path());
  ASSERT_EQ(cubins.size(), 1u);
  std::ofstream(cubins[0], std::ios::app) << "planted";
  CompileInfo altered = compile();
  ASSERT_TRUE(altered.ok) << altered.log;
  EXPECT_FALSE(altered.cached);
  EXPECT_TRUE(compile().cached);  // the recompile replaced it
  // A symlink in place of the entry (to a cubin of the attacker's) is never followed.
  std::ofstream(m_dir / "evil.cubin") << "not a cubin";
  fs::remove(cubins[0]);
  fs::create_symlink(m_dir / "evil.cubin", cubins[0]);
  CompileInfo linked = compile();
  ASSERT_TRUE(linked.ok) << linked.log;
  EXPECT_FALSE(linked.cached);
}

TEST_F(CacheTest, WithoutAHomeThereIsNoSharedFallback) {
  unsetenv("TILESCOPE_CACHE_DIR");
  const char* home = std::getenv("HOME");
  const std::string saved = home ? home : "";
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const std::string savedXdg = xdg ? xdg : "";
  unsetenv("HOME");
  unsetenv("XDG_CACHE_HOME");
  ASSERT_TRUE(compile().ok);
  EXPECT_FALSE(compile().cached);  // no cache at all rather than one in /tmp
  if (!saved.empty()) setenv("HOME", saved.c_str(), 1);
  if (!savedXdg.empty()) setenv("XDG_CACHE_HOME", savedXdg.c_str(), 1);
}

TEST_F(CacheTest, QuotedIncludesComeFromTheSourcesFolderNotTheWorkingDirectory) {
  std::ofstream(m_dir / "cfg" / "q.cu")
      << "#include \"local.h\"\n__global__ void k(float* o) { o[0] = LOCAL; }\n";
  std::ofstream(m_dir / "cfg" / "local.h") << "#define LOCAL 1.0f\n";
  fs::create_directories(m_dir / "cwd");
  std::ofstream(m_dir / "cwd" / "local.h") << "this is not C++ at all\n";
  const fs::path before = fs::current_path();
  fs::current_path(m_dir / "cwd");
  KernelSpec k = spec();
  k.source = "q.cu";
  k.sourcePath = m_dir / "cfg" / "q.cu";
  CompileInfo info = compileKernel(k, {}, "sm_90", nullptr);
  fs::current_path(before);
  EXPECT_TRUE(info.ok) << info.log;
}

TEST_F(CacheTest, AnIsolatedCompileThatNeverEndsIsStopped) {
  // NVRTC blocks forever reading a FIFO nobody writes: only the time limit ends it.
  fs::remove(m_dir / "cfg" / "inc" / "val.h");
  ASSERT_EQ(::mkfifo((m_dir / "cfg" / "inc" / "val.h").c_str(), 0600), 0);
  const auto t0 = std::chrono::steady_clock::now();
  CompileInfo info = compileKernelIsolated(spec(), {}, "sm_90", 2.0);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_FALSE(info.ok);
  EXPECT_NE(info.log.find("did not finish within 2 s"), std::string::npos) << info.log;
  EXPECT_LT(secs, 10.0);
}

TEST_F(CacheTest, AnIsolatedCompileReturnsTheSameResult) {
  CompileInfo direct = compile();
  CompileInfo isolated = compileKernelIsolated(spec(), {}, "sm_90", 120);
  ASSERT_TRUE(isolated.ok) << isolated.log;
  EXPECT_EQ(isolated.smemStatic, direct.smemStatic);
  EXPECT_EQ(isolated.regs, direct.regs);
  EXPECT_EQ(isolated.compiler, "nvrtc");
}

}  // namespace

namespace {

TEST_F(CacheTest, NvccKeysOnTheHeadersItReports) {
  KernelSpec k = spec();
  k.compiler = "nvcc";
  CompileInfo a = compileKernel(k, {}, "sm_90", nullptr);
  ASSERT_TRUE(a.ok) << a.log;
  EXPECT_TRUE(compileKernel(k, {}, "sm_90", nullptr).cached)
      << "nvcc -MD gave no dependencies: nothing was cached";
  header(3);
  CompileInfo b = compileKernel(k, {}, "sm_90", nullptr);
  ASSERT_TRUE(b.ok) << b.log;
  EXPECT_FALSE(b.cached);
  EXPECT_EQ(b.smemStatic, 3072);
}

}  // namespace

TEST(CompileLog, LongLinesAndAbsurdLineNumbers) {
  // A 200 KB line overflowed the stack of std::regex; a #line beyond int threw from std::stoi.
  const std::string longLine = "k.cu(12): error: " + std::string(200000, 'x') + "\n";
  auto e = firstCompileError(longLine);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->first, 12);
  e = firstCompileError("k.cu(99999999999999999999): error: boom\n");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->first, 0);
  EXPECT_EQ(e->second, "boom");
  CompileInfo info;
  parsePtxasResources(
      "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
      "ptxas info    : Used 99999999999999999999 registers, " +
          std::string(100000, 'y') + "\n",
      "k", &info);
  EXPECT_EQ(info.regs, -1);
}
