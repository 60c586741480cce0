// What the shape experiments prove. A failing baseline is rerun with its sizes
// rounded up to whole tiles (passes: a boundary mask is missing), then at small
// sizes (passes: the failure needs large sizes: 32-bit index overflow, low-precision
// accumulation, or plain "large only"). A passing baseline is rerun with partial
// tiles (tile + 1, tile - 1): fails there: a boundary mask is missing.
#include <limits>

#include "diagnose_detail.h"
#include "tilescope/config/tensor.h"
#include "tilescope/diagnose/diagnose.h"

namespace tilescope {

using nlohmann::json;
using namespace diagnose_detail;

namespace {

constexpr std::int64_t kInt32Limit = std::int64_t(1) << 31;  // first offset a signed 32-bit index cannot hold

std::string describeSizes(const std::vector<SizeParam>& sizes) {
  std::string s;
  for (const auto& p : sizes) s += (s.empty() ? "" : " ") + p.name + "=" + std::to_string(p.value);
  return s;
}

json sizesJson(const std::vector<SizeParam>& sizes) {
  json j = json::object();
  for (const auto& p : sizes) j[p.name] = {{"value", p.value}, {"tile", p.tile}, {"reduction", p.reduction}};
  return j;
}

/// A tensor whose elements reach past 2^31 at the baseline's sizes, with the
/// first element a 32-bit index cannot reach (row-major).
json int32Overflow(const Config& cfg) {
  try {
    ResolvedPoint rp = resolvePoint(cfg);
    for (const auto& t : rp.tensors) {
      if (t.spanElements < kInt32Limit) continue;
      json idx = json::array();
      std::int64_t rest = kInt32Limit;
      std::vector<std::int64_t> out(t.shape.size(), 0);
      for (std::size_t d = t.shape.size(); d-- > 0;) {
        const std::int64_t extent = std::max<std::int64_t>(t.shape[d], 1);
        out[d] = rest % extent;
        rest /= extent;
      }
      for (auto v : out) idx.push_back(v);
      return {{"tensor", t.spec->name}, {"elements", t.spanElements}, {"first_index_past_2^31", idx}};
    }
  } catch (const std::exception&) {
  }
  return nullptr;
}

/// Float inputs the capture surrounds with NaN guard zones.
std::vector<std::string> nanGuardedInputs(const Config& cfg) {
  std::vector<std::string> out;
  for (const auto& t : cfg.tensors)
    if (!t.output && guardIsNan(t.dtype)) out.push_back(t.name);
  return out;
}

Finding maskFinding(const Point& failing, const std::string& passingAt, const std::string& failingAt,
                    const std::string& experiment, bool baseFailed, const Config& cfg) {
  const Finding* pf = primaryFinding(failing);
  std::string category = pf ? pf->category : "mismatch";
  std::string detail = pf ? pf->detail : "tail_tiles";
  if (category == "mismatch") detail = "tail_tiles";
  std::string msg;
  const auto guarded = nanGuardedInputs(cfg);
  if (category == "nan_inf" && !guarded.empty()) {
    // NaN only with partial tiles, and the inputs' guard zones hold NaN: the
    // partial tiles load past an input's end (inferred: the loads are not seen).
    std::string names;
    for (std::size_t i = 0; i < guarded.size(); ++i)
      names += (i == 0 ? "" : i + 1 == guarded.size() ? " or " : ", ") + guarded[i];
    Finding f = makeFinding(
        "oob_read", "",
        "NaN/Inf at " + failingAt + " (partial tiles) but none at " + passingAt +
            " (whole tiles): loads of the partial tiles read past the end of " + names +
            ", into the NaN guard zone after it (or into the next row or head before it); "
            "the load mask of partial tiles is missing (inferred from the NaN)" +
            (pf ? " (" + (baseFailed ? std::string("baseline") : experiment) + ": " + pf->message + ")" : ""),
        experiment, "fault.oob_read");
    f.location = locationOf(failing);
    f.tensor = guarded.size() == 1 ? guarded.front() : "";
    f.evidence = {
        {"inferred", true}, {"candidates", guarded}, {"nan_at", failingAt}, {"clean_at", passingAt}};
    callerMust(f, "keep every size a multiple of its tile (as at " + passingAt +
                      "), or the kernel must mask the loads of partial tiles");
    return f;
  }
  if (category == "misaligned_access")
    msg = "faults with a misaligned address at " + failingAt + " but passes at " + passingAt +
          ": a vector access assumes each row starts aligned, i.e. sizes that are multiples of the vector "
          "width";
  else
    msg = "fails at " + failingAt + " (partial tiles) but passes at " + passingAt +
          " (whole tiles): the boundary mask of partial tiles is missing or wrong";
  if (pf) msg += " (" + (baseFailed ? std::string("baseline") : experiment) + ": " + pf->message + ")";
  Finding f = makeFinding(category, detail, msg, experiment,
                          pf && !pf->treeNode.empty() ? pf->treeNode : nodeFor(category, detail));
  f.location = locationOf(failing);
  f.tensor = tensorOf(failing);
  callerMust(f, category == "misaligned_access"
                    ? "keep every size a multiple of the vector width (as at " + passingAt +
                          "), or the kernel must check each row's alignment"
                    : "keep every size a multiple of its tile (as at " + passingAt +
                          "), or the kernel must mask the partial tiles");
  return f;
}

/// A failing baseline that passes at small sizes: which large-size failure it is.
Finding largeOnlyFinding(const Point& base, const Config& cfg, const std::vector<SizeParam>& sizes,
                         const ExperimentRun& small, const ExperimentRun* reduction) {
  const std::string at = describeSizes(sizes);
  const std::string exp = small.experiment.name;
  if (json ov = int32Overflow(cfg); !ov.is_null()) {
    Finding f = makeFinding(
        "int_overflow", "",
        "fails at " + at + " but passes at " + exp.substr(6) + ": tensor " + ov["tensor"].get<std::string>() +
            " has " + std::to_string(ov["elements"].get<std::int64_t>()) +
            " elements, past what a signed 32-bit index reaches (2^31); offsets computed in "
            "`int` wrap",
        exp, "wrong.int_overflow");
    f.tensor = ov["tensor"];
    // Where the large run failed, and the tensor whose offsets wrap.
    f.location = locationOf(base);
    f.location.extra["tensor"] = ov["tensor"];
    f.location.extra["tensor_elements"] = ov["elements"];
    f.location.extra["first_index_past_2^31"] = ov["first_index_past_2^31"];
    callerMust(f, "keep every tensor below 2^31 elements, or the kernel must compute its offsets in 64 bits");
    return f;
  }
  std::vector<std::string> reduced;
  for (const auto& s : sizes)
    if (s.reduction)
      for (const auto& [k, v] : small.experiment.overrides)
        if (k == s.name && v < s.value) reduced.push_back(s.name + "=" + std::to_string(s.value));
  const bool reductionClears = !reduction || pointPassed(reduction->point);
  if (hasNanInf(base) && !reduced.empty() && reductionClears) {
    std::string which;
    for (const auto& r : reduced) which += (which.empty() ? "" : ", ") + r;
    Finding f = makeFinding("accumulator_overflow", "",
                            "NaN/Inf at " + at + " that vanish at " +
                                (reduction ? reduction->experiment.name : exp).substr(6) +
                                ": the sum over the reduction (" + which +
                                ") overflows a low-precision accumulator (f16 ends at 65504)",
                            reduction ? reduction->experiment.name : exp, "wrong.accumulator_overflow");
    f.location = locationOf(base);
    f.location.extra["reduction"] = which;
    f.tensor = tensorOf(base);
    callerMust(f, "keep the reduction shorter than " + which + ", or the kernel must accumulate in f32");
    return f;
  }
  const Finding* pf = primaryFinding(base);
  std::string category = base.verdict == Verdict::incorrect || !pf ? "mismatch" : pf->category;
  Finding f =
      makeFinding(category, "large_only",
                  "fails at " + at + " but passes at " + exp.substr(6) +
                      ": the failure needs large sizes (index arithmetic, grid limits or accumulated error)",
                  exp, nodeFor(category, "large_only"));
  f.location = locationOf(base);
  f.tensor = tensorOf(base);
  return f;
}

}  // namespace

Conclusion concludeShapes(const Point& base, const Config& cfg, const std::vector<ExperimentRun>& runs) {
  Conclusion c;
  const auto sizes = sizeParams(cfg);
  const bool baseFailed = !pointPassed(base);
  const ExperimentRun *small = nullptr, *reduction = nullptr;
  std::vector<std::string> notes;
  for (const auto& r : runs) {
    if (pointInapplicable(r.point, base)) {
      notes.push_back(r.experiment.name + ": not applicable");
      continue;
    }
    const std::string& role = r.experiment.role;
    const bool passed = pointPassed(r.point);
    notes.push_back(r.experiment.name + ": " + verdictName(r.point.verdict));
    if (baseFailed && role == "rounded" && passed) {
      Finding f =
          maskFinding(base, r.experiment.name.substr(6), describeSizes(sizes), r.experiment.name, true, cfg);
      f.location.extra["sizes"] = sizesJson(sizes);
      c.findings.push_back(f);
      c.settled = true;
      break;
    }
    if (baseFailed && role == "small" && passed) small = &r;
    if (baseFailed && role == "small" && !passed) {
      c.settled = true;  // fails at small sizes too: nothing size-specific to find
      notes.push_back("fails at small sizes too");
      break;
    }
    if (baseFailed && role == "reduction") reduction = &r;
    if (!baseFailed && !passed && (role == "odd" || role == "under")) {
      Finding f = maskFinding(r.point, describeSizes(sizes), r.experiment.name.substr(6), r.experiment.name,
                              false, cfg);
      f.location.extra["sizes"] = r.experiment.name.substr(6);
      c.findings.push_back(f);
      c.settled = true;
      break;
    }
  }
  if (!c.settled && small) {
    c.findings.push_back(largeOnlyFinding(base, cfg, sizes, *small, reduction));
    // Settled once the reduction-only run (planned after `small` where there is
    // a reduction size) has answered too, or at once for a 32-bit overflow (the
    // sizes alone prove it; a run at the large reduction size costs as much as
    // the baseline); without a reduction run the group simply ends.
    c.settled = reduction != nullptr || c.findings.back().category == "int_overflow";
  }
  for (const auto& n : notes) c.summary += (c.summary.empty() ? "" : "; ") + n;
  if (!c.findings.empty()) c.summary += " => " + c.findings.front().category;
  return c;
}

}  // namespace tilescope
