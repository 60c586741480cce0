// Hardware-counter conclusions on hand-built counters (no GPU): the metric list,
// baseline combination, derived figures, findings, PC-sample folding, JSON.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include "tilescope/counters/counters.h"
#include "tilescope/diagnose/tree.h"

using namespace tilescope;

namespace {

/// A kernel whose shared loads are `ways`-way conflicted (32-bit accesses).
KernelCounters sharedKernel(double ways, double requests = 4096) {
  KernelCounters k;
  k.name = "transpose";
  k.metrics["smsp__sass_inst_executed_op_shared_ld.sum"] = requests;
  k.metrics["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] = requests * ways;
  k.metrics["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] = requests * (ways - 1);
  k.metrics["sm__sass_data_bytes_mem_shared_op_ld.sum"] = requests * 128;  // 32 threads x 4 B
  return k;
}

Point pointWith(const KernelCounters& k) {
  Point p;
  p.counters.collected = true;
  p.counters.kernel = k;
  return p;
}

/// A copy: callers pass temporaries.
std::optional<Finding> findingOf(const std::vector<Finding>& fs, const std::string& category) {
  for (const auto& f : fs)
    if (f.category == category) return f;
  return std::nullopt;
}

KernelCounters sol(double smPct, double memPct) {
  KernelCounters k;
  k.metrics["sm__throughput.avg.pct_of_peak_sustained_elapsed"] = smPct;
  k.metrics["gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"] = memPct;
  return k;
}

}  // namespace

TEST(Counters, MetricListIsNcuNamesWithoutDuplicates) {
  std::set<std::string> seen;
  for (const MetricDef& d : standardMetrics()) {
    EXPECT_TRUE(seen.insert(d.name).second) << d.name;
    EXPECT_NE(d.name.find("__"), std::string::npos) << d.name;  // unit__counter.rollup
  }
  auto list = profileMetricList({"smsp__warps_launched.sum", "gpu__time_duration.sum"});
  EXPECT_EQ(list.size(), standardMetrics().size() + 1);
  EXPECT_EQ(list.back(), "smsp__warps_launched.sum");
}

TEST(Counters, BasicSetIsAFewOfTheStandardMetrics) {
  std::set<std::string> standard;
  for (const MetricDef& d : standardMetrics()) standard.insert(d.name);
  for (const std::string& m : basicMetricNames()) EXPECT_TRUE(standard.count(m)) << m;
  EXPECT_LT(basicMetricNames().size(), standardMetrics().size());
  auto basic = profileMetricList({"smsp__warps_launched.sum"}, CounterSet::basic);
  EXPECT_EQ(basic.size(), basicMetricNames().size() + 1);
  EXPECT_EQ(profileMetricList({}, CounterSet::none).size(), 0u);
  EXPECT_EQ(parseCounterSet("full"), CounterSet::full);
  EXPECT_STREQ(counterSetName(CounterSet::basic), "basic");
  EXPECT_THROW(parseCounterSet("most"), std::invalid_argument);
  CountersInfo c;
  c.metrics = basic;
  EXPECT_EQ(counterSetOf(c), CounterSet::basic);
  c.metrics = profileMetricList({});
  EXPECT_EQ(counterSetOf(c), CounterSet::full);
}

// The basic set has no SOL breakdowns: the busiest of the issue slots and the
// tensor pipe, and of DRAM and L2, stand in for them, and the finding says so.
TEST(Counters, BasicSetSpeedOfLightFromProxies) {
  KernelCounters k;
  k.metrics["sm__inst_executed.avg.pct_of_peak_sustained_active"] = 22;
  k.metrics["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"] = 71;
  k.metrics["dram__throughput.avg.pct_of_peak_sustained_elapsed"] = 30;
  k.metrics["lts__t_sectors.avg.pct_of_peak_sustained_elapsed"] = 41;
  const CounterFigures f = counterFigures(k);
  EXPECT_TRUE(f.solProxy);
  EXPECT_DOUBLE_EQ(f.smPct, 71);
  EXPECT_DOUBLE_EQ(f.memPct, 41);
  std::optional<Finding> b = findingOf(concludeCounters(pointWith(k)), "compute_bound");
  ASSERT_TRUE(b);
  EXPECT_NE(b->message.find("--counters full"), std::string::npos) << b->message;
  EXPECT_TRUE(b->evidence.contains("proxy"));
  EXPECT_FALSE(counterFigures(sol(20, 85)).solProxy);  // the full set's breakdowns win
}

TEST(Counters, UncoalescedFromTheBasicSetHasNoSectorsPerRequest) {
  KernelCounters k;
  k.metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] = 32768;
  k.metrics["sm__sass_data_bytes_mem_global_op_st.sum"] = 32768 * 4;  // an eighth of each sector
  std::optional<Finding> f = findingOf(concludeCounters(pointWith(k)), "uncoalesced_access");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->detail, "store");
  EXPECT_EQ(f->message.find("per request"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("12%"), std::string::npos) << f->message;
}

TEST(Counters, UserMetricsCombineByTheirRollup) {
  EXPECT_EQ(metricDef("smsp__warps_launched.sum").combine, MetricCombine::sum);
  EXPECT_EQ(metricDef("dram__throughput.avg.pct_of_peak_sustained_elapsed").combine,
            MetricCombine::timeWeighted);
  EXPECT_EQ(metricDef("sm__cycles_active.avg").combine, MetricCombine::timeWeighted);
}

TEST(Counters, BaselineKernelsSumCountsAndWeighPercentagesByDuration) {
  KernelCounters a, b;
  a.metrics = {{"gpu__time_duration.sum", 3000},
               {"dram__bytes_read.sum", 100},
               {"sm__throughput.avg.pct_of_peak_sustained_elapsed", 80}};
  b.metrics = {{"gpu__time_duration.sum", 1000},
               {"dram__bytes_read.sum", 50},
               {"sm__throughput.avg.pct_of_peak_sustained_elapsed", 40}};
  KernelCounters c = combineKernels({a, b}, "cublas");
  EXPECT_EQ(c.name, "cublas");
  EXPECT_EQ(c.launches, 2);
  EXPECT_DOUBLE_EQ(c.get("gpu__time_duration.sum"), 4000);
  EXPECT_DOUBLE_EQ(c.get("dram__bytes_read.sum"), 150);
  EXPECT_DOUBLE_EQ(c.get("sm__throughput.avg.pct_of_peak_sustained_elapsed"), 70);  // (80*3 + 40*1) / 4
}

TEST(Counters, BankConflictWaysFromWavefronts) {
  CounterFigures f = counterFigures(sharedKernel(32));
  EXPECT_DOUBLE_EQ(f.sharedLdWays, 32);
  EXPECT_DOUBLE_EQ(counterFigures(sharedKernel(1)).sharedLdWays, 1);
  // 128-bit loads need 4 wavefronts per request without any conflict.
  KernelCounters wide = sharedKernel(4);
  wide.metrics["sm__sass_data_bytes_mem_shared_op_ld.sum"] = 4096 * 512;
  EXPECT_DOUBLE_EQ(counterFigures(wide).sharedLdWays, 1);
  EXPECT_TRUE(std::isnan(f.sharedStWays));  // no store metrics: unknown, not zero
}

TEST(Counters, TransposeGetsBankConflictsAndItsPaddedFixDoesNot) {
  auto conflicted = concludeCounters(pointWith(sharedKernel(32)));
  std::optional<Finding> f = findingOf(conflicted, "bank_conflicts");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::warning);
  EXPECT_EQ(f->treeNode, "perf.bank_conflicts");
  EXPECT_EQ(f->detail, "load");
  EXPECT_DOUBLE_EQ(f->evidence["ways_ld"].get<double>(), 32);
  EXPECT_NE(f->message.find("32.0-way"), std::string::npos) << f->message;
  EXPECT_FALSE(findingOf(concludeCounters(pointWith(sharedKernel(1))), "bank_conflicts"));
  EXPECT_FALSE(findingOf(concludeCounters(pointWith(sharedKernel(1.5))), "bank_conflicts"));
  EXPECT_FALSE(
      findingOf(concludeCounters(pointWith(sharedKernel(32, 4))), "bank_conflicts"));  // too few requests
}

