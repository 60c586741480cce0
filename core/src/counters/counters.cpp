// The profiling pass's metric list, the combination of a baseline call's
// kernels, and the figures derived from a kernel's counters.
#include <algorithm>
#include <stdexcept>

#include "tilescope/counters/counters.h"

#include <cmath>
#include <cstdio>

#include "tilescope/base/format.h"

namespace tilescope {

namespace {
constexpr MetricCombine kSum = MetricCombine::sum, kTime = MetricCombine::timeWeighted;
}

const std::vector<MetricDef>& standardMetrics() {
  // Names exactly as `ncu --metrics` takes them (checked against the GH100 metric
  // list by cuptiProfilerHostConfigAddMetrics). The throughput breakdowns take
  // most of the replay passes; everything else is one pass or shares one.
  static const std::vector<MetricDef> list = {
      {"gpu__time_duration.sum", "Duration", "ns", "speed_of_light", kSum},
      {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "Compute (SM) throughput", "%", "speed_of_light",
       kTime},
      {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "Memory throughput", "%",
       "speed_of_light", kTime},
      {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput", "%", "speed_of_light", kTime},
      {"lts__throughput.avg.pct_of_peak_sustained_elapsed", "L2 throughput", "%", "speed_of_light", kTime},
      {"l1tex__throughput.avg.pct_of_peak_sustained_active", "L1/shared throughput", "%", "speed_of_light",
       kTime},
      {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", "Tensor pipe utilisation", "%",
       "speed_of_light", kTime},
      {"dram__bytes_read.sum", "DRAM bytes read", "B", "memory", kSum},
      {"dram__bytes_write.sum", "DRAM bytes written", "B", "memory", kSum},
      {"l1tex__t_sector_hit_rate.pct", "L1 hit rate", "%", "memory", kTime},
      {"lts__t_sector_hit_rate.pct", "L2 hit rate", "%", "memory", kTime},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "Global load sectors", "count", "memory", kSum},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "Global load requests", "count", "memory", kSum},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "Global store sectors", "count", "memory", kSum},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "Global store requests", "count", "memory", kSum},
      {"sm__sass_data_bytes_mem_global_op_ld.sum", "Global load bytes requested", "B", "memory", kSum},
      {"sm__sass_data_bytes_mem_global_op_st.sum", "Global store bytes requested", "B", "memory", kSum},
      // cp.async (LDGSTS): its sectors count as global-load sectors, its bytes only here.
      {"sm__sass_data_bytes_mem_global_op_ldgsts.sum", "cp.async bytes requested", "B", "memory", kSum},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "Shared load bank conflicts", "count",
       "shared", kSum},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "Shared store bank conflicts", "count",
       "shared", kSum},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "Shared load wavefronts", "count", "shared",
       kSum},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "Shared store wavefronts", "count", "shared",
       kSum},
      {"smsp__sass_inst_executed_op_shared_ld.sum", "Shared load requests", "inst", "shared", kSum},
      {"smsp__sass_inst_executed_op_shared_st.sum", "Shared store requests", "inst", "shared", kSum},
      {"sm__sass_data_bytes_mem_shared_op_ld.sum", "Shared bytes loaded", "B", "shared", kSum},
      {"sm__sass_data_bytes_mem_shared_op_st.sum", "Shared bytes stored", "B", "shared", kSum},
      {"sm__warps_active.avg.pct_of_peak_sustained_active", "Achieved occupancy", "%", "occupancy", kTime},
      {"smsp__inst_executed.sum", "Instructions executed (warp)", "inst", "compute", kSum},
      {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "FP32 FMA (thread)", "inst", "compute", kSum},
      {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", "FP32 add (thread)", "inst", "compute", kSum},
      {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", "FP32 mul (thread)", "inst", "compute", kSum},
      {"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", "FP16 FMA (thread)", "inst", "compute", kSum},
      {"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", "FP16 add (thread)", "inst", "compute", kSum},
      {"smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", "FP16 mul (thread)", "inst", "compute", kSum},
      {"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", "FP64 FMA (thread)", "inst", "compute", kSum},
      {"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", "FP64 add (thread)", "inst", "compute", kSum},
      {"smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", "FP64 mul (thread)", "inst", "compute", kSum},
      {"sm__inst_executed_pipe_tensor.sum", "Tensor instructions (warp)", "inst", "compute", kSum},
      {"sm__ops_path_tensor_src_fp16.sum", "Tensor ops, fp16 inputs", "count", "compute", kSum},
      {"sm__ops_path_tensor_src_bf16_dst_fp32.sum", "Tensor ops, bf16 inputs", "count", "compute", kSum},
      {"sm__ops_path_tensor_src_tf32_dst_fp32.sum", "Tensor ops, tf32 inputs", "count", "compute", kSum},
      {"sm__cycles_elapsed.avg.per_second", "SM clock", "Hz", "compute", kTime},
      // The basic set's speed-of-light proxies (one pass each where the breakdowns take 4-8).
      {"sm__inst_executed.avg.pct_of_peak_sustained_active", "SM issue slots busy", "%", "speed_of_light",
       kTime},
      {"lts__t_sectors.avg.pct_of_peak_sustained_elapsed", "L2 sector throughput", "%", "speed_of_light",
       kTime},
  };
  return list;
}

