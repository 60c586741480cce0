// Where a profile's fixed cost goes, and what a session that outlives one
// profile saves (docs/measurements.md, "The profiler's start").
// One process, one GPU, the basic counter set, a kernel of about 0.2 ms:
//   plain        the kernel timed with events, before CUPTI is touched
//   range        the range profiler as profileRanges uses it: enabled once;
//                per profile image, set config, start, launch, stop, decode
//   range_reuse  set config once; per profile start, launch, stop, decode
//   range_batch  one start, REPS launches, one stop: the cost per launch
//   perturb      set config once; before each start one thing a capture does
//                between two profiles (a new allocation, stream, module, the
//                Activity API switched on and off): which makes start pay again
//   memory       the replayed launch with 0, 2 and 8 GiB more allocated
//   user_replay  auto ranges, the passes replayed by the caller (start,
//                launch, stop until every pass is submitted)
//   churn_*      a kept profiler over kernels of modules loaded one per
//                profile (as a warm worker's points are), each module
//                unloaded (churn_unload), its buffer freed (churn_free), both
//                (churn_both) or neither (churn_none) after its profile, or
//                each profile on a new stream, the last one destroyed
//                (churn_stream); one to a process (PB_MODES=churn_both,
//                ...), since a crash ends it
//   per_*        a profile as a sweep point's: per_range* enables, starts,
//                stops and disables the range profiler around one replayed
//                launch; per_sess* begins and ends a session of the older
//                API instead; *2 with the basic list (core's: 2 passes
//                when it had 14 metrics, 2026-11-28; 3 with its 21), *1 without
//                its SASS metrics (1 pass); run in two rounds
//   session      CUPTI's session API: begin a session and set the config
//                once; per profile enable, launch, disable, flush; between
//                profiles, 20 launches timed with events while the session
//                stays open but profiling is disabled
// Each mode prints the median of each phase over REPS, and the profiled
// gpu__time_duration of the first and last range, so modes can be compared.
// Build: nvcc -O2 -std=c++17 -o pb bench/profiler_sessions.cu -lcuda -lcupti
// Run:   ./pb [REPS] (PB_MODES=range64,perturb,... picks modes);
//        bench/profiler_sessions.sh OUT [REPS] runs it alone, then on every GPU
//        at once; PB_CHURN=1 runs the churn modes instead.
#include <cupti_activity.h>

#include "profiler_sessions.h"

namespace {

using namespace pb;

void modeRange(CUcontext ctx, Host& host, Kernel& k, int reps, int maxRanges) {
  Phases ph;
  Range r(ctx);
  ph.mark("enable");
  double first = 0, last = 0;
  for (int i = 0; i < reps; ++i) {
    ph.reset();
    std::vector<uint8_t> data = r.image(maxRanges);
    r.setConfig(host.config, data, maxRanges);
    ph.mark("image+set config");
    r.start();
    ph.mark("start");
    k.launch();
    k.sync();
    ph.mark("launch (replayed)");
    r.stop();
    ph.mark("stop");
    r.decode();
    ph.mark("decode");
    const double d = host.duration(data, 0);
    ph.mark("evaluate");
    (i == 0 ? first : last) = d;
    k.timed(5);  // the next point's timed launches: enabled, not started
    ph.mark("5 timed launches");
  }
  const std::string mode = "range/" + std::to_string(maxRanges);
  ph.print(mode.c_str());
  std::printf("%-12s profiled duration first %.1f us, last %.1f us; enabled, not started: %.1f us\n",
              mode.c_str(), first / 1e3, last / 1e3, k.timed(20));
}

void modeRangeReuse(CUcontext ctx, Host& host, Kernel& k, int reps) {
  Phases ph;
  Range r(ctx);
  std::vector<uint8_t> data = r.image(reps + 1);
  r.setConfig(host.config, data, reps + 1);
  ph.mark("enable+set config");
  for (int i = 0; i < reps; ++i) {
    ph.reset();
    r.start();
    ph.mark("start");
    k.launch();
    k.sync();
    ph.mark("launch (replayed)");
    r.stop();
    ph.mark("stop");
    r.decode();
    ph.mark("decode");
  }
  ph.print("range_reuse");
  const size_t n = rangesIn(data);
  std::printf("range_reuse  ranges in the image: %zu (of %d profiles); first %.1f us, last %.1f us\n", n,
              reps, n ? host.duration(data, 0) / 1e3 : -1.0, n ? host.duration(data, n - 1) / 1e3 : -1.0);
}

void modeRangeBatch(CUcontext ctx, Host& host, Kernel& k, int reps) {
  Phases ph;
  Range r(ctx);
  std::vector<uint8_t> data = r.image(reps);
  r.setConfig(host.config, data, reps);
  ph.mark("enable+set config");
  r.start();
  ph.mark("start");
  for (int i = 0; i < reps; ++i) {
    k.launch();
    k.sync();
    ph.mark("each launch (replayed)");
  }
  r.stop();
  ph.mark("stop");
  r.decode();
  ph.mark("decode");
  ph.print("range_batch");
  const size_t n = rangesIn(data);
  std::printf("range_batch  ranges: %zu; first %.1f us, last %.1f us\n", n,
              n ? host.duration(data, 0) / 1e3 : -1.0, n ? host.duration(data, n - 1) / 1e3 : -1.0);
}

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxRecords) {
  *size = 1 << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *maxRecords = 0;
}
void CUPTIAPI bufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t) { std::free(buffer); }

