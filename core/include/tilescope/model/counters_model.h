// The hardware-counter part of a point (report field `counters`, docs/report.md):
// what the profiling pass measured for the kernel under test and for the
// baseline's kernels, under Nsight Compute's metric names, and the PC-sampling
// stalls folded to source lines. Plain data; the conclusions drawn from it live
// in counters.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tilescope {

/// One profiled kernel launch (or several launches summed, for a baseline call):
/// metric name as ncu spells it (`dram__bytes_read.sum`) -> value in the metric's
/// own unit (bytes, ns, percent, ...).
struct KernelCounters {
  std::string name;  ///< kernel name (as launched), or a summary label
  int launches = 1;  ///< kernel launches summed into `metrics`
  std::map<std::string, double> metrics;
  bool operator==(const KernelCounters&) const = default;

  bool has(const std::string& metric) const { return metrics.count(metric) > 0; }
  /// The value, or `fallback` when the metric was not collected.
  double get(const std::string& metric, double fallback = 0) const;
};

/// Samples of one stall reason (CUPTI's name without the `smsp__pcsamp_warps_issue_stalled_` prefix).
struct StallCount {
  std::string reason;  ///< long_scoreboard, barrier, mio_throttle, selected, ...
  std::int64_t samples = 0;
  bool operator==(const StallCount&) const = default;
};

/// A source line and the PC samples that fell on its instructions.
struct HotLine {
  std::string file;  ///< as the line table records it (the kernel's file name)
  int line = 0;
  std::int64_t samples = 0;
  std::vector<StallCount> stalls;  ///< most samples first
  bool operator==(const HotLine&) const = default;
};

/// An instruction and the PC samples that fell on it.
struct HotPc {
  std::string function;      ///< the kernel's (mangled) name, as CUPTI gives it
  std::uint64_t offset = 0;  ///< SASS offset in the function
  std::int64_t samples = 0;
  std::vector<StallCount> stalls;  ///< most samples first
  bool operator==(const HotPc&) const = default;
};

struct PcSamplingInfo {
  bool collected = false;
  std::string note;               ///< why not collected, or what a reader must know
  int periodLog2 = 0;             ///< one sample every 2^periodLog2 SM cycles
  std::int64_t totalSamples = 0;  ///< samples of the kernel under test
  std::int64_t droppedSamples = 0;
  std::int64_t unmappedSamples = 0;  ///< samples at PCs without a line (no line info)
  std::vector<StallCount> stalls;    ///< over the whole kernel, most first
  std::vector<HotLine> lines;        ///< hottest first (at most kMaxHotLines)
  std::vector<HotPc> pcs;  ///< hottest instructions first (at most kMaxHotPcs), with or without a line
  bool operator==(const PcSamplingInfo&) const = default;
};

inline constexpr int kMaxHotLines = 20;
inline constexpr int kMaxHotPcs = 32;

struct CountersInfo {
  bool collected = false;  ///< the kernel's counters were read
  std::string note;        ///< one line: why counters are missing, or caveats
  std::string chip;        ///< "GH100": the profiler's chip name
  int passes = 0;          ///< replay passes per kernel for the metric list
  /// Who replayed the kernel's passes: "user" (the measurement, putting its
  /// tensors back before each pass) or "kernel" (CUPTI, saving and restoring
  /// device memory); "" in reports from before it.
  std::string replay;
  double seconds = 0;  ///< wall time of the whole profiling pass (kernel, baseline, PC sampling)
  double kernelSeconds = 0, baselineSeconds = 0, pcSamplingSeconds = 0;  ///< its parts
  std::vector<std::string> metrics;             ///< the metric list, in order (standard + run.metrics)
  KernelCounters kernel;                        ///< the kernel under test
  std::optional<KernelCounters> baseline;       ///< the baseline call, its kernels combined (counters.h)
  std::vector<KernelCounters> baselineKernels;  ///< each kernel of one baseline call, in launch order
  std::string baselineNote;                     ///< why the baseline has no counters
  /// The baseline's counters come from an earlier capture of the same baseline
  /// call (same config sections, tensor shapes, metrics, GPU) in this warm worker.
  bool baselineReused = false;
  /// A part of the profiling pass failed (the kernel's or the baseline's
  /// counters, PC sampling) or the worker died in it: CUPTI's state in that
  /// process may be broken, so a warm worker is replaced (needsFreshWorker).
  /// The notes say what failed, for people; this is what code tests.
  bool passFailed = false;
  PcSamplingInfo pcSampling;
  bool operator==(const CountersInfo&) const = default;
};

/// The field's JSON (docs/report.md); the reader throws ReportError (report.h)
/// naming the JSON path of a value of the wrong type or out of range.
nlohmann::json toJson(const CountersInfo& c);
CountersInfo countersFromJson(const nlohmann::json& j, const std::string& path = "counters");

}  // namespace tilescope
