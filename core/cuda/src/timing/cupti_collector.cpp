// CUPTI Activity API collection. CUPTI hands records over in buffers we provide
// (bufferRequested) and return to us filled (bufferCompleted, possibly on a CUPTI
// worker thread), so the records are parsed into a mutex-guarded store here.
#include "tilescope/cuda/cupti_collector.h"

#include <cupti.h>

#include <cstdlib>
#include <mutex>
#include <unordered_map>

namespace tilescope::cuda {
namespace {

// 8 MiB holds ~40k kernel records; CUPTI requires 8-byte alignment.
constexpr std::size_t kBufferBytes = 8u << 20;
constexpr std::size_t kAlign = 8;

// External correlation records are emitted for CUDA API activity records made
// inside a pushed region, so the runtime and driver API kinds must be on too
// (cuBLAS launches through the runtime, timeCalls' flush through the driver).
// Their records themselves are skipped when parsed.
constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                         CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
                                         CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER};

#if CUPTI_API_VERSION >= 130000
using KernelActivity = CUpti_ActivityKernel10;
#else
using KernelActivity = CUpti_ActivityKernel9;
#endif

struct Store {
  std::mutex mutex;
  std::unordered_map<std::uint32_t, KernelRecord> kernels;       ///< by CUPTI correlation id
  std::unordered_map<std::uint32_t, std::uint64_t> externalIds;  ///< correlation id -> our id
  std::uint64_t dropped = 0;
};

Store& store() {
  static Store s;
  return s;
}

std::string cuptiMessage(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return s ? s : "unknown CUPTI error";
}

void CUPTIAPI bufferRequested(std::uint8_t** buffer, std::size_t* size, std::size_t* maxNumRecords) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kAlign, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *maxNumRecords = 0;  // as many as fit
}

void takeKernel(const KernelActivity& k, Store& s) {
  KernelRecord r;
  r.startNs = k.start;
  r.endNs = k.end;
  r.regs = k.registersPerThread;
  r.smemStatic = k.staticSharedMemory;
  r.smemDynamic = k.dynamicSharedMemory;
  r.localPerThread = k.localMemoryPerThread;
  r.name = k.name ? k.name : "";
  s.kernels[k.correlationId] = std::move(r);
}

void CUPTIAPI bufferCompleted(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t,
                              std::size_t validSize) {
  Store& s = store();
  {
    std::lock_guard lock(s.mutex);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
      if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
          record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
        takeKernel(*reinterpret_cast<const KernelActivity*>(record), s);
      } else if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
        auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
        if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
          s.externalIds[e->correlationId] = e->externalId;
      }
    }
  }
  std::free(buffer);
}

}  // namespace

CuptiCollector& CuptiCollector::instance() {
  static CuptiCollector c;
  return c;
}

std::string CuptiCollector::start() {
  if (!m_registered && m_initError.empty()) {
    CUptiResult r = cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted);
    if (r == CUPTI_SUCCESS)
      m_registered = true;
    else
      m_initError = "CUPTI activity callbacks could not be registered: " + cuptiMessage(r);
  }
  if (!m_registered) return m_initError;
  for (CUpti_ActivityKind kind : kKinds) {
    CUptiResult r = cuptiActivityEnable(kind);
    if (r != CUPTI_SUCCESS) {
      stop();
      std::string why = cuptiMessage(r);
      if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
        why +=
            " (this user may not profile the GPU: run as root or set NVreg_RestrictProfilingToAdminUsers=0)";
      else if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
        why += " (another profiler, e.g. Nsight Compute or Systems, holds CUPTI)";
      return "CUPTI kernel activity could not be enabled: " + why;
    }
  }
  std::lock_guard lock(store().mutex);
  store().kernels.clear();
  store().externalIds.clear();
  store().dropped = 0;
  return {};
}

void CuptiCollector::stop() {
  if (!m_registered) return;
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  for (CUpti_ActivityKind kind : kKinds) cuptiActivityDisable(kind);
}

void CuptiCollector::pushId(std::uint64_t id) {
  cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id);
}

void CuptiCollector::popId() {
  std::uint64_t last = 0;
  cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
}

std::vector<KernelRecord> CuptiCollector::drain() {
  // Forced: the caller has synchronised, so every record is complete; without
  // the flag CUPTI may hold back a partly filled buffer.
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::size_t droppedNow = 0;
  cuptiActivityGetNumDroppedRecords(nullptr, 0, &droppedNow);
  Store& s = store();
  std::lock_guard lock(s.mutex);
  s.dropped += droppedNow;
  // The caller synchronised before draining, so every launch of the bracketed
  // repetitions has both its kernel and its correlation record by now; kernels
  // without an external id (warm-up, L2 flush, other work) are not ours.
  std::vector<KernelRecord> out;
  for (auto& [correlationId, kernel] : s.kernels) {
    auto ext = s.externalIds.find(correlationId);
    if (ext == s.externalIds.end()) continue;
    kernel.externalId = ext->second;
    out.push_back(std::move(kernel));
  }
  s.kernels.clear();
  s.externalIds.clear();
  return out;
}

std::uint64_t CuptiCollector::dropped() const {
  std::lock_guard lock(store().mutex);
  return store().dropped;
}

}  // namespace tilescope::cuda