void modePerturb(CUcontext ctx, Host& host, Kernel& k, int reps) {
  Range r(ctx);
  std::vector<uint8_t> data = r.image(64);
  r.setConfig(host.config, data, 64);
  cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted);
  std::vector<void*> keep;
  std::vector<cudaStream_t> streams;
  std::vector<CUmodule> modules;
  const char* what[] = {
      "none", "cudaMalloc 64 MiB", "cudaFree", "new stream", "activity on/off", "new module", "none"};
  for (const char* w : what) {
    Phases ph;
    for (int i = 0; i < std::max(2, reps / 3); ++i) {
      const std::string p = w;
      if (p == "cudaMalloc 64 MiB") {
        void* b = nullptr;
        ckrt(cudaMalloc(&b, 64 << 20), "cudaMalloc");
        keep.push_back(b);
      } else if (p == "cudaFree" && !keep.empty()) {
        cudaFree(keep.back());
        keep.pop_back();
      } else if (p == "new stream") {
        cudaStream_t s;
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        streams.push_back(s);
      } else if (p == "activity on/off") {
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        k.launch();
        k.sync();
        cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        cuptiActivityFlushAll(0);
      } else if (p == "new module") {
        TouchModule t;
        t.launch(reinterpret_cast<CUdeviceptr>(k.x), k.s);
        modules.push_back(t.m);
      }
      ph.reset();
      r.start();
      ph.mark("start after " + p);
      k.launch();
      k.sync();
      ph.mark("launch after " + p);
      r.stop();
      r.decode();
    }
    ph.print("perturb");
  }
  for (void* b : keep) cudaFree(b);
}

void modeMemory(CUcontext ctx, Host& host, Kernel& k, int reps) {
  std::vector<void*> extra;
  for (int gib : {0, 2, 8}) {
    while (int(extra.size()) < gib) {
      void* b = nullptr;
      ckrt(cudaMalloc(&b, size_t(1) << 30), "cudaMalloc 1 GiB");
      cudaMemset(b, 1, size_t(1) << 30);
      extra.push_back(b);
    }
    cudaDeviceSynchronize();
    Range r(ctx);
    std::vector<uint8_t> data = r.image(64);
    r.setConfig(host.config, data, 64);
    Phases ph;
    for (int i = 0; i < std::max(2, reps / 2); ++i) {
      ph.reset();
      r.start();
      ph.mark("start, +" + std::to_string(gib) + " GiB");
      k.launch();
      k.sync();
      ph.mark("launch, +" + std::to_string(gib) + " GiB");
      r.stop();
      r.decode();
    }
    ph.print("memory");
  }
  for (void* b : extra) cudaFree(b);
}

void modeUserReplay(CUcontext ctx, Host& host, Kernel& k, int reps) {
  Range r(ctx);
  Phases ph;
  int passes = 0;
  for (int i = 0; i < reps; ++i) {
    ph.reset();
    std::vector<uint8_t> data = r.image(4);
    r.setConfig(host.config, data, 4, CUPTI_UserReplay);
    ph.mark("image+set config");
    passes = 0;
    for (bool all = false; !all && passes < 64; ++passes) {
      r.start();
      k.launch();
      k.sync();
      auto s = SIZED(CUpti_RangeProfiler_Stop_Params);
      s.pRangeProfilerObject = r.obj;
      ck(cuptiRangeProfilerStop(&s), "Stop (user replay)");
      all = s.isAllPassSubmitted;
    }
    ph.mark("passes (start, launch, stop)");
    r.decode();
    ph.mark("decode");
    if (i + 1 == reps)
      std::printf("user_replay  %d passes; ranges %zu; duration %.1f us\n", passes, rangesIn(data),
                  host.duration(data, 0) / 1e3);
  }
  ph.print("user_replay");
}

