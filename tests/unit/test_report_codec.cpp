// The report's sections on the one codec toolkit (json_fields.h): the trace and
// counters sections filled in every field round-trip (a field dropped from a
// field list reads back as its default and fails here), the value shapes they
// use (hex strings, run-length vectors, tuples) refuse what they cannot hold
// with the JSON path, and the readers that once converted a huge number with
// undefined behaviour (docs/fuzzing.md, report mutants) now name it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <string>

#include "tilescope/base/json_input.h"
#include "tilescope/model/json_fields.h"
#include "tilescope/model/report.h"

using nlohmann::json;
using namespace tilescope;

namespace {

TraceSite site(std::uint64_t pc, int line) {
  return {pc, "gemm_tiled", pc - 0x7f0000000000ull, "gemm_tiled.cu", line};
}

/// Every field of the trace section set, none to its default.
TraceInfo fullTrace() {
  TraceInfo t;
  t.status = "ok";
  t.reason = "bulk copies not traced";
  t.mode = "full";
  t.kernel = "gemm_tiled";
  t.file = "gemm_tiled.cu";
  t.lineInfo = true;
  t.grid = {4, 2, 1};
  t.block = {128, 1, 1};
  t.counts = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  TraceFault f;
  f.kind = "oob_write";
  f.category = "oob_write";
  f.space = "shared";
  f.tensor = "C";
  f.site = site(0x7f0000001230ull, 42);
  f.element = {65, 3};
  f.elementLinear = 4163;
  f.bytesPastEnd = 12;
  f.bytesBeforeStart = 4;
  f.size = 16;
  f.write = true;
  f.atomic = true;
  f.address = 0xffffffffffffff00ull;  // above 2^53: only a hex string keeps it
  f.thread = {31, 1, 0};
  f.block = {3, 1, 0};
  f.tile = TraceTileHint{"C", {64, 0}, {64, 64}};
  f.count = 17;
  f.stopped = true;
  f.exact = false;
  t.faults = {f};
  t.hazards = {{"RAW",
                site(0x7f0000001240ull, 50),
                site(0x7f0000001250ull, 51),
                {1, 0, 0},
                {2, 0, 0},
                {3, 0, 0},
                5,
                128}};
  t.lines = {{"gemm_tiled.cu",
              42,
              {0x1a0, 0x1b0},
              11,
              12,
              13,
              {"global", "shared"},
              true,
              true,
              true,
              14,
              15,
              16,
              17,
              18,
              4}};
  TraceFootprint fp;
  fp.tensor = "C";
  fp.shape = {65, 65};
  fp.pitch = 65;
  fp.rows = 65;
  fp.cellH = 2;
  fp.cellW = 4;
  fp.cellRows = 33;
  fp.cellCols = 17;
  fp.exact = false;
  fp.readMin = {-1, -1, 0, 0, 1};
  fp.readMax = {-1, 2, 2, 2, 3};
  fp.writeMin = {0, 0, 0, -1, -1};
  fp.writeMax = {1, 1, 1, -1, 5};
  fp.cellsRead = 3;
  fp.cellsWritten = 4;
  fp.cellsMultiWriter = 1;
  fp.readBoxes = {{0, 1, 2, 3, 4, 5}};
  fp.writeBoxes = {{1, 0, 64, 0, 64, 4096}, {2, 64, 65, 0, 64, 65}};
  fp.ctasListed = 2;
  fp.ctasTotal = 8;
  t.footprints = {fp};
  t.limits = {1, 2, 3, 4, 5, 6, 7};
  return t;
}

/// Every field of the counters section set, none to its default.
CountersInfo fullCounters() {
  CountersInfo c;
  c.collected = true;
  c.note = "a caveat";
  c.chip = "GH100";
  c.passes = 14;
  c.seconds = 2.5;
  c.kernelSeconds = 1.25;
  c.baselineSeconds = 1;
  c.pcSamplingSeconds = 0.25;
  c.metrics = {"gpu__time_duration.sum", "dram__bytes_read.sum"};
  c.kernel = {"gemm_tiled", 2, {{"gpu__time_duration.sum", 1234.5}, {"dram__bytes_read.sum", 1e9}}};
  c.baseline = KernelCounters{"cuBLAS", 3, {{"gpu__time_duration.sum", 1000}}};
  c.baselineKernels = {{"sm90_xmma", 1, {{"gpu__time_duration.sum", 900}}}};
  c.baselineNote = "reused from the last capture";
  c.baselineReused = true;
  c.passFailed = true;
  c.pcSampling = {true,
                  "period chosen for 50 000 samples",
                  10,
                  900,
                  1,
                  2,
                  {{"long_scoreboard", 600}},
                  {{"gemm_tiled.cu", 42, 800, {{"long_scoreboard", 600}, {"barrier", 200}}}},
                  {{"gemm_tiled", 0x1dd0, 500, {{"long_scoreboard", 400}}}}};
  return c;
}

/// The keys of `j` (an object).
std::set<std::string> keysOf(const json& j) {
  std::set<std::string> out;
  for (const auto& [k, v] : j.items()) out.insert(k);
  return out;
}

std::string readError(const json& j) {
  try {
    (void)reportFromJson(j);
  } catch (const ReportError& e) {
    return e.what();
  }
  return "";
}

/// A report whose first point carries `section` at `key`.
json reportWith(const char* key, const json& section) {
  Point p;
  json r = toJson(Report{});
  json pj = toJson(p);
  pj[key] = section;
  r["points"] = json::array({pj});
  return r;
}

}  // namespace