// The default set finds what the bundled transpose sample promises: its kernel's
// counters (recorded with the full set) cut down to the basic set's metrics, as a
// `run` under the default `basic` records them, still conclude bank_conflicts.
TEST(Counters, TheBasicSetFindsTheSampleTransposesBankConflicts) {
  const Report r = loadReport(std::string(TILESCOPE_SOURCE_DIR) +
                              "/resources/sample/counters_transpose_bank_conflicts.json");
  ASSERT_FALSE(r.points.empty());
  Point p = r.points.front();
  const std::vector<std::string>& basic = basicMetricNames();
  std::map<std::string, double> kept;
  for (const auto& [name, v] : p.counters.kernel.metrics)
    if (std::find(basic.begin(), basic.end(), name) != basic.end()) kept[name] = v;
  ASSERT_LT(kept.size(), p.counters.kernel.metrics.size());  // a basic-shaped section
  p.counters.kernel.metrics = kept;
  p.counters.metrics = profileMetricList({}, CounterSet::basic);
  p.counters.baseline.reset();
  ASSERT_EQ(counterSetOf(p.counters), CounterSet::basic);
  const std::optional<Finding> recorded = findingOf(r.points.front().findings, "bank_conflicts");
  ASSERT_TRUE(recorded);  // what the full set found
  const std::optional<Finding> f = findingOf(concludeCounters(p), "bank_conflicts");
  ASSERT_TRUE(f) << "the basic set lacks the shared-memory counters bank_conflicts needs";
  EXPECT_EQ(f->detail, recorded->detail);
  EXPECT_DOUBLE_EQ(f->evidence["ways_ld"].get<double>(), recorded->evidence["ways_ld"].get<double>());
}

