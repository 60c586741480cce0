// The runner's answer (docs/triage.md, "The runner") as problemReport and
// runnerFindings read it: a rich answer, then one key taken away at a time and
// the values read leniently given another type, each compared with
// tests/data/triage_runner/answers.json (what the reading gave when the answer
// was read key by key): the rich answer's reading whole, every other as its
// difference from that one (a JSON Patch). The answer is open: a key it leaves
// out keeps its default. Since it is read whole, once (triage_runner.cpp), a
// wrong value is an error wherever it is and null is no value: the last tests.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>

#include "tilescope/model/report.h"
#include "tilescope/triage/triage_run.h"

namespace {

using namespace tilescope;
using nlohmann::json;

json richAnswer() {
  return json::parse(R"j({
    "schema": "tilescope.triage.runner/1", "status": "failed", "phase": "forward",
    "environment": {"python": "3.11", "gpu": "NVIDIA H200"},
    "cases": [
      {"label": "base seed 0", "seed": 0, "status": "ok", "shape": {"n": 8},
       "compare": {"output": "out0", "elements": 8, "mismatches": 0, "max_abs_err": 0.5,
                   "max_rel_err": 0.25, "nan": 0, "inf": 0, "rtol": 0.01, "atol": 0.001}},
      {"label": "boundary n=9 seed 1", "seed": 1, "status": "failed",
       "compare": {"elements": 9, "mismatches": 3, "nan": 1}}],
    "exception": {"type": "ValueError", "message": "bad shape\nmore", "text": "Traceback\nValueError: bad shape",
                  "file": "p/c_new.py", "line": 12, "source_line": "    y = x.view(9)", "limit": "RLIMIT_DATA"},
    "stderr": "warning: something\n",
    "timing": {"candidate_ns": 1000.0, "reference_ns": 3000.0, "reps": 20},
    "launches": {"triton": 1, "own": 2},
    "findings": [{"category": "mismatch", "severity": "error", "message": "m", "evidence": {"case": "boundary n=9 seed 1"}},
                 {"category": "made_up", "severity": "error", "message": "?"}]})j");
}

/// Takes the value at `path` away ("cases/0/label").
std::function<void(json&)> drop(const std::string& path) {
  return [path](json& a) {
    const json::json_pointer p("/" + path);
    a[p.parent_pointer()].erase(p.back());
  };
}
std::function<void(json&)> set(const std::string& path, json v) {
  return [path, v](json& a) { a[json::json_pointer("/" + path)] = v; };
}

std::vector<std::pair<std::string, std::function<void(json&)>>> mutations() {
  std::vector<std::pair<std::string, std::function<void(json&)>>> m = {{"rich", [](json&) {}}};
  for (const char* p : {"status",
                        "phase",
                        "environment",
                        "environment/gpu",
                        "cases",
                        "cases/0/label",
                        "cases/0/seed",
                        "cases/0/status",
                        "cases/0/shape",
                        "cases/0/compare",
                        "cases/0/compare/output",
                        "cases/0/compare/elements",
                        "cases/0/compare/max_abs_err",
                        "cases/0/compare/max_rel_err",
                        "cases/0/compare/rtol",
                        "cases/0/compare/atol",
                        "cases/1/compare/mismatches",
                        "cases/1/compare/nan",
                        "exception",
                        "exception/type",
                        "exception/message",
                        "exception/text",
                        "exception/file",
                        "exception/line",
                        "exception/source_line",
                        "exception/limit",
                        "stderr",
                        "timing",
                        "timing/candidate_ns",
                        "timing/reference_ns",
                        "timing/reps",
                        "launches",
                        "launches/own",
                        "findings"})
    m.emplace_back(std::string("without ") + p, drop(p));
  // No cases and no exception: the phase labels the one point.
  m.emplace_back("no cases, no exception", [](json& a) {
    a.erase("cases");
    a.erase("exception");
  });
  m.emplace_back("nothing but the schema", [](json& a) { a = {{"schema", a["schema"]}}; });
  // Values read leniently: a number that is not one reads as 0, an object that is
  // not one is not there, a line that is not an integer is no line.
  const std::pair<const char*, json> lenient[] = {
      {"timing", "fast"},
      {"timing", nullptr},
      {"timing/candidate_ns", "1000"},
      {"timing/reference_ns", nullptr},
      {"timing/reps", true},
      {"cases/0/compare/max_abs_err", "0.5"},
      {"cases/1/compare/mismatches", nullptr},
      {"cases/0/compare", json::object()},
      {"cases", json::object()},
      {"cases", nullptr},
      {"launches", 3},
      {"launches/own", "two"},
      {"exception", "ValueError"},
      {"exception", nullptr},
      {"exception/line", "12"},
      {"exception/line", 12.5},
      {"exception/line", std::int64_t(1) << 40},
      {"exception/limit", 5},
      {"findings", json::object()},
      {"findings", "none"},
  };
  for (const auto& [p, v] : lenient) m.emplace_back(std::string(p) + " = " + v.dump(), set(p, v));
  return m;
}