const std::vector<std::string>& basicMetricNames() {
  // Chosen with cuda::replayPasses on GH100: these 21 need 3 passes (the full
  // list needs 14). Sectors per request (the requests counters) and the
  // throughput breakdowns each add passes. The shared-memory wavefronts (the
  // third pass: the first 15 need 2), instructions and bytes (no extra pass) are
  // what counterFigures' ways need: with them the default set finds a
  // bank-conflicted kernel (bank_conflicts), as `full` does.
  static const std::vector<std::string> names = {
#include "basic_metrics.inc"
  };
  return names;
}

CounterSet parseCounterSet(const std::string& name) {
  if (name == "none") return CounterSet::none;
  if (name == "basic") return CounterSet::basic;
  if (name == "full") return CounterSet::full;
  throw std::invalid_argument("unknown counter set '" + name + "' (expected basic, full or none)");
}

const char* counterSetName(CounterSet s) {
  return s == CounterSet::none ? "none" : s == CounterSet::basic ? "basic" : "full";
}

CounterSet counterSetOf(const CountersInfo& c) {
  if (c.metrics.empty()) return CounterSet::none;
  return std::find(c.metrics.begin(), c.metrics.end(), "sm__throughput.avg.pct_of_peak_sustained_elapsed") !=
                 c.metrics.end()
             ? CounterSet::full
             : CounterSet::basic;
}

MetricDef metricDef(const std::string& name) {
  for (const MetricDef& d : standardMetrics())
    if (name == d.name) return d;
  // A user metric: counts end in .sum; averages, percentages, ratios and rates
  // describe a kernel as a whole and are combined by duration.
  const bool summed = name.size() > 4 && name.compare(name.size() - 4, 4, ".sum") == 0;
  return {name, name, name.find("pct") != std::string::npos ? "%" : "", "extra", summed ? kSum : kTime};
}

std::vector<std::string> profileMetricList(const std::vector<std::string>& extra, CounterSet set) {
  std::vector<std::string> out;
  if (set == CounterSet::basic)
    out = basicMetricNames();
  else if (set == CounterSet::full)
    for (const MetricDef& d : standardMetrics()) out.push_back(d.name);
  for (const std::string& m : extra)
    if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
  return out;
}

KernelCounters combineKernels(const std::vector<KernelCounters>& kernels, const std::string& label) {
  KernelCounters out;
  out.name = label;
  out.launches = 0;
  std::map<std::string, double> weight;
  for (const KernelCounters& k : kernels) {
    out.launches += k.launches;
    const double w = std::max(k.get("gpu__time_duration.sum", 1.0), 1.0);
    for (const auto& [name, v] : k.metrics) {
      if (metricDef(name).combine == MetricCombine::sum) {
        out.metrics[name] += v;
      } else {
        out.metrics[name] += v * w;
        weight[name] += w;
      }
    }
  }
  for (auto& [name, w] : weight) out.metrics[name] /= w;
  return out;
}

namespace {

double metric(const KernelCounters& k, const char* name) { return k.get(name, NAN); }

double ratio(double num, double den) { return known(num) && known(den) && den > 0 ? num / den : NAN; }

double sumKnown(std::initializer_list<double> parts) {
  double s = 0;
  bool any = false;
  for (double p : parts)
    if (known(p)) {
      s += p;
      any = true;
    }
  return any ? s : NAN;
}

/// Wavefronts per ideal wavefront: one per request, or bytes / 128 when each
/// request moves more than one wavefront can (64- and 128-bit accesses).
double ways(double wavefronts, double requests, double bytes) {
  if (!known(wavefronts) || !known(requests) || requests <= 0) return NAN;
  const double ideal = std::max(requests, known(bytes) ? bytes / 128.0 : 0.0);
  return wavefronts / ideal;
}

}  // namespace

