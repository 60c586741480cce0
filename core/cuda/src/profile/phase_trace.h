// The profiling pass's phase times, for the benches (bench/gpu_loop_bench.sh,
// bench/counters_vs_ncu.py). TILESCOPE_PROFILER_TRACE=1 prints them on stderr;
// a folder as its value appends them to FOLDER/profiler-PID.txt instead (a
// sweep's workers' stderr is not shown). Each line: the phase, its wall time,
// and the thread's user and system CPU time over it, so that time spent
// waiting (in the driver, on another process) shows as wall without CPU.
#pragma once

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tilescope::cuda::detail {

class PhaseTrace {
 public:
  explicit PhaseTrace(const char* who) : m_who(who) {
    const char* v = std::getenv("TILESCOPE_PROFILER_TRACE");
    if (!v || !*v) return;
    m_out = stderr;
    if (std::string(v) != "1") {
      const std::string path = std::string(v) + "/profiler-" + std::to_string(::getpid()) + ".txt";
      m_out = std::fopen(path.c_str(), "a");
      m_owned = m_out != nullptr;
    }
    m_last = now();
  }
  ~PhaseTrace() {
    if (m_owned) std::fclose(m_out);
  }
  PhaseTrace(const PhaseTrace&) = delete;
  PhaseTrace& operator=(const PhaseTrace&) = delete;

  /// The time since the previous phase (or the start) is `phase`'s.
  void operator()(const char* phase) {
    if (!m_out) return;
    const Stamp t = now();
    std::fprintf(m_out, "%s: %-12s %8.1f ms  cpu user %7.1f sys %7.1f ms\n", m_who, phase,
                 t.wall - m_last.wall, t.user - m_last.user, t.sys - m_last.sys);
    std::fflush(m_out);
    m_last = t;
  }

 private:
  struct Stamp {
    double wall = 0, user = 0, sys = 0;  // ms
  };
  static Stamp now() {
    Stamp s;
    s.wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch())
                 .count();
    rusage r{};
    if (::getrusage(RUSAGE_THREAD, &r) == 0) {
      s.user = r.ru_utime.tv_sec * 1e3 + r.ru_utime.tv_usec / 1e3;
      s.sys = r.ru_stime.tv_sec * 1e3 + r.ru_stime.tv_usec / 1e3;
    }
    return s;
  }
  const char* m_who;
  std::FILE* m_out = nullptr;
  bool m_owned = false;
  Stamp m_last;
};

}  // namespace tilescope::cuda::detail
