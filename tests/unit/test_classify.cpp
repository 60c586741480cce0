// The error-log classifier against a corpus of real logs (tests/data/classify:
// expected.json names each log's source URL, family and split). Rules are tuned on the
// dev split; the held-out split measures them (bench/bench_classify prints the table).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tilescope/diagnose/tree.h"
#include "tilescope/logs/classify.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace tilescope;

namespace {

const fs::path kCorpus = fs::path(TILESCOPE_TEST_DATA) / "classify";
const fs::path kResources = fs::path(TILESCOPE_SOURCE_DIR) / "resources";

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

json expected() { return json::parse(readFile(kCorpus / "expected.json")); }

const Classifier& classifier() {
  static Classifier c = loadClassifier(kResources / "classifier.json");
  return c;
}

}  // namespace

TEST(Classify, CorpusHasEnoughRealEntriesInBothSplits) {
  const json e = expected();
  EXPECT_GE(e.size(), 150u);
  int fromIssues = 0;
  std::map<std::string, std::set<std::string>> splitsOf;
  for (const auto& [file, want] : e.items()) {
    EXPECT_TRUE(fs::exists(kCorpus / file)) << file;
    for (const char* k : {"url", "family", "split", "category", "node", "source"})
      ASSERT_TRUE(want.contains(k)) << file << " " << k;
    const std::string url = want["url"];
    if (url.rfind("https://github.com/", 0) == 0) ++fromIssues;
    const std::string split = want["split"];
    EXPECT_TRUE(split == "dev" || split == "heldout") << file;
    splitsOf[want["family"]].insert(split);
  }
  EXPECT_GE(fromIssues, 120);
  // Every family the issue lists is there, and in both halves.
  for (const char* fam : {"cuda_runtime", "sanitizer_memcheck", "sanitizer_racecheck", "sanitizer_initcheck",
                          "sanitizer_synccheck", "cuda_memcheck", "compiler", "triton", "tilelang",
                          "distributed", "numerical", "python", "int32_index"}) {
    EXPECT_EQ(splitsOf[fam].size(), 2u) << fam;
  }
}

TEST(Classify, EveryDevEntryGetsItsExpectedClass) {
  const json all = expected();
  for (const auto& [file, want] : all.items()) {
    if (want["split"] != "dev") continue;
    SCOPED_TRACE(file);
    const std::string text = readFile(kCorpus / file);
    const Classification c = classifier().classify(text);
    if (file == "smem_cupy2118_invalid_value.txt") {
      // Only `shared_mem=98304` in the failing call hints at the opt-in limit: no rule
      // can tell it from any other invalid argument, and the answer must say so.
      EXPECT_FALSE(c.known());
      continue;
    }
    EXPECT_EQ(c.category, want["category"].get<std::string>());
    EXPECT_EQ(c.treeNode, want["node"].get<std::string>());
    EXPECT_EQ(c.source, want["source"].get<std::string>());
    if (want.contains("detail")) {
      EXPECT_EQ(c.detail, want["detail"].get<std::string>());
    }
    // The decisive line is a line of the log, quoted as it stands (prefixes stripped).
    EXPECT_FALSE(c.matched.empty());
    EXPECT_NE(text.find(c.matched), std::string::npos) << c.matched;
    EXPECT_GE(c.confidence, classifier().threshold);
    ASSERT_FALSE(c.evidence.empty());
    EXPECT_FALSE(c.candidates.empty());
  }
}

TEST(Classify, HeldOutAccuracyAndNoConfidentWrongAnswer) {
  // The rules were tuned on the dev split only; this is the measurement docs/measurements.md reports.
  int n = 0, right = 0, confidentlyWrong = 0;
  const json all = expected();
  for (const auto& [file, want] : all.items()) {
    if (want["split"] != "heldout") continue;
    const Classification c = classifier().classify(readFile(kCorpus / file));
    ++n;
    const std::string wanted = want["category"].get<std::string>();
    right += c.category == wanted;
    if (c.known() && c.category != wanted) {
      ++confidentlyWrong;
      ADD_FAILURE() << file << ": " << c.category << " (" << c.rule << ", " << c.confidence << ") instead of "
                    << wanted;
    }
  }
  ASSERT_GT(n, 60);
  EXPECT_GE(double(right) / n, 0.90) << right << " of " << n;
  EXPECT_EQ(confidentlyWrong, 0);
}

