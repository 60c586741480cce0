// The #include scan (includes.h): what NVRTC would read, found the way it finds it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tilescope/config/includes.h"

namespace tilescope {
namespace {

namespace fs = std::filesystem;

struct Scratch {
  fs::path dir;
  Scratch() {
    char t[] = "/tmp/tilescope-includes-XXXXXX";
    dir = mkdtemp(t);
  }
  ~Scratch() { fs::remove_all(dir); }
  void write(const std::string& rel, const std::string& text) const {
    fs::create_directories((dir / rel).parent_path());
    std::ofstream(dir / rel) << text;
  }
};

KernelSpec kernel(const Scratch& s, std::vector<std::string> options = {}) {
  KernelSpec k;
  k.sourcePath = s.dir / "cfg" / "k.cu";
  k.baseDir = s.dir / "cfg";
  k.options = std::move(options);
  return k;
}

TEST(Includes, FollowsQuotedAndAngledIncludesInNvrtcOrder) {
  Scratch s;
  s.write("cfg/k.cu",
          "#include \"a.h\"\n  #  include <b.h>\n#include \"missing.h\"\n__global__ void k() {}\n");
  s.write("cfg/a.h", "#pragma once\n#include \"a.h\"\n#include \"sub/c.h\"\n");  // a cycle too
  s.write("cfg/sub/c.h", "// c\n");
  s.write("inc/b.h", "#include \"d.h\"\n");
  s.write("inc/d.h", "// next to b.h\n");
  KernelSpec k = kernel(s, {"-I../inc"});  // relative to the config's folder
  const IncludeScan scan = scanIncludes(k.sourcePath, includeSearchFor(k, ""));
  std::vector<std::string> names;
  for (const auto& f : scan.files) names.push_back(f.filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"k.cu", "a.h", "c.h", "b.h", "d.h"}));
  ASSERT_EQ(scan.edges.size(), 6u);
  EXPECT_EQ(scan.edges[5].spelled, "\"missing.h\"");
  EXPECT_TRUE(scan.edges[5].to.empty());
  EXPECT_EQ(scan.edges[5].line, 3);
  EXPECT_FALSE(scan.truncated);
}

TEST(Includes, ComputedIncludesAreMarked) {
  Scratch s;
  s.write("cfg/k.cu", "#define H \"/etc/passwd\"\n#include H\n");
  KernelSpec k = kernel(s);
  const IncludeScan scan = scanIncludes(k.sourcePath, includeSearchFor(k, ""));
  ASSERT_EQ(scan.edges.size(), 1u);
  EXPECT_TRUE(scan.edges[0].computed);
  EXPECT_EQ(scan.edges[0].spelled, "H");
}

TEST(Includes, RelativeIncludeOptionsBecomeAbsolute) {
  Scratch s;
  KernelSpec k = kernel(s, {"-Iinc", "-I", "more", "--include-path=x", "-isystemsys", "-std=c++17",
                            "-include", "pre.h", "-I/abs"});
  const auto o = absoluteIncludeOptions(k);
  const std::string base = (s.dir / "cfg").string();
  EXPECT_EQ(o, (std::vector<std::string>{"-I" + base + "/inc", "-I", base + "/more",
                                         "--include-path=" + base + "/x", "-isystem" + base + "/sys",
                                         "-std=c++17", "-include", base + "/pre.h", "-I/abs"}));
}

TEST(Includes, AMegabyteLineIsReadWithoutRecursion) {
  Scratch s;
  s.write("cfg/k.cu", "#include \"" + std::string(1 << 20, 'x') + "\"\n" + std::string(1 << 20, 'y') + "\n");
  KernelSpec k = kernel(s);
  const IncludeScan scan = scanIncludes(k.sourcePath, includeSearchFor(k, ""));
  EXPECT_EQ(scan.edges.size(), 1u);
}

}  // namespace
}  // namespace tilescope
