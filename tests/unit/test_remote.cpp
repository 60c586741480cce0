// ssh destinations (docs/security.md, "Remote hosts"): a host name can never become an ssh
// option or a shell word, and the remote command is quoted for the remote shell.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "tilescope/run/remote.h"

namespace tilescope {
namespace {

TEST(Remote, OrdinaryHostsAreAccepted) {
  for (const char* h :
       {"gpu01", "gpu01.cluster.example.org", "alice@gpu01", "10.0.0.7", "fe80::1", "my_alias-2"})
    EXPECT_EQ(remoteHostProblem(h), "") << h;
}

TEST(Remote, HostileHostsAreRefused) {
  EXPECT_NE(remoteHostProblem("-oProxyCommand=touch /tmp/pwned").find("starts with '-'"), std::string::npos);
  EXPECT_NE(remoteHostProblem("alice@-oProxyCommand=x").find("starts with '-'"), std::string::npos);
  EXPECT_NE(remoteHostProblem("-alice@gpu").find("user name starts with '-'"), std::string::npos);
  EXPECT_NE(remoteHostProblem("gpu01 rm -rf ~").find("contains ' '"), std::string::npos);
  EXPECT_NE(remoteHostProblem("gpu01;id").find("contains ';'"), std::string::npos);
  EXPECT_NE(remoteHostProblem("$(id)").find("contains '$'"), std::string::npos);
  EXPECT_NE(remoteHostProblem("gpu\n01").find("byte 10"), std::string::npos);
  EXPECT_NE(remoteHostProblem("a@b@c").find("more than one '@'"), std::string::npos);
  EXPECT_NE(remoteHostProblem("").find("empty"), std::string::npos);
  EXPECT_NE(remoteHostProblem(std::string(300, 'a')).find("255"), std::string::npos);
  EXPECT_THROW((void)sshCommand("-oProxyCommand=x"), std::invalid_argument);
}

TEST(Remote, OptionsEndBeforeTheHostAndArgumentsAreQuoted) {
  const auto argv = sshCommand("gpu01", {"run", "/data/my kernel's/x.json", "--stream"});
  const std::vector<std::string> want{"ssh",           "-o",
                                      "BatchMode=yes", "--",
                                      "gpu01",         "tilescope-run",
                                      "'run'",         "'/data/my kernel'\\''s/x.json'",
                                      "'--stream'"};
  EXPECT_EQ(argv, want);
  EXPECT_EQ(shellQuote("$(id)"), "'$(id)'");
}

// A config folder with a kernel that includes a header from a subfolder, a .npy
// input, and a file beside them that nothing reads.
class RemoteFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = std::filesystem::temp_directory_path() / ("tilescope_remote_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "common");
    write("kern.cu",
          "#include \"common/tile.cuh\"\n#include <cuda_fp16.h>\nextern \"C\" __global__ void k(float* x) "
          "{}\n");
    write("common/tile.cuh", "#pragma once\n#include \"../shared.h\"\n");
    write("shared.h", "#pragma once\n");
    write("unused.txt", "nothing reads me");
    write("x.npy", "not read here");
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  void write(const std::string& rel, const std::string& text) { std::ofstream(dir / rel) << text; }
  /// A config at `rel` (below the folder) whose kernel source is `source`.
  Config config(const std::string& source, const std::string& init = "randn",
                const std::string& rel = "c.tscfg.json") {
    write(rel, R"({"schema": "tilescope.config/1", "name": "k",
      "kernel": {"source": ")" +
                   source + R"(", "entry": "k"},
      "tensors": {"x": {"dtype": "f32", "shape": [4], "init": ")" +
                   init + R"("}},
      "args": ["x"], "launch": {"grid": [1], "block": [32]}})");
    return loadConfig(dir / rel);
  }
  std::filesystem::path dir;
};

TEST_F(RemoteFilesTest, TheConfigItsSourceTheHeadersItIncludesAndItsNpyFiles) {
  const auto files = remoteFiles(config("kern.cu", "npy:x.npy"), "");
  std::vector<std::string> got;
  for (const auto& f : files) got.push_back(f.generic_string());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got,
            (std::vector<std::string>{"c.tscfg.json", "common/tile.cuh", "kern.cu", "shared.h", "x.npy"}));
}

