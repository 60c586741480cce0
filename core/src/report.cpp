// JSON (de)serialisation of tilescope.report/1. Field names follow SPEC §3;
// optional parts are written only when they hold a measurement, so a reader
// can tell "not measured" from "zero".
#include "tilescope/report.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>

namespace tilescope {

using nlohmann::json;

const char* severityName(Severity s) {
  switch (s) {
    case Severity::info: return "info";
    case Severity::warning: return "warning";
    case Severity::error: return "error";
  }
  return "error";
}

Severity parseSeverity(const std::string& s) {
  if (s == "info") return Severity::info;
  if (s == "warning") return Severity::warning;
  if (s == "error") return Severity::error;
  throw std::runtime_error("unknown severity '" + s + "'");
}

namespace {
constexpr const char* kVerdictNames[] = {"ok", "slow", "incorrect", "hang", "fault", "launch_error", "compile_error"};
}

const char* verdictName(Verdict v) { return kVerdictNames[static_cast<int>(v)]; }

Verdict parseVerdict(const std::string& s) {
  for (int i = 0; i < 7; ++i)
    if (s == kVerdictNames[i]) return static_cast<Verdict>(i);
  throw std::runtime_error("unknown verdict '" + s + "'");
}

Verdict worse(Verdict a, Verdict b) { return static_cast<int>(a) >= static_cast<int>(b) ? a : b; }

Verdict verdictForFinding(const Finding& f) {
  const std::string& c = f.category;
  if (c == "compile_error") return Verdict::compile_error;
  if (c == "smem_exceeded" || c == "too_many_resources" || c == "invalid_launch") return Verdict::launch_error;
  if (c == "illegal_address" || c == "misaligned_access" || c == "device_assert") return Verdict::fault;
  if (c == "hang") return Verdict::hang;
  if (c == "slow_vs_baseline") return Verdict::slow;
  if (c == "low_occupancy" || c == "bank_conflicts" || c == "register_spill") return Verdict::ok;
  return Verdict::incorrect;
}

Verdict verdictForFindings(const std::vector<Finding>& findings) {
  Verdict v = Verdict::ok;
  for (const auto& f : findings) {
    if (f.severity == Severity::error) v = worse(v, verdictForFinding(f));
    else if (f.category == "slow_vs_baseline") v = worse(v, Verdict::slow);
  }
  return v;
}

// ---------------------------------------------------------------- pieces

namespace {

template <class T>
void getIf(const json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it != j.end() && !it->is_null()) out = it->get<T>();
}

json toJson(const Stats& s) {
  return {{"median", s.median}, {"p10", s.p10}, {"p90", s.p90}, {"min", s.min},
          {"max", s.max},       {"mean", s.mean}, {"n", s.n}};
}

Stats statsFromJson(const json& j) {
  Stats s;
  getIf(j, "median", s.median);
  getIf(j, "p10", s.p10);
  getIf(j, "p90", s.p90);
  getIf(j, "min", s.min);
  getIf(j, "max", s.max);
  getIf(j, "mean", s.mean);
  getIf(j, "n", s.n);
  return s;
}

json triple(const std::int64_t v[3]) { return json::array({v[0], v[1], v[2]}); }
void readTriple(const json& j, const char* key, std::int64_t v[3]) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return;
  for (std::size_t i = 0; i < 3 && i < it->size(); ++i) v[i] = (*it)[i].get<std::int64_t>();
}

json toJson(const CompileInfo& c) {
  json j = {{"attempted", c.attempted}, {"ok", c.ok}, {"compiler", c.compiler}, {"arch", c.arch},
            {"log", c.log}, {"seconds", c.seconds}, {"cached", c.cached}};
  if (c.regs >= 0) j["regs"] = c.regs;
  if (c.smemStatic >= 0) j["smem_static"] = c.smemStatic;
  if (c.localBytes >= 0) j["local_bytes"] = c.localBytes;
  if (c.spillStores >= 0) j["spill_stores"] = c.spillStores;
  if (c.spillLoads >= 0) j["spill_loads"] = c.spillLoads;
  if (c.maxThreadsPerBlock >= 0) j["max_threads_per_block"] = c.maxThreadsPerBlock;
  return j;
}

