// The report's serialisation: one field list per struct must carry every field
// both ways (a fully populated report round-trips), every report shipped or used
// as a fixture reads and writes back unchanged, and a hostile file is refused
// with the JSON path of what is wrong instead of a crash.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tilescope/model/report.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace tilescope;

namespace {

Stats stats(double base) { return {base, base - 1, base + 1, base - 2, base + 2, base + 0.5, 7}; }

Location fullLocation() {
  Location l;
  l.output = "C";
  l.tile = {1, 2};
  l.tiles = {{1, 2}, {3, 4}};
  l.cta = {2, 1, 0};
  l.ctas = {{2, 1, 0}, {4, 3, 0}};
  l.nearestCtas = {{5, 6, 0}};
  l.elements = ElementRange{{65, 0}, {128, 62}, {65, 0}, {128, 63}, "row 65 of C[65, 65]"};
  l.regions = {Region{{96, 0}, {4, 70}}};
  l.bytesPastEnd = ByteRange{0, 8315};
  l.bytesBeforeStart = ByteRange{1, 4};
  l.thread = {31, 0, 0};
  l.block = {2, 1, 0};
  l.file = "gemm.cu";
  l.line = 42;
  l.pc = 0x7f00001234ull;
  l.sassOffset = 0x1a0;
  l.access = MemoryAccess{"write", 16, "global"};
  l.kernel = "gemm";
  l.config = "launch.block";
  l.expression = "BLOCK, 1, 1";
  l.launch = LaunchGeometry{{16, 16, 1}, {128, 1, 1}, 4096};
  l.phase = "launch";
  l.point = 3;
  l.extra = {{"required_alignment", 16}, {"failing_shifts", {4, 8}}};
  return l;
}

Finding fullFinding() {
  Finding f;
  f.category = "oob_write";
  f.severity = Severity::warning;
  f.message = "C: 4 elements past its end";
  f.detail = "tail";
  f.tensor = "C";
  f.location = fullLocation();
  f.evidence = {{"bytes_changed", 16}};
  f.treeNode = "fault.oob_write";
  f.experiment = "shape M=65";
  return f;
}

Point fullPoint() {
  Point p;
  p.index = 2;
  p.trial = 1;
  p.label = "BLOCK=64";
  p.defines = {{"BLOCK", 64}};
  p.params = {{"M", 65}};
  p.verdict = Verdict::fault;
  p.findings = {fullFinding()};
  p.compile = {true, true, "nvrtc", "sm_90", "ok\n", 40, 1024, 8, 16, 24, 512, 1.5, true};
  p.launch = {{16, 16, 1}, {128, 1, 1}, 4096, true, true, "CUDA_ERROR_ILLEGAL_ADDRESS"};
  p.timing = {true, stats(1000), 0.02, stats(1100), 40, 1024, 4096, 8, 1980, 1755, true, "throttled"};
  p.baseline = {"cublas", true, stats(900), 2, "none"};
  p.speedup = 0.9;
  CorrectnessInfo c;
  c.checked = true;
  c.reference = "gemm(cublas)";
  c.tensor = "C";
  c.maxAbsErr = 0.5;
  c.maxRelErr = 0.25;
  c.mismatches = 4;
  c.nan = 1;
  c.inf = 2;
  c.elements = 4225;
  c.firstMismatch[0] = 64;
  c.firstMismatch[1] = 3;
  c.rtol = 1e-3;
  c.atol = 1e-5;
  c.tiles = TileSummary{{64, 64}, {2, 2}, {BadTile{1, 0, 4, 0.5}}, 1, 4, true};
  c.errorMap = ErrorMap{1, 2, {64, 33}, {0.5, -1}};
  CorrectnessInfo c2 = c;
  c2.tensor = "D";
  p.correctness = {c, c2};
  CoverageInfo cov;
  cov.tensor = "C";
  cov.shape = {65, 65};
  cov.elements = 4225;
  cov.declaredCovered = 4000;
  cov.declaredUncovered = 225;
  cov.declaredOverlapped = 5;
  cov.tile = {64, 64};
  cov.tilesTotal = 4;
  cov.tilesCrossing = 3;
  cov.measured = true;
  cov.written = 4200;
  cov.unwritten = 25;
  cov.map = CellMap{1, 2, {65, 33}, {"ok", "mismatch"}, {0, 5}};
  cov.crossingTiles = std::vector<CrossingTile>{{{1, 0, 0}, {0, 64}, {64, 64}, {0, 64}, {64, 1}}};
  cov.extra = {{"method", "separable"}};
  p.coverage = {cov};
  p.occupancy = {true,        0.5,
                 "registers", 4,
                 16,          64,
                 16,          4,
                 8,           32,
                 4096,        40,
                 128,         OccupancyCurves{{{32, 0.25}}, {{40, 0.5}}, {{0, 1.0}}, 128, 40, 4096, 0.5}};
  p.workerStderr = "warning\n";
  p.experiment = "trial 2/5";
  p.wallSeconds = 2.5;
  p.gpu = {1,    "NVIDIA H200", "GPU-5a1e0c2d-0000-1111-2222-333344445555", "0000:19:00.0", "node7", 1755,
           1980, 3201};
  p.status = {true,
              true,
              2,
              "no device",
              true,
              "alloc",
              "tiles",
              "guard",
              "ref",
              "download",
              {{"C", "00ff"}},
              "stream event 'progress': message: expected a string, found an integer",
              "Slurm array task 2 (job 123_2) ended NODE_FAIL"};
  p.counters.collected = true;
  p.counters.chip = "GH100";
  p.counters.passes = 3;
  p.counters.metrics = {"dram__bytes_read.sum"};
  p.counters.kernel = {"gemm_tiled", 1, {{"dram__bytes_read.sum", 1.5e6}}};
  p.counters.baseline = KernelCounters{"cuBLAS", 2, {{"dram__bytes_read.sum", 1.0e6}}};
  p.counters.pcSampling.collected = true;
  p.counters.pcSampling.totalSamples = 40;
  p.counters.pcSampling.lines = {{"gemm_tiled.cu", 77, 30, {{"long_scoreboard", 20}}}};
  p.inputs = {{{"M", 65}}, 8, 1, 0.0625};
  p.extra = {{"device", {{"name", "H100"}}}};
  return p;
}

Report fullReport() {
  Report r;
  r.toolVersion = "9.9.9";
  r.createdAt = "2025-01-01T00:00:00Z";
  r.host = "gpu1";
  r.verb = "diagnose";
  r.device = {"NVIDIA H100",
              "h100",
              "9.0",
              132,
              49152,
              232448,
              233472,
              65536,
              64,
              32,
              true,
              3350,
              67,
              989.5,
              989.5,
              {{"l2_bytes", 52428800}}};
  r.config = {{"schema", "tilescope.config/1"}, {"name", "gemm"}};
  r.points = {fullPoint(), fullPoint()};
  r.points[1].index = 3;
  r.verdict = Verdict::fault;
  r.findings = {fullFinding()};
  r.treePath = {"start", "fault"};
  r.treeSteps = {TreeStep{"start", "What failed?", "fault", json::array({{{"verdict", "fault"}}}), false}};
  r.matrix = ResultMatrix{
      {"BLOCK=64", "BLOCK=128"}, 2, {{Verdict::ok, Verdict::fault}, {Verdict::slow, Verdict::ok}}};
  r.noGpu = true;
  r.diagnose = DiagnoseInfo{{{"trials",
                              "trial 2/5",
                              "identical inputs must give identical results",
                              {"--set", "M=65"},
                              Verdict::fault,
                              2.5,
                              "recompiled from k.py for 4-byte aligned pointers"}},
                            {{"trials", 4, true, "5 trials agree", {"race"}}},
                            9,
                            16,
                            "conclusive: race",
                            "tree.json: no such file",
                            {{"align_shift", "shifted bases?", "a binary: no source to recompile"}},
                            45,
                            {"trial 5/5", "poison variant 1"}};
  r.run.shard = ShardInfo{1, 4, {4, 5, 6, 7}};
  r.run.workers = WorkersInfo{true, 3};
  r.run.slurm =
      SlurmInfo{"/d",
                "/d/sweep.sbatch",
                {"77", "80"},
                {SlurmTaskInfo{2, "80_2", "TIMEOUT", "0:15", 2, "/d/t.out", {8, 9}, true, "node3", "late"}}};
  r.extra = {{"shrunk_for_sample", true}};
  return r;
}

std::string errorOf(const json& j) {
  try {
    (void)reportFromJson(j);
  } catch (const ReportError& e) {
    return e.what();
  }
  return "";
}

std::vector<fs::path> reportFiles() {
  std::vector<fs::path> files;
  for (const fs::path& root : {fs::path(TILESCOPE_SOURCE_DIR) / "resources", fs::path(TILESCOPE_TEST_DATA)})
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      if (e.path().extension() != ".json") continue;
      std::ifstream in(e.path());
      std::stringstream s;
      s << in.rdbuf();
      if (s.str().find("\"tilescope.report/1\"") != std::string::npos) files.push_back(e.path());
    }
  return files;
}

}  // namespace

