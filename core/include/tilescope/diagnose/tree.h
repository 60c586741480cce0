// The troubleshooting tree (resources/tree.json, schema tilescope.tree/1) and the engine
// that walks it over a report: questions answered from evidence where the report holds
// it, open questions left for a person, leaves with the explanation and the fix.
// The format and the predicate language are documented in docs/tree.md.
#pragma once

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/model/report.h"

namespace tilescope {

inline constexpr const char* kTreeSchema = "tilescope.tree/1";

/// A tree that does not load or validate; `node()` names the node at fault ("" when
/// the problem is the file or the schema).
class TreeError : public std::runtime_error {
 public:
  TreeError(std::string node, const std::string& message);
  const std::string& node() const { return m_node; }

 private:
  std::string m_node;
};

/// One answer to a node's question: `when` (a predicate, or null: a person must pick
/// it) and the node it leads to.
struct TreeAnswer {
  std::string id;
  std::string label;
  nlohmann::json when;  ///< predicate (docs/tree.md) or null
  std::string next;
};

/// A before/after code example of a fix.
struct TreeExample {
  std::string language;  ///< cuda | triton | tilelang | python | shell
  std::string before, after;
  int rank = 0;  ///< the output rank the example is written for (a 1-D tl.store), 0: any
};

struct TreeNode {
  std::string id;
  std::string title;
  std::string question;             ///< inner nodes
  std::vector<TreeAnswer> answers;  ///< inner nodes
  std::string experiment;  ///< trials | align_shift | small_shapes | poison | input_scale | warps, or ""
  /// "estimated_gain": of the answers whose predicates hold, the walk takes the one whose
  /// finding carries the largest evidence.estimated_gain (docs/tree.md); "": the first.
  std::string rank{};
  std::string explanation, fix;  ///< leaves
  std::vector<TreeExample> examples;
  std::vector<std::string> sources;  ///< where the remedy comes from (seed write-ups, docs)
  bool isLeaf() const { return answers.empty(); }
  /// The answer `id` of this node's question, or nullptr.
  const TreeAnswer* answer(const std::string& id) const;
};

struct Tree {
  std::string root;
  std::vector<TreeNode> nodes;  ///< in id order
  const TreeNode* find(const std::string& id) const;
  bool contains(const std::string& id) const { return find(id) != nullptr; }
  /// The node `id`, or its nearest existing ancestor by dropping dotted suffixes
  /// ("wrong.nan_inf.large_only" → "wrong.nan_inf"); nullptr when none exists.
  /// For ids computed from a category and a detail.
  const TreeNode* findNearest(const std::string& id) const;
};

/// Parses and validates: unknown `next` ids, nodes unreachable from the root, cycles,
/// leaves without a fix, inner nodes without a question, unknown predicate operators
/// and unknown experiments all throw TreeError naming the node. `origin` names the
/// source in messages.
Tree treeFromJson(const nlohmann::json& j, const std::string& origin = "tree");
Tree loadTree(const std::filesystem::path& file);
/// resourceDir()/tree.json.
Tree loadDefaultTree();

/// Throws TreeError(node, ...) when `pred` uses an unknown operator or a malformed operand.
void validatePredicate(const nlohmann::json& pred, const std::string& node);
/// Evaluates a predicate over a Report or Point JSON (or {"log": text}). Appends the
/// facts that decided it to `evidence` (an array) when given.
bool evalPredicate(const nlohmann::json& pred, const nlohmann::json& subject,
                   nlohmann::json* evidence = nullptr);

struct TreeWalk {
  /// The questions answered, in order: the report's step type (report.h), so a walk
  /// and a saved report read alike; an answer's label and next node are the tree's
  /// (TreeNode::answer).
  std::vector<TreeStep> steps;
  std::vector<std::string> path;  ///< node ids visited, start first
  std::string stoppedAt;          ///< last node reached
  bool complete = false;          ///< stoppedAt is a leaf
  /// When not complete: the open question's answers (a person picks one).
  std::vector<TreeAnswer> openAnswers;
  std::string openQuestion;
  const TreeNode* leaf = nullptr;  ///< points into the Tree when complete
  std::string error;               ///< a user answer that named no answer of its node, ...
  /// Experiments of the nodes the evidence could not decide (the open node, nodes a
  /// person answered), in path order without repeats.
  std::vector<std::string> experiments;
};

/// Walks from `startNode` (root when empty). At each node the first answer whose
/// predicate holds is taken (automatic, with its evidence); where none holds, the
/// person's answer from `userAnswers` (node id → answer id) is taken; otherwise the
/// walk stops at that open question. Evidence wins over a person's answer.
TreeWalk walkTree(const Tree& tree, const nlohmann::json& reportOrPoint,
                  const std::map<std::string, std::string>& userAnswers = {},
                  const std::string& startNode = "");

/// Fills report.treePath and report.treeSteps from a walk (replacing what was there).
void applyWalk(Report& report, const TreeWalk& walk);

/// The follow-up experiments the walk calls for (TreeWalk::experiments): those of the
/// visited nodes whose question the evidence could not answer, and that of the open
/// node. `diagnose` runs them, adds their points and findings, and walks again.
std::vector<std::string> experimentsRequested(const TreeWalk& walk);

/// The experiment names a node may request.
const std::vector<std::string>& knownExperiments();

// ---------------------------------------------------------------- texts for a report

/// What a leaf's texts say of the report they are shown for (docs/tree.md, "Texts that
/// name the device"): its device and its kernel's language.
struct TreeTextContext {
  std::string device{};           ///< the device's name ("NVIDIA H100 80GB HBM3"); "" unknown
  int smCount = 0;                ///< 0: unknown
  double tensorOverFp32 = 0;      ///< dense FP16 tensor-core peak over the FP32 pipe's; 0: unknown
  std::string language = "cuda";  ///< cuda | triton | tilelang; "": no report (every example)
};
/// The context of `r`: its device section and config's kernel language.
TreeTextContext treeTextContext(const Report& r);

/// `text` with its placeholders {device|DEFAULT}, {sm_count|DEFAULT} and
/// {tensor_ratio|DEFAULT} filled: every one from `c` where `c` knows every key the
/// text names, else every one with its default (so a text never mixes two devices).
std::string renderTreeText(const std::string& text, const TreeTextContext& c);

/// The examples of `leaf` a reader of a `language` kernel needs: those written in
/// it; `python` ones (host code of a Python kernel) for triton and tilelang; `shell`
/// and `json` for every language; every example for "" (no report). A CUDA C++ report
/// shows no Triton code.
std::vector<const TreeExample*> examplesFor(const TreeNode& leaf, const std::string& language);

/// A copy of `leaf` with its explanation, fix and examples rendered for `c` and only
/// the examples examplesFor picks.
TreeNode renderLeaf(const TreeNode& leaf, const TreeTextContext& c);

}  // namespace tilescope
