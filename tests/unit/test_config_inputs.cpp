// configInputs: the one list of files a config reads, which both the trust check
// and remote staging walk (config_inputs.h).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "tilescope/config/config_inputs.h"

namespace tilescope {
namespace {

namespace fs = std::filesystem;
using Kind = ConfigInput::Kind;

struct Folder {
  fs::path dir;
  Folder() {
    char t[] = "/tmp/tilescope-inputs-XXXXXX";
    dir = fs::path(mkdtemp(t)) / "cfg";
    fs::create_directories(dir / "inc");
    std::ofstream(dir / "k.cu")
        << "#include \"inc/tile.h\"\n#define H \"x.h\"\n#include H\n__global__ void k() {}\n";
    std::ofstream(dir / "inc" / "tile.h") << "#pragma once\n#include <pre.h>\n";
    std::ofstream(dir / "pre.h") << "// read first\n";
  }
  ~Folder() { fs::remove_all(dir.parent_path()); }
  KernelSpec kernel(const std::string& source) const {
    KernelSpec k;
    k.source = source;
    k.sourcePath = dir / source;
    k.baseDir = dir;
    return k;
  }
};

const ConfigInput* find(const std::vector<ConfigInput>& v, Kind kind, const std::string& jsonPath) {
  auto it = std::find_if(v.begin(), v.end(),
                         [&](const ConfigInput& i) { return i.kind == kind && i.jsonPath == jsonPath; });
  return it == v.end() ? nullptr : &*it;
}

TEST(ConfigInputs, ACudaKernelsSourceOptionsIncludesAndNpyFilesEachWithItsJsonPath) {
  Folder f;
  Config c;
  c.dir = f.dir;
  c.path = f.dir / "c.tscfg.json";
  c.kernel = f.kernel("k.cu");
  c.kernel.options = {"-std=c++17", "-I", "inc", "-include", "pre.h", "--include-path=/opt/x"};
  c.reference.op = "kernel";
  c.reference.kernel = f.kernel("k.cu");
  TensorSpec t;
  t.name = "A";
  t.init = "npy:data/a.npy";
  t.expected = "randn";
  c.tensors.push_back(t);
  const std::vector<ConfigInput> in = configInputs(c, "");

  ASSERT_FALSE(in.empty());
  EXPECT_EQ(in.front().kind, Kind::config);
  EXPECT_EQ(in.front().path, c.path);
  const ConfigInput* src = find(in, Kind::source, "kernel.source");
  ASSERT_NE(src, nullptr);
  EXPECT_EQ(src->path, f.dir / "k.cu");
  EXPECT_NE(find(in, Kind::source, "reference.source"), nullptr);

  // Options name the flag's index and resolve against the kernel's folder.
  const ConfigInput* dirOpt = find(in, Kind::includeDir, "kernel.options[1]");
  ASSERT_NE(dirOpt, nullptr);
  EXPECT_EQ(dirOpt->spelled, "inc");
  EXPECT_EQ(dirOpt->path, f.dir / "inc");
  const ConfigInput* pre = find(in, Kind::preInclude, "kernel.options[3]");
  ASSERT_NE(pre, nullptr);
  EXPECT_EQ(pre->path, f.dir / "pre.h");
  const ConfigInput* abs = find(in, Kind::includeDir, "kernel.options[5]");
  ASSERT_NE(abs, nullptr);
  EXPECT_EQ(abs->path, fs::path("/opt/x"));

  // #include lines: where they lead, from which file and line; a computed one has no path.
  std::vector<std::string> reached;
  int computed = 0;
  for (const ConfigInput& i : in) {
    if (i.kind == Kind::include && i.jsonPath == "kernel.source")
      reached.push_back(fs::weakly_canonical(i.path).string());
    if (i.kind == Kind::computedInclude && i.jsonPath == "kernel.source") {
      ++computed;
      EXPECT_TRUE(i.path.empty());
      EXPECT_EQ(i.spelled, "H");
      EXPECT_EQ(i.line, 3);
    }
  }
  EXPECT_EQ(computed, 1);
  const std::string tile = fs::weakly_canonical(f.dir / "inc" / "tile.h").string();
  const std::string preReal = fs::weakly_canonical(f.dir / "pre.h").string();
  EXPECT_NE(std::find(reached.begin(), reached.end(), tile), reached.end());
  EXPECT_NE(std::find(reached.begin(), reached.end(), preReal),
            reached.end());  // <pre.h>: found in the source's folder

  const ConfigInput* npy = find(in, Kind::npy, "tensors.A.init");
  ASSERT_NE(npy, nullptr);
  EXPECT_EQ(npy->spelled, "data/a.npy");
  EXPECT_EQ(npy->path, f.dir / "data" / "a.npy");
  EXPECT_EQ(find(in, Kind::npy, "tensors.A.expected"), nullptr);  // randn reads no file
  EXPECT_EQ(in.back().kind, Kind::npy);
}

TEST(ConfigInputs, APythonKernelListsItsNeighbourModulesAndNoIncludes) {
  Folder f;
  std::ofstream(f.dir / "k.py") << "#include \"inc/tile.h\"\nimport helper\n";
  std::ofstream(f.dir / "helper.py") << "X = 1\n";
  Config c;
  c.dir = f.dir;
  c.kernel = f.kernel("k.py");
  c.kernel.language = "triton";
  c.kernel.options = {"-Iinc"};  // a Python compile passes no include options
  const std::vector<ConfigInput> in = configInputs(c, "");
  std::vector<std::string> modules;
  for (const ConfigInput& i : in) {
    EXPECT_NE(i.kind, Kind::include);
    EXPECT_NE(i.kind, Kind::includeDir);
    if (i.kind == Kind::module) modules.push_back(i.path.filename().string());
  }
  std::sort(modules.begin(), modules.end());
  EXPECT_EQ(modules, (std::vector<std::string>{"helper.py", "k.py"}));
  EXPECT_EQ(in.front().kind, Kind::source);  // no config file named
}

}  // namespace
}  // namespace tilescope