CompileInfo compileFromJson(const json& j) {
  CompileInfo c;
  getIf(j, "attempted", c.attempted);
  getIf(j, "ok", c.ok);
  getIf(j, "compiler", c.compiler);
  getIf(j, "arch", c.arch);
  getIf(j, "log", c.log);
  getIf(j, "seconds", c.seconds);
  getIf(j, "cached", c.cached);
  getIf(j, "regs", c.regs);
  getIf(j, "smem_static", c.smemStatic);
  getIf(j, "local_bytes", c.localBytes);
  getIf(j, "spill_stores", c.spillStores);
  getIf(j, "spill_loads", c.spillLoads);
  getIf(j, "max_threads_per_block", c.maxThreadsPerBlock);
  return c;
}

json toJson(const LaunchInfo& l) {
  return {{"grid", triple(l.grid)}, {"block", triple(l.block)}, {"shared_bytes", l.sharedBytes},
          {"attempted", l.attempted}, {"ok", l.ok}, {"error", l.error}};
}

LaunchInfo launchFromJson(const json& j) {
  LaunchInfo l;
  readTriple(j, "grid", l.grid);
  readTriple(j, "block", l.block);
  getIf(j, "shared_bytes", l.sharedBytes);
  getIf(j, "attempted", l.attempted);
  getIf(j, "ok", l.ok);
  getIf(j, "error", l.error);
  return l;
}

json toJson(const TimingInfo& t) {
  json j = {{"measured", t.measured}};
  if (!t.measured) {
    if (!t.note.empty()) j["note"] = t.note;
    return j;
  }
  j["kernel_ns"] = toJson(t.kernelNs);
  j["cv"] = t.cv;
  j["event_ns"] = toJson(t.eventNs);
  if (t.regs >= 0) j["regs"] = t.regs;
  if (t.smemStatic >= 0) j["smem_static"] = t.smemStatic;
  if (t.smemDynamic >= 0) j["smem_dynamic"] = t.smemDynamic;
  if (t.localPerThread >= 0) j["local_per_thread"] = t.localPerThread;
  j["sm_clock_mhz"] = {{"before", t.smClockBeforeMHz}, {"after", t.smClockAfterMHz}};
  j["throttled"] = t.throttled;
  j["note"] = t.note;
  return j;
}

TimingInfo timingFromJson(const json& j) {
  TimingInfo t;
  getIf(j, "measured", t.measured);
  if (j.contains("kernel_ns")) t.kernelNs = statsFromJson(j["kernel_ns"]);
  if (j.contains("event_ns")) t.eventNs = statsFromJson(j["event_ns"]);
  getIf(j, "cv", t.cv);
  getIf(j, "regs", t.regs);
  getIf(j, "smem_static", t.smemStatic);
  getIf(j, "smem_dynamic", t.smemDynamic);
  getIf(j, "local_per_thread", t.localPerThread);
  if (j.contains("sm_clock_mhz")) {
    getIf(j["sm_clock_mhz"], "before", t.smClockBeforeMHz);
    getIf(j["sm_clock_mhz"], "after", t.smClockAfterMHz);
  }
  getIf(j, "throttled", t.throttled);
  getIf(j, "note", t.note);
  return t;
}

json toJson(const BaselineInfo& b) {
  json j = {{"name", b.name}, {"measured", b.measured}};
  if (b.measured) {
    j["kernel_ns"] = toJson(b.kernelNs);
    j["kernels"] = b.kernels;
  }
  if (!b.error.empty()) j["error"] = b.error;
  return j;
}

BaselineInfo baselineFromJson(const json& j) {
  BaselineInfo b;
  getIf(j, "name", b.name);
  getIf(j, "measured", b.measured);
  if (j.contains("kernel_ns")) b.kernelNs = statsFromJson(j["kernel_ns"]);
  getIf(j, "kernels", b.kernels);
  getIf(j, "error", b.error);
  return b;
}

