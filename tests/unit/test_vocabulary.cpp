// The vocabulary registry: every category has a verdict, a rank and a tree node
// that exists, the shipped tree and classifier name only registered categories,
// and a name outside the registry is refused where it is read.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "tilescope/diagnose/tree.h"
#include "tilescope/logs/classify.h"
#include "tilescope/model/report.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace tilescope;

namespace {

const fs::path kResources = fs::path(TILESCOPE_SOURCE_DIR) / "resources";

Finding finding(const std::string& category, Severity s = Severity::error) {
  Finding f;
  f.category = category;
  f.severity = s;
  return f;
}

}  // namespace

TEST(Vocabulary, EveryCategoryHasAUniqueNameARankAndATreeNodeThatExists) {
  const Tree tree = loadTree(kResources / "tree.json");
  std::set<std::string_view> names;
  int rank = -1;
  for (const CategoryInfo& c : findingCategories()) {
    EXPECT_TRUE(names.insert(c.name).second) << c.name << " twice";
    EXPECT_GT(c.rank, rank) << c.name;
    rank = c.rank;
    EXPECT_TRUE(tree.contains(std::string(c.treeNode)))
        << c.name << ": tree node " << c.treeNode << " is not in tree.json";
    EXPECT_FALSE(c.meaning.empty()) << c.name;
    EXPECT_EQ(findCategory(c.name), &c);
  }
  // The categories of docs/report.md: the original set and those the profiler and tracer add.
  for (const char* n : {"compile_error",
                        "smem_exceeded",
                        "too_many_resources",
                        "invalid_launch",
                        "illegal_address",
                        "oob_write",
                        "oob_read",
                        "misaligned_access",
                        "device_assert",
                        "hang",
                        "coverage_gap",
                        "coverage_overlap",
                        "uninitialized_read",
                        "race",
                        "nan_inf",
                        "all_zero",
                        "mismatch",
                        "int_overflow",
                        "accumulator_overflow",
                        "slow_vs_baseline",
                        "low_occupancy",
                        "bank_conflicts",
                        "register_spill",
                        "uncoalesced_access",
                        "memory_bound",
                        "compute_bound",
                        "latency_bound",
                        "no_tensor_cores"})
    EXPECT_TRUE(isKnownCategory(n)) << n;
}

TEST(Vocabulary, VerdictsComeFromTheRegistry) {
  EXPECT_EQ(verdictForFinding(finding("compile_error")), Verdict::compile_error);
  EXPECT_EQ(verdictForFinding(finding("smem_exceeded")), Verdict::launch_error);
  EXPECT_EQ(verdictForFinding(finding("misaligned_access")), Verdict::fault);
  EXPECT_EQ(verdictForFinding(finding("hang")), Verdict::hang);
  EXPECT_EQ(verdictForFinding(finding("mismatch")), Verdict::incorrect);
  EXPECT_EQ(verdictForFinding(finding("register_spill")), Verdict::ok);
  // A warning fails nothing; slow is a verdict at any severity.
  EXPECT_EQ(verdictForFindings({finding("oob_write", Severity::warning)}), Verdict::ok);
  EXPECT_EQ(verdictForFindings({finding("slow_vs_baseline", Severity::warning)}), Verdict::slow);
  EXPECT_EQ(verdictForFindings({finding("mismatch"), finding("hang")}), Verdict::hang);
  // A misspelt category is an error, not the verdict `incorrect`.
  try {
    (void)verdictForFindings({finding("oob_wirte")});
    FAIL() << "a misspelt category was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown finding category 'oob_wirte' (known: compile_error, "),
              std::string::npos);
  }
}

TEST(Vocabulary, NamesOfVerdictsAndSeveritiesRoundTrip) {
  for (Verdict v : {Verdict::ok, Verdict::slow, Verdict::incorrect, Verdict::hang, Verdict::fault,
                    Verdict::launch_error, Verdict::compile_error})
    EXPECT_EQ(parseVerdict(verdictName(v)), v);
  for (Severity s : {Severity::info, Severity::warning, Severity::error})
    EXPECT_EQ(parseSeverity(severityName(s)), s);
  EXPECT_THROW(parseVerdict("fine"), std::invalid_argument);
  EXPECT_THROW(parseSeverity("fatal"), std::invalid_argument);
  EXPECT_EQ(worse(Verdict::slow, Verdict::fault), Verdict::fault);
}

TEST(Vocabulary, ExitStatusesAreTheDocumentedOnes) {
  EXPECT_EQ(kExitOk, 0);
  EXPECT_EQ(kExitFindings, 1);
  EXPECT_EQ(kExitUsage, 2);
  EXPECT_EQ(kExitNoGpu, 3);
  Report r;
  EXPECT_EQ(exitCodeFor(r), kExitOk);
  r.verdict = Verdict::slow;
  EXPECT_EQ(exitCodeFor(r), kExitFindings);
  EXPECT_EQ(exitStatusText(kExitNoGpu), "no GPU or CUDA");
  EXPECT_EQ(exitStatusText(139), "exit status 139");
}

TEST(Vocabulary, TheTreeLoaderRefusesAnUnknownCategory) {
  json t = json::parse(R"({
    "schema": "tilescope.tree/1", "root": "a",
    "nodes": {
      "a": {"title": "A", "question": "Which?", "answers": [
        {"id": "x", "label": "X", "next": "b", "when": {"any": [{"finding": ["hang", "uninitialised_read"]}]}},
        {"id": "y", "label": "Y", "next": "b"}]},
      "b": {"title": "B", "explanation": "because", "fix": "do this"}
    }})");
  try {
    treeFromJson(t, "test");
    FAIL() << "an unknown category was accepted";
  } catch (const TreeError& e) {
    EXPECT_EQ(e.node(), "a");
    EXPECT_NE(std::string(e.what()).find("unknown finding category 'uninitialised_read'"), std::string::npos)
        << e.what();
  }
  t["nodes"]["a"]["answers"][0]["when"] = {{"log", "no_such_error"}};
  EXPECT_THROW(treeFromJson(t, "test"), TreeError);
  t["nodes"]["a"]["answers"][0]["when"] = {{"finding", "*"}};
  EXPECT_NO_THROW(treeFromJson(t, "test"));
}

TEST(Vocabulary, TheClassifierLoaderRefusesAnUnknownCategory) {
  const Classifier shipped = loadClassifier(kResources / "classifier.json");
  const Tree tree = loadTree(kResources / "tree.json");
  for (const auto& rule : shipped.rules) {
    EXPECT_TRUE(isKnownCategory(rule.category)) << rule.id;
    EXPECT_TRUE(tree.contains(rule.node)) << rule.id << ": node " << rule.node;
  }
  const fs::path file = fs::temp_directory_path() / ("ts_classifier_" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << R"({"schema": "tilescope.classifier/1", "rules": [
      {"id": "r1", "pattern": "boom", "category": "kernel_exploded", "node": "fault", "source": "cuda"}]})";
  try {
    (void)loadClassifier(file);
    FAIL() << "an unknown category was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("classifier rule 'r1': unknown finding category 'kernel_exploded'"),
              std::string::npos)
        << e.what();
  }
  fs::remove(file);
}
