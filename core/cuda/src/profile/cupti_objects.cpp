// CUPTI's profiler objects (profile/cupti_objects.h): each call's parameter
// block, checked, and the release of every object on every path.
#include "profile/cupti_objects.h"

#include "tilescope/cuda/cupti_errors.h"

namespace tilescope::cuda::detail {

void check(CUptiResult r, const char* what) {
  if (r != CUPTI_SUCCESS) throw CuptiFailure(std::string(what) + ": " + cuptiWhy(r));
}

void checkCu(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* name = nullptr;
  cuGetErrorName(r, &name);
  throw CuptiFailure(std::string(what) + " failed: " + (name ? name : "?"));
}

HostObject::HostObject(const std::string& chip, const std::vector<std::uint8_t>* availability) {
  auto p = sized<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = chip.c_str();
  p.pCounterAvailabilityImage = availability && !availability->empty() ? availability->data() : nullptr;
  check(cuptiProfilerHostInitialize(&p), "cuptiProfilerHostInitialize");
  m_host = p.pHostObject;
}

HostObject::~HostObject() {
  auto p =
      sized<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
  p.pHostObject = m_host;
  cuptiProfilerHostDeinitialize(&p);
}

CUptiResult HostObject::add(const std::vector<std::string>& metrics) {
  std::vector<const char*> names;
  for (const std::string& m : metrics) names.push_back(m.c_str());
  auto p = sized<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  p.pHostObject = m_host;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  return cuptiProfilerHostConfigAddMetrics(&p);
}

std::set<std::string> HostObject::baseMetrics() {
  std::set<std::string> out;
  for (CUpti_MetricType t :
       {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO, CUPTI_METRIC_TYPE_THROUGHPUT}) {
    auto p = sized<CUpti_Profiler_Host_GetBaseMetrics_Params>(
        CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE);
    p.pHostObject = m_host;
    p.metricType = t;
    check(cuptiProfilerHostGetBaseMetrics(&p), "cuptiProfilerHostGetBaseMetrics");
    for (std::size_t i = 0; i < p.numMetrics; ++i) out.insert(p.ppMetricNames[i]);
  }
  return out;
}

std::vector<std::uint8_t> HostObject::configImage() {
  auto s = sized<CUpti_Profiler_Host_GetConfigImageSize_Params>(
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  s.pHostObject = m_host;
  check(cuptiProfilerHostGetConfigImageSize(&s), "cuptiProfilerHostGetConfigImageSize");
  std::vector<std::uint8_t> image(s.configImageSize);
  auto g =
      sized<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  g.pHostObject = m_host;
  g.configImageSize = image.size();
  g.pConfigImage = image.data();
  check(cuptiProfilerHostGetConfigImage(&g), "cuptiProfilerHostGetConfigImage");
  return image;
}

int passesOf(std::vector<std::uint8_t>& config) {
  auto p =
      sized<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  p.configImageSize = config.size();
  p.pConfigImage = config.data();
  check(cuptiProfilerHostGetNumOfPasses(&p), "cuptiProfilerHostGetNumOfPasses");
  return static_cast<int>(p.numOfPasses);
}

RangeProfilerSession::RangeProfilerSession(CUcontext ctx) {
  auto p = sized<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
  p.ctx = ctx;
  check(cuptiRangeProfilerEnable(&p), "cuptiRangeProfilerEnable");
  m_object = p.pRangeProfilerObject;
}

RangeProfilerSession::~RangeProfilerSession() {
  if (m_started) {
    auto s = sized<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
    s.pRangeProfilerObject = m_object;
    cuptiRangeProfilerStop(&s);
  }
  auto p = sized<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = m_object;
  cuptiRangeProfilerDisable(&p);
}

std::vector<std::uint8_t> RangeProfilerSession::counterDataImage(std::vector<const char*>& names,
                                                                 int maxRanges) {
  auto s = sized<CUpti_RangeProfiler_GetCounterDataSize_Params>(
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  s.pRangeProfilerObject = m_object;
  s.pMetricNames = names.data();
  s.numMetrics = names.size();
  s.maxNumOfRanges = std::size_t(maxRanges);
  s.maxNumRangeTreeNodes = std::uint32_t(maxRanges);
  check(cuptiRangeProfilerGetCounterDataSize(&s), "cuptiRangeProfilerGetCounterDataSize");
  std::vector<std::uint8_t> image(s.counterDataSize);
  auto i = sized<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  i.pRangeProfilerObject = m_object;
  i.counterDataSize = image.size();
  i.pCounterData = image.data();
  check(cuptiRangeProfilerCounterDataImageInitialize(&i), "cuptiRangeProfilerCounterDataImageInitialize");
  return image;
}

void RangeProfilerSession::setConfig(std::vector<std::uint8_t>& config, std::vector<std::uint8_t>& data,
                                     int maxRanges, CUpti_ProfilerReplayMode replay) {
  auto p = sized<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = m_object;
  p.configSize = config.size();
  p.pConfig = config.data();
  p.counterDataImageSize = data.size();
  p.pCounterDataImage = data.data();
  p.range = CUPTI_AutoRange;
  p.replayMode = replay;
  p.maxRangesPerPass = std::size_t(maxRanges);
  p.numNestingLevels = 1;
  p.minNestingLevel = 1;
  p.passIndex = 0;
  p.targetNestingLevel = 1;
  check(cuptiRangeProfilerSetConfig(&p), "cuptiRangeProfilerSetConfig");
}

void RangeProfilerSession::start() {
  auto p = sized<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = m_object;
  check(cuptiRangeProfilerStart(&p), "cuptiRangeProfilerStart");
  m_started = true;
}

bool RangeProfilerSession::stop() {
  auto s = sized<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
  s.pRangeProfilerObject = m_object;
  m_started = false;
  check(cuptiRangeProfilerStop(&s), "cuptiRangeProfilerStop");
  return s.isAllPassSubmitted != 0;
}

std::size_t RangeProfilerSession::decode() {
  auto d = sized<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  d.pRangeProfilerObject = m_object;
  check(cuptiRangeProfilerDecodeData(&d), "cuptiRangeProfilerDecodeData");
  return d.numOfRangeDropped;
}

std::vector<std::uint8_t> scratchFor(std::vector<std::uint8_t>& data) {
  auto c = sized<CUpti_Profiler_CounterDataImage_CalculateScratchBufferSize_Params>(
      CUpti_Profiler_CounterDataImage_CalculateScratchBufferSize_Params_STRUCT_SIZE);
  c.counterDataImageSize = data.size();
  c.pCounterDataImage = data.data();
  check(cuptiProfilerCounterDataImageCalculateScratchBufferSize(&c),
        "cuptiProfilerCounterDataImageCalculateScratchBufferSize");
  std::vector<std::uint8_t> scratch(c.counterDataScratchBufferSize);
  auto i = sized<CUpti_Profiler_CounterDataImage_InitializeScratchBuffer_Params>(
      CUpti_Profiler_CounterDataImage_InitializeScratchBuffer_Params_STRUCT_SIZE);
  i.counterDataImageSize = data.size();
  i.pCounterDataImage = data.data();
  i.counterDataScratchBufferSize = scratch.size();
  i.pCounterDataScratchBuffer = scratch.data();
  check(cuptiProfilerCounterDataImageInitializeScratchBuffer(&i),
        "cuptiProfilerCounterDataImageInitializeScratchBuffer");
  return scratch;
}

ProfilerSession::ProfilerSession(CUcontext ctx, std::vector<std::uint8_t>& data,
                                 std::vector<std::uint8_t>& scratch, int ranges,
                                 CUpti_ProfilerReplayMode replay)
    : m_ctx(ctx) {
  auto p = sized<CUpti_Profiler_BeginSession_Params>(CUpti_Profiler_BeginSession_Params_STRUCT_SIZE);
  p.ctx = ctx;
  p.counterDataImageSize = data.size();
  p.pCounterDataImage = data.data();
  p.counterDataScratchBufferSize = scratch.size();
  p.pCounterDataScratchBuffer = scratch.data();
  p.range = CUPTI_AutoRange;
  p.replayMode = replay;
  p.maxRangesPerPass = std::size_t(ranges);
  p.maxLaunchesPerPass = std::size_t(ranges);
  m_result = cuptiProfilerBeginSession(&p);
  m_begun = m_result == CUPTI_SUCCESS;
}

ProfilerSession::~ProfilerSession() {
  if (m_enabled) disableProfiling();
  if (m_configured) unsetConfig();
  if (m_begun) endSession();
}

void ProfilerSession::configure(std::vector<std::uint8_t>& config) {
  auto p = sized<CUpti_Profiler_SetConfig_Params>(CUpti_Profiler_SetConfig_Params_STRUCT_SIZE);
  p.ctx = m_ctx;
  p.pConfig = config.data();
  p.configSize = config.size();
  p.minNestingLevel = 1;
  p.numNestingLevels = 1;
  p.targetNestingLevel = 1;
  check(cuptiProfilerSetConfig(&p), "cuptiProfilerSetConfig");
  m_configured = true;
}

void ProfilerSession::enable() {
  check(enableProfiling(), "cuptiProfilerEnableProfiling");
  m_enabled = true;
}

void ProfilerSession::disable() {
  m_enabled = false;
  check(disableProfiling(), "cuptiProfilerDisableProfiling");
}

void ProfilerSession::beginPass() {
  auto p = sized<CUpti_Profiler_BeginPass_Params>(CUpti_Profiler_BeginPass_Params_STRUCT_SIZE);
  p.ctx = m_ctx;
  check(cuptiProfilerBeginPass(&p), "cuptiProfilerBeginPass");
}

bool ProfilerSession::endPass() {
  auto p = sized<CUpti_Profiler_EndPass_Params>(CUpti_Profiler_EndPass_Params_STRUCT_SIZE);
  p.ctx = m_ctx;
  check(cuptiProfilerEndPass(&p), "cuptiProfilerEndPass");
  return p.allPassesSubmitted != 0;
}

void ProfilerSession::finish() {
  check(flushCounterData(), "cuptiProfilerFlushCounterData");
  m_configured = false;
  check(unsetConfig(), "cuptiProfilerUnsetConfig");
  m_begun = false;
  check(endSession(), "cuptiProfilerEndSession");
}

CUptiResult ProfilerSession::enableProfiling() {
  auto p = sized<CUpti_Profiler_EnableProfiling_Params>(CUpti_Profiler_EnableProfiling_Params_STRUCT_SIZE);
  p.ctx = m_ctx;
  return cuptiProfilerEnableProfiling(&p);
}

CUptiResult ProfilerSession::disableProfiling() {
  auto p = sized<CUpti_Profiler_DisableProfiling_Params>(CUpti_Profiler_DisableProfiling_Params_STRUCT_SIZE);
  p.ctx = m_ctx;
  return cuptiProfilerDisableProfiling(&p);
}

CUptiResult ProfilerSession::flushCounterData() {
  auto p = sized<CUpti_Profiler_FlushCounterData_Params>(CUpti_Profiler_FlushCounterData_Params_STRUCT_SIZE);
  p.ctx = m_ctx;
  return cuptiProfilerFlushCounterData(&p);
}

CUptiResult ProfilerSession::unsetConfig() {
  auto p = sized<CUpti_Profiler_UnsetConfig_Params>(CUpti_Profiler_UnsetConfig_Params_STRUCT_SIZE);
  p.ctx = m_ctx;
  return cuptiProfilerUnsetConfig(&p);
}

CUptiResult ProfilerSession::endSession() {
  auto p = sized<CUpti_Profiler_EndSession_Params>(CUpti_Profiler_EndSession_Params_STRUCT_SIZE);
  p.ctx = m_ctx;
  return cuptiProfilerEndSession(&p);
}

Stream::Stream() { checkCu(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate"); }

Stream::~Stream() {
  if (s) cuStreamDestroy(s);
}

}  // namespace tilescope::cuda::detail
