// What diagnose's experiments prove: pure functions over the baseline point and
// the experiment points (no processes here, so the unit tests drive them with
// hand-built points).
#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "diagnose_detail.h"
#include "tilescope/counters/counters.h"
#include "tilescope/diagnose/diagnose.h"

namespace tilescope {

using nlohmann::json;

namespace diagnose_detail {

bool hasNanInf(const Point& p) {
  if (findingOf(p, "nan_inf")) return true;
  for (const auto& c : p.correctness)
    if (c.nan > 0 || c.inf > 0) return true;
  return false;
}

bool hasUnwritten(const Point& p) {
  return std::any_of(p.coverage.begin(), p.coverage.end(),
                     [](const CoverageInfo& c) { return c.measured && c.unwritten > 0; });
}

const Finding* findingOf(const Point& p, const std::string& category) {
  for (const auto& f : p.findings)
    if (f.category == category) return &f;
  return nullptr;
}

/// Where a person looks: the primary finding's location, else the first mismatch
/// and the worst tiles of the first checked output.
Location locationOf(const Point& p) {
  if (const Finding* f = primaryFinding(p); f && !f->location.empty()) return f->location;
  for (const auto& c : p.correctness) {
    if (!c.checked || c.mismatches == 0) continue;
    Location loc;
    loc.extra = {{"tensor", c.tensor}, {"first_mismatch", {c.firstMismatch[0], c.firstMismatch[1]}}};
    if (c.tiles)
      for (const BadTile& t : c.tiles->bad) {
        if (loc.tiles.size() >= 8) break;
        loc.tiles.push_back({t.row, t.col});  // the 2-D tile grid's row and column
      }
    return loc;
  }
  return {};
}

std::string tensorOf(const Point& p) {
  if (const Finding* f = primaryFinding(p); f && !f->tensor.empty()) return f->tensor;
  for (const auto& c : p.correctness)
    if (c.checked && c.mismatches > 0) return c.tensor;
  return "";
}

Finding makeFinding(const std::string& category, const std::string& detail, const std::string& message,
                    const std::string& experiment, const std::string& node) {
  Finding f;
  f.category = category;
  f.severity = Severity::error;
  f.detail = detail;
  f.message = message;
  f.experiment = experiment;
  f.treeNode = node;
  return f;
}

void callerMust(Finding& f, const std::string& what) {
  f.message += ". Callers must " + what + ".";
  if (!f.evidence.is_object()) f.evidence = json::object();
  f.evidence["caller_must"] = what;
}

std::string nodeFor(const std::string& category, const std::string& detail) {
  const CategoryInfo* c = findCategory(category);
  const std::string node = c ? std::string(c->treeNode) : "wrong." + category;
  // The tree has detail nodes under mismatch only (wrong.mismatch.tail_tiles, ...).
  return node + (detail.empty() || category != "mismatch" ? "" : "." + detail);
}

std::int64_t lowBit(std::int64_t v) { return v & -v; }

std::string scaleText(double factor) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", factor);
  return buf;
}

std::string joinInts(const std::vector<int>& v, const std::string& unit) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + unit;
}

}  // namespace diagnose_detail

using namespace diagnose_detail;

int categoryRank(const std::string& category) {
  const CategoryInfo* c = findCategory(category);
  return c ? c->rank : static_cast<int>(findingCategories().size());
}

bool pointPassed(const Point& p) { return p.verdict == Verdict::ok || p.verdict == Verdict::slow; }

bool pointInapplicable(const Point& p, const Point& base) {
  if (p.status.noGpu) return true;
  // The worker rejected the experiment as a configuration error.
  if (p.status.workerExit == kExitUsage) return true;
  const bool broke = p.verdict == Verdict::compile_error || p.verdict == Verdict::launch_error;
  return broke && p.verdict != base.verdict;
}

const Finding* primaryFinding(const Point& p) {
  const Finding* best = nullptr;
  for (const auto& f : p.findings) {
    if (f.severity != Severity::error) continue;
    if (!best || categoryRank(f.category) < categoryRank(best->category)) best = &f;
  }
  return best;
}

