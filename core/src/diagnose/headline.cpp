#include "tilescope/diagnose/headline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "tilescope/counters/counters.h"

namespace tilescope {

namespace {

int rankOf(const Finding& f) {
  const CategoryInfo* c = findCategory(f.category);
  return c ? c->rank : std::numeric_limits<int>::max();
}

/// The root cause among the error findings: lowest rank, first in report order.
const Finding* rootCause(const std::vector<Finding>& findings) {
  const Finding* best = nullptr;
  for (const Finding& f : findings)
    if (f.severity == Severity::error && (!best || rankOf(f) < rankOf(*best))) best = &f;
  return best;
}

/// The error finding whose tree node lies deepest on the walked path.
const Finding* findingOnPath(const std::vector<Finding>& findings, const std::vector<std::string>& path) {
  for (auto node = path.rbegin(); node != path.rend(); ++node)
    for (const Finding& f : findings) {
      if (f.severity != Severity::error) continue;
      const std::string& own =
          !f.treeNode.empty() ? f.treeNode : std::string(categoryInfo(f.category).treeNode);
      if (own == *node || (own.size() > node->size() && own.compare(0, node->size() + 1, *node + ".") == 0))
        return &f;
    }
  return nullptr;
}

int pointWith(const Report& r, const Finding& f) {
  if (!f.experiment.empty())
    for (std::size_t i = 0; i < r.points.size(); ++i)
      if (r.points[i].experiment == f.experiment && r.points[i].verdict != Verdict::ok)
        return static_cast<int>(i);
  for (std::size_t i = 0; i < r.points.size(); ++i)
    for (const Finding& g : r.points[i].findings)
      if (g.category == f.category && g.severity == f.severity) return static_cast<int>(i);
  return -1;
}

/// The output's rank (the config's shape of the cause's tensor), 0 when unknown.
std::size_t outputRank(const Report& r, const Finding* cause) {
  if (!cause || !r.config.is_object()) return 0;
  const std::string tensor = !cause->tensor.empty() ? cause->tensor : cause->location.output;
  const auto tensors = r.config.find("tensors");
  if (tensor.empty() || tensors == r.config.end() || !tensors->is_object()) return 0;
  const auto t = tensors->find(tensor);
  if (t == tensors->end() || !t->is_object() || !t->contains("shape") || !(*t)["shape"].is_array()) return 0;
  return (*t)["shape"].size();
}

const TreeExample* exampleFor(const TreeNode& leaf, const std::string& language, std::size_t rank) {
  const TreeExample* pick = nullptr;
  for (const TreeExample& e : leaf.examples) {
    if (e.language != language) continue;
    if (!pick) pick = &e;
    if (rank > 0 && e.rank == static_cast<int>(rank)) return &e;
  }
  return pick;
}

/// A finding's estimated gain: recorded in its evidence, else estimated from it and
/// the point that shows it (a report recorded before the estimate); 0 when none.
double gainOf(const Report& r, const Finding& f) {
  if (const double g = recordedGain(f); known(g)) return g;
  if (r.points.empty()) return 0;
  const int i = pointWith(r, f);
  const double g = estimatedGain(f, r.points[static_cast<std::size_t>(std::max(i, 0))], &r.device);
  return known(g) ? g : 0;
}

/// The performance finding with the largest estimated gain (first of equals), or nullptr.
const Finding* largestGain(const Report& r, double* gain) {
  const Finding* best = nullptr;
  for (const Finding& f : r.findings)
    if (const double g = gainOf(r, f); g > *gain) {
      best = &f;
      *gain = g;
    }
  return best;
}

}  // namespace

nlohmann::json walkSubject(const Report& r, int point) {
  Point p = r.points[static_cast<std::size_t>(point)];
  addEstimatedGains(p.findings, p, &r.device);
  return toJson(p);
}

std::string gainText(double gain) {
  if (!(gain > 0)) return "";
  char buf[48];
  std::snprintf(buf, sizeof buf, "up to ~%.*f× faster", gain < 10 ? 1 : 0, gain);
  return buf;
}

std::string headlineText(const Headline& h) {
  if (!h.cause) return "";
  if (h.gain <= 0) return h.cause->message;
  return h.cause->category + ": " + gainText(h.gain) + ": " + h.cause->message;
}

std::string kernelLanguage(const Report& r) {
  if (r.config.is_object() && r.config.contains("kernel") && r.config["kernel"].is_object()) {
    const std::string l = r.config["kernel"].value("language", std::string());
    if (l == "triton" || l == "tilelang") return l;
  }
  return "cuda";
}

int headlinePoint(const Report& r) {
  if (r.points.empty()) return -1;
  if (const Finding* cause = rootCause(r.findings))
    if (const int p = pointWith(r, *cause); p >= 0) return p;
  for (std::size_t i = 0; i < r.points.size(); ++i)
    if (rootCause(r.points[i].findings)) return static_cast<int>(i);
  for (std::size_t i = 0; i < r.points.size(); ++i)
    if (r.points[i].verdict != Verdict::ok) return static_cast<int>(i);
  return 0;
}

Headline reportHeadline(const Report& r, const Tree* tree) {
  Headline h;
  h.verdict = r.verdict;
  h.language = kernelLanguage(r);
  if (tree && !r.treePath.empty()) {
    h.path = r.treePath;  // diagnose walked it over its experiments
    const TreeNode* last = tree->find(r.treePath.back());
    if (last && last->isLeaf()) h.leaf = last;
  } else if (tree && r.verdict != Verdict::ok) {
    // A run's report has no recorded walk: walk the point that shows the cause, as
    // the Troubleshooting panel does.
    h.point = headlinePoint(r);
    if (h.point >= 0) try {
        const TreeWalk w = walkTree(*tree, walkSubject(r, h.point));
        h.path = w.path;
        if (w.complete) h.leaf = w.leaf;
      } catch (const std::exception&) {
        // A tree the report's evidence cannot be walked over: no fix line, the cause still leads.
      }
  }
  h.cause = findingOnPath(r.findings, h.path);
  if (!h.cause) h.cause = rootCause(r.findings);
  // Slow, nothing failed: the largest gain leads (an ok report lists its warnings instead).
  if (!h.cause && r.verdict != Verdict::ok) h.cause = largestGain(r, &h.gain);
  if (h.leaf) {
    const TreeTextContext text = treeTextContext(r);  // the report's device, not the tree's example GPU
    h.fixText = renderTreeText(h.leaf->fix, text);
    h.fix = h.leaf->title + ": " + h.fixText;
    h.example = exampleFor(*h.leaf, h.language, outputRank(r, h.cause));
    if (h.example) h.exampleAfter = renderTreeText(h.example->after, text);
  }
  return h;
}

}  // namespace tilescope
