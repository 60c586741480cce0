// What a config may not do without consent (docs/config.md#what-a-config-may-not-do-without-consent):
// programs it names, and files outside its folder.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tilescope/config/trust.h"

namespace tilescope {
namespace {

namespace fs = std::filesystem;

std::string risk(std::vector<std::string> options, std::size_t i = 0, std::size_t* used = nullptr) {
  std::size_t n = 0;
  std::string r = compilerOptionRisk(options, i, &n);
  if (used) *used = n;
  return r;
}

TEST(Trust, HarmlessCompilerOptionsPass) {
  for (const char* o :
       {"-std=c++17", "--maxrregcount=32", "-O3", "-lineinfo", "-DX=1", "-Ifoo", "-use_fast_math",
        "--ftz=true", "-Xptxas=-v,-O3", "--expt-relaxed-constexpr", "-G", "-w"})
    EXPECT_EQ(risk({o}), "") << o;
  std::size_t used = 0;
  EXPECT_EQ(risk({"-maxrregcount", "64"}, 0, &used), "");
  EXPECT_EQ(used, 2u);
  EXPECT_EQ(risk({"-D", "BLOCK=64"}, 0, &used), "");
  EXPECT_EQ(used, 2u);
}

TEST(Trust, OptionsThatRunProgramsOrWriteFilesNeedConsent) {
  EXPECT_NE(risk({"-ccbin", "./cc"}).find("host compiler"), std::string::npos);
  EXPECT_NE(risk({"--compiler-bindir=./cc"}).find("host compiler"), std::string::npos);
  std::size_t used = 0;
  EXPECT_NE(risk({"-Xcompiler", "-wrapper,./evil"}, 0, &used).find("-wrapper"), std::string::npos);
  EXPECT_EQ(used, 2u);
  // A value standing alone is not an option TileScope knows either.
  EXPECT_NE(risk({"-wrapper,./evil"}).find("not an option"), std::string::npos);
  EXPECT_NE(risk({"-Xcompiler=-fplugin=./x.so"}).find("host compiler"), std::string::npos);
  EXPECT_NE(risk({"--run"}).find("runs the compiled program"), std::string::npos);
  EXPECT_NE(risk({"-optf", "opts.txt"}).find("from a file"), std::string::npos);
  EXPECT_NE(risk({"-o", "/home/me/.bashrc"}).find("writes"), std::string::npos);
  EXPECT_NE(risk({"-time=t.csv"}).find("timing file"), std::string::npos);
  EXPECT_NE(risk({"-Xptxas", "--output-file=x"}).find("ptxas"), std::string::npos);
  EXPECT_NE(risk({"--some-new-flag"}).find("not an option TileScope knows"), std::string::npos);
}

TEST(Trust, CommandIssuesNameTheJsonPath) {
  Config c;
  c.baseline.kind = "command";
  c.baseline.command = "./bench.sh --fast";
  c.kernel.options = {"-std=c++17", "-ccbin", "./cc"};
  c.reference.op = "kernel";
  c.reference.kernel.options = {"-Xcompiler", "-wrapper,./x"};
  const auto issues = commandIssues(c);
  ASSERT_EQ(issues.size(), 3u) << describeIssues(issues);
  EXPECT_EQ(issues[0].path, "baseline.command");
  EXPECT_NE(issues[0].what.find("./bench.sh --fast"), std::string::npos);
  EXPECT_EQ(issues[1].path, "kernel.options[1]");     // -ccbin ./cc (its value is part of it)
  EXPECT_EQ(issues[2].path, "reference.options[0]");  // -Xcompiler -wrapper,./x
  Config clean;
  clean.kernel.options = {"-std=c++17", "--maxrregcount=32"};
  EXPECT_TRUE(commandIssues(clean).empty());
}

struct Folder {
  fs::path dir;
  Folder() {
    char t[] = "/tmp/tilescope-trust-XXXXXX";
    dir = mkdtemp(t);
    fs::create_directories(dir / "cfg");
    fs::create_directories(dir / "outside");
    std::ofstream(dir / "cfg" / "k.cu") << "#include \"ok.h\"\n__global__ void k() {}\n";
    std::ofstream(dir / "cfg" / "ok.h") << "// fine\n";
    std::ofstream(dir / "outside" / "secret.h") << "secret\n";
  }
  ~Folder() { fs::remove_all(dir); }
  Config config() const {
    Config c;
    c.dir = dir / "cfg";
    c.kernel.source = "k.cu";
    c.kernel.sourcePath = dir / "cfg" / "k.cu";
    c.kernel.baseDir = dir / "cfg";
    return c;
  }
};

TEST(Trust, FilesInsideTheConfigsFolderPass) {
  Folder f;
  EXPECT_TRUE(pathIssues(f.config(), "").empty()) << describeIssues(pathIssues(f.config(), ""));
  EXPECT_TRUE(insideRoots(f.dir / "cfg" / "ok.h", {f.dir / "cfg"}));
  EXPECT_FALSE(insideRoots(f.dir / "cfgx" / "ok.h", {f.dir / "cfg"}));  // a prefix of the name is not inside
}

TEST(Trust, EscapingPathsAreNamed) {
  Folder f;
  Config c = f.config();
  c.kernel.options = {"-I../outside"};
  auto issues = pathIssues(c, "");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "kernel.options[0]");
  EXPECT_NE(issues[0].what.find("outside the config's folder"), std::string::npos);

  c = f.config();
  std::ofstream(f.dir / "cfg" / "k.cu") << "#include \"../outside/secret.h\"\n#include \"/etc/passwd\"\n";
  issues = pathIssues(c, "");
  ASSERT_EQ(issues.size(), 2u) << describeIssues(issues);
  EXPECT_EQ(issues[0].path, "kernel.source");
  EXPECT_NE(issues[0].what.find("secret.h"), std::string::npos);
  EXPECT_NE(issues[1].what.find("/etc/passwd"), std::string::npos);

  std::ofstream(f.dir / "cfg" / "k.cu") << "#define F \"/etc/passwd\"\n#include F\n";
  issues = pathIssues(c, "");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_NE(issues[0].what.find("through a macro"), std::string::npos);

  // A source that is a symbolic link out of the folder (an archive can carry one).
  Config linked = f.config();
  fs::create_symlink(f.dir / "outside" / "secret.h", f.dir / "cfg" / "linked.cu");
  linked.kernel.source = "linked.cu";
  linked.kernel.sourcePath = f.dir / "cfg" / "linked.cu";
  issues = pathIssues(linked, "");
  ASSERT_FALSE(issues.empty());
  EXPECT_EQ(issues[0].path, "kernel.source");

  Config npy = f.config();
  std::ofstream(f.dir / "cfg" / "k.cu") << "__global__ void k() {}\n";
  TensorSpec t;
  t.name = "A";
  t.init = "npy:/etc/hostname";
  npy.tensors.push_back(t);
  issues = pathIssues(npy, "");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "tensors.A.init");
}

}  // namespace
}  // namespace tilescope
