// The log classifier over its corpus (tests/data/classify/expected.json): accuracy by
// family on one split, and the time to classify long and hostile logs.
//   bench_classify [CORPUS_DIR] [--split dev|heldout|all] [--failures] [--no-timing]
// Prints a Markdown table: logs, right category, right tree node, unknown (below the
// threshold), confidently wrong (a category other than the expected one, at or above
// the threshold). "Right" counts a log whose expected category is the answer.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tilescope/logs/classify.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace tilescope;

namespace {

struct Row {
  int n = 0, right = 0, node = 0, unknown = 0, wrong = 0;
};

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string pct(int a, int n) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f %%", n ? 100.0 * a / n : 0.0);
  return b;
}

void printRow(const std::string& name, const Row& r) {
  std::cout << "| " << name << " | " << r.n << " | " << r.right << " (" << pct(r.right, r.n) << ") | "
            << r.node << " | " << r.unknown << " | " << r.wrong << " |\n";
}

double seconds(const Classifier& c, const std::string& text, Classification* out) {
  const auto t0 = std::chrono::steady_clock::now();
  *out = c.classify(text);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Long and hostile logs, built here so the bench needs no large files.
void timing(const Classifier& c) {
  std::cout << "\n| log | size | lines | seconds | answer |\n| --- | --- | --- | --- | --- |\n";
  auto row = [&](const std::string& name, const std::string& text) {
    Classification r;
    const double s = seconds(c, text, &r);
    char b[64];
    std::snprintf(b, sizeof b, "%.3f", s);
    std::cout << "| " << name << " | " << text.size() / 1024 << " KiB | " << r.lines << " | " << b << " | "
              << (r.known() ? r.category + " (line " +
                                  std::to_string(r.evidence.empty() ? 0 : r.evidence.front().number) + ")"
                            : std::string("unknown"))
              << " |\n";
  };
  std::string pytest;
  for (int i = 0; i < 10000; ++i)
    pytest += "2025-02-26T07:40:" + std::to_string(10 + i % 50) + ".1234567Z tests/test_ops.py::test_case_" +
              std::to_string(i) + " PASSED [" + std::to_string(i / 100) + "%]\n";
  pytest.insert(
      pytest.size() / 2,
      "2025-02-26T07:41:00.0000000Z E       triton.runtime.errors.OutOfResources: out of resource: shared "
      "memory, Required: 131072, Hardware limit: 101376. Reducing block sizes or `num_stages` may help.\n");
  row("10,000-line pytest log, error in the middle", pytest);
  std::string ranks;
  for (int i = 0; i < 10000; ++i)
    ranks += "[rank" + std::to_string(i % 8) + "]:[I ProcessGroupNCCL.cpp:1100] step " + std::to_string(i) +
             " loss 0.4312 lr 1e-4\n";
  ranks +=
      "[rank7]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] [Rank 7] Watchdog caught collective "
      "operation "
      "timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE) ran for 600060 milliseconds before timing out.\n";
  row("10,000-line rank-prefixed log, NCCL timeout at the end", ranks);
  std::string million;
  for (int i = 0; i < 1000000; ++i)
    million += "RuntimeError: CUDA error " + std::to_string(i) + " something failed at step " +
               std::to_string(i) + "\n";
  row("1,000,000 error-like lines", million);
  std::string distinct;
  for (int i = 0; distinct.size() < (std::size_t(50) << 20); ++i)
    distinct += "worker " + std::string(1, char('a' + i % 26)) + std::string(1, char('a' + (i / 26) % 26)) +
                std::string(1, char('a' + (i / 676) % 26)) + " reported error in shard " + std::to_string(i) +
                "\n";
  distinct += "RuntimeError: CUDA error: an illegal memory access was encountered\n";
  row("50 MB log, distinct lines, error at the end", distinct);
  row("one 1 MB line", std::string(1 << 20, 'x') + " illegal memory access\n");
  row("one 1 MB line of an MLIR assertion", "mlir::" + std::string(1 << 20, 'a') + " Assertion\n");
}

}  // namespace

int main(int argc, char** argv) {
  fs::path dir = "tests/data/classify";
  std::string split = "heldout";
  bool failures = false, doTiming = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--split" && i + 1 < argc)
      split = argv[++i];
    else if (a == "--failures")
      failures = true;
    else if (a == "--no-timing")
      doTiming = false;
    else
      dir = a;
  }
  const fs::path rules = dir / "../../../resources/classifier.json";
  Classifier c;
  try {
    c = loadClassifier(fs::exists(rules) ? rules : fs::path("resources/classifier.json"));
  } catch (const std::exception& e) {
    std::cerr << e.what() << '\n';
    return 2;
  }
  const json expected = json::parse(readFile(dir / "expected.json"));
  std::map<std::string, Row> rows;
  Row all;
  std::ostringstream fails;
  for (const auto& [file, want] : expected.items()) {
    if (split != "all" && want.value("split", "") != split) continue;
    const Classification got = c.classify(readFile(dir / file));
    Row& r = rows[want.value("family", "?")];
    const std::string wantCategory = want.value("category", ""), wantNode = want.value("node", "");
    const bool right = got.category == wantCategory;
    for (Row* x : {&r, &all}) {
      ++x->n;
      x->right += right;
      x->node += right && got.treeNode == wantNode;
      x->unknown += !got.known();
      x->wrong += got.known() && !right;
    }
    if (failures && (!right || got.treeNode != wantNode))
      fails << "- " << file << ": expected " << wantCategory << " / " << wantNode << ", got "
            << (got.known() ? got.category + " / " + got.treeNode : "unknown") << " (" << got.confidence
            << ", " << (got.candidates.empty() ? "" : got.candidates.front().rule) << ")\n";
  }
  std::cout << "Classifier corpus, split `" << split << "` (threshold " << c.threshold << ")\n\n"
            << "| family | logs | right category | right node | unknown | confidently wrong |\n"
            << "| --- | --- | --- | --- | --- | --- |\n";
  for (const auto& [fam, r] : rows) printRow(fam, r);
  printRow("**all**", all);
  if (failures) std::cout << "\n" << fails.str();
  if (doTiming) timing(c);
  return 0;
}