TEST(Counters, BankConflictsPointAtTheHottestSharedMemoryStall) {
  Point p = pointWith(sharedKernel(32));
  p.counters.pcSampling.collected = true;
  p.counters.pcSampling.lines = {{"t.cu", 5, 900, {{"long_scoreboard", 900}}},
                                 {"t.cu", 9, 700, {{"mio_throttle", 600}, {"selected", 100}}}};
  std::optional<Finding> f = findingOf(concludeCounters(p), "bank_conflicts");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->location.line, 9);
  EXPECT_EQ(f->location.extra["stall"], "mio_throttle");
}

TEST(Counters, UncoalescedWhenThreadsUseFewOfTheFetchedSectors) {
  KernelCounters k;
  k.metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] = 32768;  // 32 sectors per request
  k.metrics["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] = 1024;
  k.metrics["sm__sass_data_bytes_mem_global_op_ld.sum"] = 1024 * 128;  // 4 sectors' worth used
  auto fs = concludeCounters(pointWith(k));
  std::optional<Finding> f = findingOf(fs, "uncoalesced_access");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->detail, "load");
  EXPECT_DOUBLE_EQ(f->evidence["sectors_per_request_ld"].get<double>(), 32);
  EXPECT_DOUBLE_EQ(f->evidence["efficiency_ld"].get<double>(), 0.125);
  k.metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] = 4096;  // 4 per request: coalesced
  EXPECT_FALSE(findingOf(concludeCounters(pointWith(k)), "uncoalesced_access"));
}