/// Values of another type where a string, an object or a list is read, and the
/// path the error names. Each failed the entry before too (runnerFindings or
/// problemReport threw nlohmann's type_error where it read the key).
std::vector<std::pair<std::string, std::pair<std::string, json>>> wrongValues() {
  return {{"environment", {"environment", "H200"}},
          {"environment.gpu", {"environment/gpu", 5}},
          {"cases", {"cases", "two"}},
          {"cases[0]", {"cases/0", 3}},
          {"cases[0].label", {"cases/0/label", 5}},
          {"cases[0].compare", {"cases/0/compare", "x"}},
          {"cases[0].compare.output", {"cases/0/compare/output", 0}},
          {"exception.text", {"exception/text", 5}},
          {"exception.type", {"exception/type", 5}},
          {"stderr", {"stderr", 5}},
          {"phase", {"phase", 5}}};
}

/// What the reading made of an answer: its findings and its report, or "error".
json readingOf(const json& answer) {
  json out = json::object();
  TriageEntry e;
  e.name = "p";
  e.inputs = {"p/r.py", "p/c_new.py"};
  try {
    e.findings = runnerFindings(answer);
    json f = json::array();
    for (const Finding& x : e.findings) f.push_back(toJson(x));
    out["findings"] = f;
  } catch (const std::exception&) {
    out["findings"] = "error";
  }
  try {
    json r = toJson(problemReport(e, answer, nullptr));
    // Not the schema either: the golden file is no report (test_report.cpp reads every file that names it).
    for (const char* k : {"schema", "tool_version", "created_at", "host"}) r.erase(k);
    out["report"] = r;
  } catch (const std::exception&) {
    out["report"] = "error";
  }
  return out;
}

TEST(TriageRunner, AnswersReadAsTheirGoldenReadings) {
  const std::string file = std::string(TILESCOPE_TEST_DATA) + "/triage_runner/answers.json";
  std::ifstream in(file);
  ASSERT_TRUE(in) << file;
  const json golden = json::parse(in);
  const json rich = readingOf(richAnswer());
  EXPECT_EQ(rich.dump(1), golden["rich"].dump(1));
  for (const auto& [label, mutate] : mutations()) {
    if (label == "rich") continue;
    SCOPED_TRACE(label);
    json answer = richAnswer();
    mutate(answer);
    ASSERT_TRUE(golden.contains(label));
    EXPECT_EQ(json::diff(rich, readingOf(answer)).dump(1), golden[label].dump(1));
  }
}

// A wrong value anywhere in the answer is an error naming its path, whichever
// function reads it (the answer is read whole, once); before, the one that read
// the key threw. Either way the entry's triage failed.
TEST(TriageRunner, AWrongValueIsAnErrorNamingItsPath) {
  const std::string file = std::string(TILESCOPE_TEST_DATA) + "/triage_runner/answers.json";
  std::ifstream in(file);
  ASSERT_TRUE(in) << file;
  const json golden = json::parse(in);
  for (const auto& [where, value] : wrongValues()) {
    const auto& [pointer, v] = value;
    const std::string label = pointer + " = " + v.dump();
    SCOPED_TRACE(label);
    ASSERT_TRUE(golden.contains(label));
    bool failedBefore = false;  // the old reading's error, as a patch op on /findings or /report
    for (const json& op : golden[label]) failedBefore = failedBefore || op.value("value", json()) == "error";
    EXPECT_TRUE(failedBefore);
    json answer = richAnswer();
    set(pointer, v)(answer);
    EXPECT_EQ(readingOf(answer), json({{"findings", "error"}, {"report", "error"}}));
    try {
      (void)runnerFindings(answer);
      ADD_FAILURE() << "no error";
    } catch (const ReportError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(where + ":", 0), 0u) << e.what();
    }
  }
}

// Null, as JSON writes Python's None, is no value: the key's default, as without it
// (before, a null where a string or an object was read was nlohmann's type_error).
TEST(TriageRunner, NullIsNoValue) {
  for (const char* p : {"phase", "environment", "environment/gpu", "stderr", "cases/0/label", "cases/0/seed",
                        "cases/0/compare", "cases/0/compare/output", "exception/text", "exception/type",
                        "exception/source_line", "launches/own"}) {
    SCOPED_TRACE(p);
    json withNull = richAnswer(), without = richAnswer();
    set(p, nullptr)(withNull);
    drop(p)(without);
    EXPECT_EQ(readingOf(withNull), readingOf(without));
  }
}

// A limit is kept as the runner named it, even empty (the lenient read keeps any string).
TEST(TriageRunner, ALimitIsKeptAsNamed) {
  json answer = richAnswer();
  set("exception/limit", "")(answer);
  const std::vector<Finding> f = runnerFindings(answer);
  ASSERT_FALSE(f.empty());
  EXPECT_EQ(f[0].evidence.at("limit"), "");
}

}  // namespace
