// The tracer (docs/report.md, "trace"): the kernel under test patched through NVIDIA's
// Compute Sanitizer API (libsanitizer-public.so, loaded at run time), its
// global, shared and local accesses, barriers and block entry/exit checked and
// aggregated on the device, the aggregates copied back as a TraceCapture
// (core's tilescope/trace/trace.h draws the conclusions). Sanitizer types stay in
// trace_sanitizer.cpp.
#pragma once

#include <cstdint>
#include <string>

namespace tilescope::cuda {

struct TraceOptions {
  bool enabled = false;
  bool hazards = true;  ///< shared-memory hazards (the racecheck part; costs most)
  std::int64_t deviceCells =
      1 << 22;  ///< map cells per tensor on the device: element-exact up to this many elements
  std::size_t reportCells = 1 << 16;  ///< map cells per tensor in the report
  std::uint32_t maxCtas = 1 << 16;    ///< CTAs with boxes and hazard tracking
  std::uint32_t maxRecords =
      4096;  ///< bad accesses kept (the first of each instruction is always among them)
  std::uint32_t maxHazards = 1024;  ///< distinct hazard pairs
};

/// Loads the Sanitizer API and claims its subscriber slot. Call before the CUDA
/// context is created (the worker does it first thing). Returns "" when the
/// tracer can run, else one line saying why not (library missing, another
/// sanitizer attached, built without the API). Later calls return the same.
std::string initTracer();

/// Where libsanitizer-public.so was found ("" when not loaded).
std::string tracerLibraryPath();

}  // namespace tilescope::cuda
