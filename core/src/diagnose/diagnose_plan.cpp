// Which experiments diagnose runs: from the baseline's verdict and findings, the
// tree's requests and what the config allows (outputs with a sentinel, size
// params with tiles, warp-count defines, element sizes).
#include <algorithm>
#include <cstdio>
#include <set>

#include "diagnose_detail.h"
#include "tilescope/base/expr.h"
#include "tilescope/base/format.h"
#include "tilescope/diagnose/diagnose.h"

namespace tilescope {

const char* experimentKindName(ExperimentKind k) {
  switch (k) {
    case ExperimentKind::baseline:
      return "baseline";
    case ExperimentKind::trials:
      return "trials";
    case ExperimentKind::align_shift:
      return "align_shift";
    case ExperimentKind::small_shapes:
      return "small_shapes";
    case ExperimentKind::poison:
      return "poison";
    case ExperimentKind::input_scale:
      return "input_scale";
    case ExperimentKind::warps:
      return "warps";
    case ExperimentKind::trace:
      return "trace";
  }
  return "?";
}

std::vector<std::string> Experiment::workerArgs() const {
  std::vector<std::string> a;
  if (alignShift != 0) a.insert(a.end(), {"--align-shift", std::to_string(alignShift)});
  if (sentinelVariant != 0) a.insert(a.end(), {"--sentinel-variant", std::to_string(sentinelVariant)});
  if (inputScale != 1.0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", inputScale);
    a.insert(a.end(), {"--input-scale", buf});
  }
  if (!timing)
    a.insert(a.end(), {"--no-timing", "--no-counters"});  // follow-ups prove correctness, not speed
  else if (!counters)
    a.push_back("--no-counters");
  if (trace) a.push_back("--trace");
  if (tolerance) {
    char r[32], t[32];
    std::snprintf(r, sizeof r, "%.17g", tolerance->rtol);
    std::snprintf(t, sizeof t, "%.17g", tolerance->atol);
    a.insert(a.end(), {"--tolerance", r, t});
  }
  for (const auto& [k, v] : overrides) a.insert(a.end(), {"--set", k + "=" + std::to_string(v)});
  return a;
}

namespace {

bool usesSymbol(const std::string& expr, const std::string& name) {
  try {
    auto syms = exprSymbols(expr);
    return std::find(syms.begin(), syms.end(), name) != syms.end();
  } catch (const std::exception&) {
    return false;
  }
}

/// The config with `overrides` applied to its defines and params; false when a
/// name is neither (the worker would reject it too).
bool applyOverrides(Config& cfg, const std::vector<std::pair<std::string, std::int64_t>>& overrides) {
  for (const auto& [name, value] : overrides)
    if (!setPointSymbol(cfg, name, value)) return false;
  return true;
}

/// An experiment whose overrides leave a config that still evaluates (no division
/// by zero, no empty grid): the worker would otherwise exit with a config error.
bool overridesResolve(const Config& cfg, const Experiment& e) {
  Config c = cfg;
  if (!applyOverrides(c, e.overrides)) return false;
  try {
    (void)resolvePoint(c);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

bool outputsHaveSentinel(const Config& cfg) {
  for (const auto& t : cfg.tensors)
    if (t.output && t.init.empty()) return true;
  return false;
}

/// Shapes are fixed by files when a tensor comes from or is checked against .npy data.
bool shapesFixedByFiles(const Config& cfg) {
  if (cfg.reference.op == "npy") return true;
  for (const auto& t : cfg.tensors)
    if (t.init.rfind("npy:", 0) == 0 || !t.expected.empty()) return true;
  return false;
}

std::string shapeName(const std::vector<std::pair<std::string, std::int64_t>>& ov) {
  std::string s = "shape";
  for (const auto& [k, v] : ov) s += " " + k + "=" + std::to_string(v);
  return s;
}

Experiment shapeExperiment(const std::string& role, std::vector<std::pair<std::string, std::int64_t>> ov,
                           const std::string& why) {
  Experiment e;
  e.kind = ExperimentKind::small_shapes;
  e.role = role;
  e.name = shapeName(ov);
  e.overrides = std::move(ov);
  e.why = why;
  return e;
}

/// The small value of a size: two tiles (so tile-to-tile indexing is exercised),
/// 2 for batch-like dims (tile 1), 64 when the tile is unknown; never larger than now.
std::int64_t smallValue(const SizeParam& s) {
  std::int64_t v = s.tile > 1 ? 2 * s.tile : s.tile == 1 ? 2 : 64;
  return std::min(v, s.value);
}

std::vector<Experiment> planShapes(const Point& base, const Config& cfg) {
  std::vector<Experiment> out;
  auto sizes = sizeParams(cfg);
  if (sizes.empty() || shapesFixedByFiles(cfg)) return out;
  if (!pointPassed(base)) {
    std::vector<std::pair<std::string, std::int64_t>> rounded, small, reduction;
    for (const auto& s : sizes) {
      if (s.tile > 1 && s.value % s.tile != 0) rounded.emplace_back(s.name, (s.value / s.tile + 1) * s.tile);
      if (smallValue(s) != s.value) {
        small.emplace_back(s.name, smallValue(s));
        if (s.reduction) reduction.emplace_back(s.name, smallValue(s));
      }
    }
    if (!rounded.empty())
      out.push_back(
          shapeExperiment("rounded", rounded, "the failing sizes are not multiples of their tiles"));
    if (!small.empty()) out.push_back(shapeExperiment("small", small, "does it fail at small sizes too?"));
    if (!reduction.empty() && reduction.size() < small.size())
      out.push_back(
          shapeExperiment("reduction", reduction, "is the summed (reduction) size alone to blame?"));
  } else {
    std::vector<std::pair<std::string, std::int64_t>> odd, under;
    for (const auto& s : sizes) {
      if (s.tile > 1) odd.emplace_back(s.name, s.tile + 1);
      if (s.tile > 2) under.emplace_back(s.name, s.tile - 1);
    }
    if (!odd.empty())
      out.push_back(shapeExperiment("odd", odd, "partial tiles (tile + 1): are the boundary masks right?"));
    if (!under.empty()) out.push_back(shapeExperiment("under", under, "sizes below one tile (tile - 1)"));
  }
  std::vector<Experiment> valid;
  for (auto& e : out)
    if (overridesResolve(cfg, e)) valid.push_back(std::move(e));
  return valid;
}

std::vector<Experiment> planTrials(const Point& base, int trials, double expensiveS) {
  // A hang costs a full launch watchdog per trial, a huge problem a full capture:
  // one repeat tells intermittent from not.
  int extra = std::max(0, trials - 1);
  if (base.verdict == Verdict::hang || base.wallSeconds > expensiveS) extra = std::min(extra, 1);
  std::vector<Experiment> out;
  for (int t = 1; t <= extra; ++t) {
    Experiment e;
    e.kind = ExperimentKind::trials;
    e.trial = t;
    e.name = "trial " + std::to_string(t + 1) + "/" + std::to_string(extra + 1);
    e.why = "identical inputs must give identical results";
    // Repeat the baseline's launch, timing included: with the timing buffers the
    // device memory around the tensors differs, and a kernel that reads past its
    // guard zones would otherwise look nondeterministic. The counters are read
    // after the output is judged (capture.cpp, measure), so they are left out.
    e.timing = base.timing.measured;
    e.counters = false;
    out.push_back(e);
  }
  return out;
}

std::vector<Experiment> planAlignment(const Config& cfg, const std::vector<int>& shifts) {
  std::vector<Experiment> out;
  for (int s : usableShifts(cfg, shifts)) {
    Experiment e;
    e.kind = ExperimentKind::align_shift;
    e.alignShift = s;
    e.name = "align_shift=" + std::to_string(s);
    e.why = "does the kernel assume more than element alignment of its base pointers?";
    out.push_back(e);
  }
  return out;
}

/// NaN/Inf in the output: the same run with every generated float input scaled
/// down. Overflow that grows with the values (exp() of unshifted logits, a sum
/// of squares) vanishes; a division by zero or NaN read from memory stays. After
/// a passing baseline: scaled up, where a latent overflow shows.
std::vector<Experiment> planInputScale(const Config& cfg, double factor, bool up) {
  const auto inputs = scalableInputs(cfg);
  if (inputs.empty() || !(factor > 0) || factor == 1.0) return {};
  Experiment e;
  e.kind = ExperimentKind::input_scale;
  e.inputScale = factor;
  e.name = "inputs x" + diagnose_detail::scaleText(factor);
  std::string names;
  for (const auto& n : inputs) names += (names.empty() ? "" : ", ") + n;
  e.why = up ? "does the output stay finite with larger inputs (" + names + "), as the reference does?"
             : "do the NaN/Inf depend on the magnitude of the inputs (" + names + ")?";
  return {e};
}

std::vector<Experiment> planWarps(const Config& cfg) {
  std::vector<Experiment> out;
  for (const auto& [name, value] : warpDefines(cfg))
    for (std::int64_t v : {value / 2, value * 2}) {
      if (v < 1 || v == value || v * 32 > 1024) continue;  // 1024 threads per block at most
      Experiment e;
      e.kind = ExperimentKind::warps;
      e.overrides = {{name, v}};
      e.name = name + "=" + std::to_string(v);
      e.why = "does the failure depend on the number of warps (a cross-warp hazard)?";
      if (overridesResolve(cfg, e)) out.push_back(e);
    }
  return out;
}

}  // namespace

std::vector<SizeParam> sizeParams(const Config& cfg) {
  std::vector<SizeParam> out;
  const auto symbols = pointSymbols(cfg);
  for (const auto& [name, value] : cfg.params) {
    bool inShape = false, inOutput = false;
    for (const auto& t : cfg.tensors)
      for (const auto& d : t.shape)
        if (usesSymbol(d, name)) {
          inShape = true;
          inOutput = inOutput || t.output;
        }
    if (!inShape) continue;
    SizeParam s{name, value, 0, !inOutput};
    // The declared tile of an output dimension sized exactly by this param; a tile
    // that depends on the param itself spans the whole dimension (no partial tiles).
    for (const auto& ts : cfg.tiles) {
      const TensorSpec* t = cfg.tensor(ts.tensor);
      if (!t) continue;
      for (std::size_t d = 0; d < t->shape.size() && d < ts.tile.size(); ++d) {
        if (trimmed(t->shape[d]) != name || usesSymbol(ts.tile[d], name)) continue;
        try {
          std::int64_t extent = evalInt(ts.tile[d], symbols);
          if (extent > 0) s.tile = s.tile > 0 ? std::min(s.tile, extent) : extent;
        } catch (const std::exception&) {
        }
      }
    }
    if (s.tile == 0)
      for (const auto& [k, v] : cfg.kernel.defines)
        if (k == "BLOCK_" + name && v.isInt && v.i > 0) s.tile = v.i;
    out.push_back(s);
  }
  return out;
}

std::vector<std::pair<std::string, std::int64_t>> warpDefines(const Config& cfg) {
  std::vector<std::pair<std::string, std::int64_t>> out;
  for (const auto& [k, v] : cfg.kernel.defines)
    if (v.isInt && v.i > 0 && k.find("WARPS") != std::string::npos) out.emplace_back(k, v.i);
  if (cfg.kernel.isTriton()) out.emplace_back(kNumWarps, cfg.kernel.numWarps);  // Triton's own warp count
  return out;
}

std::vector<int> usableShifts(const Config& cfg, const std::vector<int>& shifts) {
  std::size_t elem = 1;
  for (const auto& t : cfg.tensors) elem = std::max(elem, dtypeSize(t.dtype));
  std::set<int> keep;
  for (int s : shifts)
    if (s > 0 && s % static_cast<int>(elem) == 0) keep.insert(s);
  return {keep.begin(), keep.end()};
}

namespace {

/// planExperiments and skippedExperiments in one: the groups that run, and the
/// ones the evidence calls for that cannot run on this kernel (`skipped`).
std::vector<std::vector<Experiment>> planGroups(const Point& base, const Config& cfg,
                                                const DiagnoseOptions& opts,
                                                const std::vector<std::string>& requested,
                                                std::vector<DiagnoseSkipped>* skipped) {
  std::vector<std::vector<Experiment>> groups;
  // A kernel that never ran has nothing to repeat, shift or poison.
  if (base.verdict == Verdict::compile_error || base.verdict == Verdict::launch_error) return groups;
  if (base.status.noGpu) return groups;
  auto asked = [&](ExperimentKind k) {
    return std::find(requested.begin(), requested.end(), experimentKindName(k)) != requested.end();
  };
  auto add = [&](std::vector<Experiment> g) {
    if (!g.empty()) groups.push_back(std::move(g));
  };
  // Shifted pointers, other shapes and warp counts change what a binary may
  // have been compiled for: under a binary without source they are skipped.
  const std::string binary = prebuiltBinaryReason(cfg);
  auto addRebuilt = [&](std::vector<Experiment> g) {
    if (g.empty()) return;
    if (binary.empty()) return add(std::move(g));
    if (!skipped) return;
    std::string names;
    for (const auto& e : g) names += (names.empty() ? "" : ", ") + e.name;
    skipped->push_back({experimentKindName(g.front().kind), names + ": " + g.front().why, binary});
  };
  const bool passed = pointPassed(base);
  // Trials first: every later single-run comparison assumes the kernel is deterministic.
  add(planTrials(base, opts.trials, opts.expensiveCaptureS));
  // The poison only matters where outputs start with the sentinel and the run got
  // as far as comparing them.
  if (outputsHaveSentinel(cfg) && (passed || base.verdict == Verdict::incorrect)) {
    Experiment e;
    e.kind = ExperimentKind::poison;
    e.sentinelVariant = 1;
    e.name = "poison variant 1";
    e.why = "does the output change with what the output memory held before the launch?";
    add({e});
  }
  // Alignment is judged against a passing run: a baseline that already fails says
  // nothing about shifted pointers.
  if (passed) addRebuilt(planAlignment(cfg, opts.alignShifts));
  addRebuilt(planShapes(base, cfg));
  // After the shapes: a partial-tile read of the NaN guard zones, or a
  // low-precision sum over a long reduction, is already told apart there.
  if (diagnose_detail::hasNanInf(base) || (!passed && asked(ExperimentKind::input_scale)))
    add(planInputScale(cfg, opts.inputScale, false));
  else if (passed)
    add(planInputScale(cfg, opts.inputScaleUp, true));
  if (!passed || asked(ExperimentKind::warps)) addRebuilt(planWarps(cfg));
  for (auto& g : groups)
    for (auto& e : g) {
      e.compiled = experimentBuild(cfg, e);
      e.tolerance = experimentTolerance(cfg, e);
      if (e.tolerance)
        e.compiled += "; judged at rtol " + diagnose_detail::scaleText(e.tolerance->rtol) + ", atol " +
                      diagnose_detail::scaleText(e.tolerance->atol) +
                      ", not bit-exact: another specialisation rounds differently";
    }
  return groups;
}

}  // namespace

std::vector<std::vector<Experiment>> planExperiments(const Point& base, const Config& cfg,
                                                     const DiagnoseOptions& opts,
                                                     const std::vector<std::string>& requested) {
  return planGroups(base, cfg, opts, requested, nullptr);
}

std::vector<DiagnoseSkipped> skippedExperiments(const Point& base, const Config& cfg,
                                                const DiagnoseOptions& opts,
                                                const std::vector<std::string>& requested) {
  std::vector<DiagnoseSkipped> skipped;
  (void)planGroups(base, cfg, opts, requested, &skipped);
  return skipped;
}

std::optional<std::string> traceCalledFor(const Point& base, const std::vector<Finding>& conclusions) {
  auto has = [](const std::vector<Finding>& fs, const std::string& cat) {
    return std::any_of(fs.begin(), fs.end(), [&](const Finding& f) { return f.category == cat; });
  };
  if (base.trace.traced()) return std::nullopt;  // `run --trace` already did
  if (base.verdict == Verdict::fault)
    for (const char* c : {"illegal_address", "misaligned_access", "device_assert", "oob_write", "oob_read"})
      if (has(base.findings, c)) return std::string("the kernel faulted: which access, thread and line?");
  for (const Finding& f : base.findings)
    if (f.category == "oob_read" && f.evidence.value("inferred", false))
      return std::string("NaN only in partial tiles: which loads leave the inputs?");
  if (has(conclusions, "race")) return std::string("the trials disagree: which shared-memory accesses race?");
  if (base.verdict == Verdict::slow && (base.launch.sharedBytes > 0 || base.compile.smemStatic > 0))
    return std::string("slow with shared memory in use: bank conflicts?");
  // Every diagnose traces once: the traced launch costs less than memcheck, and
  // a kernel whose outputs are right can still read past a tensor, leave
  // output elements unwritten or conflict on shared-memory banks.
  return std::string(
      "every diagnose traces once: silent out-of-bounds reads, unwritten outputs, bank conflicts?");
}

std::vector<Finding> traceConclusions(const Point& traced) {
  std::vector<Finding> out;
  for (Finding f : traced.findings) {
    if (!f.evidence.is_object() || f.evidence.value("source", "") != "trace") continue;
    f.experiment = "trace";
    out.push_back(std::move(f));
  }
  return out;
}

void weighWildReads(std::vector<Finding>& traced, const Point& base) {
  if (base.verdict != Verdict::ok) return;
  for (Finding& f : traced) {
    const bool read = f.location.access && f.location.access->kind == "read";
    if (f.detail != "wild" || !read || f.severity != Severity::error) continue;
    f.severity = Severity::warning;
    f.evidence["baseline"] = "ok";
    f.message +=
        " (not proven a fault: the untraced launch ran the same reads without faulting "
        "and passed; the tracer knows only the launch's tensors, not memory such as a by-value "
        "struct read through a pointer or a workspace of the program's)";
  }
}

}  // namespace tilescope