json toJson(const CorrectnessInfo& c) {
  return {{"checked", c.checked},       {"reference", c.reference},
          {"tensor", c.tensor},         {"max_abs_err", c.maxAbsErr},
          {"max_rel_err", c.maxRelErr}, {"mismatches", c.mismatches},
          {"nan", c.nan},               {"inf", c.inf},
          {"elements", c.elements},     {"first_mismatch", {c.firstMismatch[0], c.firstMismatch[1]}},
          {"rtol", c.rtol},             {"atol", c.atol},
          {"tiles", c.tiles},           {"error_map", c.errorMap}};
}

CorrectnessInfo correctnessFromJson(const json& j) {
  CorrectnessInfo c;
  getIf(j, "checked", c.checked);
  getIf(j, "reference", c.reference);
  getIf(j, "tensor", c.tensor);
  getIf(j, "max_abs_err", c.maxAbsErr);
  getIf(j, "max_rel_err", c.maxRelErr);
  getIf(j, "mismatches", c.mismatches);
  getIf(j, "nan", c.nan);
  getIf(j, "inf", c.inf);
  getIf(j, "elements", c.elements);
  if (j.contains("first_mismatch") && j["first_mismatch"].size() == 2) {
    c.firstMismatch[0] = j["first_mismatch"][0].get<std::int64_t>();
    c.firstMismatch[1] = j["first_mismatch"][1].get<std::int64_t>();
  }
  getIf(j, "rtol", c.rtol);
  getIf(j, "atol", c.atol);
  if (j.contains("tiles")) c.tiles = j["tiles"];
  if (j.contains("error_map")) c.errorMap = j["error_map"];
  return c;
}

json toJson(const CoverageInfo& c) {
  json j = {{"tensor", c.tensor},
            {"shape", c.shape},
            {"elements", c.elements},
            {"declared", {{"covered", c.declaredCovered},
                          {"uncovered", c.declaredUncovered},
                          {"overlapped", c.declaredOverlapped},
                          {"tile", c.tile},
                          {"tiles", c.tilesTotal},
                          {"tiles_crossing", c.tilesCrossing}}},
            {"measured", c.measured}};
  if (c.measured) {
    j["written"] = c.written;
    j["unwritten"] = c.unwritten;
    j["map"] = c.map;
  }
  // SPEC §3 names `overlapped` at the coverage level: the declared overlap is what we know.
  if (c.declaredOverlapped > 0) j["overlapped"] = c.declaredOverlapped;
  if (!c.extra.is_null()) j["extra"] = c.extra;
  return j;
}

CoverageInfo coverageFromJson(const json& j) {
  CoverageInfo c;
  getIf(j, "tensor", c.tensor);
  getIf(j, "shape", c.shape);
  getIf(j, "elements", c.elements);
  if (j.contains("declared")) {
    const json& d = j["declared"];
    getIf(d, "covered", c.declaredCovered);
    getIf(d, "uncovered", c.declaredUncovered);
    getIf(d, "overlapped", c.declaredOverlapped);
    getIf(d, "tile", c.tile);
    getIf(d, "tiles", c.tilesTotal);
    getIf(d, "tiles_crossing", c.tilesCrossing);
  }
  getIf(j, "measured", c.measured);
  getIf(j, "written", c.written);
  getIf(j, "unwritten", c.unwritten);
  if (j.contains("map")) c.map = j["map"];
  if (j.contains("extra")) c.extra = j["extra"];
  return c;
}