Conclusion concludeTrials(const Point& base, const std::vector<ExperimentRun>& runs) {
  Conclusion c;
  const json first = runOutcome(base);
  json seen = json::array({first});
  std::vector<const Point*> differing;
  bool faultMix = false;
  for (const auto& r : runs) {
    if (pointInapplicable(r.point, base)) continue;
    json o = runOutcome(r.point);
    seen.push_back(o);
    if (o == first) continue;
    differing.push_back(&r.point);
    const bool baseBad = base.verdict == Verdict::fault || base.verdict == Verdict::hang;
    const bool runBad = r.point.verdict == Verdict::fault || r.point.verdict == Verdict::hang;
    faultMix = faultMix || (baseBad != runBad);
  }
  const int n = static_cast<int>(seen.size());
  if (differing.empty()) {
    c.summary = std::to_string(n) + " trials agree";
    return c;
  }
  const std::string exp = "trials x" + std::to_string(n);
  Finding f =
      makeFinding("race", faultMix ? "intermittent_fault" : "nondeterministic",
                  std::to_string(differing.size()) + " of " + std::to_string(n - 1) +
                      " repeated trials differ from the first on identical inputs" +
                      (faultMix ? ": an intermittent fault (the kernel faults or hangs in some trials only)"
                                : ": the result is not deterministic (a data race, e.g. a missing "
                                  "__syncthreads between writing and reading shared memory)"),
                  exp, "fault.race");
  // The failing run says where: the baseline when it failed, else the first failing trial.
  const Point& where = pointPassed(base) ? *differing.front() : base;
  f.location = locationOf(where);
  f.tensor = tensorOf(where);
  f.evidence = {{"trials", seen}};
  c.findings.push_back(f);
  c.settled = true;
  c.summary = exp + ": " + f.message;
  return c;
}

Conclusion concludeAlignment(const Point& base, const std::vector<ExperimentRun>& runs) {
  Conclusion c;
  std::vector<int> bad, passing;
  bool misaligned = false, faulted = false;
  const Point* firstBad = nullptr;
  const ExperimentRun* firstBadRun = nullptr;
  for (const auto& r : runs) {
    if (pointInapplicable(r.point, base)) continue;
    const int s = r.experiment.alignShift;
    if (pointPassed(r.point)) {
      passing.push_back(s);
      c.settled = true;  // larger power-of-two shifts keep at least this alignment
      continue;
    }
    bad.push_back(s);
    misaligned = misaligned || findingOf(r.point, "misaligned_access");
    faulted = faulted || r.point.verdict == Verdict::fault || r.point.verdict == Verdict::hang;
    if (!firstBad) {
      firstBad = &r.point;
      firstBadRun = &r;
    }
  }
  if (!firstBad || !pointPassed(base)) {
    c.summary = passing.empty() ? "no usable alignment run"
                                : "passes with base pointers shifted by " + joinInts(passing, " bytes");
    return c;
  }
  // Only the shift changed, so the failure is the alignment's: the kernel needs the
  // smallest power of two above the best alignment that still failed.
  std::int64_t maxBadAlign = 0;
  for (int s : bad) maxBadAlign = std::max(maxBadAlign, lowBit(s));
  const std::int64_t required = 2 * maxBadAlign;
  const std::string exp = "align_shift=" + std::to_string(bad.front());
  std::string msg = "passes with 256-byte aligned base pointers but ";
  msg += misaligned ? "faults with a misaligned address" : faulted ? "faults" : "computes wrong results";
  msg += " when every base pointer is shifted by " + joinInts(bad, " bytes");
  if (!passing.empty()) msg += " (and passes when shifted by " + joinInts(passing, " bytes") + ")";
  const std::string bytes = std::to_string(required) + "-byte aligned";
  // Recompiled for the shifted pointers as the kernel's launcher would (Triton's
  // JIT drops tt.divisibility=16): the assumption is the source's, not the JIT's.
  const std::string& rebuilt = firstBadRun->experiment.compiled;
  msg += ": it assumes " + std::string(passing.empty() ? "at least " : "") + bytes +
         " base pointers (a vector access of that width) without checking";
  if (!rebuilt.empty())
    msg += "; the failing run was " + rebuilt +
           ", so the assumption is the kernel's own (an alignment hint such as tl.multiple_of, or a cast to "
           "a wider type)";
  Finding f = makeFinding("misaligned_access",
                          misaligned ? ""
                          : faulted  ? "fault"
                                     : "wrong_results",
                          msg, exp, "fault.misaligned_access");
  // Where the failing run failed, and the shifts that prove why.
  if (const Finding* pf = primaryFinding(*firstBad)) f.location = pf->location;
  f.location.extra["failing_shifts"] = bad;
  f.location.extra["passing_shifts"] = passing;
  f.location.extra["required_alignment"] = required;
  f.tensor = tensorOf(*firstBad);
  f.evidence = {
      {"failing_shifts", bad}, {"passing_shifts", passing}, {"first_failure", runOutcome(*firstBad, true)}};
  if (!rebuilt.empty()) f.evidence["compiled"] = rebuilt;
  callerMust(f, "pass " + bytes + " tensors (base addresses that are multiples of " +
                    std::to_string(required) +
                    ": not a view at an odd element offset), or the kernel must check the alignment and fall "
                    "back to narrower accesses");
  c.findings.push_back(f);
  c.summary = exp + ": " + f.message;
  return c;
}

