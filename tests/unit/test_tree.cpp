// The troubleshooting tree: loading and validation errors, walks over hand-built
// report JSON, and that every tree_node id the code emits exists in the shipped tree.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "tilescope/diagnose/tree.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace tilescope;

namespace {

const fs::path kSource = TILESCOPE_SOURCE_DIR;

const Tree& shipped() {
  static Tree t = loadTree(kSource / "resources" / "tree.json");
  return t;
}

json finding(const std::string& category, json extra = json::object()) {
  json f = {{"category", category},
            {"severity", "error"},
            {"message", category + " seen"},
            {"evidence", json::object()}};
  f.update(extra);
  return f;
}

json point(const std::string& verdict, json findings) {
  return {{"verdict", verdict}, {"findings", findings}, {"compile", {{"ok", true}, {"log", ""}}}};
}

// A minimal valid tree to mutate in the validation tests.
json smallTree() {
  return json::parse(R"({
    "schema": "tilescope.tree/1", "root": "a",
    "nodes": {
      "a": {"title": "A", "question": "Which?", "answers": [
        {"id": "x", "label": "X", "next": "b", "when": {"finding": "hang"}},
        {"id": "y", "label": "Y", "next": "c"}]},
      "b": {"title": "B", "explanation": "because", "fix": "do this"},
      "c": {"title": "C", "explanation": "because", "fix": "do that"}
    }})");
}