json toJson(const OccupancyInfo& o) {
  if (!o.computed) return json{{"computed", false}};
  return {{"computed", true},
          {"theoretical", o.theoretical},
          {"limiter", o.limiter},
          {"blocks_per_sm", o.blocksPerSm},
          {"warps_per_sm", o.warpsPerSm},
          {"max_warps_per_sm", o.maxWarpsPerSm},
          {"limits", {{"warps", o.blocksLimitWarps},
                      {"registers", o.blocksLimitRegs},
                      {"shared_memory", o.blocksLimitSmem},
                      {"blocks", o.blocksLimitSlots}}},
          {"smem_per_block", o.smemPerBlock},
          {"regs_per_thread", o.regsPerThread},
          {"threads_per_block", o.threadsPerBlock},
          {"curves", o.curves}};
}

OccupancyInfo occupancyFromJson(const json& j) {
  OccupancyInfo o;
  getIf(j, "computed", o.computed);
  getIf(j, "theoretical", o.theoretical);
  getIf(j, "limiter", o.limiter);
  getIf(j, "blocks_per_sm", o.blocksPerSm);
  getIf(j, "warps_per_sm", o.warpsPerSm);
  getIf(j, "max_warps_per_sm", o.maxWarpsPerSm);
  if (j.contains("limits")) {
    const json& l = j["limits"];
    getIf(l, "warps", o.blocksLimitWarps);
    getIf(l, "registers", o.blocksLimitRegs);
    getIf(l, "shared_memory", o.blocksLimitSmem);
    getIf(l, "blocks", o.blocksLimitSlots);
  }
  getIf(j, "smem_per_block", o.smemPerBlock);
  getIf(j, "regs_per_thread", o.regsPerThread);
  getIf(j, "threads_per_block", o.threadsPerBlock);
  if (j.contains("curves")) o.curves = j["curves"];
  return o;
}

json toJson(const TreeStep& s) {
  return {{"node", s.node}, {"question", s.question}, {"answer", s.answer},
          {"evidence", s.evidence}, {"automatic", s.automatic}};
}

TreeStep treeStepFromJson(const json& j) {
  TreeStep s;
  getIf(j, "node", s.node);
  getIf(j, "question", s.question);
  getIf(j, "answer", s.answer);
  if (j.contains("evidence")) s.evidence = j["evidence"];
  getIf(j, "automatic", s.automatic);
  return s;
}

}  // namespace

// ---------------------------------------------------------------- device

json toJson(const DeviceInfo& d) {
  json j = d.extra.is_object() ? d.extra : json::object();
  j["name"] = d.name;
  j["key"] = d.key;
  j["cc"] = d.cc;
  j["sm_count"] = d.smCount;
  j["smem_per_block"] = d.smemPerBlock;
  j["smem_per_block_optin"] = d.smemPerBlockOptin;
  j["smem_per_sm"] = d.smemPerSm;
  j["live"] = d.live;
  return j;
}

DeviceInfo deviceInfoFromJson(const json& j) {
  DeviceInfo d;
  getIf(j, "name", d.name);
  getIf(j, "key", d.key);
  getIf(j, "cc", d.cc);
  getIf(j, "sm_count", d.smCount);
  getIf(j, "smem_per_block", d.smemPerBlock);
  getIf(j, "smem_per_block_optin", d.smemPerBlockOptin);
  getIf(j, "smem_per_sm", d.smemPerSm);
  getIf(j, "live", d.live);
  d.extra = j;
  for (const char* k : {"name", "key", "cc", "sm_count", "smem_per_block", "smem_per_block_optin", "smem_per_sm", "live"})
    d.extra.erase(k);
  return d;
}

// ---------------------------------------------------------------- findings

json toJson(const Finding& f) {
  json j = {{"category", f.category}, {"severity", severityName(f.severity)}, {"message", f.message}};
  if (!f.detail.empty()) j["detail"] = f.detail;
  if (!f.tensor.empty()) j["tensor"] = f.tensor;
  if (!f.location.is_null()) j["location"] = f.location;
  j["evidence"] = f.evidence.is_null() ? json::object() : f.evidence;
  j["tree_node"] = f.treeNode;
  if (!f.experiment.empty()) j["experiment"] = f.experiment;
  return j;
}

