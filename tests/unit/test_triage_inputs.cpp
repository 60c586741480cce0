// A triage's folder search on folders made here (issue 38, T4 and T6): roles
// read in linear time, symbolic links that lead out of the input not followed,
// a folder reached twice taken once, the entry cap, and a capture folder whose
// capture.json names files outside itself.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "tilescope/capture/capture.h"
#include "tilescope/triage/triage_inputs.h"

namespace fs = std::filesystem;
using namespace tilescope;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    char t[] = "/tmp/tilescope-triage-inputs-XXXXXX";
    path = ::mkdtemp(t);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path write(const std::string& rel, const std::string& text) const {
    const fs::path p = path / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p;
  }
};

const char* kReference =
    "import torch\nclass Model(torch.nn.Module):\n    pass\ndef get_inputs():\n    return []\n";
const char* kCandidate = "import torch\nclass ModelNew(torch.nn.Module):\n    pass\n";

bool mentions(const std::vector<std::string>& problems, const std::string& what) {
  return std::any_of(problems.begin(), problems.end(),
                     [&](const std::string& p) { return p.find(what) != std::string::npos; });
}

}  // namespace

TEST(TriageInputs, PyRoleReadsLinesInLinearTime) {
  EXPECT_EQ(pyRole("class\tModelNew :\n"), PyRole::candidate);
  EXPECT_EQ(pyRole("class ModelNew\r\n"), PyRole::none);  // neither ( nor :
  EXPECT_EQ(pyRole("class ModelNewer(x):\n"), PyRole::none);
  EXPECT_EQ(pyRole("classModelNew(x):\n"), PyRole::none);
  EXPECT_EQ(pyRole("class Model:\ndef get_inputs ():"), PyRole::reference);  // the last line has no newline
  // The reproducer's file: "class", 200,000 newlines, "ModelNew(": a class per line only.
  EXPECT_EQ(pyRole("class" + std::string(200000, '\n') + "ModelNew(object):\n"), PyRole::none);
  // A 4 MiB line of blanks after "class": looked at up to kMaxRoleLineChars.
  EXPECT_EQ(pyRole("class" + std::string(4u << 20, ' ') + "ModelNew(x):\n"), PyRole::none);
  EXPECT_EQ(pyRole("class" + std::string(kMaxRoleLineChars - 20, ' ') + "ModelNew(x):\n"), PyRole::candidate);
}

TEST(TriageInputs, AJsonSchemaIsFoundByALinearScan) {
  TempDir d;
  const fs::path spaced =
      d.write("long.json", "{\"schema\"" + std::string(200000, ' ') + ": \"tilescope.config/1\"}");
  const fs::path other = d.write("other.json", "{\"schema\": \"tilescope.report/1\", \"x\": \"schema\"}");
  std::vector<std::string> problems;
  const auto in = discoverTriageInputs({spaced.string(), other.string()}, &problems);
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(in[0].name, "long");
  EXPECT_TRUE(mentions(problems, "other.json: not a config"));
}

TEST(TriageInputs, AFolderReachedTwiceIsTakenOnce) {
  TempDir d;
  const fs::path cfg = d.write("inputs/k.tscfg.json", "{}");
  for (const char* l : {"a", "b", "c", "d"}) fs::create_directory_symlink(".", d.path / "inputs" / l);
  d.write("inputs/real/x.tscfg.json", "{}");
  fs::create_directory_symlink("real",
                               d.path / "inputs" / "0alias");  // sorts first: the real path still wins
  fs::create_symlink("k.tscfg.json", d.path / "inputs" / "0k.tscfg.json");
  std::vector<std::string> problems;
  const auto in = discoverTriageInputs({(d.path / "inputs").string()}, &problems);
  ASSERT_EQ(in.size(), 2u);
  EXPECT_EQ(in[0].id, cfg.string());
  EXPECT_EQ(in[1].id, (d.path / "inputs/real/x.tscfg.json").string());
  EXPECT_TRUE(problems.empty());
}

TEST(TriageInputs, LinksOutOfTheFolderAreNotFollowed) {
  TempDir d;
  d.write("inputs/k.tscfg.json", "{}");
  d.write("outside/secret.tscfg.json", "{}");
  d.write("outside/17_relu.py", kReference);
  d.write("outside/17_relu_new.py", kCandidate);
  fs::create_directory_symlink("/", d.path / "inputs/root");
  fs::create_directory_symlink("../outside", d.path / "inputs/home");
  fs::create_symlink("../outside/secret.tscfg.json", d.path / "inputs/s.tscfg.json");
  fs::create_symlink("../outside/17_relu_new.py", d.path / "inputs/17_relu_new.py");
  fs::create_directories(d.path / "inputs/sub");
  fs::create_directory_symlink("../..", d.path / "inputs/sub/up");  // a link met deeper, out again
  std::vector<std::string> problems;
  const auto in = discoverTriageInputs({(d.path / "inputs").string()}, &problems);
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(in[0].name, "k");
  EXPECT_TRUE(mentions(problems, "5 symbolic link(s) lead out of the folder and were not followed"));
  // A link named on the command line is the user's choice: it is followed, and its folder is the root.
  fs::create_directory_symlink(d.path / "outside", d.path / "named");
  const auto named = discoverTriageInputs({(d.path / "named").string()}, nullptr);
  EXPECT_EQ(named.size(), 2u);  // secret, and the 17_relu pair
}

TEST(TriageInputs, OneSearchStopsAtTheCap) {
  TempDir d;
  fs::create_directories(d.path / "many");
  for (std::size_t i = 0; i < kMaxTriageSearchEntries + 5; ++i)
    std::ofstream(d.path / "many" / ("k" + std::to_string(i) + ".tscfg.json")) << "{}";
  std::vector<std::string> problems;
  const auto in = discoverTriageInputs({(d.path / "many").string()}, &problems);
  EXPECT_EQ(in.size(), kMaxTriageSearchEntries);
  EXPECT_TRUE(mentions(problems, "the search stopped at " + std::to_string(kMaxTriageSearchEntries)));
}