void modeChurn(CUcontext ctx, Host& host, int reps, bool unload, bool release, bool streams,
               const char* mode) {
  Range r(ctx);
  std::vector<uint8_t> data = r.image(64);
  r.setConfig(host.config, data, 64);
  CUstream s = nullptr;
  cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
  Phases ph;
  int done = 0;
  for (int i = 0; i < reps; ++i) {
    if (streams && i > 0) {
      cuStreamDestroy(s);
      cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    }
    TouchModule t;
    CUdeviceptr buf = 0;
    if (cuMemAlloc(&buf, 64 << 20) != CUDA_SUCCESS) throw Failed{"cuMemAlloc"};
    ph.reset();
    r.start();
    ph.mark("start");
    t.launch(buf, s);
    ph.mark("launch (replayed)");
    r.stop();
    r.decode();
    ++done;
    std::printf("%-12s profile %d done\n", mode, done);
    std::fflush(stdout);
    if (unload) cuModuleUnload(t.m);
    if (release) cuMemFree(buf);
  }
  ph.print(mode);
  std::printf("%-12s survived %d profiles; ranges %zu\n", mode, done, rangesIn(data));
}

void modeSession(CUcontext ctx, Host& host, Kernel& k, int reps) {
  Phases ph;
  std::vector<uint8_t> data;
  {
    Range r(ctx);  // only to lay out a counter data image for the metric list
    data = r.image(reps + 1);
  }
  ph.mark("image");
  Session session(ctx, data, reps + 1);
  ph.mark("scratch+begin session");
  session.setConfig(host.config);
  ph.mark("set config");
  std::vector<double> between;
  for (int i = 0; i < reps; ++i) {
    ph.reset();
    session.enable();
    ph.mark("enable profiling");
    k.launch();
    k.sync();
    ph.mark("launch (replayed)");
    session.disableAndFlush();
    ph.mark("disable+flush");
    between.push_back(k.timed(20));
    ph.mark("20 timed launches");
  }
  session.unset();
  session.end();
  ph.mark("unset+end session");
  ph.print("session");
  std::sort(between.begin(), between.end());
  const size_t n = rangesIn(data);
  std::printf(
      "session      ranges: %zu (of %d profiles, %d unprofiled launches between); first %.1f us, last %.1f "
      "us\n",
      n, reps, reps * 20, n ? host.duration(data, 0) / 1e3 : -1.0,
      n ? host.duration(data, n - 1) / 1e3 : -1.0);
  std::printf(
      "session      timed launches inside the session, profiling disabled: median of medians %.1f us "
      "(min %.1f, max %.1f); after it: %.1f us\n",
      between[between.size() / 2], between.front(), between.back(), k.timed(20));
}

/// Every profile as a sweep point's is now: the range profiler enabled,
/// started, stopped and disabled again around one replayed launch.
void modeRangePer(CUcontext ctx, Host& host, Kernel& k, int reps, const char* mode) {
  Phases ph;
  double first = 0;
  for (int i = 0; i < reps; ++i) {
    const double t0 = now();
    ph.reset();
    {
      Range r(ctx);
      ph.mark("enable");
      std::vector<uint8_t> data = r.image(64, host.metrics);
      r.setConfig(host.config, data, 64);
      ph.mark("image+set config");
      r.start();
      ph.mark("start");
      k.launch();
      k.sync();
      ph.mark("launch (replayed)");
      r.stop();
      r.decode();
      ph.mark("stop+decode");
      if (i == 0) first = host.duration(data, 0);
    }
    ph.mark("disable");
    ph.t["whole profile"].push_back(now() - t0);
    if (i == 0) ph.order.push_back("whole profile");
  }
  ph.print(mode);
  std::printf("%-12s profiled duration %.1f us\n", mode, first / 1e3);
}