TEST(Classify, EveryRuleNodeExistsInTheTree) {
  Tree t = loadTree(kResources / "tree.json");
  for (const auto& r : classifier().rules) EXPECT_TRUE(t.contains(r.node)) << r.id << " -> " << r.node;
}

TEST(Classify, LastExceptionOfATracebackDecides) {
  // A chained traceback: the ImportError was handled, the NameError is what stopped it.
  const std::string log =
      "Traceback (most recent call last):\n"
      "  File \"k.py\", line 3, in <module>\n"
      "    import apex\n"
      "ImportError: cannot import name 'fused' from 'apex'\n"
      "\n"
      "During handling of the above exception, another exception occurred:\n"
      "\n"
      "Traceback (most recent call last):\n"
      "  File \"k.py\", line 9, in <module>\n"
      "    class Model(nn.Module):\n"
      "NameError: name 'nn' is not defined\n";
  EXPECT_EQ(lastExceptionLine(log), "NameError: name 'nn' is not defined");
  Classification c = classifier().classify(log);
  EXPECT_EQ(c.detail, "python_name_error");
  EXPECT_EQ(c.treeNode, "compile.python.name_error");
  EXPECT_EQ(c.matched, "NameError: name 'nn' is not defined");
  ASSERT_FALSE(c.evidence.empty());
  EXPECT_EQ(c.evidence.back().number, 11u);
}

TEST(Classify, UnknownTextIsNotClassified) {
  Classification c = classifier().classify("all good\n128 tests passed\n");
  EXPECT_FALSE(c.known());
  EXPECT_EQ(c.confidence, 0.0);
  EXPECT_TRUE(c.treeNode.empty());
  EXPECT_TRUE(c.candidates.empty());
  EXPECT_FALSE(classifier().classify("").known());
}

TEST(Classify, BelowTheThresholdIsUnknownWithTheNearestCandidates) {
  // A generic exception says only "some Python error": not enough to name a category.
  Classification c = classifier().classify(
      "Traceback (most recent call last):\n  File \"x.py\", line 2\n"
      "ValueError: bad value for BLOCK_SIZE\n");
  EXPECT_FALSE(c.known());
  EXPECT_TRUE(c.category.empty());
  ASSERT_FALSE(c.candidates.empty());
  EXPECT_EQ(c.candidates.front().treeNode, "compile.python.other");
  EXPECT_LT(c.confidence, classifier().threshold);
  EXPECT_GT(c.confidence, 0.0);
  ASSERT_EQ(c.evidence.size(), 1u);
  EXPECT_EQ(c.evidence.front().number, 3u);
}

TEST(Classify, SpecificRuleWinsOverTheGenericCompileError) {
  Classification c = classifier().classify(
      "gemm.cu(41): error: identifier \"BLOCK_K\" is undefined\n"
      "gemm.cu(52): error: expected a \";\"\n");
  EXPECT_EQ(c.detail, "cuda_undefined_identifier");
  EXPECT_EQ(c.source, "nvcc");
  ASSERT_GE(c.candidates.size(), 1u);
  c = classifier().classify("gemm.cu(52): error: expected a \";\"\n");
  EXPECT_EQ(c.detail, "cuda_compile");
  EXPECT_EQ(c.treeNode, "compile.cuda");
}