TEST(Report, FullyPopulatedReportRoundTrips) {
  const Report r = fullReport();
  const json j = toJson(r);
  EXPECT_EQ(reportFromJson(j), r) << json::diff(j, toJson(reportFromJson(j))).dump();
  // Through the text too, as a file holds it.
  EXPECT_EQ(reportFromJson(parseJson(dumpJson(j, 1))), r);
  // A field the list forgot would read back as its default: each part differs from it.
  EXPECT_NE(fullPoint().status, PointStatus{});
  EXPECT_NE(fullPoint().inputs, ExperimentInputs{});
  EXPECT_FALSE(fullLocation().empty());
  EXPECT_TRUE(fullReport().diagnose && fullReport().run.shard && fullReport().run.workers &&
              fullReport().run.slurm);
  // The typed parts of `extra` keep their documented keys (docs/report.md).
  const json x = j.at("extra");
  EXPECT_EQ(x.at("diagnose").at("stopped"), "conclusive: race");
  EXPECT_EQ(x.at("diagnose").at("experiments")[0].at("wall_s"), 2.5);
  EXPECT_EQ(x.at("shard"), json({{"index", 1}, {"count", 4}, {"points", {4, 5, 6, 7}}}));
  EXPECT_EQ(x.at("workers"), json({{"warm", true}, {"started", 3}}));
  EXPECT_EQ(x.at("slurm").at("tasks")[0].at("exit_code"), "0:15");
  EXPECT_EQ(j.at("device").at("dram_gbs"), 3350);
  EXPECT_EQ(
      j.at("points")[0].at("coverage").at("C").at("extra").at("crossing_tiles")[0].at("in_bounds_extent"),
      json({64, 1}));
}

