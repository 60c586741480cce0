// The layouts a triage pairs (docs/triage.md, "Inputs"), each on a folder made
// here: NAME_ref.py + NAME_new.py, reference/ + candidate/ folders (nested too),
// KernelBench's level folders with a runs folder of samples, the --pairs manifest
// and its errors; what is left alone names the files looked for, and a not-run
// entry carries no verdict.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "tilescope/triage/triage.h"
#include "tilescope/triage/triage_inputs.h"

namespace fs = std::filesystem;
using namespace tilescope;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    char t[] = "/tmp/tilescope-triage-layouts-XXXXXX";
    path = ::mkdtemp(t);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string write(const std::string& rel, const std::string& text) const {
    const fs::path p = path / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
};

const char* kReference =
    "import torch\nclass Model(torch.nn.Module):\n    pass\ndef get_inputs():\n    return []\n";
const char* kCandidate = "import torch\nclass ModelNew(torch.nn.Module):\n    pass\n";

using Strings = std::vector<std::string>;

std::map<std::string, TriageInput> byId(const std::vector<TriageInput>& in) {
  std::map<std::string, TriageInput> m;
  for (const TriageInput& i : in) EXPECT_TRUE(m.emplace(i.id, i).second) << "twice: " << i.id;
  return m;
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

/// The message of readTriagePairs for a manifest of these lines ("" when it reads).
std::string manifestError(const TempDir& d, const std::string& lines, bool allowOutside = false) {
  const std::string m = d.write("m/pairs.tsv", lines);
  try {
    readTriagePairs(m, allowOutside);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(TriageLayouts, RefAndNewSuffixesPair) {
  TempDir d;
  Strings refs, cands;
  for (int i = 0; i < 40; ++i) {  // the folder: 40 pairs that came out as 80 entries not run
    refs.push_back(d.write("p/" + std::to_string(i) + "_op_ref.py", kReference));
    cands.push_back(d.write("p/" + std::to_string(i) + "_op_new.py", kCandidate));
  }
  const std::string plainRef = d.write("q/17_relu.py", kReference),
                    plainNew = d.write("q/17_relu_new.py", kCandidate);
  const std::string refOnly = d.write("q/gelu_ref.py", kReference),
                    plainCand = d.write("q/gelu.py", kCandidate);
  const std::string lonely = d.write("q/tanh_ref.py", kReference);
  std::vector<std::string> problems;
  const auto in = byId(discoverTriageInputs({(d.path / "p").string(), (d.path / "q").string()}, &problems));
  EXPECT_TRUE(problems.empty());
  ASSERT_EQ(in.size(), 43u);
  for (int i = 0; i < 40; ++i) {
    const TriageInput& e = in.at(cands[i]);
    EXPECT_EQ(e.inputs, (Strings{refs[i], cands[i]}));
    EXPECT_EQ(e.name, std::to_string(i) + "_op");
    EXPECT_TRUE(e.skipReason.empty()) << e.skipReason;
  }
  EXPECT_EQ(in.at(plainNew).inputs, (Strings{plainRef, plainNew}));  // NAME.py is still looked for first
  EXPECT_EQ(in.at(plainCand).inputs, (Strings{refOnly, plainCand}));
  EXPECT_EQ(in.at(plainCand).name, "gelu");
  const std::string why = in.at(lonely).skipReason;
  EXPECT_TRUE(has(why, "no candidate found for this reference: looked for tanh_new.py, tanh.py")) << why;
  EXPECT_TRUE(has(why, "--pairs FILE")) << why;
}

TEST(TriageLayouts, ReferenceAndCandidateFoldersPairByTheSameNames) {
  TempDir d;
  const std::string r1 = d.write("set/reference/3_gemm.py", kReference);
  const std::string c1 = d.write("set/candidate/3_gemm.py", kCandidate);
  const std::string c1b =
      d.write("set/candidate/3_gemm_new.py", kCandidate);  // a second candidate, same reference
  const std::string r2 = d.write("kb/references/level1/19_relu.py", kReference);
  const std::string c2 = d.write("kb/candidates/level1/19_relu.py", kCandidate);
  const std::string c3 = d.write("set/candidate/sub/7_x.py", kCandidate);
  const std::string r4 = d.write("set/reference/8_y.py", kReference);
  const auto in = byId(discoverTriageInputs({d.path.string()}, nullptr));
  ASSERT_EQ(in.size(), 5u);
  EXPECT_EQ(in.at(c1).inputs, (Strings{r1, c1}));
  EXPECT_EQ(in.at(c1b).inputs, (Strings{r1, c1b}));
  EXPECT_EQ(in.at(c2).inputs, (Strings{r2, c2}));  // folders below reference[s]/ mirror each other
  EXPECT_TRUE(in.at(c2).skipReason.empty());
  const std::string noRef = in.at(c3).skipReason;
  EXPECT_TRUE(has(
      noRef, "no reference found for this candidate: looked for 7_x_ref.py, ../../reference[s]/sub/7_x.py"))
      << noRef;
  const std::string noCand = in.at(r4).skipReason;
  EXPECT_TRUE(has(noCand, "looked for 8_y_new.py, ../candidate[s]/8_y[_new].py")) << noCand;
  // A candidate named alone finds its mirrored reference.
  const auto one = discoverTriageInputs({c2}, nullptr);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].inputs, (Strings{r2, c2}));
}

TEST(TriageLayouts, KernelBenchSamplesPairByLevelAndProblemNumber) {
  TempDir d;
  const std::string relu = d.write("KernelBench/level1/19_ReLU.py", kReference);
  const std::string other = d.write("KernelBench/level2/19_Conv2d_ReLU.py", kReference);
  const std::string square = d.write("KernelBench/level1/1_Square_matmul.py", kReference);
  const std::string s0 = d.write("runs/r/level_1_problem_19_sample_0_kernel.py", kCandidate);
  const std::string s1 = d.write("runs/r/level_1_problem_19_sample_1_kernel.py", kCandidate);
  // A sample that copied the reference's classes is judged against the benchmark's reference.
  const std::string s2 =
      d.write("runs/r/level_2_problem_19_sample_0_kernel.py", std::string(kReference) + kCandidate);
  const std::string orphan = d.write("runs/r/level_3_problem_5_sample_0_kernel.py", kCandidate);
  const std::string empty = d.write("runs/r/level_1_problem_1_sample_0_kernel.py", "# the model gave up\n");
  const std::string notes = d.write("runs/r/helpers.py", "def f():\n  pass\n");
  std::vector<std::string> problems;
  const std::vector<TriageInput> list =
      discoverTriageInputs({(d.path / "KernelBench").string(), (d.path / "runs").string()}, &problems);
  EXPECT_TRUE(problems.empty());
  const auto in = byId(list);
  ASSERT_EQ(in.size(), 6u);  // 5 samples, one reference without a sample; helpers.py is nothing
  EXPECT_EQ(in.at(s0).inputs, (Strings{relu, s0}));
  EXPECT_EQ(in.at(s0).name, "level1/19_ReLU/sample_0");
  EXPECT_EQ(in.at(s1).inputs, (Strings{relu, s1}));
  EXPECT_EQ(in.at(s1).name, "level1/19_ReLU/sample_1");
  EXPECT_EQ(in.at(s2).inputs, (Strings{other, s2}));
  EXPECT_EQ(
      in.at(orphan).skipReason,
      "no reference found for this candidate: looked for level3/5_*.py (a KernelBench level folder among "
      "the inputs); --pairs FILE pairs files of any name");
  EXPECT_TRUE(has(in.at(empty).skipReason, "holds no top-level class ModelNew")) << in.at(empty).skipReason;
  EXPECT_TRUE(has(in.at(square).skipReason, "level_1_problem_1_sample_*_kernel.py"))
      << in.at(square).skipReason;
  EXPECT_EQ(in.count(notes), 0u);
  // Problems are listed with the input that found their candidate: the samples after KernelBench's own.
  const auto at = [&](const std::string& id) {
    return std::find_if(list.begin(), list.end(), [&](const TriageInput& i) { return i.id == id; }) -
           list.begin();
  };
  EXPECT_LT(at(square), at(s0));
  // Without the level folders the samples say where their reference would be.
  const auto alone = byId(discoverTriageInputs({(d.path / "runs").string()}, nullptr));
  EXPECT_TRUE(has(alone.at(s0).skipReason, "level1/19_*.py")) << alone.at(s0).skipReason;
  EXPECT_EQ(alone.at(s2).inputs, (Strings{s2, s2}));  // no problem of its own here: a problem alone
}

TEST(TriageLayouts, AManifestListsPairsOfAnyName) {
  TempDir d;
  const std::string ref = d.write("m/refs/relu.py", kReference),
                    cand = d.write("m/try/attempt3.py", kCandidate);
  const std::string ref2 = d.write("m/refs/gelu.py", kReference), cand2 = d.write("m/try/g.py", kCandidate);
  const std::string m = d.write("m/pairs.tsv",
                                "# tilescope.triage.pairs/1\n"
                                "# reference\tcandidate\tname\n"
                                "\n"
                                "refs/relu.py\ttry/attempt3.py\trelu, third try\r\n" +
                                    (d.path / "m/refs/gelu.py").string() + "\t try/g.py \n");
  const std::vector<TriageInput> in = readTriagePairs(m);
  ASSERT_EQ(in.size(), 2u);
  EXPECT_EQ(in[0].inputs, (Strings{ref, cand}));
  EXPECT_EQ(in[0].id, cand);
  EXPECT_EQ(in[0].name, "relu, third try");
  EXPECT_EQ(in[0].kind, EntryKind::problem);
  EXPECT_EQ(in[1].inputs, (Strings{ref2, cand2}));  // an absolute path inside the folder; blanks trimmed
  EXPECT_EQ(in[1].name, "gelu");
  // A manifest pair takes the place of the same candidate left alone by a folder search.
  std::vector<TriageInput> all = discoverTriageInputs({(d.path / "m").string()}, nullptr);
  ASSERT_EQ(byId(all).count(cand), 1u);
  EXPECT_FALSE(byId(all).at(cand).skipReason.empty());
  mergeTriageInputs(all, readTriagePairs(m));
  EXPECT_EQ(byId(all).at(cand).inputs, (Strings{ref, cand}));
  EXPECT_EQ(byId(all).at(cand).skipReason, "");
}

TEST(TriageLayouts, AManifestLineThatBreaksARuleNamesTheFileAndLine) {
  TempDir d;
  d.write("m/r.py", kReference);
  d.write("m/c.py", kCandidate);
  d.write("outside/secret.py", kCandidate);
  fs::create_directories(d.path / "m");
  fs::create_symlink("../outside/secret.py", d.path / "m/link.py");
  const std::string at = (d.path / "m/pairs.tsv").string() + ":";
  const std::map<std::string, std::string> cases = {
      {"r.py\tc.py\n\nr.py c.py\n", at + "3: expected REFERENCE<TAB>CANDIDATE[<TAB>NAME], found 1 field"},
      {"r.py\tc.py\tn\tx\n", at + "1: expected REFERENCE<TAB>CANDIDATE[<TAB>NAME], found more than 3 fields"},
      {"r.py\t\n", at + "1: the candidate is empty"},
      {"r.py\t../outside/secret.py\n", at + "1: the candidate '../outside/secret.py' resolves outside"},
      {"r.py\tlink.py\n", at + "1: the candidate 'link.py' resolves outside"},
      {"/etc/hostname\tc.py\n", at + "1: the reference '/etc/hostname' resolves outside"},
      {"r.py\tmissing.py\n", at + "1: the candidate 'missing.py': no such file"},
      {"c.py\tr.py\n", at + "1: the reference 'c.py' holds no top-level class Model with def get_inputs (the "
                            "columns swapped?)"},
      {"# tilescope.triage.pairs/2\nr.py\tc.py\n", at + "1: the format is tilescope.triage.pairs/2"},
      {"r.py\tc.py\tbad\x01name\n", at + "1: the name holds a control character"},
      {"# only a comment\n", (d.path / "m/pairs.tsv").string() + ": no pairs"},
  };
  for (const auto& [text, want] : cases) {
    const std::string got = manifestError(d, text);
    EXPECT_EQ(got.rfind(want, 0), 0u) << "manifest:\n" << text << "\ngot: " << got << "\nwanted: " << want;
    EXPECT_FALSE(has(got, "no such file") && has(text, "outside"))
        << got;  // nothing said about files outside
  }
  // --allow-outside-paths is the user's consent to paths outside the folder.
  EXPECT_EQ(manifestError(d, "r.py\t../outside/secret.py\n", true), "");
  const std::string secret = (d.path / "outside/secret.py").string();
  EXPECT_TRUE(has(manifestError(d, secret + "\tc.py\n", true), "holds no top-level class Model"));
  EXPECT_THROW(readTriagePairs(d.path / "none.tsv"), std::runtime_error);
}

TEST(TriageLayouts, AnEntryNotRunCarriesNoVerdict) {
  TempDir d;
  const std::string lonely = d.write("p/9_lonely.py", kReference);
  const auto in = discoverTriageInputs({lonely}, nullptr);
  ASSERT_EQ(in.size(), 1u);
  const TriageEntry e = plannedEntry(in[0]);
  EXPECT_EQ(e.status, EntryStatus::not_run);
  const nlohmann::json j = toJson(e);
  EXPECT_FALSE(j.contains("verdict")) << j.dump();
  EXPECT_EQ(triageEntryFromJson(j), e);  // and it reads back
  TriageEntry pending = e;
  pending.status = EntryStatus::pending;
  EXPECT_FALSE(toJson(pending).contains("verdict"));
  TriageEntry done = e;
  done.status = EntryStatus::done;
  EXPECT_EQ(toJson(done).at("verdict"), "ok");  // a judged entry keeps its verdict, ok included
}
