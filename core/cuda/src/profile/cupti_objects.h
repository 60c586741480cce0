// CUPTI's profiler objects, each released on every path: the Profiler Host
// object (metric list -> config image, passes), the range profiler on a
// context, and a session of the session API. profiler.cpp strings them into
// a profile; what each CUPTI call needs is here, so that the profile reads as
// the order of its steps.
#pragma once

#include <cuda.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>

#include <cstddef>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace tilescope::cuda::detail {

/// A CUPTI parameter block: zeroed, with its structSize set.
template <class T>
T sized(std::size_t size) {
  T p{};
  p.structSize = size;
  return p;
}

/// A failed CUPTI call: what was called and why, in one line.
struct CuptiFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Throws CuptiFailure naming `what` unless `r` is CUPTI_SUCCESS.
void check(CUptiResult r, const char* what);
/// Throws CuptiFailure naming `what` and the driver's error unless `r` is CUDA_SUCCESS.
void checkCu(CUresult r, const char* what);

/// A Profiler Host object for one chip, deinitialised on every path.
class HostObject {
 public:
  HostObject(const std::string& chip, const std::vector<std::uint8_t>* availability);
  ~HostObject();
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;
  CUpti_Profiler_Host_Object* get() const { return m_host; }

  /// Adds metrics to the config; the CUPTI result (an error when the chip does
  /// not know one: the host object is unusable after that).
  CUptiResult add(const std::vector<std::string>& metrics);
  /// Every base metric name of the chip (counters, ratios, throughputs).
  std::set<std::string> baseMetrics();
  std::vector<std::uint8_t> configImage();

 private:
  CUpti_Profiler_Host_Object* m_host = nullptr;
};

/// The replay passes a config image needs.
int passesOf(std::vector<std::uint8_t>& config);

/// The range profiler on a context, disabled (and its stream destroyed) on every path.
class RangeProfilerSession {
 public:
  explicit RangeProfilerSession(CUcontext ctx);
  ~RangeProfilerSession();
  RangeProfilerSession(const RangeProfilerSession&) = delete;
  RangeProfilerSession& operator=(const RangeProfilerSession&) = delete;

  std::vector<std::uint8_t> counterDataImage(std::vector<const char*>& names, int maxRanges);
  void setConfig(std::vector<std::uint8_t>& config, std::vector<std::uint8_t>& data, int maxRanges,
                 CUpti_ProfilerReplayMode replay);
  void start();
  /// Stops a pass: true once every pass of the config is submitted.
  bool stop();
  /// Decodes the passes; returns the ranges dropped for lack of room.
  std::size_t decode();

 private:
  CUpti_RangeProfiler_Object* m_object = nullptr;
  bool m_started = false;
};

/// A counter data image's scratch buffer, as the session API needs it.
std::vector<std::uint8_t> scratchFor(std::vector<std::uint8_t>& data);

/// One profile in a session of CUPTI's session API (auto range; kernel or
/// user replay), ended on every path: begun here, configured by configure(),
/// each pass between beginPass() and endPass() (user replay) with profiling
/// enabled around the launches, its counters written to the image by finish().
class ProfilerSession {
 public:
  ProfilerSession(CUcontext ctx, std::vector<std::uint8_t>& data, std::vector<std::uint8_t>& scratch,
                  int ranges, CUpti_ProfilerReplayMode replay);
  ~ProfilerSession();
  ProfilerSession(const ProfilerSession&) = delete;
  ProfilerSession& operator=(const ProfilerSession&) = delete;

  /// CUPTI's answer to beginning the session.
  CUptiResult begun() const { return m_result; }
  void configure(std::vector<std::uint8_t>& config);
  void enable();
  void disable();
  void beginPass();
  /// True once every pass of the config is submitted.
  bool endPass();
  /// Ends the session (profiling already disabled): the image then holds every range.
  void finish();

 private:
  // The calls whose only parameter is the context.
  CUptiResult enableProfiling();
  CUptiResult disableProfiling();
  CUptiResult flushCounterData();
  CUptiResult unsetConfig();
  CUptiResult endSession();
  CUcontext m_ctx;
  CUptiResult m_result = CUPTI_SUCCESS;
  bool m_begun = false, m_configured = false, m_enabled = false;
};

/// A non-blocking stream, destroyed with it.
struct Stream {
  CUstream s = nullptr;
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

}  // namespace tilescope::cuda::detail