CounterFigures counterFigures(const KernelCounters& k) {
  CounterFigures f;
  f.durationNs = metric(k, "gpu__time_duration.sum");
  f.smPct = metric(k, "sm__throughput.avg.pct_of_peak_sustained_elapsed");
  f.memPct = metric(k, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed");
  f.dramPct = metric(k, "dram__throughput.avg.pct_of_peak_sustained_elapsed");
  f.tensorPct = metric(k, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active");
  if (!known(f.smPct) && !known(f.memPct)) {
    // The basic set: the busiest of the SM's issue slots and tensor pipe, and of
    // DRAM and L2, stand in for ncu's SOL SM and Memory.
    const double issue = metric(k, "sm__inst_executed.avg.pct_of_peak_sustained_active");
    const double l2 = metric(k, "lts__t_sectors.avg.pct_of_peak_sustained_elapsed");
    auto busiest = [](double a, double b) {
      return known(a) && known(b) ? std::max(a, b) : known(a) ? a : b;
    };
    f.smPct = busiest(issue, f.tensorPct);
    f.memPct = busiest(f.dramPct, l2);
    f.solProxy = known(f.smPct) || known(f.memPct);
  }
  f.l2Pct = metric(k, "lts__throughput.avg.pct_of_peak_sustained_elapsed");
  f.l1Pct = metric(k, "l1tex__throughput.avg.pct_of_peak_sustained_active");
  f.dramReadBytes = metric(k, "dram__bytes_read.sum");
  f.dramWriteBytes = metric(k, "dram__bytes_write.sum");
  f.l1HitPct = metric(k, "l1tex__t_sector_hit_rate.pct");
  f.l2HitPct = metric(k, "lts__t_sector_hit_rate.pct");
  f.achievedOccupancy = metric(k, "sm__warps_active.avg.pct_of_peak_sustained_active") / 100.0;
  f.instructions = metric(k, "smsp__inst_executed.sum");

  f.sharedLdConflicts = metric(k, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum");
  f.sharedStConflicts = metric(k, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum");
  f.sharedLdRequests = metric(k, "smsp__sass_inst_executed_op_shared_ld.sum");
  f.sharedStRequests = metric(k, "smsp__sass_inst_executed_op_shared_st.sum");
  f.sharedLdWays = ways(metric(k, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"), f.sharedLdRequests,
                        metric(k, "sm__sass_data_bytes_mem_shared_op_ld.sum"));
  f.sharedStWays = ways(metric(k, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"), f.sharedStRequests,
                        metric(k, "sm__sass_data_bytes_mem_shared_op_st.sum"));

  f.globalLdSectors = metric(k, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
  f.globalStSectors = metric(k, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
  f.globalLdSectorsPerRequest =
      ratio(f.globalLdSectors, metric(k, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"));
  f.globalStSectorsPerRequest =
      ratio(f.globalStSectors, metric(k, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"));
  // cp.async's sectors are global-load sectors (l1tex..._op_ld), its bytes are not in
  // the load bytes: measured on an H100, a Triton matmul whose loads are all cp.async
  // had 1,048,576 load sectors, 0 load bytes and 33.5 MB of ldgsts bytes.
  f.globalLdEfficiency = ratio(sumKnown({metric(k, "sm__sass_data_bytes_mem_global_op_ld.sum"),
                                         metric(k, "sm__sass_data_bytes_mem_global_op_ldgsts.sum")}),
                               f.globalLdSectors * 32);
  f.globalStEfficiency = ratio(metric(k, "sm__sass_data_bytes_mem_global_op_st.sum"), f.globalStSectors * 32);

  auto flops = [&](const char* fma, const char* add, const char* mul) {
    return sumKnown({2 * metric(k, fma), metric(k, add), metric(k, mul)});
  };
  f.fp32Flops = flops("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
                      "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
                      "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum");
  f.fp16Flops = flops("smsp__sass_thread_inst_executed_op_hfma_pred_on.sum",
                      "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum",
                      "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum");
  f.fp64Flops = flops("smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
                      "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
                      "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum");
  // Tensor-path ops are FLOPs already: cuBLAS's 1024^3 f16 GEMM on an H100 counts
  // 2^31 = 2·M·N·K of them (measured, docs/measurements.md).
  f.tensorFlops = sumKnown({metric(k, "sm__ops_path_tensor_src_fp16.sum"),
                            metric(k, "sm__ops_path_tensor_src_bf16_dst_fp32.sum"),
                            metric(k, "sm__ops_path_tensor_src_tf32_dst_fp32.sum")});
  f.flops = sumKnown({f.fp32Flops, f.fp16Flops, f.fp64Flops, f.tensorFlops});
  f.dramBytes = sumKnown({f.dramReadBytes, f.dramWriteBytes});
  f.arithmeticIntensity = ratio(f.flops, f.dramBytes);
  f.flopsPerSecond = ratio(f.flops, f.durationNs * 1e-9);
  f.dramBytesPerSecond = ratio(f.dramBytes, f.durationNs * 1e-9);
  return f;
}

namespace {
std::string printedMetric(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}
}  // namespace

std::string formatMetric(const std::string& metric, double value) {
  if (!known(value)) return "–";
  const MetricDef d = metricDef(metric);
  if (d.unit == "ns") return formatDuration(value);
  if (d.unit == "B") return formatBytes(value);
  if (d.unit == "%") return printedMetric("%.1f %%", value);
  if (d.unit == "Hz") return printedMetric("%.0f MHz", value / 1e6);
  if (std::fabs(value - std::round(value)) < 1e-9 || std::fabs(value) >= 1e6) return formatCount(value);
  return printedMetric("%.4g", value);
}

}  // namespace tilescope