// What an H100 counted for a Triton matmul whose loads are all cp.async (LDGSTS):
// the copies' sectors are global-load sectors, their bytes only cp.async bytes.
TEST(Counters, CpAsyncBytesCountAsUsedLoadBytes) {
  KernelCounters k;
  k.metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] = 1048576;
  k.metrics["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] = 65536;
  k.metrics["sm__sass_data_bytes_mem_global_op_ld.sum"] = 0;
  k.metrics["sm__sass_data_bytes_mem_global_op_ldgsts.sum"] = 33554432;
  EXPECT_DOUBLE_EQ(counterFigures(k).globalLdEfficiency, 1.0);
  EXPECT_FALSE(findingOf(concludeCounters(pointWith(k)), "uncoalesced_access"));
  // Copies that use an eighth of what they fetch are still uncoalesced.
  k.metrics["sm__sass_data_bytes_mem_global_op_ldgsts.sum"] = 33554432 / 8;
  EXPECT_TRUE(findingOf(concludeCounters(pointWith(k)), "uncoalesced_access"));
}

TEST(Counters, SpeedOfLightNamesTheBound) {
  EXPECT_TRUE(findingOf(concludeCounters(pointWith(sol(20, 85))), "memory_bound"));
  EXPECT_TRUE(findingOf(concludeCounters(pointWith(sol(75, 30))), "compute_bound"));
  auto lat = concludeCounters(pointWith(sol(12, 18)));
  std::optional<Finding> f = findingOf(lat, "latency_bound");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::info);
  EXPECT_EQ(f->treeNode, "perf.latency_bound");
  EXPECT_EQ(lat.size(), 1u);                                           // exactly one classification
  EXPECT_TRUE(concludeCounters(pointWith(KernelCounters{})).empty());  // no SOL metrics: no claim
}

TEST(Counters, LatencyBoundNamesTheMainStall) {
  Point p = pointWith(sol(10, 10));
  p.counters.pcSampling.collected = true;
  p.counters.pcSampling.totalSamples = 1000;
  p.counters.pcSampling.stalls = {{"selected", 500}, {"long_scoreboard", 400}, {"barrier", 100}};
  std::optional<Finding> f = findingOf(concludeCounters(p), "latency_bound");
  ASSERT_TRUE(f);
  EXPECT_NE(f->message.find("long_scoreboard (40% of samples)"), std::string::npos) << f->message;
}

TEST(Counters, LowAchievedOccupancyAgainstTheoretical) {
  KernelCounters k;
  k.metrics["sm__warps_active.avg.pct_of_peak_sustained_active"] = 10;
  Point p = pointWith(k);
  p.occupancy.computed = true;
  p.occupancy.theoretical = 1.0;
  p.occupancy.limiter = "warps";
  p.occupancy.blocksPerSm = 8;
  p.launch.grid[0] = 16;
  p.extra["device"] = {{"sm_count", 132}};
  Finding static_;
  static_.category = "low_occupancy";
  static_.message = "static";
  p.findings.push_back(static_);
  applyCounterFindings(p);
  ASSERT_EQ(std::count_if(p.findings.begin(), p.findings.end(),
                          [](auto& f) { return f.category == "low_occupancy"; }),
            1);
  std::optional<Finding> f = findingOf(p.findings, "low_occupancy");
  EXPECT_EQ(f->detail, "grid");  // 16 CTAs cannot fill 132 SMs
  EXPECT_DOUBLE_EQ(f->evidence["achieved"].get<double>(), 0.1);
  EXPECT_EQ(p.verdict, Verdict::ok);  // performance findings never fail a run
  // Achieved close to a healthy theoretical: nothing to say.
  k.metrics["sm__warps_active.avg.pct_of_peak_sustained_active"] = 80;
  Point q = pointWith(k);
  q.occupancy = p.occupancy;
  EXPECT_FALSE(findingOf(concludeCounters(q), "low_occupancy"));
  // A report edited or written elsewhere: an sm_count that is not an integer is unknown, not a throw.
  Point r = pointWith(k);
  k.metrics["sm__warps_active.avg.pct_of_peak_sustained_active"] = 10;
  r = pointWith(k);
  r.occupancy = p.occupancy;
  r.launch.grid[0] = 16;
  r.extra["device"] = {{"sm_count", "132"}};
  std::optional<Finding> g;
  ASSERT_NO_THROW(g = findingOf(concludeCounters(r), "low_occupancy"));
  ASSERT_TRUE(g);
  EXPECT_NE(g->detail, "grid");  // the SM count is unknown: not called too few CTAs
}