// An NVRTC log as nvrtcGetProgramLog writes it: the missing ';' comes first, and the
// undefined identifier two lines on is its consequence (the declaration never parsed).
// The fix answers the first error, not the more specific rule's later line.
TEST(Classify, TheFirstCompileErrorDecidesNotAConsequentOne) {
  const std::string log =
      "gemm_tiled.cu(23): error: expected a \";\"\n"
      "    float acc = 0.0f\n"
      "                    ^\n"
      "\n"
      "gemm_tiled.cu(31): error: identifier \"acc\" is undefined\n"
      "      acc += As[ty][k] * Bs[k][tx];\n"
      "      ^\n"
      "\n"
      "2 errors detected in the compilation of \"gemm_tiled.cu\".\n";
  Classification c = classifier().classify(log);
  EXPECT_EQ(c.category, "compile_error");
  EXPECT_EQ(c.detail, "cuda_compile") << c.rule;
  EXPECT_NE(c.matched.find("expected a"), std::string::npos) << c.matched;
  // The tree walks the point's compile log to the syntax fix, not the #include/define one.
  json point = {
      {"verdict", "compile_error"},
      {"findings", json::array({{{"category", "compile_error"}, {"severity", "error"}, {"detail", "cuda"}}})},
      {"compile", {{"ok", false}, {"log", log}}}};
  const Tree tree = loadTree(kResources / "tree.json");
  const TreeWalk w = walkTree(tree, point);
  EXPECT_EQ(w.stoppedAt, "compile.cuda.other");
  // The same errors the other way round: the undefined identifier is first and decides.
  c = classifier().classify(
      "gemm_tiled.cu(31): error: identifier \"acc\" is undefined\n"
      "gemm_tiled.cu(40): error: expected a \";\"\n");
  EXPECT_EQ(c.detail, "cuda_undefined_identifier");
}

TEST(Classify, TheErrorAtTheEndOfALongLogDecides) {
  std::string log;
  for (int i = 0; i < 5000; ++i)
    log += "step " + std::to_string(i) + ": loss 0.123 lr 1e-4 tokens/s 81234.5\n";
  log += "RuntimeError: CUDA error: an illegal memory access was encountered\n";
  Classification c = classifier().classify(log);
  EXPECT_EQ(c.category, "illegal_address");
  ASSERT_FALSE(c.evidence.empty());
  EXPECT_EQ(c.evidence.front().number, 5001u);
  EXPECT_EQ(c.lines, 5001u);
}

TEST(Classify, DecisiveLinesOfATimestampedPytestLogAreFoundAndNumbered) {
  // A CI log: every line carries the runner's timestamp; pytest's "E" marks the failure.
  std::string log;
  for (int i = 0; i < 10000; ++i) {
    log += "2025-02-26T07:40:38.1234567Z tests/test_ops.py::test_case_" + std::to_string(i) + " PASSED\n";
    if (i == 6000)
      log +=
          "2025-02-26T07:40:38.1234567Z E       triton.runtime.errors.OutOfResources: out of resource: "
          "shared "
          "memory, Required: 131072, Hardware limit: 101376.\n";
  }
  const Classification c = classifier().classify(log);
  EXPECT_EQ(c.category, "smem_exceeded");
  EXPECT_EQ(c.treeNode, "compile.triton.out_of_resources");
  ASSERT_FALSE(c.evidence.empty());
  EXPECT_EQ(c.evidence.front().number, 6002u);
  // The timestamp and pytest's "E" are not part of the quoted line.
  EXPECT_EQ(c.matched.rfind("triton.runtime.errors.OutOfResources", 0), 0u) << c.matched;
}

TEST(Classify, RankPrefixesDoNotHideTheLastException) {
  const std::string log =
      "[rank0]:   File \"/w/train.py\", line 778, in _convert_to_fp32\n"
      "[rank0]:     return tensor.float()\n"
      "[rank0]: NameError: name 'torch' is not defined\n";
  EXPECT_EQ(lastExceptionLine(log), "NameError: name 'torch' is not defined");
  EXPECT_EQ(classifier().classify(log).detail, "python_name_error");
}