TEST_F(RemoteFilesTest, AFileOutsideTheFolderIsNamedByItsJsonPath) {
  std::filesystem::create_directories(dir / "sub");
  try {
    (void)remoteFiles(config("../kern.cu", "randn", "sub/c.tscfg.json"), "");
    FAIL() << "a source outside the config's folder was accepted";
  } catch (const RemoteError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel.source"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--remote-shared"), std::string::npos) << e.what();
    EXPECT_FALSE(e.unreachable());
  }
}

TEST(Remote, StagingPacksRelativeNamesAndUnpacksIntoAFreshFolder) {
  const auto argv = remoteStageCommand("gpu01", "/data/my dir", {"c.json", "-x.cu"});
  ASSERT_EQ(argv.size(), 3u);
  EXPECT_EQ(argv[0], "sh");
  const std::string& line = argv[2];
  EXPECT_NE(line.find("tar -C '/data/my dir' -cf - './c.json' './-x.cu'"), std::string::npos) << line;
  EXPECT_NE(line.find("| ssh -o BatchMode=yes -- 'gpu01' "), std::string::npos) << line;
  EXPECT_NE(line.find("mktemp -d"), std::string::npos) << line;
  EXPECT_THROW((void)remoteStageCommand("-oProxyCommand=x", "/d", {}), std::invalid_argument);
}

TEST(Remote, CleanupRemovesOnlyAFolderStagingMade) {
  const auto argv = remoteCleanupCommand("gpu01", "/tmp/tilescope.AbC12345");
  EXPECT_EQ(argv.back(), "rm -rf -- '/tmp/tilescope.AbC12345'");
  for (const char* bad :
       {"/", "/home/alice", "tmp/tilescope.AbC12345", "/tmp/tilescope.x", "/tmp/tilescope.AbC12345/..",
        "/tmp/../tilescope.AbC12345/x", "/tmp/tilescope.AbC12345\n/"})
    EXPECT_THROW((void)remoteCleanupCommand("gpu01", bad), std::invalid_argument) << bad;
}

// capture --remote makes its own folder (docs/capture.md, "Remote": its removal was refused).
TEST(Remote, CleanupRemovesTheFolderCaptureMadeAndNothingLikeIt) {
  const auto mk = remoteCaptureFolderCommand("gpu01");
  EXPECT_EQ(mk.back(), "/tmp/tilescope-capture.XXXXXX");
  EXPECT_EQ(remoteCleanupCommand("gpu01", "/tmp/tilescope-capture.Ab12Cd").back(),
            "rm -rf -- '/tmp/tilescope-capture.Ab12Cd'");
  EXPECT_EQ(remoteCleanupCommand("gpu01", "/scratch/u/tilescope-capture.Ab12Cd").back(),
            "rm -rf -- '/scratch/u/tilescope-capture.Ab12Cd'");
  for (const char* bad :
       {"/tmp/tilescope-capture.Ab12C", "/tmp/tilescope-capture.Ab12Cd7", "/tmp/tilescope-capture.Ab12C-",
        "tmp/tilescope-capture.Ab12Cd", "/tmp/tilescope-capture.Ab12Cd/..",
        "/tmp/../tilescope-capture.Ab12Cd", "/tmp/tilescope-capture.XXXXXX/x",
        "/tmp/tilescope-capture.Ab12Cd\n/", "/tmp/tilescope.Ab12Cd", "/tmp/tilescope-capture.AbC12345",
        "/tmp/tilescope-other.Ab12Cd", "/home/alice"})
    EXPECT_THROW((void)remoteCleanupCommand("gpu01", bad), std::invalid_argument) << bad;
  EXPECT_THROW((void)remoteCaptureFolderCommand("-oProxyCommand=x"), std::invalid_argument);
}

}  // namespace
}  // namespace tilescope