TEST(Report, ControlFlagsAndExperimentInputsLiveUnderExtra) {
  const json p = toJson(fullPoint());
  EXPECT_EQ(p["extra"]["no_gpu"], true);
  EXPECT_EQ(p["extra"]["worker_exit"], 2);
  EXPECT_EQ(p["extra"]["sticky_error"], true);
  EXPECT_EQ(p["extra"]["scheduler_error"], "Slurm array task 2 (job 123_2) ended NODE_FAIL");
  EXPECT_EQ(p["extra"]["output_digest"]["C"], "00ff");
  EXPECT_EQ(p["extra"]["align_shift"], 8);
  EXPECT_EQ(p["extra"]["device"]["name"], "H100");  // the open rest
  // Unmeasured parts stay out: a reader can tell "not measured" from zero.
  const json bare = toJson(Point{});
  EXPECT_FALSE(bare.contains("extra"));
  EXPECT_FALSE(bare["timing"].contains("kernel_ns"));
  EXPECT_FALSE(bare["compile"].contains("regs"));
  EXPECT_EQ(bare["occupancy"], json({{"computed", false}}));
}

TEST(Report, EveryShippedReportReadsAndWritesBackUnchanged) {
  const auto files = reportFiles();
  ASSERT_GE(files.size(), 10u);
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    std::ifstream in(f);
    const json j = parseJson(in);
    const Report r = reportFromJson(j);
    const json back = toJson(r);
    EXPECT_EQ(reportFromJson(back), r);
    // Every field of the file survives (numbers compare by value: 2 == 2.0).
    EXPECT_TRUE(back == j) << "differences: " << json::diff(j, back).dump().substr(0, 600);
  }
}