TEST(Classify, SanitizerFindingsDecideAndAreCarried) {
  const Classification c = classifier().classify(readFile(kCorpus / "rec_memcheck_gemm_no_mask.txt"));
  EXPECT_EQ(c.category, "oob_write");
  EXPECT_EQ(c.source, "compute-sanitizer");
  EXPECT_EQ(c.rule, "sanitizer:memcheck:out_of_bounds");
  ASSERT_FALSE(c.sanitizer.findings.empty());
  EXPECT_EQ(c.sanitizer.findings.front().kernel, "gemm_tiled");
  // The CUDA API error that follows the fault is a weaker candidate, not the answer.
  ASSERT_GE(c.candidates.size(), 2u);
  EXPECT_EQ(c.candidates[1].category, "illegal_address");
}

TEST(Classify, RequiredLiteralsOfPatterns) {
  EXPECT_EQ(requiredLiterals("out of resource: shared memory"),
            std::vector<std::string>{"out of resource: shared memory"});
  EXPECT_EQ(requiredLiterals("misaligned address|CUDA_ERROR_MISALIGNED_ADDRESS"),
            (std::vector<std::string>{"misaligned address", "cuda_error_misaligned_address"}));
  // Optional parts and groups are not required; the longest required run is chosen.
  EXPECT_EQ(requiredLiterals("\\(\\d+\\): error( #\\d+(-D)?)?: identifier \\\"[^\\\"]+\\\" is undefined"),
            std::vector<std::string>{": identifier \""});
  EXPECT_EQ(requiredLiterals("Arrays are not (almost )?equal"), std::vector<std::string>{"arrays are not "});
  EXPECT_EQ(requiredLiterals("colou?r off"), std::vector<std::string>{"r off"});
  // An alternative without a literal disables the prefilter for the whole rule.
  EXPECT_TRUE(requiredLiterals("abc|\\d+").empty());
  EXPECT_EQ(requiredLiterals("error 716"), std::vector<std::string>{"error 000"});
}

TEST(Classify, PrefilterNeverChangesAnAnswer) {
  Classifier plain = classifier();
  for (auto& r : plain.rules) r.needles.clear();
  const json all = expected();
  for (const auto& [file, want] : all.items()) {
    const std::string text = readFile(kCorpus / file);
    const Classification a = classifier().classify(text), b = plain.classify(text);
    EXPECT_EQ(a.category, b.category) << file;
    EXPECT_EQ(a.rule, b.rule) << file;
    EXPECT_EQ(a.candidates.size(), b.candidates.size()) << file;
  }
}

TEST(Classify, MalformedRulesNameTheRule) {
  const fs::path dir = fs::temp_directory_path() / "tilescope_classify_test";
  fs::create_directories(dir);
  auto write = [&](const json& j) {
    std::ofstream(dir / "c.json") << j.dump();
    return dir / "c.json";
  };
  json bad = {{"schema", kClassifierSchema},
              {"rules",
               {{{"id", "broken"},
                 {"pattern", "(unclosed"},
                 {"category", "hang"},
                 {"node", "fault.hang"},
                 {"source", "cuda"}}}}};
  try {
    loadClassifier(write(bad));
    FAIL() << "a regex that does not compile must be rejected";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'broken'"), std::string::npos) << e.what();
  }
  bad["rules"][0]["pattern"] = "x";
  bad["rules"][0]["confidence"] = 7;
  EXPECT_THROW(loadClassifier(write(bad)), std::runtime_error);
  bad["rules"][0].erase("confidence");
  bad["rules"][0]["colour"] = "red";
  EXPECT_THROW(loadClassifier(write(bad)), std::runtime_error);
  EXPECT_THROW(loadClassifier(write(json{{"schema", "other/1"}, {"rules", json::array()}})),
               std::runtime_error);
  EXPECT_THROW(loadClassifier(write(json::array())), std::runtime_error);
  fs::remove_all(dir);
}