TEST(Counters, NoTensorCoresNeedsABaselineThatUsesThem) {
  KernelCounters k = sol(40, 30);
  k.metrics["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"] = 0;
  k.metrics["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"] = 1e9;
  Point p = pointWith(k);
  p.baseline.name = "cublas";
  EXPECT_FALSE(findingOf(concludeCounters(p), "no_tensor_cores"));  // baseline not profiled
  KernelCounters b;
  b.metrics["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"] = 62;
  p.counters.baseline = b;
  std::optional<Finding> f = findingOf(concludeCounters(p), "no_tensor_cores");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->treeNode, "perf.no_tensor_cores");
  EXPECT_NE(f->message.find("FP32"), std::string::npos);
  p.counters.kernel.metrics["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"] = 30;
  EXPECT_FALSE(findingOf(concludeCounters(p), "no_tensor_cores"));
  p.baseline.name = "none";
  p.counters.kernel.metrics["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"] = 0;
  EXPECT_FALSE(findingOf(concludeCounters(p), "no_tensor_cores"));  // nothing GEMM-like to compare with
}

TEST(Counters, FlopsAndArithmeticIntensity) {
  KernelCounters k;
  k.metrics["gpu__time_duration.sum"] = 1e6;  // 1 ms
  k.metrics["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"] = 1e9;
  k.metrics["smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"] = 1e8;
  k.metrics["sm__ops_path_tensor_src_fp16.sum"] = 5e8;
  k.metrics["dram__bytes_read.sum"] = 3e8;
  k.metrics["dram__bytes_write.sum"] = 1e8;
  CounterFigures f = counterFigures(k);
  EXPECT_DOUBLE_EQ(f.fp32Flops, 2.1e9);
  EXPECT_DOUBLE_EQ(f.tensorFlops, 5e8);  // tensor-path ops are FLOPs
  EXPECT_DOUBLE_EQ(f.flops, 2.6e9);
  EXPECT_DOUBLE_EQ(f.arithmeticIntensity, 2.6e9 / 4e8);
  EXPECT_DOUBLE_EQ(f.flopsPerSecond, 2.6e12);
  EXPECT_TRUE(std::isnan(f.fp64Flops));
}

TEST(Counters, NothingCollectedNothingConcluded) {
  Point p;
  p.counters.note = "hardware counters unavailable: no permission";
  EXPECT_TRUE(concludeCounters(p).empty());
}