Conclusion concludePoison(const Point& base, const std::vector<ExperimentRun>& runs) {
  Conclusion c;
  for (const auto& r : runs) {
    if (pointInapplicable(r.point, base)) continue;
    c.settled = true;
    // Unwritten elements hold the sentinel itself, so their error differs between
    // the patterns by construction: compare counts only then. Never the digest:
    // the two runs start from different output bytes on purpose.
    const bool withMax = !hasUnwritten(base) && !hasUnwritten(r.point);
    json a = runOutcome(base, withMax, false), b = runOutcome(r.point, withMax, false);
    if (a == b) {
      c.summary = "the output does not change with the poison";
      continue;
    }
    Finding f =
        makeFinding("uninitialized_read", "",
                    "the output changes when the output memory starts with a different poison pattern: "
                    "the kernel reads memory it never wrote (e.g. accumulates into an output nobody zeroed)",
                    r.experiment.name, "wrong.uninitialized_read");
    f.location = locationOf(pointPassed(base) ? r.point : base);
    f.tensor = tensorOf(pointPassed(base) ? r.point : base);
    f.evidence = {{"poison_0", a}, {"poison_1", b}};
    callerMust(f,
               "zero the output before the launch (torch.zeros, cudaMemset), or the kernel must write "
               "every element before it reads it");
    c.findings.push_back(f);
    c.summary = r.experiment.name + ": " + f.message;
  }
  return c;
}

Conclusion concludeWarps(const Point& base, const std::vector<ExperimentRun>& runs) {
  Conclusion c;
  if (pointPassed(base)) return c;
  for (const auto& r : runs) {
    if (pointInapplicable(r.point, base) || !pointPassed(r.point)) continue;
    Finding f = makeFinding("mismatch", "warp_count",
                            "fails with the configured warp count but passes with " + r.experiment.name +
                                ": the result depends on the number of warps (a cross-warp hazard such as "
                                "a missing __syncthreads, or a thread mapping that assumes one warp count)",
                            r.experiment.name, "wrong.mismatch.warp_count");
    f.severity = Severity::warning;  // suggestive: the warp count changes the tiling work split too
    f.location = locationOf(base);
    f.tensor = tensorOf(base);
    f.evidence = {{"passing", r.experiment.name}, {"baseline", runOutcome(base, true)}};
    callerMust(f, "launch it with " + r.experiment.name + " until the hazard is fixed");
    c.findings.push_back(f);
    c.settled = true;
    c.summary = f.message;
    break;
  }
  return c;
}

namespace {

/// A passing baseline scaled up: NaN where the reference stays finite is a latent
/// overflow. Inf alone is not enough: an f16 output legitimately overflows near
/// 65504, and rounding puts the kernel and the reference on either side of it.
Conclusion concludeScaledUp(const Point& base, const std::vector<ExperimentRun>& runs) {
  Conclusion c;
  for (const auto& r : runs) {
    if (pointInapplicable(r.point, base)) continue;
    c.settled = true;
    const Finding* nan = findingOf(r.point, "nan_inf");
    const std::int64_t nans = nan ? nan->evidence.value("nan", std::int64_t(0)) : 0;
    const std::string factor = scaleText(r.experiment.inputScale);
    if (nans == 0) {
      c.summary =
          r.experiment.name + ": " + verdictName(r.point.verdict) + ", no NaN where the reference is finite";
      continue;
    }
    Finding f =
        makeFinding("nan_inf", "input_magnitude",
                    std::string("passes at the configured inputs, but with every generated float input "
                                "scaled by ") +
                        factor + " the output has NaN where the reference stays finite (" + nan->message +
                        "): an intermediate value overflows with larger inputs. exp() of unshifted logits "
                        "(a softmax without subtracting the row maximum: exp overflows past 88.7 in f32, "
                        "11.1 in f16) is the usual cause",
                    r.experiment.name, "wrong.nan_inf.softmax_max");
    f.location = nan->location;
    f.tensor = nan->tensor;
    f.evidence = {{"baseline", runOutcome(base, true)},
                  {"scaled", runOutcome(r.point, true)},
                  {"input_scale", r.experiment.inputScale}};
    callerMust(f,
               "keep the inputs' magnitudes small, or the kernel must subtract the row maximum before "
               "exp() (or otherwise bound the intermediate)");
    c.findings.push_back(f);
    c.summary = r.experiment.name + ": " + f.message;
    break;
  }
  return c;
}

}  // namespace

