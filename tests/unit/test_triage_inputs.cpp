// A triage's folder search on folders made here (docs/triage.md, "Inputs";
// docs/security.md, "Folders and files from others"): roles read in linear time,
// symbolic links that lead out of the input not followed, a folder reached twice
// taken once, the entry cap, and a capture folder whose capture.json names files
// outside itself.
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

namespace {

/// A capture folder "cap" whose capture.json names these configs (id i+1 each).
fs::path captureNaming(const TempDir& d, const std::vector<std::string>& configs) {
  CaptureInfo info;
  info.exit.status = "exited";
  for (std::size_t i = 0; i < configs.size(); ++i) {
    CapturedLaunch l;
    l.id = std::to_string(i + 1);
    l.kernel = "k" + l.id;
    l.config = configs[i];
    info.launches.push_back(l);
  }
  d.write("cap/capture.json", toJson(info).dump());
  return d.path / "cap";
}

}  // namespace

TEST(CaptureFolder, ConfigsOutsideTheFolderAreRefused) {
  TempDir d;
  d.write("elsewhere/private.tscfg.json", "{}");
  d.write("cap/ok.tscfg.json", "{}");
  d.write("cap/sub/deep.tscfg.json", "{}");
  const fs::path cap =
      captureNaming(d, {"ok.tscfg.json", "../elsewhere/private.tscfg.json", "/etc/hostname",
                        "link.tscfg.json", "sub/../sub/deep.tscfg.json", "sub/../../cap/ok.tscfg.json"});
  fs::create_symlink("../elsewhere/private.tscfg.json", cap / "link.tscfg.json");
  const CaptureInfo info = loadCaptureInfo(cap);
  ASSERT_EQ(info.launches.size(), 6u);
  EXPECT_EQ(info.launches[0].config, "ok.tscfg.json");
  for (int i : {1, 3}) {
    EXPECT_EQ(info.launches[i].config, "");
    EXPECT_NE(info.launches[i].reason.find("resolves outside the capture folder"), std::string::npos) << i;
  }
  EXPECT_NE(info.launches[2].reason.find("is an absolute path"), std::string::npos);
  EXPECT_EQ(info.launches[4].config, "sub/../sub/deep.tscfg.json");  // inside, however spelled
  EXPECT_EQ(info.launches[5].config, "sub/../../cap/ok.tscfg.json");
  // Triage lists the refused launches as not run, with the reason, and names no outside file.
  const auto in = discoverTriageInputs({cap.string()}, nullptr);
  ASSERT_EQ(in.size(), 5u);  // the last names the first's config: one entry
  for (int i : {1, 2, 3}) {
    EXPECT_EQ(plannedEntry(in[i]).status, EntryStatus::not_run);
    EXPECT_NE(in[i].skipReason.find("refused"), std::string::npos);
    EXPECT_EQ(in[i].inputs, (std::vector<std::string>{(cap / "capture.json").string()}));
  }
}

TEST(CaptureFolder, ALaunchIdIsOneFolderName) {
  TempDir d;
  const fs::path cap = captureNaming(d, {"a.tscfg.json"});
  CaptureInfo info = loadCaptureInfo(cap);
  info.launches[0].id = "../../x";
  confineCaptureInfo(cap, info);
  EXPECT_EQ(info.launches[0].config, "");
  EXPECT_NE(info.launches[0].reason.find("not a folder name"), std::string::npos);
}

TEST(CaptureFolder, ALaunchRecordNamingFilesOutsideIsNotUsed) {
  TempDir d;
  LaunchRecord ok;
  ok.recorder = ok.language = "cuda";
  ok.kernel = "k";
  ok.image = "modules/m.cubin";
  LaunchArg a;
  a.name = "x";
  a.kind = "pointer";
  a.before = "x.before.npy";
  ok.args = {a};
  d.write("cap/launches/0001/launch.json", toJson(ok).dump());
  LaunchRecord bad = ok;
  bad.args[0].before = "../../../elsewhere/x.npy";
  d.write("cap/launches/0002/launch.json", toJson(bad).dump());
  bad = ok;
  bad.source.copy = "/etc/passwd";
  d.write("cap/launches/0003/launch.json", toJson(bad).dump());
  bad = ok;
  bad.image = "../elsewhere/m.cubin";
  d.write("cap/launches/0004/launch.json", toJson(bad).dump());
  std::vector<std::string> errors;
  const std::vector<LaunchRecord> got = readLaunches(d.path / "cap", &errors);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].id, "0001");
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_NE(errors[0].find("args.x.before"), std::string::npos);
  EXPECT_NE(errors[1].find("source.copy"), std::string::npos);
  EXPECT_NE(errors[2].find("image"), std::string::npos);
}

// A capture folder whose launches/ (or one launch's folder) links elsewhere: no
// record outside the folder is read, and none of its .npy names reach out.
TEST(CaptureFolder, LaunchFoldersLinkedOutsideAreNotRead) {
  TempDir d;
  LaunchRecord ok;
  ok.recorder = ok.language = "cuda";
  ok.kernel = "k";
  LaunchArg a;
  a.name = "x";
  a.kind = "pointer";
  a.before = "x.before.npy";
  ok.args = {a};
  d.write("elsewhere/launches/0001/launch.json", toJson(ok).dump());
  d.write("cap2/launches/0002/launch.json", toJson(ok).dump());
  fs::create_directories(d.path / "cap");
  fs::create_directory_symlink(d.path / "elsewhere" / "launches", d.path / "cap" / "launches");
  std::vector<std::string> errors;
  EXPECT_TRUE(readLaunches(d.path / "cap", &errors).empty());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("resolves outside the capture folder"), std::string::npos) << errors[0];
  // One launch's folder linked out, beside one inside.
  fs::create_directory_symlink(d.path / "elsewhere" / "launches" / "0001",
                               d.path / "cap2" / "launches" / "0001");
  errors.clear();
  const std::vector<LaunchRecord> got = readLaunches(d.path / "cap2", &errors);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].id, "0002");
  EXPECT_EQ(errors.size(), 1u);
}
