// Does profiling scale over GPUs? (docs/measurements.md, "Counters on
// several GPUs"). NVIDIA's CUPTI sample concurrent_profiling profiles several
// devices at once with one session per device context, one host thread per
// device and user replay, and checks itself by wall time: N devices take about
// the one-device time. This program measures that shape against the one
// TileScope used (a session per profile, kernel replay), with no TileScope code:
//   kernel_sess  a session per profile, kernel replay: CUPTI saves and restores
//                device memory around its passes (TileScope's default)
//   user_sess    a session per profile, user replay: the caller restores the
//                kernel's buffer before each pass (cuMemcpyDtoD from a copy)
//   user_kept    user replay in one session per device begun once; a profile
//                is its passes and a flush, its range appended to the image
//   range_user   the range profiler (CUDA 13's API) enabled once per device,
//                user replay, a config and image per profile
//   *_churn      user_kept and range_user with a module loaded and a buffer
//                allocated per profile, both freed after it (as a warm
//                worker's points are): a process each, since a crash ends it
// Each way runs REPS profiles of a 40 us kernel with the basic counter set on
// 1, 2, 4, ... GPUs at once, in two shapes: one process with a thread per GPU,
// and one process per GPU (started, set up, then released together). A row
// gives the wall time of the REPS profiles from the release until the last
// GPU is done, the ratio to one GPU's, the median profile and its system CPU
// time (driver work, which is where GPUs waited on each other before), and
// whether the buffer after the profile equals one launch's result.
// Build: nvcc -O2 -std=c++17 -arch=native -o pd bench/profiler_devices.cu -lcuda -lcupti
// Run:   ./pd [REPS] (PD_WAYS=user_sess,... picks ways; PD_SHAPES=procs picks shapes);
//        PB_DEVICES=1 bench/profiler_sessions.sh OUT [REPS] builds and runs it.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>

#include "profiler_sessions.h"

namespace {

using namespace pb;

double threadCpuMs(bool system) {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  const timeval& t = system ? u.ru_stime : u.ru_utime;
  return t.tv_sec * 1e3 + t.tv_usec / 1e3;
}

/// Reads `vectors` 16-byte words through L2, storing nothing (the buffer is
/// zeros): what a user-replayed pass needs first to start, as a kernel-replay
/// pass does, with the kernel's data out of L2.
__global__ void evictL2(const int4* p, size_t vectors, int* sink) {
  int x = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < vectors;
       i += size_t(gridDim.x) * blockDim.x) {
    const int4 v = __ldcg(p + i);
    x ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (x) *sink = x;
}

const char* kWays[] = {"kernel_sess", "user_sess", "user_kept", "range_user"};

/// One GPU's context, kernel, pristine copy of its buffer and profiler state.
class Device {
 public:
  Device(int ordinal, const std::string& way, int reps) : m_way(way), m_reps(reps) {
    ckrt(cudaSetDevice(ordinal), "cudaSetDevice");
    ckrt(cudaFree(nullptr), "cudaFree(0)");
    cuCtxGetCurrent(&m_ctx);
    m_k = std::make_unique<Kernel>();
    const size_t bytes = size_t(m_k->n) * sizeof(float);
    ckrt(cudaMalloc(&m_pristine, bytes), "cudaMalloc");
    ckrt(cudaMalloc(&m_expected, bytes), "cudaMalloc");
    int l2 = 0;
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, ordinal);
    m_flushBytes = 2 * size_t(l2);
    ckrt(cudaMalloc(&m_flush, m_flushBytes), "cudaMalloc");
    ckrt(cudaMemset(m_flush, 0, m_flushBytes), "cudaMemset");
    // x starts at 1..n so a launch more or less shows in the result.
    std::vector<float> init(m_k->n);
    for (int i = 0; i < m_k->n; ++i) init[i] = float(i % 1000);
    ckrt(cudaMemcpy(m_pristine, init.data(), bytes, cudaMemcpyHostToDevice), "upload");
    restore();
    m_k->launch();
    m_k->sync();
    ckrt(cudaMemcpy(m_expected, m_k->x, bytes, cudaMemcpyDeviceToDevice), "expected");
    m_k->timed(20);
    auto cp = SIZED(CUpti_Device_GetChipName_Params);
    cp.deviceIndex = size_t(ordinal);
    ck(cuptiDeviceGetChipName(&cp), "cuptiDeviceGetChipName");
    m_host = std::make_unique<Host>(cp.pChipName);
    {
      Range layout(m_ctx);  // lays out a counter data image for the list
      m_pristineImage = layout.image(kept() ? 2 * reps + 2 : 4);
    }
    if (way.rfind("user_kept", 0) == 0) {
      m_image = m_pristineImage;
      m_session = std::make_unique<Session>(m_ctx, m_image, 2 * reps + 2, CUPTI_UserReplay);
      m_session->setConfig(m_host->config);
    } else if (way.rfind("range_user", 0) == 0) {
      m_range = std::make_unique<Range>(m_ctx);
    }
  }
  ~Device() {
    if (m_session) {
      m_session->unset();
      m_session->end();
    }
    cudaFree(m_pristine);
    cudaFree(m_expected);
    cudaFree(m_flush);
  }