Conclusion concludeInputScale(const Point& base, const std::vector<ExperimentRun>& runs) {
  if (pointPassed(base)) return concludeScaledUp(base, runs);
  Conclusion c;
  if (!hasNanInf(base)) {
    c.summary = "no NaN/Inf in the baseline to explain";
    return c;
  }
  for (const auto& r : runs) {
    if (pointInapplicable(r.point, base)) continue;
    c.settled = true;
    const std::string& exp = r.experiment.name;
    // A scaled run that faults or hangs says nothing about where the NaN come from.
    if (r.point.verdict == Verdict::fault || r.point.verdict == Verdict::hang) {
      c.summary = exp + ": " + verdictName(r.point.verdict) + " (no conclusion)";
      continue;
    }
    const json scaled = runOutcome(r.point, true);
    const std::string factor = scaleText(r.experiment.inputScale);
    Finding f;
    if (!hasNanInf(r.point)) {
      const bool passed = pointPassed(r.point);
      f = makeFinding("nan_inf", "input_magnitude",
                      std::string("the NaN/Inf vanish when every generated float input is scaled by ") +
                          factor + (passed ? " (and the output then matches the reference)" : "") +
                          ": an intermediate value overflows as the inputs grow. exp() of unshifted logits "
                          "(a softmax without subtracting the row maximum: exp overflows past 88.7 in f32, "
                          "11.1 in f16) is the usual cause",
                      exp, "wrong.nan_inf.softmax_max");
    } else {
      f = makeFinding(
          "nan_inf", "magnitude_independent",
          std::string("the NaN/Inf remain when every generated float input is scaled by ") + factor +
              ": they do not come from values growing too large, but from a division by zero "
              "(0/0, x/0), NaN read from memory or an invalid operation (sqrt or log of a negative)",
          exp, "wrong.nan_inf.division_by_zero");
      f.severity = Severity::warning;  // narrows the cause; does not name it
    }
    f.location = locationOf(base);
    f.tensor = tensorOf(base);
    f.evidence = {
        {"baseline", runOutcome(base, true)}, {"scaled", scaled}, {"input_scale", r.experiment.inputScale}};
    if (f.detail == "input_magnitude")
      callerMust(f,
                 "keep the inputs' magnitudes small, or the kernel must subtract the row maximum before "
                 "exp() (or otherwise bound the intermediate)");
    c.findings.push_back(f);
    c.summary = exp + ": " + f.message;
    break;
  }
  return c;
}

Conclusion conclude(ExperimentKind kind, const Point& base, const Config& cfg,
                    const std::vector<ExperimentRun>& runs) {
  switch (kind) {
    case ExperimentKind::trials:
      return concludeTrials(base, runs);
    case ExperimentKind::align_shift:
      return concludeAlignment(base, runs);
    case ExperimentKind::poison:
      return concludePoison(base, runs);
    case ExperimentKind::small_shapes:
      return concludeShapes(base, cfg, runs);
    case ExperimentKind::warps:
      return concludeWarps(base, runs);
    case ExperimentKind::input_scale:
      return concludeInputScale(base, runs);
    case ExperimentKind::baseline:
    case ExperimentKind::trace:
      break;
  }
  return {};
}

std::vector<Finding> orderFindings(std::vector<Finding> conclusions, const std::vector<Finding>& baseline) {
  auto less = [](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return static_cast<int>(a.severity) > static_cast<int>(b.severity);
    // Performance findings by their estimated gain (counters.h rankByGain), as ncu's
    // guided analysis ranks its rules; the vocabulary's rank among the rest.
    const double ga = recordedGain(a), gb = recordedGain(b);
    if (known(ga) || known(gb)) return known(ga) != known(gb) ? known(ga) : ga > gb;
    return categoryRank(a.category) < categoryRank(b.category);
  };
  std::stable_sort(conclusions.begin(), conclusions.end(), less);
  std::vector<Finding> rest;
  for (const auto& f : baseline) {
    bool dup = std::any_of(conclusions.begin(), conclusions.end(), [&](const Finding& g) {
      return g.category == f.category && g.detail == f.detail && g.tensor == f.tensor &&
             g.message == f.message;
    });
    if (!dup) rest.push_back(f);
  }
  std::stable_sort(rest.begin(), rest.end(), less);
  // Stray writes outside a CTA's tile land in elements another CTA owns (an
  // unmasked column past the edge of a row-major tensor is the next row's start),
  // and whichever CTA writes last wins: the race is a consequence. The out-of-
  // bounds write names the bug and where it is, so it leads.
  auto oob = std::find_if(rest.begin(), rest.end(), [](const Finding& f) {
    return f.category == "oob_write" && f.severity == Severity::error;
  });
  if (!conclusions.empty() && conclusions.front().category == "race" && oob != rest.end()) {
    conclusions.front().evidence["explained_by"] = "oob_write";
    conclusions.front().message +=
        " (explained by the out-of-bounds writes: stray stores land in elements other "
        "CTAs own, and the last writer wins)";
    Finding lead = *oob;
    rest.erase(oob);
    conclusions.insert(conclusions.begin(), std::move(lead));
  }
  conclusions.insert(conclusions.end(), rest.begin(), rest.end());
  return conclusions;
}

}  // namespace tilescope