Finding findingFromJson(const json& j) {
  Finding f;
  getIf(j, "category", f.category);
  if (j.contains("severity")) f.severity = parseSeverity(j["severity"].get<std::string>());
  getIf(j, "message", f.message);
  getIf(j, "detail", f.detail);
  getIf(j, "tensor", f.tensor);
  if (j.contains("location")) f.location = j["location"];
  if (j.contains("evidence")) f.evidence = j["evidence"];
  getIf(j, "tree_node", f.treeNode);
  getIf(j, "experiment", f.experiment);
  return f;
}

// ---------------------------------------------------------------- points

json toJson(const Point& p) {
  json j = {{"index", p.index},     {"trial", p.trial},       {"label", p.label},
            {"defines", p.defines}, {"params", p.params},     {"verdict", verdictName(p.verdict)},
            {"compile", toJson(p.compile)}, {"launch", toJson(p.launch)},
            {"timing", toJson(p.timing)},   {"baseline", toJson(p.baseline)},
            {"occupancy", toJson(p.occupancy)}, {"wall_s", p.wallSeconds}};
  j["findings"] = json::array();
  for (const auto& f : p.findings) j["findings"].push_back(toJson(f));
  if (p.speedup) j["speedup"] = *p.speedup;
  // SPEC §3 shows one correctness object per point: the first output's; with several outputs, all of them under correctness_all.
  if (!p.correctness.empty()) {
    j["correctness"] = toJson(p.correctness.front());
    if (p.correctness.size() > 1) {
      j["correctness_all"] = json::array();
      for (const auto& c : p.correctness) j["correctness_all"].push_back(toJson(c));
    }
  }
  j["coverage"] = json::object();
  for (const auto& c : p.coverage) j["coverage"][c.tensor] = toJson(c);
  if (!p.workerStderr.empty()) j["worker_stderr"] = p.workerStderr;
  if (!p.experiment.empty()) j["experiment"] = p.experiment;
  if (!p.trace.status.empty()) j["trace"] = toJson(p.trace);
  if (!p.extra.empty()) j["extra"] = p.extra;
  return j;
}

Point pointFromJson(const json& j) {
  Point p;
  getIf(j, "index", p.index);
  getIf(j, "trial", p.trial);
  getIf(j, "label", p.label);
  if (j.contains("defines")) p.defines = j["defines"];
  if (j.contains("params")) p.params = j["params"];
  if (j.contains("verdict")) p.verdict = parseVerdict(j["verdict"].get<std::string>());
  if (j.contains("findings"))
    for (const auto& f : j["findings"]) p.findings.push_back(findingFromJson(f));
  if (j.contains("compile")) p.compile = compileFromJson(j["compile"]);
  if (j.contains("launch")) p.launch = launchFromJson(j["launch"]);
  if (j.contains("timing")) p.timing = timingFromJson(j["timing"]);
  if (j.contains("baseline")) p.baseline = baselineFromJson(j["baseline"]);
  if (j.contains("speedup") && j["speedup"].is_number()) p.speedup = j["speedup"].get<double>();
  if (j.contains("correctness_all")) {
    for (const auto& c : j["correctness_all"]) p.correctness.push_back(correctnessFromJson(c));
  } else if (j.contains("correctness") && j["correctness"].is_object()) {
    p.correctness.push_back(correctnessFromJson(j["correctness"]));
  }
  if (j.contains("coverage") && j["coverage"].is_object())
    for (const auto& [name, c] : j["coverage"].items()) {
      CoverageInfo ci = coverageFromJson(c);
      if (ci.tensor.empty()) ci.tensor = name;
      p.coverage.push_back(std::move(ci));
    }
  if (j.contains("occupancy")) p.occupancy = occupancyFromJson(j["occupancy"]);
  getIf(j, "worker_stderr", p.workerStderr);
  getIf(j, "experiment", p.experiment);
  getIf(j, "wall_s", p.wallSeconds);
  if (j.contains("trace")) p.trace = traceInfoFromJson(j["trace"]);
  if (j.contains("extra")) p.extra = j["extra"];
  return p;
}

