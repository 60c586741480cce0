// The triage's pure parts (docs/triage.md): the taxonomy and the speedup
// distribution on hand-built entries, the tilescope.triage/1 codec, the pairing
// rule and input discovery on a folder made here, the summaries of a report and
// of the runner's answer, and the export document.
#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>

#include "tilescope/base/format.h"
#include "tilescope/capture/capture.h"
#include "tilescope/diagnose/tree.h"
#include "tilescope/triage/triage_document.h"
#include "tilescope/triage/triage_inputs.h"
#include "tilescope/triage/triage_run.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace tilescope;

namespace {

TriageEntry entry(const std::string& name, Verdict v, const std::string& cat, const std::string& detail = "",
                  std::optional<double> speedup = std::nullopt) {
  TriageEntry e;
  e.id = "problems/" + name + "_new.py";
  e.name = name;
  e.kind = EntryKind::problem;
  e.status = EntryStatus::done;
  e.verdict = v;
  e.category = cat;
  e.detail = detail;
  e.speed.speedup = speedup;
  if (speedup) e.speed.against = "reference";
  return e;
}

std::vector<TriageEntry> sample() {
  std::vector<TriageEntry> v = {
      entry("a", Verdict::ok, "", "", 2.0),
      entry("b", Verdict::ok, "", "", 0.5),
      entry("c", Verdict::ok, "", "", 1.1),
      entry("d", Verdict::compile_error, "compile_error", "triton_arange_constexpr"),
      entry("e", Verdict::compile_error, "compile_error", "triton_arange_constexpr"),
      entry("f", Verdict::compile_error, "compile_error", "triton_dot_shape"),
      entry("g", Verdict::fault, "oob_write"),
      entry("h", Verdict::incorrect, "mismatch", "", 3.0),  // not correct: its speed does not count
  };
  TriageEntry pending = entry("p", Verdict::ok, "");
  pending.status = EntryStatus::pending;
  TriageEntry notRun = entry("n", Verdict::ok, "");
  notRun.status = EntryStatus::not_run;
  notRun.note = "no candidate found";
  v.push_back(pending);
  v.push_back(notRun);
  return v;
}

struct TempDir {
  fs::path path;
  TempDir() {
    char t[] = "/tmp/tilescope-triage-test-XXXXXX";
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

}  // namespace

TEST(TriageTaxonomy, CountsCategoriesAndDetailsOverFinishedEntries) {
  const std::vector<TaxonomyRow> rows = taxonomy(sample());
  // 9 finished (the pending one is left out): ok 3, compile_error 3 (2 + 1), oob 1, mismatch 1, not_run 1.
  ASSERT_GE(rows.size(), 7u);
  EXPECT_EQ(rows[0].category, "compile_error");  // 3, before ok (3) by name
  EXPECT_EQ(rows[0].count, 3);
  EXPECT_NEAR(rows[0].percent, 100.0 * 3 / 9, 1e-9);
  EXPECT_EQ(rows[1].detail, "triton_arange_constexpr");
  EXPECT_EQ(rows[1].count, 2);
  EXPECT_NEAR(rows[1].share, 100.0 * 2 / 3, 1e-9);
  EXPECT_EQ(rows[2].detail, "triton_dot_shape");
  EXPECT_EQ(rows[3].category, "ok");
  EXPECT_EQ(rows[3].count, 3);
  int total = 0;
  for (const TaxonomyRow& r : rows)
    if (r.detail.empty()) total += r.count;
  EXPECT_EQ(total, 9);
}

TEST(TriageTaxonomy, AnEntryCheckedWithoutAGpuIsNotCalledCorrect) {
  TriageEntry e = entry("x", Verdict::ok, "");
  EXPECT_EQ(taxonomyKey(e), "ok");
  e.extra["no_gpu"] = true;
  EXPECT_EQ(taxonomyKey(e), "checked");
  e.status = EntryStatus::pending;
  EXPECT_EQ(taxonomyKey(e), "pending");
  // --depth check on a GPU machine: judged by check alone, not called correct either.
  TriageEntry c = entry("y", Verdict::ok, "");
  c.level = "check";
  EXPECT_EQ(taxonomyKey(c), "checked");
  TriageEntry r = entry("z", Verdict::ok, "");
  r.level = "runner";  // a problem's runner ran it: a real judgement
  EXPECT_EQ(taxonomyKey(r), "ok");
  const auto counts = triageCounts({c, r});
  EXPECT_EQ(counts.at("ok"), 1);
  EXPECT_EQ(counts.at("checked"), 1);
  EXPECT_EQ(counts.at("done"), 2);
}

TEST(TriageTaxonomy, SpeedupsOfTheCorrectEntriesOnly) {
  const SpeedupSummary s = speedupSummary(sample());
  EXPECT_EQ(s.n, 3);
  EXPECT_EQ(s.faster, 2);
  EXPECT_DOUBLE_EQ(s.min, 0.5);
  EXPECT_DOUBLE_EQ(s.max, 2.0);
  EXPECT_DOUBLE_EQ(s.median, 1.1);
  EXPECT_NEAR(s.geomean, std::cbrt(2.0 * 0.5 * 1.1), 1e-12);
  int binned = 0;
  for (const SpeedupBin& b : s.bins) binned += b.count;
  EXPECT_EQ(binned, 3);
  EXPECT_EQ(s.bins.front().label, "< 0.5×");
  EXPECT_EQ(s.bins[1].count, 1);  // 0.5 sits in [0.5, 0.8)
  EXPECT_EQ(speedupSummary({}).n, 0);
}

TEST(TriageCodec, AFullyPopulatedTriageRoundTrips) {
  TriageReport r;
  r.toolVersion = "1.2.3";
  r.createdAt = "2026-01-01T00:00:00Z";
  r.updatedAt = "2026-01-01T00:01:00Z";
  r.host = "h";
  r.inputs = {"problems", "configs/a.tscfg.json"};
  r.options = {{"jobs", 4}, {"depth", "diagnose"}};
  r.complete = true;
  r.seconds = 12.5;
  r.extra = {{"note", "x"}};
  r.entries = sample();
  TriageEntry& e = r.entries[3];
  e.level = "runner+capture+diagnose";
  e.message = "arange's arguments must be of type tl.constexpr";
  e.treeNode = "compile.triton.arange_constexpr";
  e.fix = "Use a constexpr block";
  e.file = "problems/d_new.py";
  e.line = 12;
  e.sourceLine = "    r = tl.arange(0, n)";
  e.speed = {5000.0, 7500.0, "reference", 1.5};
  Finding f;
  f.category = "compile_error";
  f.detail = "triton_arange_constexpr";
  f.message = e.message;
  f.location.file = e.file;
  f.location.line = 12;
  f.evidence = {{"source", "runner"}};
  f.treeNode = e.treeNode;
  e.findings = {f};
  e.report = "t.json.d/d-1234/report.json";
  e.launches = 0;
  e.seconds = 3.25;
  e.gpu = "1";
  e.note = "n";
  e.extra = {{"diagnosed_kernel", "k.tscfg.json"}};
  const json j = toJson(r);
  EXPECT_EQ(j["schema"], kTriageSchema);
  EXPECT_TRUE(j.contains("taxonomy"));
  EXPECT_EQ(j["counts"]["pending"], 1);
  EXPECT_EQ(triageFromJson(parseJson(dumpJson(j))), r);
}

// The sections a triage file derives from its entries, for other tools:
// tests/data/triage/derived_sections.json, as toJson wrote them when they were
// built by hand (the fixture's, an empty triage's, its first three entries').
TEST(TriageCodec, TheDerivedSectionsAsWritten) {
  const std::string data = std::string(TILESCOPE_TEST_DATA) + "/triage/";
  std::ifstream in(data + "derived_sections.json");
  ASSERT_TRUE(in);
  const json golden = json::parse(in);
  const TriageReport fixture = loadTriage(data + "triage_fixture.json");
  TriageReport three = fixture;
  three.entries.resize(3);
  const std::pair<const char*, TriageReport> docs[] = {
      {"fixture", fixture}, {"empty", TriageReport{}}, {"first_three", three}};
  for (const auto& [name, r] : docs) {
    SCOPED_TRACE(name);
    const json j = toJson(r);
    for (const char* k : {"taxonomy", "error_taxonomy", "speedups", "counts"})
      EXPECT_EQ(j.at(k).dump(1), golden.at(name).at(k).dump(1)) << k;
  }
}

TEST(TriageCodec, ErrorsNameTheJsonPath) {
  json j = toJson(TriageReport{});
  j["entries"] = json::array({toJson(entry("a", Verdict::ok, ""))});
  j["entries"][0]["verdict"] = "great";
  try {
    triageFromJson(j);
    FAIL() << "accepted an unknown verdict";
  } catch (const ReportError& e) {
    EXPECT_EQ(e.path(), "entries[0].verdict");
  }
  j["entries"][0]["verdict"] = "ok";
  j["entries"][0]["status"] = "finished";
  EXPECT_THROW(triageFromJson(j), ReportError);
  j["schema"] = "tilescope.report/1";
  EXPECT_THROW(triageFromJson(j), ReportError);
  EXPECT_FALSE(isTriageDocument(j));
  EXPECT_TRUE(isTriageDocument(toJson(TriageReport{})));
}

TEST(TriageInputs, PyRoleReadsTopLevelClasses) {
  EXPECT_EQ(pyRole(kReference), PyRole::reference);
  EXPECT_EQ(pyRole(kCandidate), PyRole::candidate);
  EXPECT_EQ(pyRole(std::string(kReference) + kCandidate), PyRole::both);
  EXPECT_EQ(pyRole("class Model(nn.Module):\n  pass\n"), PyRole::none);  // no get_inputs
  EXPECT_EQ(pyRole("  class ModelNew(x):\n"), PyRole::none);             // not top level
}

TEST(TriageInputs, ThePairingRule) {
  TempDir d;
  const fs::path r1 = d.write("p/17_relu.py", kReference), c1 = d.write("p/17_relu_new.py", kCandidate);
  const fs::path r2 = d.write("set/reference/3_gemm.py", kReference);
  const fs::path c2 = d.write("set/candidate/3_gemm.py", kCandidate);
  const fs::path both = d.write("p/solo.py", std::string(kReference) + kCandidate);
  d.write("p/9_lonely.py", kReference);
  d.write("set/candidate/4_orphan_new.py", kCandidate);
  d.write("p/helpers.py", "def f():\n  pass\n");
  std::vector<std::string> problems;
  const std::vector<TriageInput> in = discoverTriageInputs({d.path.string()}, &problems);
  std::map<std::string, const TriageInput*> byName;
  for (const TriageInput& i : in) byName[i.name] = &i;
  ASSERT_EQ(in.size(), 5u);
  EXPECT_EQ(byName["17_relu"]->inputs, (std::vector<std::string>{r1.string(), c1.string()}));
  EXPECT_EQ(byName["3_gemm"]->inputs, (std::vector<std::string>{r2.string(), c2.string()}));
  EXPECT_EQ(byName["solo"]->inputs, (std::vector<std::string>{both.string(), both.string()}));
  EXPECT_NE(byName["9_lonely"]->skipReason.find("9_lonely_new.py"), std::string::npos);
  EXPECT_NE(byName["4_orphan"]->skipReason.find("no reference"), std::string::npos);
  EXPECT_TRUE(byName["17_relu"]->skipReason.empty());
  EXPECT_TRUE(problems.empty());
  // A candidate named alone finds its reference beside it; named twice, it is one entry.
  const auto one = discoverTriageInputs({c1.string(), c1.string(), d.path.string() + "/p"}, nullptr);
  EXPECT_EQ(one.front().inputs, (std::vector<std::string>{r1.string(), c1.string()}));
  EXPECT_EQ(std::count_if(one.begin(), one.end(), [&](const TriageInput& i) { return i.id == c1.string(); }),
            1);
}

TEST(TriageInputs, ConfigsCaptureFoldersAndWhatIsNeither) {
  TempDir d;
  d.write("cfg/a.tscfg.json", "{}");
  d.write("cfg/named.json", R"({"schema": "tilescope.config/1", "name": "n"})");
  d.write("cfg/notes.txt", "hello");
  CaptureInfo info;
  info.exit.status = "exited";
  CapturedLaunch l1;
  l1.id = "1";
  l1.kernel = "add_kernel";
  l1.config = "add_kernel-1.tscfg.json";
  CapturedLaunch l2;
  l2.id = "2";
  l2.kernel = "struct_kernel";
  l2.reason = "struct parameters passed by value cannot be replayed";
  info.launches = {l1, l2};
  d.write("cap/capture.json", toJson(info).dump());
  d.write("cap/add_kernel-1.tscfg.json", "{}");
  std::vector<std::string> problems;
  const auto in = discoverTriageInputs(
      {(d.path / "cfg").string(), (d.path / "cfg/named.json").string(), (d.path / "cap").string(),
       (d.path / "cfg/notes.txt").string(), (d.path / "missing").string()},
      &problems);
  ASSERT_EQ(in.size(), 4u);
  EXPECT_EQ(in[0].kind, EntryKind::config);
  EXPECT_EQ(in[0].name, "a");  // a folder search takes .tscfg.json only
  EXPECT_EQ(in[1].name, "named");
  EXPECT_EQ(in[2].kind, EntryKind::capture);
  EXPECT_EQ(in[2].name, "add_kernel-1");
  EXPECT_EQ(in[3].kind, EntryKind::capture);
  EXPECT_NE(in[3].skipReason.find("struct parameters"), std::string::npos);
  EXPECT_EQ(plannedEntry(in[3]).status, EntryStatus::not_run);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("not a config"), std::string::npos);
  EXPECT_NE(problems[1].find("no such file"), std::string::npos);
}

TEST(TriageResume, FinishedEntriesAreKeptAndTheRestPlannedAgain) {
  const std::vector<TriageInput> plan = {{EntryKind::problem, "a", "a", {"r", "a"}, ""},
                                         {EntryKind::problem, "b", "b", {"r", "b"}, ""},
                                         {EntryKind::config, "c", "c", {"c"}, ""}};
  TriageReport before;
  before.entries = {entry("a", Verdict::fault, "oob_write"), entry("b", Verdict::ok, ""),
                    entry("c", Verdict::ok, ""), entry("gone", Verdict::ok, "")};
  before.entries[0].id = "a";
  before.entries[1].id = "b";
  before.entries[1].status = EntryStatus::not_run;  // e.g. no PyTorch then: tried again
  before.entries[2].id = "c";
  before.entries[2].extra["no_gpu"] = true;  // judged by check only: goes further now
  before.entries[3].id = "gone";
  const auto merged = mergeWithPrevious(plan, &before);
  ASSERT_EQ(merged.size(), 4u);
  EXPECT_EQ(merged[0], before.entries[0]);
  EXPECT_EQ(merged[1].status, EntryStatus::pending);
  EXPECT_EQ(merged[2].status, EntryStatus::pending);
  EXPECT_EQ(merged[3].id, "gone");
  EXPECT_EQ(mergeWithPrevious(plan, nullptr).size(), 3u);
}

TEST(TriageSummary, TheLeadFindingItsLineItsFixAndTheSpeed) {
  const Tree tree = loadTree(fs::path(TILESCOPE_SOURCE_DIR) / "resources" / "tree.json");
  Report r;
  r.verdict = Verdict::fault;
  Point p;
  p.verdict = Verdict::fault;
  p.timing.measured = true;
  p.timing.kernelNs.median = 2000;
  p.baseline.measured = true;
  p.baseline.name = "cublas";
  p.baseline.kernelNs.median = 3000;
  Finding warn;
  warn.category = "low_occupancy";
  warn.severity = Severity::warning;
  Finding oob;
  oob.category = "oob_write";
  oob.message = "C: 256 bytes past the end";
  oob.treeNode = "fault.oob_write";
  oob.location.file = "k.py";
  oob.location.line = 12;
  oob.evidence = {{"source_line", "    tl.store(c_ptr + offs, acc)"}};
  p.findings = {warn, oob};
  r.points = {p};
  r.findings = {oob, warn};
  TriageEntry e;
  summarizeReport(e, r, &tree);
  EXPECT_EQ(e.status, EntryStatus::done);
  EXPECT_EQ(e.category, "oob_write");
  EXPECT_EQ(e.line, 12);
  EXPECT_EQ(e.sourceLine, "    tl.store(c_ptr + offs, acc)");
  EXPECT_EQ(e.treeNode, "fault.oob_write");
  EXPECT_EQ(e.fix, tree.find("fault.oob_write")->fix);
  EXPECT_FALSE(e.fix.empty());
  EXPECT_DOUBLE_EQ(*e.speed.speedup, 1.5);
  EXPECT_EQ(e.speed.against, "cublas");
  // A resource warning of a passing kernel names nothing; a trap's warning does.
  EXPECT_EQ(leadFinding({warn}), nullptr);
  Finding scaling;
  scaling.category = "timing_not_scaling";
  scaling.severity = Severity::warning;
  const std::vector<Finding> both = {warn, scaling};
  ASSERT_NE(leadFinding(both), nullptr);
  EXPECT_EQ(leadFinding(both)->category, "timing_not_scaling");
}

TEST(TriageSummary, TheRunnersExceptionIsClassifiedAndLocated) {
  const json runner = {
      {"schema", kRunnerSchema},
      {"status", "failed"},
      {"phase", "forward"},
      {"exception",
       {{"type", "CompilationError"},
        {"message", "at 3:8:\narange's arguments must be of type tl.constexpr"},
        {"text",
         "triton.compiler.errors.CompilationError: at 3:8:\n    r = tl.arange(0, n)\n        ^\n"
         "arange's arguments must be of type tl.constexpr\n"},
        {"file", "p/17_new.py"},
        {"line", 9},
        {"source_line", "    r = tl.arange(0, n)"}}},
      {"findings", json::array({{{"category", "mismatch"}, {"severity", "error"}, {"message", "m"}},
                                {{"category", "all_zero"}, {"severity", "error"}, {"message", "z"}},
                                {{"category", "made_up"}, {"severity", "error"}, {"message", "?"}}})}};
  const std::vector<Finding> f = runnerFindings(runner);
  ASSERT_EQ(f.size(), 3u);  // the unknown category is dropped
  EXPECT_EQ(f[0].category, "compile_error");
  EXPECT_EQ(f[0].detail, "triton_arange_constexpr");
  EXPECT_EQ(f[0].treeNode, "compile.triton.arange_constexpr");
  EXPECT_EQ(f[0].location.line, 9);
  EXPECT_EQ(f[1].category, "all_zero");  // ranks before mismatch: the more specific symptom
  EXPECT_EQ(f[2].category, "mismatch");
  EXPECT_EQ(f[2].treeNode, "wrong.mismatch");  // filled from the registry
}

// "CompilationError: at 11:15:" alone loses the cause Triton gave after the caret
// (docs/triage.md, "Exceptions").
TEST(TriageSummary, AnExceptionsHeadlineSaysWhy) {
  const std::string triton =
      "at 11:15:\n    offs = pid * BLOCK + tl.arange(0, BLOCK)\n    x = tl.load(X + offs)\n"
      "               ^\nNameError(\"Cannot access global variable BLOCK_SIZ from within @jit'ed function\")";
  // The cause line first (the wrapped error's repr read as "Type: message"), then where.
  EXPECT_EQ(exceptionHeadline("CompilationError", triton),
            "NameError: Cannot access global variable BLOCK_SIZ from within @jit'ed function "
            "(CompilationError at 11:15)");
  // No caret: the last line says why.
  EXPECT_EQ(exceptionHeadline("CompilationError", "at 3:8:\narange's arguments must be of type tl.constexpr"),
            "arange's arguments must be of type tl.constexpr (CompilationError at 3:8)");
  // Any other exception: its first line, as before.
  EXPECT_EQ(exceptionHeadline("ValueError", "bad shape\nmore"), "ValueError: bad shape");
  EXPECT_EQ(exceptionHeadline("KeyError", ""), "KeyError");
  EXPECT_EQ(exceptionHeadline("RuntimeError", "at the end:"), "RuntimeError: at the end:");
  // Bounded: a 200,000-character reason is cut.
  const std::string longReason = "at 1:1:\nx\n^\n" + std::string(200000, 'y');
  EXPECT_LT(exceptionHeadline("CompilationError", longReason).size(), 3000u);
  // runnerFindings carries it.
  const json runner = {{"schema", kRunnerSchema},
                       {"exception", {{"type", "CompilationError"}, {"message", triton}, {"text", triton}}}};
  const std::vector<Finding> f = runnerFindings(runner);
  ASSERT_FALSE(f.empty());
  EXPECT_NE(f[0].message.find("BLOCK_SIZ"), std::string::npos) << f[0].message;
}

TEST(TriageSummary, AProblemReportWalksTheTreeToTheFix) {
  const Tree tree = loadTree(fs::path(TILESCOPE_SOURCE_DIR) / "resources" / "tree.json");
  const json runner = {
      {"schema", kRunnerSchema},
      {"cases", json::array({{{"label", "base seed 0"}, {"status", "ok"}, {"compare", {{"elements", 8}}}},
                             {{"label", "boundary n=9 seed 0"}, {"status", "failed"}}})},
      {"exception",
       {{"type", "CompilationError"},
        {"text",
         "triton.compiler.errors.CompilationError: at 3:8:\narange's arguments must be of type "
         "tl.constexpr\n"}}},
      {"timing", {{"candidate_ns", 1000.0}, {"reference_ns", 4000.0}}}};
  TriageEntry e;
  e.name = "17_relu";
  e.inputs = {"r.py", "c.py"};
  e.findings = runnerFindings(runner);
  Finding gap;
  gap.category = "nan_inf";
  gap.message = "NaN";
  gap.evidence = {{"case", "boundary n=9 seed 0"}};
  e.findings.push_back(gap);
  const Report r = problemReport(e, runner, &tree);
  ASSERT_EQ(r.points.size(), 2u);
  EXPECT_EQ(r.verb, "triage");
  EXPECT_EQ(r.points[1].findings.size(), 1u);  // placed at its case
  EXPECT_EQ(r.points[1].verdict, Verdict::incorrect);
  EXPECT_EQ(r.verdict, Verdict::compile_error);
  EXPECT_DOUBLE_EQ(*r.points[0].speedup, 4.0);
  ASSERT_FALSE(r.treePath.empty());
  EXPECT_EQ(r.treePath.back(), "compile.triton.arange_constexpr");
  summarizeReport(e, r, &tree);
  EXPECT_EQ(e.fix, tree.find("compile.triton.arange_constexpr")->fix);
  EXPECT_EQ(e.speed.against, "reference");
  // The report reads back as an ordinary report.
  EXPECT_EQ(reportFromJson(parseJson(dumpJson(toJson(r)))).points.size(), 2u);
}

TEST(TriageSummary, LibraryKernelsAreNotTheCandidates) {
  for (const char* lib : {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>",
                          "_ZN2at6native29vectorized_elementwise_kernelILi4E", "sm90_xmma_gemm_f16f16_f32",
                          "ampere_sgemm_128x64_nn", "nvjet_hsh_64x8_64x16", "cutlass::Kernel2<...>"})
    EXPECT_TRUE(isLibraryKernel(lib)) << lib;
  for (const char* own : {"add_kernel", "relu_kernel", "_Z11relu_kernelPKfPfi", "matmul_kernel_0d1d2d"})
    EXPECT_FALSE(isLibraryKernel(own)) << own;
}

TEST(TriageSummary, SlugsAndEta) {
  EXPECT_EQ(entrySlug("a/b/17_relu_new.py").rfind("17_relu_new_py-", 0), 0u);
  EXPECT_NE(entrySlug("a/17.py"), entrySlug("b/17.py"));
  EXPECT_EQ(entrySlug("x"), entrySlug("x"));
  EXPECT_FALSE(triageEta(10, 0, 5, 1).has_value());
  EXPECT_DOUBLE_EQ(*triageEta(10, 2, 6, 2), 20.0);
  EXPECT_DOUBLE_EQ(*triageEta(10, 6, 6, 2), 0.0);
  // The last entry with 4 jobs: a whole entry's time (40 s x 4 / 16), not a quarter of it.
  EXPECT_DOUBLE_EQ(*triageEta(40, 16, 17, 4), 10.0);
  EXPECT_DOUBLE_EQ(*triageEta(40, 16, 32, 4), 40.0);
}

TEST(TriageDocument, SectionsTablesAndFigures) {
  TriageReport r;
  r.entries = sample();
  r.entries[3].message = "arange's arguments must be of type tl.constexpr";
  r.entries[3].fix = "use a constexpr";
  r.entries[3].file = "p/d_new.py";
  r.entries[3].line = 9;
  const Document d = buildTriageDocument(r);
  for (const char* id : {"summary", "taxonomy", "speedups", "entries", "fixes", "not_run"})
    EXPECT_NE(d.section(id), nullptr) << id;
  EXPECT_EQ(d.banner.verdict, Verdict::compile_error);
  EXPECT_NE(d.banner.headline.find("3 of 8"), std::string::npos) << d.banner.headline;
  const auto& entries = std::get<DocTable>(d.section("entries")->blocks.front());
  EXPECT_EQ(entries.rows.size(), r.entries.size());
  EXPECT_EQ(entries.rows[3][4], "d_new.py:9");
  const std::string md = renderMarkdown(d);
  EXPECT_NE(md.find("triton\\_arange\\_constexpr"), std::string::npos);
  EXPECT_NE(renderHtml(d).find("use a constexpr"), std::string::npos);
  EXPECT_EQ(triageFigures(r).size(), 2u);
}

// A pending entry has taken no time yet: its time cell is empty, not "0 ns".
TEST(TriageDocument, APendingEntryHasNoTime) {
  TriageReport r;
  r.entries = sample();
  r.entries[0].status = EntryStatus::pending;
  r.entries[0].seconds = 0;
  r.entries[1].status = EntryStatus::done;
  r.entries[1].seconds = 2.5;
  const Document d = buildTriageDocument(r);
  const auto& entries = std::get<DocTable>(d.section("entries")->blocks.front());
  ASSERT_EQ(entries.rows.size(), r.entries.size());
  EXPECT_EQ(entries.rows[0].back(), "");
  EXPECT_EQ(entries.rows[1].back(), formatDuration(2.5e9));
}

// The runner's numbers are from code anyone wrote: out-of-range counts, lines
// and repetitions are clamped, never cast past their type.
TEST(TriageSummary, TheRunnersNumbersAreRangeChecked) {
  const json runner = {
      {"schema", kRunnerSchema},
      {"cases", json::array({{{"label", "base seed 0"},
                              {"status", "failed"},
                              {"compare",
                               {{"elements", 1e300}, {"mismatches", -5.0}, {"nan", 1e30}, {"inf", 2.5}}}}})},
      {"timing", {{"candidate_ns", 100.0}, {"reps", 1e200}}},
      {"exception", {{"type", "ValueError"}, {"message", "x"}, {"line", 1e18}}}};
  TriageEntry e;
  e.name = "p";
  e.inputs = {"r.py", "c.py"};
  e.findings = runnerFindings(runner);
  ASSERT_FALSE(e.findings.empty());
  EXPECT_FALSE(e.findings[0].location.line.has_value());  // 1e18 is no line
  const Report r = problemReport(e, runner, nullptr);
  ASSERT_EQ(r.points.size(), 1u);
  const CorrectnessInfo& c = r.points[0].correctness.at(0);
  EXPECT_EQ(c.mismatches, 0);
  EXPECT_EQ(c.inf, 2);
  EXPECT_GT(c.elements, 0);
  EXPECT_LE(c.elements, std::int64_t{9000000000000000000});
  EXPECT_LE(r.points[0].timing.kernelNs.n, 1000000000);
}
