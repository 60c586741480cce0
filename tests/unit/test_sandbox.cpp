// The sandbox a config's Python runs in without consent (docs/security.md, "Python kernels"): the
// command line it builds, and, where bubblewrap works, what a confined program
// can and cannot do. The hostile-kernel test of the whole path is
// tests/cli/triton_sandbox.sh.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "tilescope/base/process.h"
#include "tilescope/base/sandbox.h"

namespace fs = std::filesystem;
using namespace tilescope;

namespace {

struct TempFolder {
  TempFolder() {
    std::string t = (fs::temp_directory_path() / "ts-sandbox-XXXXXX").string();
    path = ::mkdtemp(t.data());
  }
  ~TempFolder() { fs::remove_all(path); }
  fs::path path;
};

bool hasPair(const std::vector<std::string>& a, const std::string& flag, const std::string& value) {
  for (std::size_t i = 0; i + 1 < a.size(); ++i)
    if (a[i] == flag && a[i + 1] == value) return true;
  return false;
}

}  // namespace

TEST(Sandbox, HidesHomesAndTmpAndKeepsNoSecrets) {
  TempFolder work;
  ::setenv("TILESCOPE_TEST_SECRET_TOKEN", "s3cr3t", 1);
  const auto a = confinedArgv({"python3", "x.py"}, {{"/root/.pyenv/versions/3.11"}, work.path, {"A=1"}});
  ::unsetenv("TILESCOPE_TEST_SECRET_TOKEN");
  EXPECT_EQ(a.front(), "bwrap");
  EXPECT_TRUE(hasPair(a, "--ro-bind", "/"));
  for (const char* hidden : {"/tmp", "/root", "/run"}) {
    if (fs::is_directory(hidden) && !fs::is_symlink(hidden)) {
      EXPECT_TRUE(hasPair(a, "--tmpfs", hidden)) << hidden;
    }
  }
  EXPECT_NE(std::find(a.begin(), a.end(), "--unshare-all"), a.end());
  EXPECT_NE(std::find(a.begin(), a.end(), "--clearenv"), a.end());
  EXPECT_TRUE(hasPair(a, "--bind", fs::weakly_canonical(work.path).string()));
  EXPECT_TRUE(hasPair(a, "--setenv", "A"));
  // TILESCOPE_ variables are kept; any other variable is not.
  EXPECT_EQ(std::find(a.begin(), a.end(), "HOSTNAME"), a.end());
  EXPECT_EQ(std::vector<std::string>(a.end() - 3, a.end()),
            (std::vector<std::string>{"--", "python3", "x.py"}));
}

TEST(Sandbox, NothingInsideABoundFolderIsBoundAgain) {
  // A checkout under /tmp: the venv is bound, and its bin/python3 (a symlink,
  // which bwrap cannot bind onto) must not be bound a second time.
  TempFolder venv, work;
  fs::create_directories(venv.path / "bin");
  fs::create_symlink("/usr/bin/python3", venv.path / "bin" / "python3");
  const fs::path python = venv.path / "bin" / "python3";
  const auto a =
      confinedArgv({python.string(), "x.py"}, {{venv.path, python, venv.path / "bin"}, work.path, {}});
  const std::string root = fs::weakly_canonical(venv.path).string();
  int binds = 0;
  for (std::size_t i = 0; i + 1 < a.size(); ++i)
    if (a[i] == "--ro-bind" && a[i + 1].rfind(root, 0) == 0) ++binds;
  EXPECT_EQ(binds, 1);
  EXPECT_TRUE(hasPair(a, "--ro-bind", root));
}

TEST(Sandbox, AConfinedProgramWritesOnlyItsFolderAndSeesNoHome) {
  if (!sandboxProblem().empty()) GTEST_SKIP() << sandboxProblem();
  TempFolder work, outside;
  std::ofstream(outside.path / "secret.txt") << "SECRET";
  const std::string script = "echo x > " + (outside.path / "pwned").string() + "; cat " +
                             (outside.path / "secret.txt").string() + "; echo y > " +
                             (work.path / "ok").string() + "; exit 0";
  std::string out;
  ChildResult r = runChild(confinedArgv({"sh", "-c", script}, {{}, work.path, {}}), 20,
                           [&](const std::string& line) { out += line + "\n"; });
  EXPECT_EQ(r.exitCode, 0) << r.stderrText;
  EXPECT_FALSE(fs::exists(outside.path / "pwned"));
  EXPECT_EQ(out.find("SECRET"), std::string::npos);
  EXPECT_TRUE(fs::exists(work.path / "ok")) << r.stderrText;
}

// docs/triage.md, "The sandbox": a triage problem's runner needs the GPU inside the sandbox.
TEST(Sandbox, TheGpuBindsItsDeviceNodesAndTheDriversFolders) {
  TempFolder work, driver;
  const char* before = std::getenv("LD_LIBRARY_PATH");
  const std::string saved = before ? before : "";
  ::setenv("LD_LIBRARY_PATH", (driver.path.string() + ":relative/dir").c_str(), 1);
  SandboxPaths p{{}, work.path, {}};
  const auto without = confinedArgv({"true"}, p);
  p.gpu = true;
  const auto with = confinedArgv({"true"}, p);
  before ? ::setenv("LD_LIBRARY_PATH", saved.c_str(), 1) : ::unsetenv("LD_LIBRARY_PATH");
  for (const fs::path& n : gpuDeviceNodes()) {
    EXPECT_TRUE(hasPair(with, "--dev-bind", n.string())) << n;
    EXPECT_FALSE(hasPair(without, "--dev-bind", n.string())) << n;
  }
  // The driver's folder under /tmp (hidden) is shown read-only, only with the GPU.
  const std::string d = fs::weakly_canonical(driver.path).string();
  EXPECT_TRUE(hasPair(with, "--ro-bind", d));
  EXPECT_FALSE(hasPair(without, "--ro-bind", d));
  EXPECT_EQ(std::find(with.begin(), with.end(), "relative/dir"), with.end());
  // Every hidden root is a tmpfs of a bounded size.
  for (std::size_t i = 0; i + 2 < with.size(); ++i)
    if (with[i + 2] == "--tmpfs") {
      EXPECT_EQ(with[i], "--size");
    }
}

TEST(Sandbox, GpuDeviceNodesAreNvidiaNodes) {
  for (const fs::path& n : gpuDeviceNodes()) {
    EXPECT_EQ(n.parent_path(), "/dev");
    EXPECT_EQ(n.filename().string().rfind("nvidia", 0), 0u) << n;
  }
}

TEST(Sandbox, PathInsideIsComponentWise) {
  EXPECT_TRUE(pathInside("/a/b/c", "/a/b"));
  EXPECT_TRUE(pathInside("/a/b", "/a/b"));
  EXPECT_FALSE(pathInside("/a/bc", "/a/b"));
  EXPECT_FALSE(pathInside("/a", "/a/b"));
}

// N15: a child that prints without end (a kernel file's prints at import, a
// line without a newline) is stopped at its stdout limit instead of growing
// the parent's memory.
TEST(ChildOutputLimit, StopsAChildThatPrintsWithoutEnd) {
  std::size_t seen = 0;
  ChildResult r = runChild(
      {"sh", "-c", "yes xxxxxxxxxxxxxxxx | tr -d '\\n'"}, 30,
      [&](const std::string& line) { seen += line.size(); }, {}, {}, {}, 1 << 20);
  EXPECT_TRUE(r.outputCut);
  EXPECT_FALSE(r.timedOut);
  EXPECT_LE(seen, std::size_t{1} << 20);
  EXPECT_LT(r.seconds, 20);
}