// ---------------------------------------------------------------- report

void Report::finalize() {
  verdict = Verdict::ok;
  findings.clear();
  for (const auto& p : points) {
    verdict = worse(verdict, p.verdict);
    for (const auto& f : p.findings) {
      // Merge: one finding per (category, detail, tensor) across points and trials;
      // the first point's message stands for all, evidence.points lists them.
      auto same = [&](const Finding& g) {
        return g.category == f.category && g.detail == f.detail && g.tensor == f.tensor;
      };
      auto it = std::find_if(findings.begin(), findings.end(), same);
      if (it == findings.end()) {
        Finding m = f;
        if (points.size() > 1) m.evidence["points"] = json::array({p.index});
        findings.push_back(std::move(m));
      } else if (points.size() > 1) {
        auto& pts = it->evidence["points"];
        if (std::find(pts.begin(), pts.end(), json(p.index)) == pts.end()) pts.push_back(p.index);
      }
    }
  }
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    return static_cast<int>(a.severity) > static_cast<int>(b.severity);
  });
}

json toJson(const Report& r) {
  json j = {{"schema", r.schema},         {"tool_version", r.toolVersion}, {"created_at", r.createdAt},
            {"host", r.host},             {"verb", r.verb},                {"device", toJson(r.device)},
            {"config", r.config},         {"verdict", verdictName(r.verdict)}};
  j["points"] = json::array();
  for (const auto& p : r.points) j["points"].push_back(toJson(p));
  j["findings"] = json::array();
  for (const auto& f : r.findings) j["findings"].push_back(toJson(f));
  j["tree_path"] = r.treePath;
  j["tree_steps"] = json::array();
  for (const auto& s : r.treeSteps) j["tree_steps"].push_back(toJson(s));
  if (!r.matrix.is_null()) j["matrix"] = r.matrix;
  if (!r.extra.empty()) j["extra"] = r.extra;
  return j;
}

Report reportFromJson(const json& j) {
  if (!j.is_object()) throw std::runtime_error("not a report: the document is not a JSON object");
  const std::string schema = j.value("schema", "");
  if (schema != kReportSchema)
    throw std::runtime_error("not a report: schema is '" + schema + "', expected '" + kReportSchema + "'");
  Report r;
  getIf(j, "tool_version", r.toolVersion);
  getIf(j, "created_at", r.createdAt);
  getIf(j, "host", r.host);
  getIf(j, "verb", r.verb);
  if (j.contains("device")) r.device = deviceInfoFromJson(j["device"]);
  if (j.contains("config")) r.config = j["config"];
  if (j.contains("points"))
    for (const auto& p : j["points"]) r.points.push_back(pointFromJson(p));
  if (j.contains("verdict")) r.verdict = parseVerdict(j["verdict"].get<std::string>());
  if (j.contains("findings"))
    for (const auto& f : j["findings"]) r.findings.push_back(findingFromJson(f));
  getIf(j, "tree_path", r.treePath);
  if (j.contains("tree_steps"))
    for (const auto& s : j["tree_steps"]) r.treeSteps.push_back(treeStepFromJson(s));
  if (j.contains("matrix")) r.matrix = j["matrix"];
  if (j.contains("extra")) r.extra = j["extra"];
  return r;
}

Report loadReport(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error(file.string() + ": cannot open report");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    throw std::runtime_error(file.string() + ": invalid JSON: " + e.what());
  }
  try {
    return reportFromJson(j);
  } catch (const std::exception& e) {
    throw std::runtime_error(file.string() + ": " + e.what());
  }
}

void saveReport(const Report& r, const std::filesystem::path& file) {
  std::ofstream out(file);
  if (!out) throw std::runtime_error(file.string() + ": cannot write report");
  out << toJson(r).dump(1) << '\n';
  if (!out) throw std::runtime_error(file.string() + ": write failed");
}

int exitCodeFor(const Report& r) {
  if (r.verdict == Verdict::ok) return 0;
  return 1;
}

}  // namespace tilescope