std::string loadError(const json& j, std::string* node = nullptr) {
  try {
    treeFromJson(j, "test");
  } catch (const TreeError& e) {
    if (node) *node = e.node();
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Tree, ShippedTreeLoads) {
  const Tree& t = shipped();
  EXPECT_EQ(t.root, "start");
  EXPECT_GE(t.nodes.size(), 60u);
  int leaves = 0;
  for (const auto& n : t.nodes)
    if (n.isLeaf()) {
      ++leaves;
      EXPECT_FALSE(n.fix.empty()) << n.id;
      if (n.id != "ok") {
        EXPECT_FALSE(n.examples.empty()) << n.id << " has no before/after example";
      }
    }
  EXPECT_GE(leaves, 40);
}

TEST(Tree, EveryEmittedTreeNodeExists) {
  // Ids the brief lists, including those passed through helpers (static_analysis.cpp).
  std::set<std::string> ids = {"compile.cuda",
                               "launch.invalid_config",
                               "launch.smem_exceeded",
                               "launch.too_many_resources",
                               "wrong.coverage_gap",
                               "wrong.coverage_overlap",
                               "perf.register_spill",
                               "perf.low_occupancy",
                               "fault.hang",
                               "fault.illegal_address",
                               "fault.race",
                               "wrong.nan_inf",
                               "wrong.all_zero",
                               "wrong.mismatch",
                               "wrong.mismatch.tail_tiles",
                               "wrong.mismatch.transposed",
                               "fault.oob_read"};
  // And every `treeNode = "..."` and finding(..., "node", ...) literal in the sources today.
  const std::regex assign(R"re(treeNode\s*=\s*"([a-z_.]+)")re");
  const std::regex helper(
      R"re([Ff]inding\("[a-z_]+",[^;]*?"((compile|launch|fault|wrong|perf)\.[a-z_.]+)")re");
  for (const char* dir : {"core", "app", "ui"}) {
    if (!fs::exists(kSource / dir)) continue;
    for (const auto& e : fs::recursive_directory_iterator(kSource / dir)) {
      auto ext = e.path().extension();
      if (ext != ".cpp" && ext != ".h") continue;
      std::ifstream in(e.path());
      std::stringstream ss;
      ss << in.rdbuf();
      const std::string text = ss.str();
      for (const std::regex* re : {&assign, &helper})
        for (auto it = std::sregex_iterator(text.begin(), text.end(), *re); it != std::sregex_iterator();
             ++it)
          ids.insert((*it)[1]);
    }
  }
  ids.erase("");
  for (const auto& id : ids)
    EXPECT_TRUE(shipped().contains(id)) << "emitted tree_node '" << id << "' is not in tree.json";
}

TEST(Tree, FindNearestDropsUnknownSuffixes) {
  ASSERT_NE(shipped().findNearest("wrong.nan_inf.large_only"), nullptr);
  EXPECT_EQ(shipped().findNearest("wrong.nan_inf.large_only")->id, "wrong.nan_inf");
  EXPECT_EQ(shipped().findNearest("wrong.mismatch.tail_tiles")->id, "wrong.mismatch.tail_tiles");
  EXPECT_EQ(shipped().findNearest("nothing.here"), nullptr);
}

TEST(Tree, ValidationNamesTheNode) {
  std::string node;
  json j = smallTree();
  j["nodes"]["a"]["answers"][1]["next"] = "nowhere";
  EXPECT_NE(loadError(j, &node).find("unknown node 'nowhere'"), std::string::npos);
  EXPECT_EQ(node, "a");

  j = smallTree();
  j["nodes"]["orphan"] = {{"title", "O"}, {"explanation", "e"}, {"fix", "f"}};
  EXPECT_NE(loadError(j, &node).find("unreachable"), std::string::npos);
  EXPECT_EQ(node, "orphan");

  j = smallTree();
  j["nodes"]["b"].erase("fix");
  EXPECT_NE(loadError(j, &node).find("must have a 'fix'"), std::string::npos);
  EXPECT_EQ(node, "b");

  j = smallTree();
  j["nodes"]["a"]["answers"][0]["when"] = {{"findings", "hang"}};
  EXPECT_NE(loadError(j, &node).find("unknown predicate operator"), std::string::npos);
  EXPECT_EQ(node, "a");

  j = smallTree();
  j["nodes"]["a"]["answers"][0]["when"] = {{"field", "occupancy.theoretical"}, {"below", 0.25}};
  EXPECT_NE(loadError(j, &node).find("exactly one of"), std::string::npos);

  j = smallTree();
  j["nodes"]["a"]["answers"][0]["when"] = {{"not", {{"any", json::array()}}}};
  EXPECT_NE(loadError(j, &node).find("non-empty list"), std::string::npos);

  j = smallTree();
  j["nodes"]["a"]["experiment"] = "reboot";
  EXPECT_NE(loadError(j, &node).find("unknown experiment 'reboot'"), std::string::npos);

  j = smallTree();  // b → a closes a cycle
  j["nodes"]["b"] = {
      {"title", "B"}, {"question", "Again?"}, {"answers", {{{"id", "z"}, {"label", "Z"}, {"next", "a"}}}}};
  EXPECT_NE(loadError(j, &node).find("cycle"), std::string::npos);

  j = smallTree();
  j["root"] = "missing";
  EXPECT_NE(loadError(j).find("root node 'missing'"), std::string::npos);

  j = smallTree();
  j["schema"] = "tilescope.tree/2";
  EXPECT_NE(loadError(j).find("schema"), std::string::npos);

  EXPECT_EQ(loadError(smallTree()), "");
}

TEST(TreeWalk, OobWritePointWalksToTheMaskFix) {
  json p = point("fault", {finding("oob_write", {{"tensor", "C"}, {"location", {{"cta", {3, 7}}}}})});
  TreeWalk w = walkTree(shipped(), p);
  ASSERT_TRUE(w.complete) << w.stoppedAt;
  EXPECT_EQ(w.stoppedAt, "fault.oob_write");
  EXPECT_NE(w.leaf->fix.find("ask"), std::string::npos);  // "Mask every store"
  EXPECT_EQ(w.path.front(), "start");
  ASSERT_GE(w.steps.size(), 2u);
  EXPECT_TRUE(w.steps[0].automatic);
  // Evidence names the finding that decided, with its tensor.
  EXPECT_EQ(w.steps.back().evidence[0]["finding"], "oob_write");
  EXPECT_EQ(w.steps.back().evidence[0]["tensor"], "C");
  EXPECT_TRUE(experimentsRequested(w).empty());
}

TEST(TreeWalk, MisalignedFaultWalksToVectorAlignment) {
  TreeWalk w = walkTree(shipped(), point("fault", {finding("misaligned_access")}));
  ASSERT_TRUE(w.complete);
  EXPECT_EQ(w.stoppedAt, "fault.misaligned_access.vector_width");
  EXPECT_NE(w.leaf->explanation.find("align"), std::string::npos);
  // Proved by shifting the base pointer: the allocation-offset leaf.
  w = walkTree(shipped(), point("fault", {finding("misaligned_access", {{"experiment", "align_shift"}})}));
  EXPECT_EQ(w.stoppedAt, "fault.misaligned_access.allocation_offset");
}

TEST(TreeWalk, PastedMisalignedLogAsksForTheAlignShiftExperiment) {
  TreeWalk w = walkTree(shipped(), json{{"log", "RuntimeError: CUDA error: misaligned address"}});
  EXPECT_FALSE(w.complete);
  EXPECT_EQ(w.stoppedAt, "fault.misaligned_access");
  EXPECT_EQ(experimentsRequested(w), std::vector<std::string>{"align_shift"});
  EXPECT_EQ(w.steps[0].evidence[0]["log"], "misaligned_access");
}

TEST(TreeWalk, TailTilesMismatchWalksToMask) {
  TreeWalk w = walkTree(shipped(), point("incorrect", {finding("mismatch", {{"detail", "tail_tiles"}})}));
  ASSERT_TRUE(w.complete);
  EXPECT_EQ(w.stoppedAt, "wrong.mismatch.tail_tiles");
  EXPECT_NE(w.leaf->fix.find("mask"), std::string::npos);
  std::vector<std::string> want{"start", "wrong", "wrong.mismatch", "wrong.mismatch.tail_tiles"};
  EXPECT_EQ(w.path, want);
}

TEST(TreeWalk, NanInfAnsweredByTheScaledInputsExperiment) {
  TreeWalk open = walkTree(shipped(), point("incorrect", {finding("nan_inf")}));
  EXPECT_FALSE(open.complete);
  EXPECT_EQ(open.stoppedAt, "wrong.nan_inf");
  EXPECT_EQ(experimentsRequested(open), std::vector<std::string>{"input_scale"});
  TreeWalk exp =
      walkTree(shipped(), point("incorrect", {finding("nan_inf", {{"detail", "input_magnitude"}})}));
  ASSERT_TRUE(exp.complete);
  EXPECT_EQ(exp.stoppedAt, "wrong.nan_inf.softmax_max");
  TreeWalk div =
      walkTree(shipped(), point("incorrect", {finding("nan_inf", {{"detail", "magnitude_independent"}})}));
  ASSERT_TRUE(div.complete);
  EXPECT_EQ(div.stoppedAt, "wrong.nan_inf.division_by_zero");
  // A read past the end explains scale-independent NaN better than a division.
  TreeWalk oob = walkTree(
      shipped(),
      point("incorrect", {finding("nan_inf", {{"detail", "magnitude_independent"}}), finding("oob_read")}));
  ASSERT_TRUE(oob.complete);
  EXPECT_EQ(oob.stoppedAt, "fault.oob_read");
}

TEST(TreeWalk, AllZeroStopsAtTheAccumulatorQuestion) {
  json p = point("incorrect", {finding("all_zero")});
  TreeWalk w = walkTree(shipped(), p);
  EXPECT_FALSE(w.complete);
  EXPECT_EQ(w.stoppedAt, "wrong.all_zero");
  EXPECT_NE(w.openQuestion.find("accumulator"), std::string::npos);
  bool hasUninit = false;
  for (const auto& a : w.openAnswers)
    hasUninit = hasUninit || a.next == "wrong.all_zero.uninitialized_accumulator";
  EXPECT_TRUE(hasUninit);
  EXPECT_EQ(experimentsRequested(w), std::vector<std::string>{"poison"});

  // A person answers; the walk goes on and records a manual step.
  w = walkTree(shipped(), p, {{"wrong.all_zero", "uninit_acc"}});
  ASSERT_TRUE(w.complete);
  EXPECT_EQ(w.stoppedAt, "wrong.all_zero.uninitialized_accumulator");
  EXPECT_FALSE(w.steps.back().automatic);
  EXPECT_NE(w.leaf->examples.front().after.find("T.clear"), std::string::npos);

  // An answer id the node does not have is reported, and the walk stays open.
  w = walkTree(shipped(), p, {{"wrong.all_zero", "reboot"}});
  EXPECT_FALSE(w.complete);
  EXPECT_NE(w.error.find("reboot"), std::string::npos);
}

TEST(TreeWalk, EvidenceWinsOverAPersonsAnswer) {
  // The poison experiment proved an uninitialised read: the person's guess is not used.
  json p = point("incorrect", {finding("all_zero"), finding("uninitialized_read")});
  TreeWalk w = walkTree(shipped(), p, {{"wrong.all_zero", "missing_store"}});
  // wrong → uninit is listed before all_zero in the wrong node, so it lands there directly.
  EXPECT_EQ(w.stoppedAt, "wrong.uninitialized_read");
  w = walkTree(shipped(), p, {{"wrong.all_zero", "missing_store"}}, "wrong.all_zero");
  EXPECT_EQ(w.stoppedAt, "wrong.all_zero.uninitialized_accumulator");
  EXPECT_TRUE(w.steps.front().automatic);
}

TEST(TreeWalk, ReportFieldsAnswerPerformanceQuestions) {
  Report r;
  Point pt;
  pt.verdict = Verdict::ok;
  pt.occupancy.computed = true;
  pt.occupancy.theoretical = 0.125;
  pt.occupancy.limiter = "registers";
  Finding f;
  f.category = "low_occupancy";
  f.severity = Severity::warning;
  f.treeNode = "perf.low_occupancy";
  pt.findings.push_back(f);
  r.points.push_back(pt);
  r.finalize();
  TreeWalk w = walkTree(shipped(), toJson(r));
  ASSERT_TRUE(w.complete) << w.stoppedAt;
  EXPECT_EQ(w.stoppedAt, "perf.low_occupancy.registers");
  EXPECT_EQ(w.steps.back().evidence[0]["field"], "occupancy.limiter");
  EXPECT_EQ(w.steps.back().evidence[0]["value"], "registers");

  // Same report, shared memory limits it.
  r.points[0].occupancy.limiter = "shared_memory";
  EXPECT_EQ(walkTree(shipped(), toJson(r)).stoppedAt, "perf.low_occupancy.shared_memory");
}

TEST(TreeWalk, PastedTritonLogWalksToTheArangeFix) {
  TreeWalk w =
      walkTree(shipped(), json{{"log", "ValueError: arange's arguments must be of type tl.constexpr"}});
  ASSERT_TRUE(w.complete);
  EXPECT_EQ(w.stoppedAt, "compile.triton.arange_constexpr");
  EXPECT_NE(w.leaf->examples.front().after.find("mask"), std::string::npos);
}

TEST(TreeWalk, CompileLogOfAPointIsClassified) {
  json p = point("compile_error", {finding("compile_error", {{"detail", "cuda"}})});
  p["compile"] = {{"ok", false}, {"log", "gemm.cu(12): error: identifier \"BLOCK_K\" is undefined\n"}};
  TreeWalk w = walkTree(shipped(), p);
  EXPECT_EQ(w.stoppedAt, "compile.cuda.undefined_identifier");
}

TEST(TreeWalk, StartNodeAndUnknownStart) {
  TreeWalk w = walkTree(shipped(), point("incorrect", {finding("mismatch", {{"detail", "transposed"}})}), {},
                        "wrong.mismatch");
  EXPECT_EQ(w.path.front(), "wrong.mismatch");
  EXPECT_EQ(w.stoppedAt, "wrong.mismatch.transposed");
  w = walkTree(shipped(), json::object(), {}, "no.such.node");
  EXPECT_NE(w.error.find("no.such.node"), std::string::npos);
}

TEST(TreeWalk, ApplyWalkFillsTheReport) {
  Report r;
  TreeWalk w = walkTree(shipped(), point("incorrect", {finding("all_zero")}));
  applyWalk(r, w);
  EXPECT_EQ(r.treePath, w.path);
  ASSERT_EQ(r.treeSteps.size(), w.steps.size() + 1);  // + the open question
  EXPECT_EQ(r.treeSteps.back().node, "wrong.all_zero");
  EXPECT_TRUE(r.treeSteps.back().answer.empty());
  EXPECT_FALSE(r.treeSteps.back().automatic);
  Report back = reportFromJson(toJson(r));
  EXPECT_EQ(back.treePath, w.path);
  EXPECT_EQ(back.treeSteps.front().answer, "wrong");
  // The walk's steps are the report's: the answered ones survive a round trip whole.
  const std::vector<TreeStep> answered(back.treeSteps.begin(), back.treeSteps.end() - 1);
  EXPECT_EQ(answered, w.steps);
}

TEST(TreeWalk, StepAnswersResolveThroughTheTree) {
  const Tree& t = shipped();
  TreeWalk w = walkTree(t, point("incorrect", {finding("all_zero")}), {{"wrong.all_zero", "uninit_acc"}});
  ASSERT_TRUE(w.complete);
  ASSERT_EQ(w.steps.size() + 1, w.path.size());
  for (std::size_t i = 0; i < w.steps.size(); ++i) {
    const TreeNode* node = t.find(w.steps[i].node);
    ASSERT_NE(node, nullptr);
    const TreeAnswer* a = node->answer(w.steps[i].answer);
    ASSERT_NE(a, nullptr) << w.steps[i].node << " / " << w.steps[i].answer;
    EXPECT_EQ(a->next, w.path[i + 1]);  // the label and next node a step shows are the tree's
    EXPECT_FALSE(a->label.empty());
  }
  EXPECT_EQ(t.find(w.path.front())->answer("no-such-answer"), nullptr);
}

TEST(TreePredicates, Operators) {
  json s = {{"verdict", "slow"},
            {"defines", {{"BLOCK_K", 24}, {"STAGES", 1}}},
            {"coverage", {{"C", {{"declared", {{"uncovered", 12}}}}}}},
            {"findings", json::array()}};
  EXPECT_TRUE(evalPredicate({{"field", "defines.BLOCK_K"}, {"multiple_of", 8}}, s));
  EXPECT_FALSE(evalPredicate({{"field", "defines.BLOCK_K"}, {"multiple_of", 16}}, s));
  EXPECT_TRUE(evalPredicate({{"field", "coverage.*.declared.uncovered"}, {"gt", 0}}, s));
  EXPECT_FALSE(evalPredicate({{"field", "occupancy.theoretical"}, {"lt", 0.25}}, s));  // absent: false
  EXPECT_TRUE(evalPredicate({{"field", "occupancy"}, {"exists", false}}, s));
  EXPECT_TRUE(evalPredicate({{"not", {{"verdict", "ok"}}}}, s));
  EXPECT_TRUE(
      evalPredicate({{"all", {{{"verdict", {"slow", "ok"}}}, {{"field", "defines.STAGES"}, {"le", 1}}}}}, s));
  EXPECT_FALSE(evalPredicate({{"any", {{{"finding", "race"}}, {{"verdict", "hang"}}}}}, s));
  // The shipped tree routes this report to the block_K alignment advice.
  EXPECT_EQ(walkTree(shipped(), s).stoppedAt, "perf.block_k_alignment");
}