TEST(Counters, JsonRoundTripOfAFullyPopulatedPoint) {
  Point p;
  CountersInfo& c = p.counters;
  c.collected = true;
  c.note = "a caveat";
  c.chip = "GH100";
  c.passes = 42;
  c.seconds = 0.5;
  c.kernelSeconds = 0.2;
  c.baselineSeconds = 0.2;
  c.pcSamplingSeconds = 0.1;
  c.metrics = {"gpu__time_duration.sum", "dram__bytes_read.sum"};
  c.kernel = {"gemm", 1, {{"gpu__time_duration.sum", 1234.5}, {"dram__bytes_read.sum", 1e9}}};
  c.baselineKernels = {{"sm90_xmma", 1, {{"gpu__time_duration.sum", 100}}},
                       {"splitk", 1, {{"gpu__time_duration.sum", 20}}}};
  c.baseline = combineKernels(c.baselineKernels, "cublas");
  c.baselineNote = "";
  c.baselineReused = true;
  c.passFailed = true;
  c.pcSampling.collected = true;
  c.pcSampling.periodLog2 = 10;
  c.pcSampling.totalSamples = 900;
  c.pcSampling.droppedSamples = 1;
  c.pcSampling.unmappedSamples = 2;
  c.pcSampling.stalls = {{"long_scoreboard", 600}, {"barrier", 300}};
  c.pcSampling.lines = {{"gemm.cu", 42, 800, {{"long_scoreboard", 600}, {"barrier", 200}}}};
  nlohmann::json j = toJson(p);
  Point back = pointFromJson(j);
  EXPECT_EQ(toJson(back), j);
  EXPECT_EQ(back.counters.kernel.get("gpu__time_duration.sum"), 1234.5);
  ASSERT_TRUE(back.counters.baseline);
  EXPECT_EQ(back.counters.baseline->launches, 2);
  EXPECT_EQ(back.counters.pcSampling.lines.at(0).line, 42);
  EXPECT_EQ(back.counters, c);
  EXPECT_TRUE(j.at("counters").at("pass_failed").get<bool>());
  // A point without counters writes no `counters` key.
  EXPECT_FALSE(toJson(Point{}).contains("counters"));
}

TEST(PcSampling, StallNamesLoseThePrefixAndTheNotIssuedDuplicates) {
  EXPECT_EQ(stallReasonName("smsp__pcsamp_warps_issue_stalled_long_scoreboard"), "long_scoreboard");
  EXPECT_EQ(stallReasonName("smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued"), "");
  EXPECT_EQ(stallReasonName("smsp__pcsamp_warps_issue_stalled_selected"), "selected");
  EXPECT_EQ(stallReasonName("something_else"), "something_else");
}

TEST(PcSampling, SamplesFoldToTheLinesOfTheLineTable) {
  std::ifstream in(std::string(TILESCOPE_TEST_DATA) + "/linetable/two_kernels_sm90.cubin", std::ios::binary);
  LineTable table = parseCubinLineTable({std::istreambuf_iterator<char>(in), {}});
  std::vector<PcSample> samples = {
      {"transpose", 0x130, {{"mio_throttle", 50}, {"selected", 5}}},  // line 9
      {"transpose", 0x140, {{"mio_throttle", 30}}},                   // line 9
      {"transpose", 0x190, {{"barrier", 40}}},                        // line 6
      {"transpose", 0x900, {{"barrier", 7}}},                         // past the kernel
      {"other", 0x10, {{"long_scoreboard", 1000}}},                   // another kernel: ignored
  };
  PcSamplingInfo info = foldPcSamples(samples, "transpose", table, 1);
  EXPECT_TRUE(info.collected);
  EXPECT_EQ(info.totalSamples, 132);
  EXPECT_EQ(info.unmappedSamples, 7);
  ASSERT_EQ(info.lines.size(), 1u);  // maxLines = 1: the hottest only
  EXPECT_EQ(info.lines[0].line, 9);
  EXPECT_EQ(info.lines[0].samples, 85);
  EXPECT_EQ(info.lines[0].stalls.front().reason, "mio_throttle");
  EXPECT_EQ(info.lines[0].stalls.front().samples, 80);
  ASSERT_EQ(info.stalls.size(), 3u);
  EXPECT_EQ(info.stalls[0].reason, "mio_throttle");
  EXPECT_EQ(info.stalls[1].reason, "barrier");
  EXPECT_EQ(info.stalls[1].samples, 47);
  // Per instruction, hottest first, the one without a line too.
  ASSERT_EQ(info.pcs.size(), 4u);
  EXPECT_EQ(info.pcs[0].offset, 0x130u);
  EXPECT_EQ(info.pcs[0].samples, 55);
  EXPECT_EQ(info.pcs[0].function, "transpose");
  EXPECT_EQ(info.pcs[0].stalls.front().reason, "mio_throttle");
  EXPECT_EQ(info.pcs[1].offset, 0x190u);
  EXPECT_EQ(info.pcs[3].offset, 0x900u);
  EXPECT_EQ(info.pcs[3].samples, 7);
  // ... and through the report's JSON and back.
  CountersInfo c;
  c.collected = true;
  c.pcSampling = info;
  const CountersInfo back = countersFromJson(toJson(c));
  EXPECT_EQ(back.pcSampling.pcs, info.pcs);
  EXPECT_EQ(toJson(c)["pc_sampling"]["pcs"][0].value("sass_offset", 0), 0x130);
}

