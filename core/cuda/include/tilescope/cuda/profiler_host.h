// Metric names checked against a chip with CUPTI's Profiler Host API: no GPU
// and no CUDA types needed (`check` validates a config's metrics with these).
// Profiling itself is in profiler.h, private to core/cuda.
#pragma once

#include <string>
#include <vector>

namespace tilescope::cuda {

/// The profiler's chip name for an architecture ("sm_90" -> "GH100"), for
/// checking metric names without a GPU; "" when the table does not know it.
std::string chipForArch(const std::string& arch);

/// Checks metric names against `chip`'s metric list with the Profiler Host API
/// (no GPU needed). Returns "" when every name is known, else one line naming
/// the first unknown metric; *badIndex gets its index.
std::string validateMetrics(const std::string& chip, const std::vector<std::string>& names,
                            int* badIndex = nullptr);

/// The base of a metric name: "dram__bytes_read" for "dram__bytes_read.sum".
std::string baseName(const std::string& metric);

/// The names whose base metric `chip` has, in order; the others go to *missing.
/// Throws std::runtime_error when the chip is unknown.
std::vector<std::string> metricsOnChip(const std::string& chip, const std::vector<std::string>& names,
                                       std::vector<std::string>* missing = nullptr);

/// The replay passes `chip` needs to collect `names` in one range (the
/// counters they resolve to, scheduled by CUPTI): a profile's cost is about
/// passes × the kernel's time plus a fixed setup. Throws for an unknown metric.
int replayPasses(const std::string& chip, const std::vector<std::string>& names);

}  // namespace tilescope::cuda