/// Every profile in a session of its own (CUPTI's older session API, kernel
/// replay, auto range): begin, set config, enable, launch, disable, flush,
/// unset, end. The counter data image is laid out once (by an enabled range
/// profiler, as in `session`) and copied for each profile.
void modeSessionPer(CUcontext ctx, Host& host, Kernel& k, int reps, const char* mode) {
  Phases ph;
  std::vector<uint8_t> pristine;
  {
    Range r(ctx);
    pristine = r.image(4, host.metrics);
  }
  double first = 0;
  for (int i = 0; i < reps; ++i) {
    const double t0 = now();
    ph.reset();
    std::vector<uint8_t> data = pristine;
    Session session(ctx, data, 4);
    ph.mark("scratch+begin session");
    session.setConfig(host.config);
    session.enable();
    ph.mark("set config+enable");
    k.launch();
    k.sync();
    ph.mark("launch (replayed)");
    session.disableAndFlush();
    session.unset();
    ph.mark("disable+flush+unset");
    session.end();
    ph.mark("end session");
    if (i == 0) first = rangesIn(data) ? host.duration(data, 0) : -1;
    ph.t["whole profile"].push_back(now() - t0);
    if (i == 0) ph.order.push_back("whole profile");
  }
  ph.print(mode);
  std::printf("%-12s profiled duration %.1f us\n", mode, first / 1e3);
}

template <class F>
void attempt(const char* mode, F f) {
  try {
    f();
  } catch (const Failed& e) {
    std::printf("%-12s FAILED: %s\n", mode, e.what.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 8;
  try {
    Kernel k;
    k.timed(20);  // warm
    int dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, dev);
    const char* vis = std::getenv("CUDA_VISIBLE_DEVICES");
    std::printf("device %s (CUDA_VISIBLE_DEVICES=%s), %d reps\n", prop.name, vis ? vis : "-", reps);
    std::printf("plain        kernel timed with events: %.1f us\n", k.timed(50));
    CUcontext ctx = nullptr;
    cuCtxGetCurrent(&ctx);
    double t = now();
    auto ip = SIZED(CUpti_Profiler_Initialize_Params);
    ck(cuptiProfilerInitialize(&ip), "cuptiProfilerInitialize");
    auto cp = SIZED(CUpti_Device_GetChipName_Params);
    cp.deviceIndex = dev;
    ck(cuptiDeviceGetChipName(&cp), "cuptiDeviceGetChipName");
    Host host(cp.pChipName);
    std::printf("prepare      %.1f ms (chip %s)\n", now() - t, cp.pChipName);
    const char* only = std::getenv("PB_MODES");
    auto want = [&](const char* m) { return !only || std::string(only).find(m) != std::string::npos; };
    if (want("range64")) attempt("range/64", [&] { modeRange(ctx, host, k, reps, 64); });
    if (want("range1")) attempt("range/1", [&] { modeRange(ctx, host, k, reps, 1); });
    if (want("reuse")) attempt("range_reuse", [&] { modeRangeReuse(ctx, host, k, reps); });
    if (want("batch")) attempt("range_batch", [&] { modeRangeBatch(ctx, host, k, reps); });
    if (want("perturb")) attempt("perturb", [&] { modePerturb(ctx, host, k, reps); });
    if (want("memory")) attempt("memory", [&] { modeMemory(ctx, host, k, reps); });
    if (want("user")) attempt("user_replay", [&] { modeUserReplay(ctx, host, k, reps); });
    const std::string churn = only ? only : "";
    if (churn == "churn_none") modeChurn(ctx, host, reps, false, false, false, only);
    if (churn == "churn_unload") modeChurn(ctx, host, reps, true, false, false, only);
    if (churn == "churn_free") modeChurn(ctx, host, reps, false, true, false, only);
    if (churn == "churn_both") modeChurn(ctx, host, reps, true, true, false, only);
    if (churn == "churn_stream") modeChurn(ctx, host, reps, false, false, true, only);
    if (want("session")) attempt("session", [&] { modeSession(ctx, host, k, reps); });
    if (want("per_")) {  // the per-profile modes, each with the 2-pass list and the 1-pass one
      Host one(cp.pChipName, onePass());
      std::printf("per_         passes: the basic list %d, without its SASS metrics %d\n",
                  passesOf(host.config), passesOf(one.config));
      for (int round = 0; round < 2; ++round) {  // twice: the first round pays the process's first start
        attempt("per_range2", [&] { modeRangePer(ctx, host, k, reps, "per_range2"); });
        attempt("per_range1", [&] { modeRangePer(ctx, one, k, reps, "per_range1"); });
        attempt("per_sess2", [&] { modeSessionPer(ctx, host, k, reps, "per_sess2"); });
        attempt("per_sess1", [&] { modeSessionPer(ctx, one, k, reps, "per_sess1"); });
      }
    }
    if (want("range64")) attempt("range/64", [&] { modeRange(ctx, host, k, reps, 64); });
  } catch (const Failed& e) {
    std::printf("FAILED: %s\n", e.what.c_str());
    return 1;
  }
  return 0;
}
