// The field lists of tilescope.report/1 (docs/report.md): one per struct, read by
// both the writer and the reader (json_fields.h). Parts that hold no measurement
// are left out, so a reader can tell "not measured" from "zero".
#include <algorithm>

#include "tilescope/base/parallel.h"
#include "tilescope/model/json_fields.h"

namespace tilescope {

using json_io::Is;
using json_io::Skip;
using json_io::skipIf;
using json_io::skipIfEmpty;
using nlohmann::json;

// ---------------------------------------------------------------- measurements

template <class IO, Is<Stats> S>
void fields(IO& io, S& s) {
  io("median", s.median);
  io("p10", s.p10);
  io("p90", s.p90);
  io("min", s.min);
  io("max", s.max);
  io("mean", s.mean);
  io("n", s.n);
}

template <class IO, Is<CompileInfo> S>
void fields(IO& io, S& c) {
  io("attempted", c.attempted);
  io("ok", c.ok);
  io("compiler", c.compiler);
  io("arch", c.arch);
  io("log", c.log);
  io("seconds", c.seconds);
  io("cached", c.cached);
  io("regs", c.regs, skipIf(c.regs < 0));
  io("smem_static", c.smemStatic, skipIf(c.smemStatic < 0));
  io("local_bytes", c.localBytes, skipIf(c.localBytes < 0));
  io("spill_stores", c.spillStores, skipIf(c.spillStores < 0));
  io("spill_loads", c.spillLoads, skipIf(c.spillLoads < 0));
  io("max_threads_per_block", c.maxThreadsPerBlock, skipIf(c.maxThreadsPerBlock < 0));
}

template <class IO, Is<LaunchInfo> S>
void fields(IO& io, S& l) {
  io("grid", l.grid);
  io("block", l.block);
  io("shared_bytes", l.sharedBytes);
  io("attempted", l.attempted);
  io("ok", l.ok);
  io("error", l.error);
}

template <class IO, Is<TimingInfo> S>
void fields(IO& io, S& t) {
  const bool unmeasured = !t.measured;
  io("measured", t.measured);
  io("kernel_ns", t.kernelNs, skipIf(unmeasured));
  io("cv", t.cv, skipIf(unmeasured));
  io("event_ns", t.eventNs, skipIf(unmeasured));
  io("regs", t.regs, skipIf(unmeasured || t.regs < 0));
  io("smem_static", t.smemStatic, skipIf(unmeasured || t.smemStatic < 0));
  io("smem_dynamic", t.smemDynamic, skipIf(unmeasured || t.smemDynamic < 0));
  io("local_per_thread", t.localPerThread, skipIf(unmeasured || t.localPerThread < 0));
  io.object(
      "sm_clock_mhz",
      [&](auto& clock) {
        clock("before", t.smClockBeforeMHz);
        clock("after", t.smClockAfterMHz);
      },
      skipIf(unmeasured));
  io("throttled", t.throttled, skipIf(unmeasured));
  io("note", t.note, skipIf(unmeasured && t.note.empty()));
}

template <class IO, Is<BaselineInfo> S>
void fields(IO& io, S& b) {
  io("name", b.name);
  io("measured", b.measured);
  io("kernel_ns", b.kernelNs, skipIf(!b.measured));
  io("kernels", b.kernels, skipIf(!b.measured));
  io("error", b.error, skipIfEmpty(b.error));
}

template <class IO, Is<TileSummary> S>
void fields(IO& io, S& t) {
  io("tile_shape", t.tileShape);
  io("grid", t.grid);
  io("bad", t.bad);
  io("bad_tiles", t.badTiles);
  io("tiles_total", t.tilesTotal);
  io("capped", t.capped);
}

template <class IO, Is<ErrorMap> S>
void fields(IO& io, S& m) {
  io("rows", m.rows);
  io("cols", m.cols);
  io("cell", m.cell);
  io("max_abs", m.maxAbs);
}

template <class IO, Is<CorrectnessInfo> S>
void fields(IO& io, S& c) {
  io("checked", c.checked);
  io("reference", c.reference);
  io("tensor", c.tensor);
  io("max_abs_err", c.maxAbsErr);
  io("max_rel_err", c.maxRelErr);
  io("mismatches", c.mismatches);
  io("nan", c.nan);
  io("inf", c.inf);
  io("elements", c.elements);
  io("first_mismatch", c.firstMismatch);
  io("rtol", c.rtol);
  io("atol", c.atol);
  io("tiles", c.tiles);
  io("error_map", c.errorMap);
}

template <class IO, Is<CellMap> S>
void fields(IO& io, S& m) {
  io("rows", m.rows);
  io("cols", m.cols);
  io("cell", m.cell);
  io("legend", m.legend, skipIfEmpty(m.legend));
  io("states", m.states);
}

template <class IO, Is<CrossingTile> S>
void fields(IO& io, S& t) {
  io("cta", t.cta);
  io("origin", t.origin);
  io("extent", t.extent);
  io("in_bounds_begin", t.inBoundsBegin);
  io("in_bounds_extent", t.inBoundsExtent);
}

template <class IO, Is<CoverageInfo> S>
void fields(IO& io, S& c) {
  io("tensor", c.tensor);
  io("shape", c.shape);
  io("elements", c.elements);
  io.object("declared", [&](auto& d) {
    d("covered", c.declaredCovered);
    d("uncovered", c.declaredUncovered);
    d("overlapped", c.declaredOverlapped);
    d("tile", c.tile);
    d("tiles", c.tilesTotal);
    d("tiles_crossing", c.tilesCrossing);
  });
  io("measured", c.measured);
  io("written", c.written, skipIf(!c.measured));
  io("unwritten", c.unwritten, skipIf(!c.measured));
  io("map", c.map, skipIf(!c.measured));
  // The declared overlap again at the coverage level, where docs/report.md's
  // summary names it; written only (the reader takes declared.overlapped).
  if constexpr (!IO::reading) io("overlapped", c.declaredOverlapped, skipIf(c.declaredOverlapped <= 0));
  io.object(
      "extra",
      [&](auto& x) {
        x("crossing_tiles", c.crossingTiles);
        x.rest(c.extra);
      },
      skipIf(c.extra.is_null() && !c.crossingTiles));
}

template <class IO, Is<OccupancyCurves> S>
void fields(IO& io, S& c) {
  io("block_size", c.blockSize);
  io("registers", c.registers);
  io("shared_memory", c.sharedMemory);
  io.object("current", [&](auto& cur) {
    cur("block_size", c.currentBlockSize);
    cur("registers", c.currentRegisters);
    cur("shared_memory", c.currentSharedMemory);
    cur("occupancy", c.currentOccupancy);
  });
}

template <class IO, Is<OccupancyInfo> S>
void fields(IO& io, S& o) {
  const Skip none = skipIf(!o.computed);  // not computed: {"computed": false} alone
  io("computed", o.computed);
  io("theoretical", o.theoretical, none);
  io("limiter", o.limiter, none);
  io("blocks_per_sm", o.blocksPerSm, none);
  io("warps_per_sm", o.warpsPerSm, none);
  io("max_warps_per_sm", o.maxWarpsPerSm, none);
  io.object(
      "limits",
      [&](auto& l) {
        l("warps", o.blocksLimitWarps);
        l("registers", o.blocksLimitRegs);
        l("shared_memory", o.blocksLimitSmem);
        l("blocks", o.blocksLimitSlots);
      },
      none);
  io("smem_per_block", o.smemPerBlock, none);
  io("regs_per_thread", o.regsPerThread, none);
  io("threads_per_block", o.threadsPerBlock, none);
  io("curves", o.curves, none);
}

// ---------------------------------------------------------------- findings, points, report

template <class IO, Is<Finding> S>
void fields(IO& io, S& f) {
  io("category", f.category);
  io("severity", f.severity);
  io("message", f.message);
  io("detail", f.detail, skipIfEmpty(f.detail));
  io("tensor", f.tensor, skipIfEmpty(f.tensor));
  io("location", f.location, skipIf(f.location.empty()));
  if constexpr (IO::reading)
    io("evidence", f.evidence);
  else
    io("evidence", f.evidence.is_null() ? json::object() : f.evidence);
  io("tree_node", f.treeNode);
  io("experiment", f.experiment, skipIfEmpty(f.experiment));
}

template <class IO, Is<PointStatus> S>
void statusFields(IO& x, S& s) {
  x("no_gpu", s.noGpu, skipIf(!s.noGpu));
  x("remote_unreachable", s.remoteUnreachable, skipIf(!s.remoteUnreachable));
  x("worker_exit", s.workerExit);
  x("worker_error", s.workerError, skipIfEmpty(s.workerError));
  x("stream_error", s.streamError, skipIfEmpty(s.streamError));
  x("scheduler_error", s.schedulerError, skipIfEmpty(s.schedulerError));
  x("sticky_error", s.stickyError);
  x("error", s.captureError, skipIfEmpty(s.captureError));
  x("tiles_error", s.tilesError, skipIfEmpty(s.tilesError));
  x("guard_error", s.guardError, skipIfEmpty(s.guardError));
  x("reference_error", s.referenceError, skipIfEmpty(s.referenceError));
  x("download_error", s.downloadError, skipIfEmpty(s.downloadError));
  x("output_digest", s.outputDigest, skipIfEmpty(s.outputDigest));
}

template <class IO, Is<ExperimentInputs> S>
void inputFields(IO& x, S& in) {
  x("overrides", in.overrides, skipIfEmpty(in.overrides));
  x("align_shift", in.alignShift, skipIf(in.alignShift == 0));
  x("sentinel_variant", in.sentinelVariant, skipIf(in.sentinelVariant == 0));
  x("input_scale", in.inputScale, skipIf(in.inputScale == 1.0));
}

/// One correctness object per point (the first output's), all of them under
/// correctness_all when there are several. A reader takes correctness_all when
/// present, also with one element (as a hand-written file may have it).
template <class IO, Is<Point> S>
void correctnessFields(IO& io, S& p) {
  if constexpr (IO::reading) {
    io("correctness_all", p.correctness);
    if (p.correctness.empty()) {
      std::optional<CorrectnessInfo> one;
      io("correctness", one);
      if (one) p.correctness.push_back(std::move(*one));
    }
  } else {
    if (!p.correctness.empty()) io("correctness", p.correctness.front());
    io("correctness_all", p.correctness, skipIf(p.correctness.size() < 2));
  }
}

/// Coverage is an object keyed by tensor name; a reader takes the key when the
/// entry names no tensor.
template <class IO, Is<Point> S>
void coverageFields(IO& io, S& p) {
  std::map<std::string, CoverageInfo> byName;
  if constexpr (IO::reading) {
    io("coverage", byName);
    for (auto& [name, c] : byName) {
      if (c.tensor.empty()) c.tensor = name;
      p.coverage.push_back(std::move(c));
    }
  } else {
    for (const auto& c : p.coverage) byName[c.tensor] = c;
    io("coverage", byName);
  }
}

template <class IO, Is<GpuRecord> S>
void fields(IO& io, S& g) {
  io("ordinal", g.ordinal);
  io("name", g.name);
  io("uuid", g.uuid, skipIfEmpty(g.uuid));
  io("pci_bus_id", g.pciBusId, skipIfEmpty(g.pciBusId));
  io("host", g.host, skipIfEmpty(g.host));
  io("sm_clock_mhz", g.smClockMHz, skipIf(g.smClockMHz <= 0));
  io("sm_max_clock_mhz", g.smMaxClockMHz, skipIf(g.smMaxClockMHz <= 0));
  io("mem_clock_mhz", g.memClockMHz, skipIf(g.memClockMHz <= 0));
}

template <class IO, Is<Point> S>
void fields(IO& io, S& p) {
  io("index", p.index);
  io("trial", p.trial);
  io("label", p.label);
  io("defines", p.defines);
  io("params", p.params);
  io("verdict", p.verdict);
  io("findings", p.findings);
  io("compile", p.compile);
  io("launch", p.launch);
  io("timing", p.timing);
  io("baseline", p.baseline);
  io("speedup", p.speedup);
  correctnessFields(io, p);
  coverageFields(io, p);
  io("occupancy", p.occupancy);
  io("counters", p.counters,
     skipIf(!p.counters.collected && p.counters.note.empty() && !p.counters.passFailed));
  io("worker_stderr", p.workerStderr, skipIfEmpty(p.workerStderr));
  io("device_output", p.deviceOutput, skipIfEmpty(p.deviceOutput));
  io("experiment", p.experiment, skipIfEmpty(p.experiment));
  io("trace", p.trace, skipIf(p.trace.status.empty()));
  io("stages", p.stages, skipIf(!p.stages.collected));
  io("gpu", p.gpu, skipIf(p.gpu.empty()));
  io("wall_s", p.wallSeconds);
  io.object(
      "extra",
      [&](auto& x) {
        statusFields(x, p.status);
        inputFields(x, p.inputs);
        x.rest(p.extra);
      },
      {}, true);
}

template <class IO, Is<DeviceInfo> S>
void fields(IO& io, S& d) {
  io("name", d.name);
  io("key", d.key);
  io("cc", d.cc);
  io("sm_count", d.smCount);
  io("smem_per_block", d.smemPerBlock);
  io("smem_per_block_optin", d.smemPerBlockOptin);
  io("smem_per_sm", d.smemPerSm);
  io("regs_per_sm", d.regsPerSm, skipIf(d.regsPerSm == 0));
  io("max_warps_per_sm", d.maxWarpsPerSm, skipIf(d.maxWarpsPerSm == 0));
  io("max_blocks_per_sm", d.maxBlocksPerSm, skipIf(d.maxBlocksPerSm == 0));
  io("live", d.live);
  io("dram_gbs", d.dramGBs);
  io("f32_tflops", d.f32Tflops);
  io("f16_tensor_tflops", d.f16TensorTflops);
  io("bf16_tensor_tflops", d.bf16TensorTflops);
  io.rest(d.extra);
}

template <class IO, Is<TreeStep> S>
void fields(IO& io, S& s) {
  io("node", s.node);
  io("question", s.question);
  io("answer", s.answer);
  io("evidence", s.evidence);
  io("automatic", s.automatic);
}

template <class IO, Is<ResultMatrix> S>
void fields(IO& io, S& m) {
  io("points", m.points);
  io("trials", m.trials);
  io("verdicts", m.verdicts);
}

// ---------------------------------------------------------------- diagnose and how a run ran

template <class IO, Is<DiagnoseExperiment> S>
void fields(IO& io, S& e) {
  io("group", e.group);
  io("experiment", e.experiment);
  io("why", e.why);
  io("args", e.args);
  io("verdict", e.verdict);
  io("wall_s", e.wallSeconds);
  io("compiled", e.compiled, skipIfEmpty(e.compiled));
}

template <class IO, Is<DiagnoseSkipped> S>
void fields(IO& io, S& s) {
  io("group", s.group);
  io("why", s.why);
  io("reason", s.reason);
}

template <class IO, Is<DiagnoseConclusion> S>
void fields(IO& io, S& c) {
  io("group", c.group);
  io("runs", c.runs);
  io("settled", c.settled);
  io("summary", c.summary);
  io("findings", c.findings);
}

template <class IO, Is<DiagnoseInfo> S>
void fields(IO& io, S& d) {
  io("experiments", d.experiments);
  io("conclusions", d.conclusions);
  io("captures", d.captures);
  io("max_captures", d.maxCaptures);
  io("stopped", d.stopped, skipIfEmpty(d.stopped));
  io("tree_error", d.treeError, skipIfEmpty(d.treeError));
  io("skipped", d.skipped, skipIf(d.skipped.empty()));
  io("budget_s", d.budgetS, skipIf(d.budgetS == 0));
  io("not_run", d.notRun, skipIfEmpty(d.notRun));
}

template <class IO, Is<ShardInfo> S>
void fields(IO& io, S& s) {
  io("index", s.index);
  io("count", s.count);
  io("points", s.points);
}

template <class IO, Is<WorkersInfo> S>
void fields(IO& io, S& w) {
  io("warm", w.warm);
  io("started", w.started);
}

template <class IO, Is<SlurmTaskInfo> S>
void fields(IO& io, S& t) {
  io("task", t.task);
  io("job", t.job);
  io("state", t.state);
  io("exit_code", t.exitCode);
  io("attempts", t.attempts);
  io("log", t.log);
  io("points", t.points);
  io("gathered", t.gathered);
  io("host", t.host);
  io("part_problem", t.partProblem, skipIfEmpty(t.partProblem));
}

/// `sweep --slurm` fills the tasks first (mergeShardReports), then the job's folder.
template <class IO, Is<SlurmInfo> S>
void fields(IO& io, S& s) {
  io("dir", s.dir, skipIfEmpty(s.dir));
  io("script", s.script, skipIfEmpty(s.script));
  io("jobs", s.jobs, skipIfEmpty(s.jobs));
  io("tasks", s.tasks);
}

template <class IO, Is<ConfigHeadline> S>
void fields(IO& io, S& c) {
  io("name", c.name);
  io("description", c.description);
  io("params", c.params);
  io("reference", c.reference);
  io("baseline", c.baseline);
  io("sweep", c.sweep);
  io.object("kernel", [&](auto& k) {
    k("entry", c.entry);
    k("source", c.source);
    k("compiler", c.compiler);
    k("defines", c.defines);
  });
  io.object("launch", [&](auto& l) {
    l("grid", c.grid);
    l("block", c.block);
    l("shared_bytes", c.sharedBytes);
  });
}

template <class IO, Is<MismatchSample> S>
void fields(IO& io, S& m) {
  io("index", m.index);
  io("expected", m.expected);
  io("actual", m.actual);
}

template <class IO, Is<Report> S>
void fields(IO& io, S& r) {
  io("schema", r.schema);
  io("tool_version", r.toolVersion);
  io("created_at", r.createdAt);
  io("host", r.host);
  io("verb", r.verb);
  io("device", r.device);
  io("config", r.config);
  io("verdict", r.verdict);
  io("points", r.points);
  io("findings", r.findings);
  io("tree_path", r.treePath);
  io("tree_steps", r.treeSteps);
  io("matrix", r.matrix);
  io.object(
      "extra",
      [&](auto& x) {
        x("no_gpu", r.noGpu, skipIf(!r.noGpu));
        x("diagnose", r.diagnose);
        x("shard", r.run.shard);
        x("workers", r.run.workers);
        x("slurm", r.run.slurm);
        x.rest(r.extra);
      },
      {}, true);
}

// ---------------------------------------------------------------- entry points

namespace json_io {

namespace {
template <class T>
json write(const T& v) {
  json j = json::object();
  Writer w(j);
  fields(w, v);
  return j;
}
}  // namespace

json toValue(const Point& v) { return write(v); }
json toValue(const Report& v) { return write(v); }
json toValue(const DeviceInfo& v) { return write(v); }
json toValue(const GpuRecord& v) { return write(v); }
template <Value V>
void fromValue(const V& j, GpuRecord& out, const JsonPath& path) {
  readObject(j, out, path);
}
template <Value V>
void fromValue(const V& j, Point& out, const JsonPath& path) {
  readObject(j, out, path);
}
template <Value V>
void fromValue(const V& j, std::vector<Point>& out, const JsonPath& path) {
  if (!j.is_array()) expected(path, "an array", j);
  out.clear();
  if constexpr (std::is_same_v<V, JsonView>) {
    // Points are independent: blocks of them decode on threads (a 20,000-point
    // sweep in a third of the time on four cores). parallelChunks rethrows the
    // lowest block's error, and a block reads in order: the first wrong point is
    // named, as a serial read names it.
    std::vector<JsonView> points;
    points.reserve(j.size());
    for (const JsonView x : j) points.push_back(x);
    out.resize(points.size());
    constexpr std::size_t kBlock = 64;
    const auto blocks = static_cast<std::int64_t>((points.size() + kBlock - 1) / kBlock);
    parallelChunks(blocks, parallelThreads(blocks), [&](std::int64_t b) {
      const std::size_t first = static_cast<std::size_t>(b) * kBlock;
      for (std::size_t i = first; i < std::min(first + kBlock, points.size()); ++i)
        fromValue(points[i], out[i], path.index(i));
    });
  } else {
    out.reserve(j.size());
    std::size_t i = 0;
    for (const auto& x : j) fromValue(x, out.emplace_back(), path.index(i++));
  }
}
template <Value V>
void fromValue(const V& j, Report& out, const JsonPath& path) {
  readObject(j, out, path);
}
template <Value V>
void fromValue(const V& j, DeviceInfo& out, const JsonPath& path) {
  readObject(j, out, path);
}
template void fromValue(const json&, GpuRecord&, const JsonPath&);
template void fromValue(const JsonView&, GpuRecord&, const JsonPath&);
template void fromValue(const json&, Point&, const JsonPath&);
template void fromValue(const JsonView&, Point&, const JsonPath&);
template void fromValue(const json&, std::vector<Point>&, const JsonPath&);
template void fromValue(const JsonView&, std::vector<Point>&, const JsonPath&);
template void fromValue(const json&, Report&, const JsonPath&);
template void fromValue(const JsonView&, Report&, const JsonPath&);
template void fromValue(const json&, DeviceInfo&, const JsonPath&);
template void fromValue(const JsonView&, DeviceInfo&, const JsonPath&);

}  // namespace json_io

namespace {

template <class T>
json write(const T& v) {
  return json_io::toValue(v);
}

template <class T>
T read(const json& j, const std::string& path) {
  T v;
  json_io::fromValue(j, v, path);
  return v;
}

}  // namespace

json toJson(const Report& r) { return write(r); }
json toJson(const Point& p) { return write(p); }
json toJson(const Finding& f) { return write(f); }
json toJson(const DeviceInfo& d) { return write(d); }

Report reportFromJson(const json& j) {
  if (!j.is_object())
    throw ReportError("", "not a report: the document is " + jsonKind(j) + ", not an object");
  const auto it = j.find("schema");
  const std::string schema = it != j.end() && it->is_string() ? it->get<std::string>() : "";
  if (schema != kReportSchema)
    throw ReportError("schema", "not a report: schema is '" + schema + "', expected '" + kReportSchema + "'");
  return read<Report>(j, "");
}

std::optional<Report> reportFromText(const std::string& text) {
  const std::optional<JsonTape> tape = JsonTape::build(text, reportJsonLimits());
  if (!tape) return std::nullopt;
  const JsonView root = tape->root();
  const std::optional<JsonView> schema = root.find("schema");
  if (!schema || !schema->is_string() || schema->str() != kReportSchema) return std::nullopt;
  Report r;
  json_io::fromValue(root, r, "");
  return r;
}

Point pointFromJson(const json& j, const std::string& path) { return read<Point>(j, path); }

ConfigHeadline configHeadline(const json& config) {
  ConfigHeadline h;
  try {
    if (config.is_object()) json_io::readObject(config, h, "config");
  } catch (const ReportError&) {  // kernel or launch not an object: what came before them stands
  }
  return h;
}

std::vector<MismatchSample> mismatchSamples(const Finding& f) {
  std::vector<MismatchSample> out;
  const auto samples = f.evidence.is_object() ? f.evidence.find("samples") : f.evidence.end();
  if (samples == f.evidence.end() || !samples->is_array()) return out;
  for (json s : *samples) {
    if (!s.is_object() || !s.contains("expected") || !s.contains("actual")) continue;
    if (!s.contains("index") && s.contains("element")) s["index"] = s["element"];  // an older writer's name
    try {
      out.push_back(read<MismatchSample>(s, "samples"));
    } catch (const ReportError&) {  // not a sample: the evidence is open
    }
  }
  return out;
}
Finding findingFromJson(const json& j, const std::string& path) { return read<Finding>(j, path); }
DeviceInfo deviceInfoFromJson(const json& j, const std::string& path) { return read<DeviceInfo>(j, path); }

// Maps must be as large as they say: the GUI indexes them by rows × cols.
namespace json_io {

namespace {
/// TileScope writes at most kMaxMapCells (256) cells a side; a reader allows 16×
/// that before calling a map hostile (the GUI draws a pixel or more per cell).
constexpr std::int64_t kMaxMapSide = 4096;

bool holds(std::int64_t rows, std::int64_t cols, std::size_t values) {
  if (rows < 0 || cols < 0 || rows > kMaxMapSide || cols > kMaxMapSide) return false;
  if (rows == 0 || cols == 0) return values == 0;
  return static_cast<std::uint64_t>(rows) <= values &&
         values / static_cast<std::uint64_t>(rows) == static_cast<std::uint64_t>(cols) &&
         values % static_cast<std::uint64_t>(rows) == 0;
}
}  // namespace

template <Value V>
void fromValue(const V& j, CellMap& out, const JsonPath& path) {
  readObject(j, out, path);
  if (!holds(out.rows, out.cols, out.states.size()))
    fail(path, "a " + std::to_string(out.rows) + " × " + std::to_string(out.cols) + " map with " +
                   std::to_string(out.states.size()) + " states");
  for (std::size_t i = 0; i < out.states.size(); ++i)
    if (out.states[i] > kLastCellState)
      fail(path.child("states").index(i), "unknown cell state " + std::to_string(out.states[i]));
  if (out.cell[0] < 1 || out.cell[1] < 1) fail(path.child("cell"), "a cell of fewer than one element");
}

template <Value V>
void fromValue(const V& j, ErrorMap& out, const JsonPath& path) {
  readObject(j, out, path);
  if (!holds(out.rows, out.cols, out.maxAbs.size()))
    fail(path, "a " + std::to_string(out.rows) + " × " + std::to_string(out.cols) + " map with " +
                   std::to_string(out.maxAbs.size()) + " values");
  if (out.cell[0] < 1 || out.cell[1] < 1) fail(path.child("cell"), "a cell of fewer than one element");
}

template void fromValue(const json&, CellMap&, const JsonPath&);
template void fromValue(const JsonView&, CellMap&, const JsonPath&);
template void fromValue(const json&, ErrorMap&, const JsonPath&);
template void fromValue(const JsonView&, ErrorMap&, const JsonPath&);

}  // namespace json_io

}  // namespace tilescope
