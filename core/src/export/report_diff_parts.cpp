// The parts of a comparison that pair things up (report_diff.h): outputs by
// tensor name, error-map cells by the elements they hold, findings by category
// and location.
#include <algorithm>
#include <cmath>

#include "report_diff_detail.h"

namespace tilescope::diff_detail {

namespace {

using Opt = std::optional<double>;

const CorrectnessInfo* findTensor(const Point& p, const std::string& tensor) {
  for (const CorrectnessInfo& c : p.correctness)
    if (c.checked && c.tensor == tensor) return &c;
  return nullptr;
}

std::vector<DiffValue> correctnessValues(const CorrectnessInfo* a, const CorrectnessInfo* b) {
  std::vector<DiffValue> v;
  const auto add = [&](const char* key, const char* label, const char* unit, auto get) {
    v.push_back(DiffValue{key, label, unit, a ? Opt{get(*a)} : Opt{}, b ? Opt{get(*b)} : Opt{}});
  };
  add("mismatches", "mismatched elements", "count",
      [](const CorrectnessInfo& c) { return double(c.mismatches); });
  add("nan", "NaN elements", "count", [](const CorrectnessInfo& c) { return double(c.nan); });
  add("inf", "Inf elements", "count", [](const CorrectnessInfo& c) { return double(c.inf); });
  add("max_abs_err", "max |error|", "", [](const CorrectnessInfo& c) { return c.maxAbsErr; });
  add("max_rel_err", "max relative error", "", [](const CorrectnessInfo& c) { return c.maxRelErr; });
  const auto tiles = [](const CorrectnessInfo* c) {
    return c && c->tiles ? Opt{double(c->tiles->badTiles)} : Opt{};
  };
  v.push_back(DiffValue{"bad_tiles", "tiles with wrong elements", "count", tiles(a), tiles(b)});
  add("elements", "elements", "count", [](const CorrectnessInfo& c) { return double(c.elements); });
  // A NaN error (no finite element) reads as absent, not as a number.
  for (DiffValue& x : v) {
    if (x.a && std::isnan(*x.a)) x.a.reset();
    if (x.b && std::isnan(*x.b)) x.b.reset();
  }
  return v;
}

/// B's map on A's grid: each of B's cells into the cell of A holding its first
/// element, the worst kept (-1, not finite, is the worst).
std::vector<double> resampled(const ErrorMap& a, const ErrorMap& b) {
  std::vector<double> out(a.maxAbs.size(), 0.0);
  std::vector<bool> hit(out.size(), false);
  for (std::int64_t r = 0; r < b.rows; ++r)
    for (std::int64_t c = 0; c < b.cols; ++c) {
      const std::int64_t ar = std::min(r * b.cell[0] / std::max<std::int64_t>(a.cell[0], 1), a.rows - 1);
      const std::int64_t ac = std::min(c * b.cell[1] / std::max<std::int64_t>(a.cell[1], 1), a.cols - 1);
      const double x = b.maxAbs[static_cast<std::size_t>(r * b.cols + c)];
      double& y = out[static_cast<std::size_t>(ar * a.cols + ac)];
      const auto i = static_cast<std::size_t>(ar * a.cols + ac);
      if (!hit[i] || x < 0 || (y >= 0 && x > y)) y = x;
      hit[i] = true;
    }
  return out;
}

MapCell cellChange(double a, double b, double tolerance, ErrorMapDiff& d) {
  const bool badA = a < 0 || std::isnan(a), badB = b < 0 || std::isnan(b);
  if (badA && badB) return MapCell::bothBad;
  if (badA) return MapCell::better;
  if (badB) return MapCell::worse;
  d.maxGrowth = std::max(d.maxGrowth, b - a);
  d.maxShrink = std::max(d.maxShrink, a - b);
  if (b - a > tolerance) return MapCell::worse;
  if (a - b > tolerance) return MapCell::better;
  return MapCell::same;
}

// ---------------------------------------------------------------- findings

std::string anchorFile(const Location& l) {
  const auto slash = l.file.find_last_of('/');
  return slash == std::string::npos ? l.file : l.file.substr(slash + 1);
}

/// Every part both locations name agrees (file names compared without folders).
bool compatible(const Location& a, const Location& b) {
  if (!a.output.empty() && !b.output.empty() && a.output != b.output) return false;
  if (!a.tile.empty() && !b.tile.empty() && a.tile != b.tile) return false;
  if (!a.cta.empty() && !b.cta.empty() && a.cta != b.cta) return false;
  if (!a.file.empty() && !b.file.empty() && anchorFile(a) != anchorFile(b)) return false;
  if (a.line && b.line && *a.line != *b.line) return false;
  return true;
}

FindingDiff pair(FindingChange change, const Finding* a, const Finding* b) {
  FindingDiff d;
  d.change = change;
  d.category = a ? a->category : b->category;
  if (a) {
    d.severityA = a->severity;
    d.messageA = a->message;
    d.locationA = a->location;
  }
  if (b) {
    d.severityB = b->severity;
    d.messageB = b->message;
    d.locationB = b->location;
  }
  return d;
}

}  // namespace

std::optional<ErrorMapDiff> errorMapDiff(const CorrectnessInfo& a, const CorrectnessInfo& b,
                                         std::string* note) {
  if (!a.errorMap || !b.errorMap) {
    *note = !a.errorMap && !b.errorMap ? "neither side has an error map"
                                       : std::string(a.errorMap ? "B" : "A") + " has no error map";
    return std::nullopt;
  }
  const ErrorMap& ma = *a.errorMap;
  const ErrorMap& mb = *b.errorMap;
  if (ma.rows <= 0 || ma.cols <= 0 || mb.rows <= 0 || mb.cols <= 0) {
    *note = "an error map is empty";
    return std::nullopt;
  }
  if (a.elements != b.elements) {
    *note = "the tensors differ in size (" + std::to_string(a.elements) + " and " +
            std::to_string(b.elements) + " elements): their maps cover different elements";
    return std::nullopt;
  }
  ErrorMapDiff d;
  d.rows = ma.rows;
  d.cols = ma.cols;
  d.cell = ma.cell;
  d.resampled = ma.rows != mb.rows || ma.cols != mb.cols || ma.cell != mb.cell;
  d.tolerance = std::max(a.atol, b.atol);
  const std::vector<double> bOnA = d.resampled ? resampled(ma, mb) : mb.maxAbs;
  d.cells.resize(ma.maxAbs.size());
  for (std::size_t i = 0; i < ma.maxAbs.size(); ++i) {
    const MapCell c = cellChange(ma.maxAbs[i], bOnA[i], d.tolerance, d);
    d.cells[i] = static_cast<std::uint8_t>(c);
    ++(c == MapCell::same     ? d.same
       : c == MapCell::worse  ? d.worse
       : c == MapCell::better ? d.better
                              : d.bothBad);
  }
  return d;
}

std::vector<CorrectnessDiff> correctnessDiff(const Point& a, const Point& b) {
  std::vector<std::string> tensors;
  for (const Point* p : {&a, &b})
    for (const CorrectnessInfo& c : p->correctness)
      if (c.checked && std::find(tensors.begin(), tensors.end(), c.tensor) == tensors.end())
        tensors.push_back(c.tensor);
  std::vector<CorrectnessDiff> out;
  for (const std::string& t : tensors) {
    const CorrectnessInfo* ca = findTensor(a, t);
    const CorrectnessInfo* cb = findTensor(b, t);
    CorrectnessDiff d;
    d.tensor = t;
    d.inA = ca != nullptr;
    d.inB = cb != nullptr;
    d.values = correctnessValues(ca, cb);
    if (ca && cb)
      d.map = errorMapDiff(*ca, *cb, &d.mapNote);
    else
      d.mapNote = std::string("only ") + (ca ? "A" : "B") + " checked " + t;
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<OutputBytesDiff> outputsDiff(const Point& a, const Point& b) {
  std::vector<std::string> tensors;  // A's order (a map's: by name), then B's others
  for (const Point* p : {&a, &b})
    for (const auto& [t, digest] : p->status.outputDigest)
      if (std::find(tensors.begin(), tensors.end(), t) == tensors.end()) tensors.push_back(t);
  std::vector<OutputBytesDiff> out;
  for (const std::string& t : tensors) {
    OutputBytesDiff d;
    d.tensor = t;
    if (auto it = a.status.outputDigest.find(t); it != a.status.outputDigest.end()) d.digestA = it->second;
    if (auto it = b.status.outputDigest.find(t); it != b.status.outputDigest.end()) d.digestB = it->second;
    d.identical = !d.digestA.empty() && d.digestA == d.digestB;
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<FindingDiff> findingsDiff(const std::vector<Finding>& a, const std::vector<Finding>& b) {
  std::vector<int> match(a.size(), -1);  // A's finding -> B's
  std::vector<bool> used(b.size(), false);
  std::vector<FindingChange> how(a.size(), FindingChange::same);
  // Three passes, strictest first: equal locations, compatible ones, the rest of the category.
  for (int pass = 0; pass < 3; ++pass)
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (match[i] >= 0) continue;
      for (std::size_t j = 0; j < b.size(); ++j) {
        if (used[j] || a[i].category != b[j].category) continue;
        const bool equal = a[i].location == b[j].location;
        if ((pass == 0 && !equal) || (pass == 1 && !compatible(a[i].location, b[j].location))) continue;
        match[i] = static_cast<int>(j);
        used[j] = true;
        how[i] = equal ? FindingChange::same : FindingChange::moved;
        break;
      }
    }
  std::vector<FindingDiff> out;
  for (std::size_t i = 0; i < a.size(); ++i)
    out.push_back(match[i] < 0 ? pair(FindingChange::gone, &a[i], nullptr)
                               : pair(how[i], &a[i], &b[static_cast<std::size_t>(match[i])]));
  for (std::size_t j = 0; j < b.size(); ++j)
    if (!used[j]) out.push_back(pair(FindingChange::appeared, nullptr, &b[j]));
  return out;
}

}  // namespace tilescope::diff_detail