TEST(PcSampling, PeriodGivesAboutTheTargetSampleCount) {
  // 1 ms at 2 GHz on 100 SMs: 2e8 SM cycles; 2^11 gives ~98k samples, at least the target.
  EXPECT_EQ(pcSamplingPeriodLog2(1e6, 2000, 100, 50000), 11);
  EXPECT_EQ(pcSamplingPeriodLog2(1000, 2000, 1, 50000), 5);     // tiny kernels: the finest period
  EXPECT_EQ(pcSamplingPeriodLog2(1e12, 2000, 132, 50000), 24);  // clamped
  EXPECT_EQ(pcSamplingPeriodLog2(0, 2000, 132), 5);
}

// ---------------------------------------------------------------- the tree

namespace {

const Tree& shippedTree() {
  static Tree t = loadTree(std::string(TILESCOPE_SOURCE_DIR) + "/resources/tree.json");
  return t;
}

std::string walkEnd(Point p) {
  Report r;
  applyCounterFindings(p);
  r.points.push_back(p);
  r.finalize();
  TreeWalk w = walkTree(shippedTree(), toJson(r));
  return w.complete ? w.stoppedAt : "open at " + w.stoppedAt;
}

}  // namespace

TEST(CountersTree, NaiveGemmFarBehindCublasEndsAtTensorCores) {
  KernelCounters k = sol(35, 20);
  k.metrics["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"] = 0;
  Point p = pointWith(k);
  p.baseline.name = "cublas";
  KernelCounters b;
  b.metrics["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"] = 70;
  p.counters.baseline = b;
  p.speedup = 0.01;
  Finding slow;
  slow.category = "slow_vs_baseline";
  slow.treeNode = "perf.slow";
  p.findings.push_back(slow);
  p.verdict = Verdict::slow;
  // Without counters the walk could only say "fall back to the vendor kernel".
  EXPECT_EQ(walkEnd(p), "perf.no_tensor_cores");
}

TEST(CountersTree, ConflictingTransposeEndsAtPadding) {
  EXPECT_EQ(walkEnd(pointWith(sharedKernel(32))), "perf.bank_conflicts");
}

TEST(CountersTree, UncoalescedStoresEndAtTheCoalescingFix) {
  KernelCounters k = sol(10, 70);
  k.metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] = 32768;
  k.metrics["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"] = 1024;
  k.metrics["sm__sass_data_bytes_mem_global_op_st.sum"] = 1024 * 128;
  EXPECT_EQ(walkEnd(pointWith(k)), "perf.uncoalesced_access");
}

TEST(CountersTree, ACorrectKernelNearTheRoofIsNotAPerformanceProblem) {
  // Memory-bound at 90% of peak, nothing else: the bound alone does not send the walk to perf.
  EXPECT_EQ(walkEnd(pointWith(sol(15, 90))), "ok");
}

TEST(CountersTree, SlowAndLatencyBoundWithFewWarpsEndsAtTheGrid) {
  KernelCounters k = sol(8, 12);
  k.metrics["sm__warps_active.avg.pct_of_peak_sustained_active"] = 5;
  Point p = pointWith(k);
  p.occupancy.computed = true;
  p.occupancy.theoretical = 1.0;
  p.occupancy.limiter = "warps";
  p.occupancy.blocksPerSm = 8;
  p.launch.grid[0] = 4;
  p.extra["device"] = {{"sm_count", 132}};
  p.verdict = Verdict::slow;
  EXPECT_EQ(walkEnd(p), "perf.low_occupancy.grid");
}