  /// REPS profiles; the buffer is put back to its pristine bytes before each
  /// (not timed), so each profile's result is one launch's.
  void run() {
    for (int i = 0; i < m_reps; ++i) {
      restore();
      m_k->sync();
      const double t0 = now(), s0 = threadCpuMs(true);
      profile(i);
      m_ms.push_back(now() - t0);
      m_sysMs.push_back(threadCpuMs(true) - s0);
    }
  }

  /// "ok" when the buffer after the last profile holds one launch's result.
  std::string restoredCheck() {
    const size_t bytes = size_t(m_k->n) * sizeof(float);
    std::vector<float> got(m_k->n), want(m_k->n);
    ckrt(cudaMemcpy(got.data(), m_k->x, bytes, cudaMemcpyDeviceToHost), "download");
    ckrt(cudaMemcpy(want.data(), m_expected, bytes, cudaMemcpyDeviceToHost), "download");
    return std::memcmp(got.data(), want.data(), bytes) == 0 ? "ok" : "WRONG";
  }

  std::vector<double> m_ms, m_sysMs, m_values;
  int m_passes = 0;

 private:
  bool kept() const { return m_way.rfind("user_kept", 0) == 0; }
  bool churn() const { return m_way.find("_churn") != std::string::npos; }

  void restore() {
    ckrt(
        cudaMemcpyAsync(m_k->x, m_pristine, size_t(m_k->n) * sizeof(float), cudaMemcpyDeviceToDevice, m_k->s),
        "restore");
    if (m_way != "kernel_sess")
      evictL2<<<264, 256, 0, m_k->s>>>(static_cast<const int4*>(m_flush), m_flushBytes / 16,
                                       static_cast<int*>(m_flush));
  }

  /// The profiled launch, and a churn way's module and buffer of its own.
  void launchOnce(TouchModule* t, CUdeviceptr scratch) {
    m_k->launch();
    if (t) t->launch(scratch, m_k->s);
    m_k->sync();
  }