TEST(TraceCodec, EveryFieldRoundTrips) {
  const TraceInfo t = fullTrace();
  const json j = toJson(t);
  EXPECT_EQ(traceInfoFromJson(j), t) << j.dump(1);
  EXPECT_EQ(traceInfoFromJson(parseJson(dumpJson(j))), t);  // through the text
  // The documented keys (docs/report.md, "trace"), and no others.
  EXPECT_EQ(keysOf(j), (std::set<std::string>{"schema", "status", "reason", "mode", "kernel", "file",
                                              "line_info", "grid", "block", "counts", "faults", "hazards",
                                              "lines", "footprints", "limits"}));
  EXPECT_EQ(keysOf(j["faults"][0]),
            (std::set<std::string>{"kind", "category", "space", "tensor", "site", "element", "element_linear",
                                   "bytes_past_end", "bytes_before_start", "size", "write", "atomic",
                                   "address", "thread", "block", "tile", "count", "stopped", "exact"}));
  EXPECT_EQ(keysOf(j["footprints"][0]).size(), 19u);
  EXPECT_EQ(keysOf(j["lines"][0]).size(), 16u);
  EXPECT_EQ(keysOf(j["counts"]).size(), 10u);
  EXPECT_EQ(keysOf(j["limits"]).size(), 7u);
  // The shapes: 64-bit values as hex strings, maps run-length encoded, boxes as arrays.
  EXPECT_EQ(j["faults"][0]["address"], "0xffffffffffffff00");
  EXPECT_EQ(j["faults"][0]["site"]["pc"], "0x7f0000001230");
  EXPECT_EQ(j["footprints"][0]["read_min"], json({-1, 2, 0, 2, 1, 1}));
  EXPECT_EQ(j["footprints"][0]["cell"], json({2, 4}));
  EXPECT_EQ(j["footprints"][0]["write_boxes"][1], json({2, 64, 65, 0, 64, 65}));
  // A section that did not trace says why and nothing else.
  TraceInfo none;
  none.status = "unavailable";
  none.reason = "no libsanitizer-public.so";
  EXPECT_EQ(keysOf(toJson(none)), (std::set<std::string>{"schema", "status", "reason"}));
  EXPECT_EQ(traceInfoFromJson(toJson(none)), none);
}