TEST(Report, OneCorrectnessIsWrittenWithoutCorrectnessAll) {
  Point p;
  p.correctness.resize(1);
  p.correctness[0].tensor = "C";
  json j = toJson(p);
  EXPECT_TRUE(j.contains("correctness"));
  EXPECT_FALSE(j.contains("correctness_all"));
  // A one-element correctness_all (as a hand-written file may have) reads the same.
  j["correctness_all"] = json::array({j["correctness"]});
  EXPECT_EQ(pointFromJson(j), p);
}

TEST(Report, AWrongValueIsNamedByItsJsonPath) {
  json j = toJson(fullReport());
  j["points"][1]["timing"]["kernel_ns"]["median"] = "fast";
  EXPECT_EQ(errorOf(j), "points[1].timing.kernel_ns.median: expected a number, found a string");
  j = toJson(fullReport());
  j["points"][0]["verdict"] = "great";
  EXPECT_EQ(errorOf(j).rfind("points[0].verdict: unknown verdict 'great' (expected ok, slow", 0), 0u)
      << errorOf(j);
  j = toJson(fullReport());
  j["points"][0]["findings"][0]["location"]["cta"] = {1, "x"};
  EXPECT_EQ(errorOf(j), "points[0].findings[0].location.cta[1]: expected an integer, found a string");
  j = toJson(fullReport());
  j["points"][0]["launch"]["grid"] = {1, 2};
  EXPECT_EQ(errorOf(j), "points[0].launch.grid: expected 3 values, found 2");
  j = toJson(fullReport());
  j["points"][0]["compile"]["regs"] = 1e300;
  EXPECT_NE(errorOf(j).find("points[0].compile.regs"), std::string::npos);
  j = toJson(fullReport());
  j["points"] = json::object();
  EXPECT_EQ(errorOf(j), "points: expected an array, found an object");
  EXPECT_EQ(errorOf(json::array()), "not a report: the document is an array, not an object");
  EXPECT_EQ(errorOf({{"schema", 3}}), "schema: not a report: schema is '', expected 'tilescope.report/1'");
}

TEST(Report, AMapThatIsNotAsLargeAsItSaysIsRefused) {
  json j = toJson(fullReport());
  j["points"][0]["coverage"]["C"]["map"]["rows"] = 1000000;
  EXPECT_EQ(errorOf(j), "points[0].coverage.C.map: a 1000000 × 2 map with 2 states");
  j = toJson(fullReport());
  j["points"][0]["coverage"]["C"]["map"]["states"][1] = 9;
  EXPECT_EQ(errorOf(j), "points[0].coverage.C.map.states[1]: unknown cell state 9");
  j = toJson(fullReport());
  j["points"][0]["correctness"]["error_map"]["max_abs"] = json::array();
  j["points"][0].erase("correctness_all");
  EXPECT_EQ(errorOf(j), "points[0].correctness.error_map: a 1 × 2 map with 0 values");
}

TEST(Report, UnknownKeysAreIgnoredAndOpenObjectsKeepThem) {
  json j = toJson(fullReport());
  j["points"][0]["a_future_field"] = {{"x", 1}};
  j["points"][0]["extra"]["a_future_flag"] = true;
  j["points"][0]["findings"][0]["location"]["warp"] = 3;
  const Report r = reportFromJson(j);
  EXPECT_EQ(r.points[0].extra["a_future_flag"], true);
  EXPECT_EQ(r.points[0].findings[0].location.extra["warp"], 3);
  EXPECT_FALSE(toJson(r)["points"][0].contains("a_future_field"));
}

