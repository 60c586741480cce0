// libtilescope_inject.so: the CUDA driver loads it into the captured program
// when CUDA_INJECTION64_PATH names it and calls InitializeInjection during
// cuInit. It subscribes to CUPTI's callbacks: module loads (to keep the
// images), the driver's kernel launches (to record them) and the runtime's
// (to notice a launch the driver level did not show). Only the symbols below
// are exported; the rest is hidden so nothing in the program binds to it.
#include <cupti.h>

#include <cstdlib>
#include <mutex>

#include "inject/recorder.h"

namespace {

using tilescope::inject::LaunchCall;
using tilescope::inject::Recorder;

/// cuLaunchKernel's and cuLaunchCooperativeKernel's parameters (the latter has no `extra`).
template <class Params>
void fromLaunchKernel(const Params* p, LaunchCall* c) {
  c->f = p->f;
  c->grid[0] = p->gridDimX, c->grid[1] = p->gridDimY, c->grid[2] = p->gridDimZ;
  c->block[0] = p->blockDimX, c->block[1] = p->blockDimY, c->block[2] = p->blockDimZ;
  c->sharedBytes = p->sharedMemBytes;
  c->stream = p->hStream;
  c->params = p->kernelParams;
  if constexpr (requires { p->extra; }) c->extra = p->extra;
}

void fromLaunchEx(const cuLaunchKernelEx_params* p, LaunchCall* c) {
  const CUlaunchConfig* cfg = p->config;
  c->f = p->f;
  c->params = p->kernelParams;
  c->extra = p->extra;
  if (!cfg) return;
  c->grid[0] = cfg->gridDimX, c->grid[1] = cfg->gridDimY, c->grid[2] = cfg->gridDimZ;
  c->block[0] = cfg->blockDimX, c->block[1] = cfg->blockDimY, c->block[2] = cfg->blockDimZ;
  c->sharedBytes = cfg->sharedMemBytes;
  c->stream = cfg->hStream;
  for (unsigned i = 0; i < cfg->numAttrs; ++i) {
    const CUlaunchAttribute& a = cfg->attrs[i];
    if (a.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
      c->cluster[0] = a.value.clusterDim.x, c->cluster[1] = a.value.clusterDim.y;
      c->cluster[2] = a.value.clusterDim.z;
    }
  }
}

void driverCallback(CUpti_CallbackId cbid, const CUpti_CallbackData* d) {
  Recorder& rec = Recorder::instance();
  if (d->callbackSite == CUPTI_API_EXIT) {
    const CUresult r =
        d->functionReturnValue ? *static_cast<const CUresult*>(d->functionReturnValue) : CUDA_SUCCESS;
    rec.launchExit(r);
    return;
  }
  LaunchCall c;
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
      c.perThreadStream = true;
      [[fallthrough]];
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
      fromLaunchKernel(static_cast<const cuLaunchKernel_params*>(d->functionParams), &c);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      c.perThreadStream = true;
      [[fallthrough]];
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
      fromLaunchKernel(static_cast<const cuLaunchCooperativeKernel_params*>(d->functionParams), &c);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
      c.perThreadStream = true;
      [[fallthrough]];
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
      fromLaunchEx(static_cast<const cuLaunchKernelEx_params*>(d->functionParams), &c);
      break;
    default:
      return;
  }
  rec.launchEnter(c);
}

void CUPTIAPI callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  Recorder& rec = Recorder::instance();
  if (!rec.enabled()) return;
  try {
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
      driverCallback(cbid, static_cast<const CUpti_CallbackData*>(data));
    } else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
      const auto* d = static_cast<const CUpti_CallbackData*>(data);
      if (d->callbackSite == CUPTI_API_ENTER)
        rec.runtimeEnter();
      else
        rec.runtimeExit(d->symbolName);
    } else if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
      const auto* r = static_cast<const CUpti_ResourceData*>(data);
      const auto* m = static_cast<const CUpti_ModuleResourceData*>(r->resourceDescriptor);
      if (m) rec.moduleLoaded(m->pCubin, m->cubinSize);
    }
  } catch (const std::exception& e) {
    rec.note(std::string("the CUDA recorder failed on a callback: ") + e.what());
  } catch (...) {
    rec.note("the CUDA recorder failed on a callback");
  }
}

std::string cuptiError(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return s ? s : "CUPTI error " + std::to_string(int(r));
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  static std::once_flag once;
  static int result = 1;
  std::call_once(once, [] {
    Recorder& rec = Recorder::instance();
    if (!rec.configure()) return;
    CUpti_SubscriberHandle sub = nullptr;
    if (CUptiResult r = cuptiSubscribe(&sub, callback, nullptr); r != CUPTI_SUCCESS) {
      // Another CUPTI client (a profiler) holds the subscription: say so, run on.
      rec.note("the CUDA recorder could not subscribe to CUPTI (" + cuptiError(r) +
               "): CUDA launches not recorded");
      return;
    }
    cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED);
    for (CUpti_CallbackId id :
         {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
          CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
          CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
          CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz})
      cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, id);
    for (CUpti_CallbackId id : {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
                                CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
                                CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
                                CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
                                CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000})
      cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, id);
    std::atexit([] { Recorder::instance().finish(); });
    result = 1;
  });
  return result;
}

// The Triton recorder's calls (ctypes, resources/python/tilescope/capture).
extern "C" __attribute__((visibility("default"))) int tilescope_capture_claim(unsigned long long function) {
  Recorder::instance().claim(function);
  return 0;
}

extern "C" __attribute__((visibility("default"))) long long tilescope_capture_next_index(void) {
  return Recorder::instance().nextIndex();
}

extern "C" __attribute__((visibility("default"))) int tilescope_capture_select(const char* name,
                                                                               const char* key) {
  if (!name || !key) return 0;
  try {
    return Recorder::instance().select(name, key) ? 1 : 0;
  } catch (...) {
    return 0;
  }
}