TEST(CountersCodec, EveryFieldRoundTrips) {
  const CountersInfo c = fullCounters();
  const json j = toJson(c);
  EXPECT_EQ(countersFromJson(j), c) << j.dump(1);
  EXPECT_EQ(countersFromJson(parseJson(dumpJson(j))), c);
  EXPECT_EQ(keysOf(j),
            (std::set<std::string>{"collected", "note", "chip", "passes", "seconds", "seconds_kernel",
                                   "seconds_baseline", "seconds_pc_sampling", "metrics", "kernel", "baseline",
                                   "baseline_kernels", "baseline_note", "baseline_reused", "pass_failed",
                                   "pc_sampling"}));
  EXPECT_EQ(keysOf(j["pc_sampling"]),
            (std::set<std::string>{"collected", "note", "period_log2", "total_samples", "dropped_samples",
                                   "unmapped_samples", "stalls", "lines", "pcs"}));
  // Not collected: the flag alone, so a reader tells "not measured" from zero.
  EXPECT_EQ(toJson(CountersInfo{}), json({{"collected", false}}));
}

TEST(ReportCodec, HugeNumbersInCountersAndTraceAreNamedNotConverted) {
  // The reproducers' inputs (UBSan float-cast-overflow in the old readers): a
  // stall's samples of 1e308 and a SASS offset of 10^30, both beyond int64.
  json counters = toJson(fullCounters());
  counters["pc_sampling"]["lines"][0]["stalls"][0]["samples"] = 1e308;
  EXPECT_EQ(readError(reportWith("counters", counters)),
            "points[0].counters.pc_sampling.lines[0].stalls[0].samples: out of range: 1e+308");
  const json trace = parseJson(R"({"schema": "tilescope.trace/1", "status": "ok",
      "lines": [{"file": "k.cu", "line": 3, "sass_offsets": [16, 1000000000000000000000000000000]}]})");
  EXPECT_EQ(readError(reportWith("trace", trace)),
            "points[0].trace.lines[0].sass_offsets[1]: out of range: 1e+30");
  // A metric's name has dots: its path quotes it.
  counters = toJson(fullCounters());
  counters["kernel"]["metrics"]["dram__bytes_read.sum"] = "many";
  EXPECT_EQ(readError(reportWith("counters", counters)),
            "points[0].counters.kernel.metrics[\"dram__bytes_read.sum\"]: expected a number, found a string");
}

TEST(ReportCodec, HexValuesReadStringsAndIntegers) {
  json t = toJson(fullTrace());
  t["faults"][0]["address"] = 4096;
  EXPECT_EQ(traceInfoFromJson(t).faults[0].address, 4096u);
  t["faults"][0]["address"] = "4096";
  EXPECT_EQ(traceInfoFromJson(t).faults[0].address, 4096u);
  t["faults"][0]["address"] = "0XFF";
  EXPECT_EQ(traceInfoFromJson(t).faults[0].address, 255u);
  for (const json& bad :
       {json("0x"), json("0x1g"), json("-1"), json("0x10000000000000000"), json(-1), json(true)}) {
    t["faults"][0]["address"] = bad;
    EXPECT_THROW((void)traceInfoFromJson(t), ReportError) << bad;
  }
  t["faults"][0]["address"] = "0xzz";
  try {
    (void)traceInfoFromJson(t);
    FAIL();
  } catch (const ReportError& e) {
    EXPECT_EQ(e.path(), "trace.faults[0].address");
  }
}