TEST(Report, LocationsOfEarlierWritersReadAsTodays) {
  // The guard-zone writer before the typed Location: a list of CTAs, the elements as text.
  const Location oob =
      locationFromJson(json::parse(R"({"byte_offset_past_end": [0, 8315], "cta": [[0, 1, 0], [0, 2, 0]],
      "elements": "row 65 … row 128", "first_element": [65, 0], "last_element": [128, 62], "tile": [1, 0]})"));
  EXPECT_EQ(oob.cta, (Index{0, 1, 0}));
  EXPECT_EQ(oob.ctas.size(), 2u);
  ASSERT_TRUE(oob.elements);
  EXPECT_EQ(oob.elements->first, (Index{65, 0}));
  EXPECT_EQ(oob.elements->last, (Index{128, 62}));
  EXPECT_EQ(oob.elements->text, "row 65 … row 128");
  EXPECT_TRUE(oob.extra.empty());
  // Static analysis: declared gaps as `elements`; the block expression as a list; an invalid launch.
  const Location gap = locationFromJson(json::parse(R"({"elements": [{"begin": [96, 0], "extent": [4, 70]}],
      "expression": ["BLOCK", "1", "1"], "grid": [1, 1, 1], "block": [2048, 1, 1]})"));
  ASSERT_EQ(gap.regions.size(), 1u);
  EXPECT_EQ(gap.regions[0].extent, (Index{4, 70}));
  EXPECT_EQ(gap.expression, "BLOCK, 1, 1");
  ASSERT_TRUE(gap.launch);
  EXPECT_EQ(gap.launch->block[0], 2048);
  EXPECT_TRUE(gap.block.empty());
  // diagnose: tiles copied from a tile summary, a tensor's element count.
  const Location diag = locationFromJson(json::parse(R"({"tensor": "C", "first_mismatch": [3, 4],
      "tiles": [[1, 2, 40, 0.5]], "elements": 2147483648})"));
  EXPECT_EQ(diag.tiles, (std::vector<Index>{{1, 2}}));
  EXPECT_EQ(diag.extra["tensor_elements"], 2147483648LL);
  EXPECT_FALSE(diag.elements);
}

TEST(Report, LocationTextNamesTheMostSpecificFactsFirst) {
  Location l;
  l.tile = {1, 0};
  l.cta = {0, 1, 0};
  l.elements = ElementRange{{65, 0}, {128, 62}, {}, {}, {}};
  l.bytesPastEnd = ByteRange{0, 8315};
  l.file = "gemm.cu";
  l.line = 42;
  EXPECT_EQ(locationText(l),
            "tile [1,0], CTA [0,1,0], elements [65,0]…[128,62], bytes 0–8315 past the end, gemm.cu:42");
  EXPECT_EQ(locationText(Location{}), "");
}

TEST(Report, DeepNestingIsRefusedWhileParsing) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  try {
    (void)parseJson(deep);
    FAIL() << "accepted 100000 levels";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "line 1, column 129: nested deeper than 128 levels");
  }
  // Brackets inside strings are text, not nesting.
  EXPECT_NO_THROW(parseJson("{\"log\": \"" + std::string(500, '[') + "\"}"));
  const fs::path file = fs::temp_directory_path() / ("ts_deep_" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << "{\"schema\": \"tilescope.report/1\", \"config\": " << deep << "}";
  try {
    (void)loadReport(file);
    FAIL() << "loaded";
  } catch (const std::runtime_error& e) {
    // The file, then where in it: the 129th bracket, after the 43 characters before the config's value.
    EXPECT_EQ(std::string(e.what()), file.string() + ": line 1, column 171: nested deeper than 128 levels");
  }
  fs::remove(file);
}

TEST(Report, InvalidUtf8IsReplacedAndTheFileIsWrittenWhole) {
  const fs::path dir = fs::temp_directory_path() / ("ts_utf8_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "r.json";
  Report r = fullReport();
  r.points[0].compile.log = "bad \xff\xfe byte";
  r.points[0].workerStderr = std::string("\xc3", 1);  // a truncated two-byte sequence
  ASSERT_NO_THROW(saveReport(r, file));
  const Report back = loadReport(file);
  EXPECT_EQ(back.points[0].compile.log, "bad \xEF\xBF\xBD\xEF\xBF\xBD byte");  // U+FFFD twice
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1)
      << "a temporary file was left";
  // A failed write leaves the old report as it was.
  if (::geteuid() != 0) {  // root writes into read-only folders
    ::chmod(dir.c_str(), 0555);
    EXPECT_THROW(saveReport(fullReport(), file), std::runtime_error);
    ::chmod(dir.c_str(), 0755);
    EXPECT_EQ(loadReport(file).points[0].compile.log, back.points[0].compile.log);
  }
  fs::remove_all(dir);
}

TEST(Report, LoadingADirectoryOrAMissingFileSaysSo) {
  try {
    (void)loadReport(fs::temp_directory_path());
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos);
  }
  EXPECT_THROW((void)loadReport("/nonexistent/report.json"), std::runtime_error);
}