  void profile(int i) {
    std::unique_ptr<TouchModule> t;
    CUdeviceptr scratch = 0;
    if (churn()) {
      t = std::make_unique<TouchModule>();
      if (cuMemAlloc(&scratch, 64 << 20) != CUDA_SUCCESS) throw Failed{"cuMemAlloc"};
    }
    const size_t range = kept() ? size_t(i) * (churn() ? 2 : 1) : 0;
    if (m_way == "kernel_sess") {
      std::vector<uint8_t> data = m_pristineImage;
      Session s(m_ctx, data, 4);
      s.setConfig(m_host->config);
      s.enable();
      launchOnce(t.get(), scratch);
      s.disableAndFlush();
      s.unset();
      s.end();
      m_values = m_host->values(data, 0);
    } else if (m_way == "user_sess") {
      std::vector<uint8_t> data = m_pristineImage;
      Session s(m_ctx, data, 4, CUPTI_UserReplay);
      s.setConfig(m_host->config);
      userPasses(s, t.get(), scratch);
      s.flush();
      s.unset();
      s.end();
      m_values = m_host->values(data, 0);
    } else if (kept()) {
      userPasses(*m_session, t.get(), scratch);
      m_session->flush();
      if (rangesIn(m_image) <= range)
        throw Failed{"profile " + std::to_string(i) + " added no range (" +
                     std::to_string(rangesIn(m_image)) + " in the image)"};
      m_values = m_host->values(m_image, range);
    } else {  // range_user
      std::vector<uint8_t> data = m_pristineImage;
      m_range->setConfig(m_host->config, data, 4, CUPTI_UserReplay);
      m_passes = 0;
      for (bool all = false; !all && m_passes < 64; ++m_passes) {
        restore();
        m_range->start();
        launchOnce(t.get(), scratch);
        auto s = SIZED(CUpti_RangeProfiler_Stop_Params);
        s.pRangeProfilerObject = m_range->obj;
        ck(cuptiRangeProfilerStop(&s), "cuptiRangeProfilerStop (user replay)");
        all = s.isAllPassSubmitted;
      }
      m_range->decode();
      m_values = m_host->values(data, 0);
    }
    if (t) cuModuleUnload(t->m);
    if (scratch) cuMemFree(scratch);
  }

  /// User replay in a session: every pass from the pristine buffer.
  void userPasses(Session& s, TouchModule* t, CUdeviceptr scratch) {
    m_passes = 0;
    for (bool all = false; !all && m_passes < 64; ++m_passes) {
      s.beginPass();
      restore();
      m_k->sync();
      s.enable();
      launchOnce(t, scratch);
      s.disable();
      all = s.endPass();
    }
  }

