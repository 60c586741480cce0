// samplePcs: CUPTI PC sampling in continuous mode with explicit start and stop
// (one kernel is launched between them, so nothing else is sampled). After the
// stop, cuptiPCSamplingGetData flushes the records into a buffer of ours until
// none remain; disabling flushes anything left into the buffer given at
// configuration, so the two buffers are kept apart. Every PC sampling call
// comes after cuptiPCSamplingEnable (before it, CUDA 13 reports no stall reasons).
#include "tilescope/cuda/pc_sampling.h"

#include <cupti.h>
#include <cupti_pcsampling.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>

#include "profile/cupti_objects.h"
#include "profile/phase_trace.h"

namespace tilescope::cuda {
namespace {

constexpr std::size_t kMaxPcs = 8192;             // PC records per buffer
constexpr std::size_t kScratchBytes = 16u << 20;  // CUPTI's staging of records between GetData calls

using detail::check;  // profile/cupti_objects.h: a failed call, named, as a std::runtime_error
using detail::checkCu;

/// One CUpti_PCSamplingData with room for kMaxPcs records of `reasons` stall reasons each.
struct Buffer {
  CUpti_PCSamplingData data{};
  std::vector<CUpti_PCSamplingPCData> pcs;
  std::vector<CUpti_PCSamplingStallReason> stalls;
  std::size_t reasons = 0;

