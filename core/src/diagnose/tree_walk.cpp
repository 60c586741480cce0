// Walking the troubleshooting tree over a report: evidence answers first, a person's
// answers where evidence is silent, and a stop at the first open question.
#include <algorithm>

#include "tilescope/diagnose/tree.h"

namespace tilescope {
namespace {

using nlohmann::json;

void addExperiment(TreeWalk& w, const TreeNode& n) {
  if (!n.experiment.empty() &&
      std::find(w.experiments.begin(), w.experiments.end(), n.experiment) == w.experiments.end())
    w.experiments.push_back(n.experiment);
}

/// The largest evidence.estimated_gain among a holding answer's facts; 0 when none.
double gainOf(const json& facts) {
  double best = 0;
  for (const json& f : facts) {
    if (!f.is_object() || !f.contains("evidence") || !f["evidence"].is_object()) continue;
    const auto g = f["evidence"].find("estimated_gain");
    if (g != f["evidence"].end() && g->is_number()) best = std::max(best, g->get<double>());
  }
  return best;
}

/// The first answer whose predicate holds; at a node ranked by estimated_gain, the
/// holding answer with the largest gain (the first of equals; none with a gain: the first).
const TreeAnswer* answerFromEvidence(const TreeNode& node, const json& subject, json& evidence) {
  const TreeAnswer* chosen = nullptr;
  double chosenGain = 0;
  for (const auto& a : node.answers) {
    if (a.when.is_null()) continue;
    json ev = json::array();
    if (!evalPredicate(a.when, subject, &ev)) continue;
    const double g = node.rank.empty() ? 0 : gainOf(ev);
    if (!chosen || g > chosenGain) {
      chosen = &a;
      chosenGain = g;
      evidence = std::move(ev);
    }
    if (node.rank.empty()) break;
  }
  return chosen;
}

}  // namespace

TreeWalk walkTree(const Tree& tree, const json& subject,
                  const std::map<std::string, std::string>& userAnswers, const std::string& startNode) {
  TreeWalk w;
  const std::string start = startNode.empty() ? tree.root : startNode;
  const TreeNode* node = tree.find(start);
  if (!node) {
    w.error = "unknown start node '" + start + "'";
    return w;
  }
  // The tree is validated acyclic, so a walk visits at most every node once.
  for (std::size_t guard = 0; node && guard <= tree.nodes.size(); ++guard) {
    w.path.push_back(node->id);
    w.stoppedAt = node->id;
    if (node->isLeaf()) {
      w.complete = true;
      w.leaf = node;
      return w;
    }
    json evidence = json::array();
    const TreeAnswer* chosen = answerFromEvidence(*node, subject, evidence);
    bool automatic = chosen != nullptr;
    if (!chosen) {
      auto it = userAnswers.find(node->id);
      if (it != userAnswers.end()) {
        chosen = node->answer(it->second);
        if (!chosen) w.error = "node '" + node->id + "' has no answer '" + it->second + "'";
      }
      addExperiment(w, *node);
    }
    if (!chosen) {
      w.openAnswers = node->answers;
      w.openQuestion = node->question;
      return w;
    }
    w.steps.push_back({node->id, node->question, chosen->id, evidence, automatic});
    node = tree.find(chosen->next);
  }
  w.error = "walk did not end (tree not validated?)";
  return w;
}

void applyWalk(Report& report, const TreeWalk& walk) {
  report.treePath = walk.path;
  report.treeSteps = walk.steps;
  // An open question is recorded as a step without an answer, so readers of the
  // report see where a person has to look next.
  if (!walk.complete && !walk.stoppedAt.empty()) {
    TreeStep open;
    open.node = walk.stoppedAt;
    open.question = walk.openQuestion;
    open.automatic = false;
    open.evidence = json::array();
    report.treeSteps.push_back(std::move(open));
  }
}

std::vector<std::string> experimentsRequested(const TreeWalk& walk) { return walk.experiments; }

}  // namespace tilescope
