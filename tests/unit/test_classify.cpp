// The error-log classifier against a corpus of real messages (tests/data/classify:
// the seed write-ups and public issue trackers; expected.json names each source).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tilescope/classify.h"
#include "tilescope/tree.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace tilescope;

namespace {

const fs::path kCorpus = fs::path(TILESCOPE_TEST_DATA) / "classify";
const fs::path kResources = fs::path(TILESCOPE_SOURCE_DIR) / "resources";

std::string readFile(const fs::path& p) {
  std::ifstream in(p);
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

TEST(Classify, CorpusHasEnoughRealEntries) {
  json e = expected();
  EXPECT_GE(e.size(), 40u);
  int fromIssues = 0;
  for (const auto& [file, want] : e.items()) {
    EXPECT_TRUE(fs::exists(kCorpus / file)) << file;
    ASSERT_TRUE(want.contains("url")) << file;
    if (want["url"].get<std::string>().rfind("https://github.com/", 0) == 0) ++fromIssues;
  }
  EXPECT_GE(fromIssues, 25);
}

TEST(Classify, EveryCorpusEntryGetsItsExpectedClass) {
  const json all = expected();
  for (const auto& [file, want] : all.items()) {
    SCOPED_TRACE(file);
    const std::string text = readFile(kCorpus / file);
    Classification c = classifier().classify(text);
    EXPECT_EQ(c.category, want["category"].get<std::string>());
    EXPECT_EQ(c.treeNode, want["node"].get<std::string>());
    EXPECT_EQ(c.source, want["source"].get<std::string>());
    if (want.contains("detail")) EXPECT_EQ(c.detail, want["detail"].get<std::string>());
    // The decisive line is a line of the log, quoted as it stands (trimmed).
    EXPECT_FALSE(c.matched.empty());
    EXPECT_NE(text.find(c.matched), std::string::npos) << c.matched;
    EXPECT_GT(c.confidence, 0.0);
  }
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
}

TEST(Classify, UnknownTextIsNotClassified) {
  Classification c = classifier().classify("all good\n128 tests passed\n");
  EXPECT_FALSE(c.known());
  EXPECT_EQ(c.confidence, 0.0);
  EXPECT_TRUE(c.treeNode.empty());
  EXPECT_FALSE(classifier().classify("").known());
}

TEST(Classify, SpecificRuleWinsOverTheGenericCompileError) {
  Classification c = classifier().classify("gemm.cu(41): error: identifier \"BLOCK_K\" is undefined\n"
                                           "gemm.cu(52): error: expected a \";\"\n");
  EXPECT_EQ(c.detail, "cuda_undefined_identifier");
  EXPECT_EQ(c.source, "nvcc");
  c = classifier().classify("gemm.cu(52): error: expected a \";\"\n");
  EXPECT_EQ(c.detail, "cuda_compile");
  EXPECT_EQ(c.treeNode, "compile.cuda");
}

TEST(Classify, TheErrorAtTheEndOfALongLogDecides) {
  std::string log;
  for (int i = 0; i < 5000; ++i) log += "step " + std::to_string(i) + ": loss 0.123 lr 1e-4 tokens/s 81234.5\n";
  log += "RuntimeError: CUDA error: an illegal memory access was encountered\n";
  Classification c = classifier().classify(log);
  EXPECT_EQ(c.category, "illegal_address");
}

TEST(Classify, MalformedRulesNameTheRule) {
  const fs::path dir = fs::temp_directory_path() / "tilescope_classify_test";
  fs::create_directories(dir);
  auto write = [&](const json& j) {
    std::ofstream(dir / "c.json") << j.dump();
    return dir / "c.json";
  };
  json bad = {{"schema", kClassifierSchema},
              {"rules", {{{"id", "broken"}, {"pattern", "(unclosed"}, {"category", "hang"}, {"node", "fault.hang"},
                          {"source", "cuda"}}}}};
  try {
    loadClassifier(write(bad));
    FAIL() << "a regex that does not compile must be rejected";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'broken'"), std::string::npos) << e.what();
  }
  bad["rules"][0]["pattern"] = "x";
  bad["rules"][0]["colour"] = "red";
  EXPECT_THROW(loadClassifier(write(bad)), std::runtime_error);
  EXPECT_THROW(loadClassifier(write(json{{"schema", "other/1"}, {"rules", json::array()}})), std::runtime_error);
  fs::remove_all(dir);
}