// docs/report.md: every performance finding carries an estimated gain, and the point's
// findings are ordered by it (ncu's guided analysis ranks its rules the same way).
TEST(Counters, EstimatedGainsBoundTheSpeedupAFixCouldBring) {
  // Memory-bound at 80% of peak: at most 100/80 faster with the same traffic.
  const std::vector<Finding> mem = concludeCounters(pointWith(sol(20, 80)));
  const std::optional<Finding> m = findingOf(mem, "memory_bound");
  ASSERT_TRUE(m);
  EXPECT_DOUBLE_EQ(estimatedGain(*m, pointWith(sol(20, 80))), 100.0 / 80);
  // A 32-way conflict where the L1/shared unit is busy half the time: the excess
  // 31 of 32 wavefronts cost that half.
  KernelCounters k = sharedKernel(32);
  k.metrics["l1tex__throughput.avg.pct_of_peak_sustained_active"] = 50;
  const Point p = pointWith(k);
  const std::optional<Finding> b = findingOf(concludeCounters(p), "bank_conflicts");
  ASSERT_TRUE(b);
  const double saved = 0.5 * (1 - 1 / 32.0);
  EXPECT_NEAR(estimatedGain(*b, p), 1 / (1 - saved), 1e-12);
  // The basic set reads no L1/shared share: the gain is then no more than the
  // busier of SM and memory at its peak (an H200's conflicted transpose: 32.1
  // ways, about 21 % busy), not the 32x of the ways alone.
  KernelCounters basic = sharedKernel(32);
  for (const auto& [name, v] : sol(21, 18).metrics) basic.metrics[name] = v;
  const Point q = pointWith(basic);
  const std::optional<Finding> c = findingOf(concludeCounters(q), "bank_conflicts");
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(estimatedGain(*c, q), 100.0 / 21);
  // A finding without an estimate (a compile error, a spill) has none.
  Finding spill;
  spill.category = "register_spill";
  EXPECT_TRUE(std::isnan(estimatedGain(spill, p)));
}

TEST(Counters, APointsFindingsAreRankedByEstimatedGain) {
  // Latency-bound at 40% (gain 2.5) with the tensor cores idle against a cuBLAS
  // baseline 20x faster on a device whose tensor peak is 15x its FP32 peak (gain 15).
  Point p = pointWith(sol(40, 30));
  p.counters.kernel.metrics["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"] = 0;
  KernelCounters base;
  base.metrics["sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"] = 50;
  p.counters.baseline = base;
  p.baseline.name = "cublas";
  p.baseline.measured = p.timing.measured = true;
  p.timing.kernelNs.median = 20000;
  p.baseline.kernelNs.median = 1000;
  DeviceInfo d;
  d.f32Tflops = 60;
  d.f16TensorTflops = 900;
  applyCounterFindings(p, {}, &d);
  ASSERT_GE(p.findings.size(), 2u);
  EXPECT_EQ(p.findings.front().category, "no_tensor_cores");
  EXPECT_DOUBLE_EQ(p.findings.front().evidence["estimated_gain"].get<double>(), 15);
  const std::optional<Finding> lat = findingOf(p.findings, "latency_bound");
  ASSERT_TRUE(lat);
  EXPECT_DOUBLE_EQ(lat->evidence["estimated_gain"].get<double>(), 2.5);
  // Without the device's peaks the baseline's time is the bound.
  Point q = p;
  q.findings.clear();
  applyCounterFindings(q);
  EXPECT_DOUBLE_EQ(findingOf(q.findings, "no_tensor_cores")->evidence["estimated_gain"].get<double>(), 20);
  // An error still leads whatever the gains.
  Finding err;
  err.category = "oob_write";
  err.severity = Severity::error;
  p.findings.push_back(err);
  rankByGain(p.findings);
  EXPECT_EQ(p.findings.front().category, "oob_write");
}
