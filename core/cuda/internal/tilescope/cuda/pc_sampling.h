// Warp-state sampling through the CUPTI PC Sampling API: every 2^period SM
// cycles each SM records which instruction a warp sits at and why it is not
// issuing. CUPTI types stay in pc_sampling.cpp; folding the samples to source
// lines is pure core (counters.h foldPcSamples).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tilescope/counters/counters.h"

namespace tilescope::cuda {

struct PcSamplingRun {
  std::string error;                   ///< "" on success, else one line
  std::vector<PcSample> samples;       ///< per (function, PC), stall reasons shortened
  std::int64_t droppedSamples = 0;     ///< samples CUPTI lost (hardware buffer full)
  std::int64_t cuptiTotalSamples = 0;  ///< CUPTI's own count over every kernel sampled
  std::size_t records = 0;             ///< PC records received
  std::set<std::string> functions;     ///< the functions they name (the first few)
  double seconds = 0;
};

/// Samples the kernels `call` launches (on the stream it is given) in the
/// current context, serialised, one sample per SM every 2^periodLog2 cycles.
/// Not while the range profiler or the Activity API's kernel records run.
/// `afterEnable` (may be empty) runs once sampling is enabled and configured,
/// before the start: the place to load the module whose kernels are sampled
/// (CUPTI maps sampled PCs to functions through the module loads it sees).
PcSamplingRun samplePcs(const std::function<void(CUstream)>& call, int periodLog2,
                        const std::function<void()>& afterEnable = {});

/// CUPTI's own line lookup for an instruction of a cubin (no GPU needed); the
/// oracle that core's line table (trace_lines.h) is tested against. `file`
/// is CUPTI's directory and file name joined.
std::optional<LineRow> cuptiSourceLine(const std::vector<char>& cubin, const std::string& function,
                                       std::uint64_t pcOffset);

}  // namespace tilescope::cuda