  explicit Buffer(std::size_t numReasons) : pcs(kMaxPcs), stalls(kMaxPcs * numReasons), reasons(numReasons) {
    data.size = sizeof(CUpti_PCSamplingData);
    data.collectNumPcs = kMaxPcs;
    data.pPcData = pcs.data();
    reset();
  }
  void reset() {
    data.totalNumPcs = 0;
    for (std::size_t i = 0; i < pcs.size(); ++i) {
      pcs[i].size = sizeof(CUpti_PCSamplingPCData);
      pcs[i].stallReasonCount = reasons;
      pcs[i].stallReason = stalls.data() + i * reasons;
    }
  }
};

struct Reasons {
  std::map<std::uint32_t, std::string> byIndex;  ///< CUPTI index -> shortened name ("" = skip)
  std::vector<std::uint32_t> indices;
};

Reasons stallReasons(CUcontext ctx) {
  std::size_t n = 0;
  CUpti_PCSamplingGetNumStallReasonsParams np{};
  np.size = sizeof np;
  np.ctx = ctx;
  np.numStallReasons = &n;
  check(cuptiPCSamplingGetNumStallReasons(&np), "cuptiPCSamplingGetNumStallReasons");
  std::vector<std::uint32_t> index(n);
  std::vector<std::vector<char>> storage(n, std::vector<char>(CUPTI_STALL_REASON_STRING_SIZE, '\0'));
  std::vector<char*> names(n);
  for (std::size_t i = 0; i < n; ++i) names[i] = storage[i].data();
  CUpti_PCSamplingGetStallReasonsParams rp{};
  rp.size = sizeof rp;
  rp.ctx = ctx;
  rp.numStallReasons = n;
  rp.stallReasonIndex = index.data();
  rp.stallReasons = names.data();
  check(cuptiPCSamplingGetStallReasons(&rp), "cuptiPCSamplingGetStallReasons");
  Reasons r;
  r.indices = index;
  for (std::size_t i = 0; i < n; ++i) r.byIndex[index[i]] = stallReasonName(names[i]);
  return r;
}

void configure(CUcontext ctx, Buffer& buffer, Reasons& reasons, int periodLog2) {
  CUpti_PCSamplingConfigurationInfo a[7] = {};
  a[0].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
  a[0].attributeData.collectionModeData.collectionMode = CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
  a[1].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
  a[1].attributeData.samplingPeriodData.samplingPeriod = std::uint32_t(periodLog2);
  a[2].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE;
  a[2].attributeData.scratchBufferSizeData.scratchBufferSize = kScratchBytes;
  a[3].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL;
  a[3].attributeData.enableStartStopControlData.enableStartStopControl = 1;
  a[4].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT;
  a[4].attributeData.outputDataFormatData.outputDataFormat = CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
  a[5].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
  a[5].attributeData.samplingDataBufferData.samplingDataBuffer = &buffer.data;
  a[6].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON;
  a[6].attributeData.stallReasonData.stallReasonCount = reasons.indices.size();
  a[6].attributeData.stallReasonData.pStallReasonIndex = reasons.indices.data();
  CUpti_PCSamplingConfigurationInfoParams p{};
  p.size = sizeof p;
  p.ctx = ctx;
  p.numAttributes = 7;
  p.pPCSamplingConfigurationInfo = a;
  check(cuptiPCSamplingSetConfigurationAttribute(&p), "cuptiPCSamplingSetConfigurationAttribute");
  for (const auto& attr : a) check(attr.attributeStatus, "a PC sampling attribute");
}

/// Adds a buffer's records to `out` (one PcSample per record).
void take(const Buffer& b, const Reasons& reasons, PcSamplingRun& out) {
  out.cuptiTotalSamples += static_cast<std::int64_t>(b.data.totalSamples);
  for (std::size_t i = 0; i < b.data.totalNumPcs && i < b.pcs.size(); ++i) {
    const CUpti_PCSamplingPCData& pc = b.pcs[i];  // packed: copy fields out, never bind references
    PcSample s;
    s.function = pc.functionName ? pc.functionName : "";
    ++out.records;
    if (out.functions.size() < 8) out.functions.insert(s.function);
    s.pcOffset = pc.pcOffset;
    for (std::size_t k = 0; k < pc.stallReasonCount && k < b.reasons; ++k) {
      const std::uint32_t index = pc.stallReason[k].pcSamplingStallReasonIndex;
      const std::uint32_t n = pc.stallReason[k].samples;
      auto it = reasons.byIndex.find(index);
      if (n > 0 && it != reasons.byIndex.end() && !it->second.empty()) s.stalls.push_back({it->second, n});
    }
    if (!s.stalls.empty()) out.samples.push_back(std::move(s));
  }
  out.droppedSamples += static_cast<std::int64_t>(b.data.droppedSamples);
}

/// PC sampling enabled on a context; disabled on every path.
struct Enabled {
  CUcontext ctx;
  bool started = false;
  explicit Enabled(CUcontext c) : ctx(c) {
    CUpti_PCSamplingEnableParams p{};
    p.size = sizeof p;
    p.ctx = ctx;
    check(cuptiPCSamplingEnable(&p), "cuptiPCSamplingEnable");
  }
  void stop() {
    if (!started) return;
    started = false;
    CUpti_PCSamplingStopParams p{};
    p.size = sizeof p;
    p.ctx = ctx;
    check(cuptiPCSamplingStop(&p), "cuptiPCSamplingStop");
  }
  ~Enabled() {
    try {
      stop();
    } catch (...) {
    }
    CUpti_PCSamplingDisableParams p{};
    p.size = sizeof p;
    p.ctx = ctx;
    cuptiPCSamplingDisable(&p);
  }
};

}  // namespace

PcSamplingRun samplePcs(const std::function<void(CUstream)>& call, int periodLog2,
                        const std::function<void()>& afterEnable) {
  PcSamplingRun out;
  const auto t0 = std::chrono::steady_clock::now();
  detail::PhaseTrace trace("pc sampling");
  CUstream stream = nullptr;
  try {
    CUcontext ctx = nullptr;
    checkCu(cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
    if (!ctx) throw std::runtime_error("no current CUDA context");
    // The buffers outlive the enabled state: CUPTI writes into `configured` until disabled.
    Reasons reasons;
    std::unique_ptr<Buffer> configured, read;
    {
      Enabled on(ctx);
      reasons = stallReasons(ctx);  // the counts are only known once sampling is enabled
      configured = std::make_unique<Buffer>(reasons.indices.size());
      read = std::make_unique<Buffer>(reasons.indices.size());
      configure(ctx, *configured, reasons, periodLog2);
      trace("enable");
      if (afterEnable) afterEnable();
      trace("reload");
      checkCu(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
      CUpti_PCSamplingStartParams sp{};
      sp.size = sizeof sp;
      sp.ctx = ctx;
      check(cuptiPCSamplingStart(&sp), "cuptiPCSamplingStart");
      on.started = true;
      call(stream);
      checkCu(cuStreamSynchronize(stream), "the sampled launches");
      on.stop();
      trace("sample");
      // Records CUPTI may have left in the configured buffer are taken before
      // GetData could overwrite them; each record is taken once.
      take(*configured, reasons, out);
      configured->reset();
      for (int guard = 0; guard < 10000; ++guard) {
        read->reset();
        CUpti_PCSamplingGetDataParams gp{};
        gp.size = sizeof gp;
        gp.ctx = ctx;
        gp.pcSamplingData = &read->data;
        check(cuptiPCSamplingGetData(&gp), "cuptiPCSamplingGetData");
        take(*read, reasons, out);
        if (configured->data.totalNumPcs > 0) {  // records CUPTI moved there meanwhile
          take(*configured, reasons, out);
          configured->reset();
        }
        if (read->data.totalNumPcs == 0 && read->data.remainingNumPcs == 0) break;
      }
      configured->reset();
      trace("read");
    }
    // Disabling flushes anything CUPTI still held into the configured buffer.
    take(*configured, reasons, out);
  } catch (const std::exception& e) {
    out.error = e.what();
    out.samples.clear();
  }
  if (stream) cuStreamDestroy(stream);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  trace("disable");
  return out;
}

std::optional<LineRow> cuptiSourceLine(const std::vector<char>& cubin, const std::string& function,
                                       std::uint64_t pcOffset) {
  CUpti_GetSassToSourceCorrelationParams p{};
  p.size = sizeof p;
  p.cubin = cubin.data();
  p.cubinSize = cubin.size();
  p.functionName = function.c_str();
  p.pcOffset = pcOffset;
  if (cuptiGetSassToSourceCorrelation(&p) != CUPTI_SUCCESS || p.lineNumber == 0) return std::nullopt;
  LineRow s;
  s.function = function;
  s.offset = pcOffset;
  std::string dir = p.dirName ? p.dirName : "", file = p.fileName ? p.fileName : "";
  s.file = dir.empty() || file.empty() || file[0] == '/' ? file : dir + "/" + file;
  s.line = static_cast<int>(p.lineNumber);
  // CUPTI allocates the names with malloc and leaves them to the caller.
  std::free(p.fileName);
  std::free(p.dirName);
  return s;
}

}  // namespace tilescope::cuda
