// runTriage through real processes, with tests/data/triage/fake/ standing in for
// tilescope-run and the Python runner (as fake_worker.py does for the session):
// each entry isolated (a crash or a hang ends only it), no GPU, the capture's
// launch count deciding a no-kernel verdict, a captured kernel's located
// finding leading, the output written after every entry, --resume.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>

#include "tilescope/triage/triage_run.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace tilescope;

namespace {

const fs::path kFake = fs::path(TILESCOPE_TEST_DATA) / "triage" / "fake";

struct TempDir {
  fs::path path;
  TempDir() {
    char t[] = "/tmp/tilescope-triage-run-XXXXXX";
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

TriageOptions fakeOptions(const TempDir& d) {
  TriageOptions o;
  o.exe = {"python3", (kFake / "fake_tilescope.py").string()};
  o.python = {"python3"};
  o.runner = kFake / "fake_runner.py";
  o.output = d.path / "triage.json";
  o.jobs = 3;
  o.gpus = {"0", "1"};
  o.entryTimeoutS = 4;
  return o;
}

TriageInput problem(const TempDir& d, const std::string& name, const std::string& marker) {
  const std::string ref = d.write("p/" + name + ".py", "class Model: pass\n");
  const std::string cand = d.write("p/" + name + "_new.py", "# " + marker + "\nclass ModelNew: pass\n");
  return {EntryKind::problem, cand, name, {ref, cand}, ""};
}

TriageInput config(const TempDir& d, const std::string& name, const json& fake) {
  const std::string cfg = d.write("c/" + name + ".tscfg.json", json{{"fake", fake}}.dump());
  return {EntryKind::config, cfg, name, {cfg}, ""};
}

std::map<std::string, TriageEntry> byName(const TriageReport& r) {
  std::map<std::string, TriageEntry> m;
  for (const TriageEntry& e : r.entries) m[e.name] = e;
  return m;
}

}  // namespace

TEST(TriageRun, EachEntryEndsOnItsOwn) {
  TempDir d;
  std::vector<TriageInput> plan = {problem(d, "ok", "FAKE_OK"),
                                   problem(d, "mismatch", "FAKE_MISMATCH"),
                                   problem(d, "arange", "FAKE_ARANGE"),
                                   problem(d, "crash", "FAKE_CRASH"),
                                   problem(d, "hang", "FAKE_HANG"),
                                   problem(d, "notorch", "FAKE_NO_TORCH"),
                                   problem(d, "fault", "FAKE_FAULT"),
                                   problem(d, "nokernel", "FAKE_NO_KERNEL"),
                                   problem(d, "runnerbug", "FAKE_RUNNER_BUG"),
                                   config(d, "compile", {{"check", "compile_error"}}),
                                   config(d, "oob", {{"diagnose", "oob_write"}}),
                                   config(d, "nogpu", {{"diagnose", "no_gpu"}}),
                                   config(d, "badcfg", {{"check", "config_error"}}),
                                   config(d, "good", {{"diagnose", "ok"}})};
  plan.push_back({EntryKind::problem, "lonely", "lonely", {"lonely.py"}, "no candidate found"});
  TriageReport report;
  report.entries = mergeWithPrevious(plan, nullptr);
  TriageOptions opts = fakeOptions(d);
  std::mutex mu;
  std::vector<int> seen;
  opts.onProgress = [&](const TriageProgress& p) {
    std::lock_guard<std::mutex> lock(mu);
    seen.push_back(p.done);
    // Written after every entry: the file holds at least the finished ones.
    const TriageReport onDisk = loadTriage(opts.output);
    int finished = 0;
    for (const TriageEntry& e : onDisk.entries) finished += e.status != EntryStatus::pending;
    EXPECT_GE(finished, p.done + 1);  // + the planned not_run entry
    EXPECT_FALSE(p.message.empty());
  };
  const TriageReport r = runTriage(report, opts);
  EXPECT_EQ(seen.size(), plan.size() - 1);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(loadTriage(opts.output), r);  // the file is the report, to the last field
  auto e = byName(r);

  EXPECT_EQ(e["ok"].verdict, Verdict::ok);
  EXPECT_DOUBLE_EQ(*e["ok"].speed.speedup, 2.5);
  EXPECT_EQ(e["ok"].speed.against, "reference");
  EXPECT_FALSE(e["ok"].report.empty());
  EXPECT_TRUE(fs::exists(entryReportPath(e["ok"], opts.output)));
  EXPECT_EQ(loadReport(entryReportPath(e["ok"], opts.output)).verb, "triage");

  EXPECT_EQ(e["mismatch"].category, "mismatch");
  EXPECT_EQ(e["arange"].verdict, Verdict::compile_error);
  EXPECT_EQ(e["arange"].detail, "triton_arange_constexpr");
  EXPECT_EQ(e["arange"].line, 9);
  EXPECT_FALSE(e["arange"].fix.empty());
  EXPECT_EQ(e["crash"].category, "crash");
  EXPECT_EQ(e["crash"].verdict, Verdict::fault);
  EXPECT_EQ(e["hang"].category, "hang");
  EXPECT_LT(e["hang"].seconds, 30);  // the watchdog, not the fake's two minutes
  // The runner's own failure is not the candidate's: not run, with the runner's last line.
  EXPECT_EQ(e["runnerbug"].status, EntryStatus::not_run);
  EXPECT_NE(e["runnerbug"].note.find("KeyError"), std::string::npos) << e["runnerbug"].note;
  EXPECT_EQ(e["notorch"].status, EntryStatus::not_run);
  EXPECT_NE(e["notorch"].note.find("PyTorch"), std::string::npos);

  // The runner saw a CUDA error; the captured kernel's diagnosis located it.
  EXPECT_EQ(e["fault"].category, "oob_write");
  EXPECT_EQ(e["fault"].line, 12);
  EXPECT_EQ(e["fault"].level, "runner+capture+diagnose");
  EXPECT_EQ(e["fault"].launches, 1);
  EXPECT_EQ(loadReport(entryReportPath(e["fault"], opts.output)).verdict, Verdict::fault);

  // No kernel of its own in the capture: the capture's count confirms the trap.
  EXPECT_EQ(e["nokernel"].category, "no_kernel");
  EXPECT_EQ(e["nokernel"].launches, 0);
  EXPECT_EQ(e["nokernel"].extra["capture_launches"]["total"], 1);
  // Why it has no kernel line: nothing of its own was there to trace (a no-kernel
  // verdict is no memory finding: its kernels would be traced, not diagnosed).
  EXPECT_EQ(e["nokernel"].extra.value("kernel_diagnoses", json()), "the capture gave no config to run");
  EXPECT_FALSE(e["fault"].extra.contains("kernel_diagnoses"));  // its kernel led

  EXPECT_EQ(e["compile"].verdict, Verdict::compile_error);
  EXPECT_EQ(e["compile"].level, "check");
  EXPECT_EQ(e["oob"].category, "oob_write");
  EXPECT_EQ(e["oob"].level, "diagnose");
  EXPECT_EQ(e["nogpu"].level, "check");
  EXPECT_TRUE(e["nogpu"].extra.value("no_gpu", false));
  EXPECT_EQ(taxonomyKey(e["nogpu"]), "checked");
  EXPECT_EQ(e["badcfg"].status, EntryStatus::not_run);
  EXPECT_NE(e["badcfg"].note.find("unknown symbol"), std::string::npos);
  EXPECT_DOUBLE_EQ(*e["good"].speed.speedup, 1.5);
  EXPECT_EQ(e["lonely"].status, EntryStatus::not_run);
  // Entries ran on both GPUs.
  std::set<std::string> gpus;
  for (const TriageEntry& x : r.entries)
    if (!x.gpu.empty()) gpus.insert(x.gpu);
  EXPECT_EQ(gpus, (std::set<std::string>{"0", "1"}));
}

TEST(TriageRun, ATimeLimitLeavesEntriesPendingAndResumeRunsOnlyThose) {
  TempDir d;
  const std::vector<TriageInput> plan = {problem(d, "a", "FAKE_OK"), problem(d, "b", "FAKE_MISMATCH"),
                                         problem(d, "c", "FAKE_OK")};
  TriageOptions opts = fakeOptions(d);
  opts.jobs = 1;
  opts.timeLimitS = 1e-9;  // no entry starts: the plan is written, every entry pending
  TriageReport first;
  first.entries = mergeWithPrevious(plan, nullptr);
  first = runTriage(first, opts);
  EXPECT_FALSE(first.complete);
  int pending = 0;
  for (const TriageEntry& e : first.entries) pending += e.status == EntryStatus::pending;
  EXPECT_EQ(pending, 3);
  EXPECT_EQ(loadTriage(opts.output).entries.size(), 3u);

  // Resume: the finished entry is not run again (its marker note survives).
  TriageReport previous = loadTriage(opts.output);
  previous.entries[0].status = EntryStatus::done;
  previous.entries[0].note = "kept from the first run";
  opts.timeLimitS = 0;
  int ran = 0;
  opts.onProgress = [&](const TriageProgress& p) {
    ++ran;
    EXPECT_EQ(p.skipped, 1);
  };
  TriageReport second;
  second.entries = mergeWithPrevious(plan, &previous);
  second.seconds = previous.seconds;
  second = runTriage(second, opts);
  EXPECT_EQ(ran, 2);
  EXPECT_TRUE(second.complete);
  EXPECT_EQ(second.entries[0].note, "kept from the first run");
  EXPECT_EQ(second.entries[1].category, "mismatch");
  EXPECT_GE(second.seconds, previous.seconds);
}

// The default (`--capture launched`) captures a healthy-looking candidate too and
// runs its kernel traced (`run`, not `diagnose`: there is no failure to follow
// up); `--fast` (`failed`) leaves it at the runner's word.
TEST(TriageRun, EveryCandidateIsTracedOnceUnlessFast) {
  for (const CaptureWhen when : {CaptureWhen::launched, CaptureWhen::failed}) {
    TempDir d;
    const std::vector<TriageInput> plan = {problem(d, "ok", "FAKE_OK"),
                                           problem(d, "mismatch", "FAKE_MISMATCH")};
    TriageReport report;
    report.entries = mergeWithPrevious(plan, nullptr);
    TriageOptions opts = fakeOptions(d);
    opts.capture = when;
    const TriageReport r = runTriage(report, opts);
    auto e = byName(r);
    // Where each entry's time went: the phases it went through, and no others.
    const json phases = e["ok"].extra.value("phase_seconds", json());
    EXPECT_TRUE(phases.contains("runner")) << phases.dump();
    EXPECT_EQ(phases.contains("capture"), when == CaptureWhen::launched) << phases.dump();
    EXPECT_EQ(phases.contains("kernels"), when == CaptureWhen::launched) << phases.dump();
    for (const auto& [phase, s] : phases.items()) EXPECT_GE(s.get<double>(), 0.0) << phase;
    if (when == CaptureWhen::failed) {
      EXPECT_EQ(e["ok"].level, "runner");
      EXPECT_EQ(e["mismatch"].level, "runner");
      continue;
    }
    for (const char* name : {"ok", "mismatch"}) {
      EXPECT_EQ(e[name].level, "runner+capture") << name;
      const json said = e[name].extra.value("kernel_diagnoses", json());
      ASSERT_TRUE(said.is_array() && said.size() == 1) << name << ": " << said.dump();
      EXPECT_EQ(said[0]["verdict"], "ok") << name;
      // `run`, not `diagnose`: the fake writes the verb into its report.
      const fs::path kernel = fs::path(entryReportPath(e[name], opts.output)).parent_path() / "kernel-0.json";
      EXPECT_EQ(loadReport(kernel).verb, "run") << name;
    }
    EXPECT_EQ(e["ok"].verdict, Verdict::ok);
    EXPECT_EQ(e["mismatch"].category, "mismatch");
  }
}