  std::string m_way;
  int m_reps;
  CUcontext m_ctx = nullptr;
  std::unique_ptr<Kernel> m_k;
  float *m_pristine = nullptr, *m_expected = nullptr;
  void* m_flush = nullptr;
  size_t m_flushBytes = 0;
  std::unique_ptr<Host> m_host;
  std::vector<uint8_t> m_pristineImage, m_image;
  std::unique_ptr<Session> m_session;
  std::unique_ptr<Range> m_range;
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// What one GPU's run says: its profiles' wall time and the rest.
struct Result {
  bool ok = false;
  std::string error;
  double wallMs = 0, profileMs = 0, sysMs = 0;
  int passes = 0;
  std::string restored;
  std::vector<double> values;
};

std::string resultLine(const Result& r) {
  std::string s = "result " + std::to_string(r.ok) + " " + std::to_string(r.wallMs) + " " +
                  std::to_string(r.profileMs) + " " + std::to_string(r.sysMs) + " " +
                  std::to_string(r.passes) + " " + (r.restored.empty() ? "-" : r.restored);
  for (double v : r.values) s += " " + std::to_string(v);
  return s + "\n";
}

Result parseResult(const std::string& line) {
  Result r;
  char restored[16] = {};
  int ok = 0;
  const char* p = line.c_str();
  int used = 0;
  if (std::sscanf(p, "result %d %lf %lf %lf %d %15s%n", &ok, &r.wallMs, &r.profileMs, &r.sysMs, &r.passes,
                  restored, &used) < 6) {
    r.error = line.empty() ? "no result" : line;
    return r;
  }
  r.ok = ok != 0;
  r.restored = restored;
  for (p += used;;) {
    double v = 0;
    int n = 0;
    if (std::sscanf(p, " %lf%n", &v, &n) != 1) break;
    r.values.push_back(v);
    p += n;
  }
  return r;
}

/// One GPU's part, in whatever thread or process: set up, wait for `go`, profile.
Result runOne(int ordinal, const std::string& way, int reps, const std::function<void()>& ready) {
  Result r;
  bool released = false;
  try {
    Device d(ordinal, way, reps);
    released = true;
    ready();
    const double t0 = now();
    d.run();
    r.wallMs = now() - t0;
    r.profileMs = median(d.m_ms);
    r.sysMs = median(d.m_sysMs);
    r.passes = d.m_passes;
    r.restored = d.restoredCheck();
    r.values = d.m_values;
    r.ok = true;
  } catch (const Failed& e) {
    r.error = e.what;
    if (!released) ready();  // the others are not kept waiting
  }
  return r;
}

std::vector<Result> runThreads(int gpus, const std::string& way, int reps, double* wallMs) {
  std::vector<Result> out(gpus);
  std::atomic<int> readyCount{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int g = 0; g < gpus; ++g)
    threads.emplace_back([&, g] {
      out[g] = runOne(g, way, reps, [&] {
        ++readyCount;
        while (!go) std::this_thread::yield();
      });
    });
  while (readyCount < gpus) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const double t0 = now();
  go = true;
  for (auto& t : threads) t.join();
  *wallMs = now() - t0;
  return out;
}

std::vector<Result> runProcesses(int gpus, const std::string& way, int reps, const char* self,
                                 double* wallMs) {
  struct Child {
    pid_t pid;
    int toChild, fromChild;
  };
  std::vector<Child> kids;
  for (int g = 0; g < gpus; ++g) {
    int in[2], outp[2];
    if (pipe(in) != 0 || pipe(outp) != 0) throw Failed{"pipe"};
    const pid_t pid = fork();
    if (pid == 0) {
      dup2(in[0], 0);
      dup2(outp[1], 1);
      close(in[1]);
      close(outp[0]);
      setenv("CUDA_VISIBLE_DEVICES", std::to_string(g).c_str(), 1);
      const std::string r = std::to_string(reps);
      execl(self, self, "--child", way.c_str(), r.c_str(), static_cast<char*>(nullptr));
      std::fprintf(stderr, "exec %s: %s\n", self, std::strerror(errno));
      _exit(127);
    }
    close(in[0]);
    close(outp[1]);
    kids.push_back({pid, in[1], outp[0]});
  }
  auto readLine = [](int fd) {
    std::string line;
    char c;
    while (read(fd, &c, 1) == 1 && c != '\n') line += c;
    return line;
  };
  std::vector<std::string> early(kids.size());  // a child's line other than "ready": its end
  for (size_t i = 0; i < kids.size(); ++i)
    if (std::string l = readLine(kids[i].fromChild); l != "ready") early[i] = l.empty() ? "no output" : l;
  const double t0 = now();
  for (auto& k : kids) {
    const char go = 'g';
    if (write(k.toChild, &go, 1) != 1) {
    }
  }
  std::vector<Result> out;
  for (size_t i = 0; i < kids.size(); ++i) {
    const Child& k = kids[i];
    Result r = parseResult(early[i].empty() ? readLine(k.fromChild) : early[i]);
    int status = 0;
    waitpid(k.pid, &status, 0);
    if (WIFSIGNALED(status)) r = Result{false, "killed by signal " + std::to_string(WTERMSIG(status))};
    if (!r.ok && WIFEXITED(status)) r.error += " (exit " + std::to_string(WEXITSTATUS(status)) + ")";
    out.push_back(r);
    close(k.toChild);
    close(k.fromChild);
  }
  *wallMs = now() - t0;
  return out;
}

int child(const std::string& way, int reps) {
  ckrt(cudaFree(nullptr), "cudaFree(0)");  // CUPTI's profiler initialises only once CUDA has
  auto ip = SIZED(CUpti_Profiler_Initialize_Params);
  ck(cuptiProfilerInitialize(&ip), "cuptiProfilerInitialize");
  Result r = runOne(0, way, reps, [] {
    std::printf("ready\n");
    std::fflush(stdout);
    char c;
    if (read(0, &c, 1) != 1) {
    }
  });
  if (!r.ok) {
    std::printf("FAILED %s\n", r.error.c_str());
    return 1;
  }
  std::printf("%s", resultLine(r).c_str());
  return 0;
}

/// The largest relative difference of two value lists and its metric.
std::string differs(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.empty()) return "-";
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = std::fabs(a[i] - b[i]) / std::max({std::fabs(a[i]), std::fabs(b[i]), 1e-9});
    if (d > worst) worst = d, at = i;
  }
  char s[160];
  std::snprintf(s, sizeof s, "%.2f%% (%s)", 100 * worst, kMetrics[at]);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 3 && std::string(argv[1]) == "--child") {
    try {
      return child(argv[2], std::atoi(argv[3]));
    } catch (const Failed& e) {
      std::printf("FAILED %s\n", e.what.c_str());
      return 1;
    }
  }
  const int reps = argc > 1 ? std::atoi(argv[1]) : 8;
  char exe[4096] = {};
  const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  const std::string self = len > 0 ? std::string(exe, size_t(len)) : std::string(argv[0]);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) {
    std::printf("FAILED: no CUDA device\n");
    return 1;
  }
  std::vector<int> counts;
  for (int n = 1; n < devices; n *= 2) counts.push_back(n);
  counts.push_back(devices);
  const char* onlyWays = std::getenv("PD_WAYS");
  const char* onlyShapes = std::getenv("PD_SHAPES");
  auto wantWay = [&](const std::string& w) {
    return !onlyWays || std::string(onlyWays).find(w) != std::string::npos;
  };
  auto wantShape = [&](const char* s) {
    return !onlyShapes || std::string(onlyShapes).find(s) != std::string::npos;
  };
  std::vector<std::string> ways;
  for (const char* w : kWays)
    if (wantWay(w)) ways.push_back(w);
  for (const char* w : {"user_kept_churn", "range_user_churn"})
    if (wantWay(w)) ways.push_back(w);
  auto ip = SIZED(CUpti_Profiler_Initialize_Params);
  ck(cuptiProfilerInitialize(&ip), "cuptiProfilerInitialize");
  std::printf("%d GPUs, %d profiles each; wall: the REPS profiles on every GPU at once\n", devices, reps);
  std::printf("%-16s %-7s %4s %10s %7s %9s %9s %6s %8s  %s\n", "way", "shape", "gpus", "wall ms", "ratio",
              "profile", "sys ms", "passes", "buffer", "vs kernel_sess (largest difference)");
  std::map<std::string, std::vector<double>> reference;  // shape -> kernel_sess values on GPU 0
  for (const std::string& way : ways)
    for (const char* shape : {"threads", "procs"}) {
      if (!wantShape(shape)) continue;
      if (way.find("_churn") != std::string::npos && std::string(shape) == "threads") continue;
      double one = 0;
      for (int n : counts) {
        double wall = 0;
        std::vector<Result> rs = std::string(shape) == "threads"
                                     ? runThreads(n, way, reps, &wall)
                                     : runProcesses(n, way, reps, self.c_str(), &wall);
        bool ok = true;
        for (const Result& r : rs) ok = ok && r.ok;
        if (!ok) {
          for (size_t g = 0; g < rs.size(); ++g)
            if (!rs[g].ok)
              std::printf("%-16s %-7s %4d FAILED on GPU %zu: %s\n", way.c_str(), shape, n, g,
                          rs[g].error.c_str());
          continue;
        }
        if (n == 1) one = wall;
        if (way == "kernel_sess" && n == 1) reference[shape] = rs[0].values;
        std::vector<double> prof, sys;
        std::string restored = "ok";
        for (const Result& r : rs) {
          prof.push_back(r.profileMs);
          sys.push_back(r.sysMs);
          if (r.restored != "ok") restored = r.restored;
        }
        std::printf("%-16s %-7s %4d %10.1f %7.2f %9.1f %9.1f %6d %8s  %s\n", way.c_str(), shape, n, wall,
                    one > 0 ? wall / one : 0, median(prof), median(sys), rs[0].passes, restored.c_str(),
                    differs(reference[shape], rs[0].values).c_str());
        std::fflush(stdout);
      }
    }
  return 0;
}