TEST(ReportCodec, RunLengthVectorsAreChecked) {
  json t = toJson(fullTrace());
  auto errorAt = [&](const json& runs) {
    t["footprints"][0]["write_max"] = runs;
    try {
      (void)traceInfoFromJson(t);
    } catch (const ReportError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(errorAt({7, 3}), "");
  EXPECT_EQ(traceInfoFromJson(t).footprints[0].writeMax, (std::vector<std::int64_t>{7, 7, 7}));
  EXPECT_EQ(errorAt({7, 3, 1}), "trace.footprints[0].write_max: expected [value, run] pairs, found 3 values");
  EXPECT_EQ(errorAt({7, -3}), "trace.footprints[0].write_max[1]: a run of -3 values");
  EXPECT_EQ(errorAt({0, std::int64_t{1} << 25}), "trace.footprints[0].write_max: more than 16777216 values");
  // Two runs near 2^63 would overflow a running sum: refused before adding.
  EXPECT_EQ(errorAt({0, 10, 1, INT64_MAX}), "trace.footprints[0].write_max: more than 16777216 values");
}

TEST(ReportCodec, TuplesAreExactlyAsLongAsTheirStruct) {
  json t = toJson(fullTrace());
  t["footprints"][0]["read_boxes"][0] = {0, 1, 2};
  try {
    (void)traceInfoFromJson(t);
    FAIL();
  } catch (const ReportError& e) {
    EXPECT_EQ(std::string(e.what()), "trace.footprints[0].read_boxes[0]: expected 6 values, found 3");
  }
  t = toJson(fullTrace());
  t["footprints"][0]["cell"] = {2, "4"};
  EXPECT_THROW((void)traceInfoFromJson(t), ReportError);
}

TEST(ReportCodec, OneTypeNamerForConfigsAndReports) {
  EXPECT_EQ(jsonKind(json(true)), "a boolean");
  EXPECT_EQ(jsonKind(json(3)), "an integer");
  EXPECT_EQ(jsonKind(json(3.5)), "a number");
  EXPECT_EQ(jsonKind(nlohmann::ordered_json::array()), "an array");
  EXPECT_EQ(readError(json::array()), "not a report: the document is an array, not an object");
  json r = toJson(Report{});
  r["verdict"] = false;
  EXPECT_EQ(readError(r), "verdict: expected a string, found a boolean");
  EXPECT_EQ(jsonPathIndex(jsonPathChild("coverage", "a.b"), 2), "coverage[\"a.b\"][2]");
}

TEST(ReportCodec, OneParserWithTheReportsLimits) {
  // Depth: where in the text, as the old reader said it.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  try {
    (void)parseJson(deep);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "line 1, column 129: nested deeper than 128 levels");
  }
  // A number out of range: by its JSON path (the old reader named neither).
  try {
    (void)parseJson(R"({"points": [{"wall_s": -1e400}]})");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("points[0].wall_s: ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("1e400"), std::string::npos) << e.what();
  }
  try {
    (void)parseJson("{\n  \"a\": tru\n}");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("line 2, column 11: invalid JSON: ", 0), 0u) << e.what();
  }
  EXPECT_THROW((void)parseJson(R"({"a": 1, "a": 2})"), std::runtime_error);  // duplicate keys
  const JsonLimits l = reportJsonLimits();
  EXPECT_EQ(l.maxDepth, kMaxJsonDepth);
  EXPECT_EQ(l.maxBytes, kMaxReportBytes);
}

TEST(ReportCodec, MismatchSamplesHaveOneSpelling) {
  Finding f;
  f.evidence = {{"samples",
                 {{{"index", {10, 20}}, {"expected", 1.5}, {"actual", 1.25}},
                  {{"element", {11, 21}}, {"expected", -0.5}, {"actual", nullptr}},  // an older writer's name
                  {{"index", {1}}, {"expected", 1}},                 // no actual: not a sample
                  {{"index", "x"}, {"expected", 1}, {"actual", 2}},  // not one either
                  5}}};
  const std::vector<MismatchSample> s = mismatchSamples(f);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].index, (std::vector<std::int64_t>{10, 20}));
  EXPECT_EQ(s[0].actual, 1.25);
  EXPECT_EQ(s[1].index, (std::vector<std::int64_t>{11, 21}));
  EXPECT_TRUE(std::isnan(s[1].actual));
  EXPECT_TRUE(mismatchSamples(Finding{}).empty());
}
