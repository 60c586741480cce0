// compileKernelIsolated: compileKernel in a forked child under a time limit.
// NVRTC runs inside the calling process and cannot be interrupted; a source
// that makes it loop (an absurd template depth, a head dimension of 65536
// unrolled) would hold `check` forever. The child compiles and sends the
// result back as JSON on a pipe; the parent waits at most the limit, then kills
// the child's whole process group (nvcc and its host compiler included).
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include <nlohmann/json.hpp>

#include "tilescope/base/process.h"
#include "tilescope/cuda/compile.h"

namespace tilescope::cuda {

namespace {

using nlohmann::json;

json infoToJson(const CompileInfo& c) {
  return {{"attempted", c.attempted},
          {"ok", c.ok},
          {"compiler", c.compiler},
          {"arch", c.arch},
          {"log", c.log},
          {"regs", c.regs},
          {"smem_static", c.smemStatic},
          {"local_bytes", c.localBytes},
          {"spill_stores", c.spillStores},
          {"spill_loads", c.spillLoads},
          {"max_threads_per_block", c.maxThreadsPerBlock},
          {"seconds", c.seconds},
          {"cached", c.cached}};
}

CompileInfo infoFromJson(const json& j) {
  CompileInfo c;
  c.attempted = j.value("attempted", false);
  c.ok = j.value("ok", false);
  c.compiler = j.value("compiler", "");
  c.arch = j.value("arch", "");
  c.log = j.value("log", "");
  c.regs = j.value("regs", -1);
  c.smemStatic = j.value("smem_static", std::int64_t{-1});
  c.localBytes = j.value("local_bytes", std::int64_t{-1});
  c.spillStores = j.value("spill_stores", std::int64_t{-1});
  c.spillLoads = j.value("spill_loads", std::int64_t{-1});
  c.maxThreadsPerBlock = j.value("max_threads_per_block", -1);
  c.seconds = j.value("seconds", 0.0);
  c.cached = j.value("cached", false);
  return c;
}

void writeAll(int fd, const std::string& s) {
  std::size_t put = 0;
  while (put < s.size()) {
    const ssize_t n = ::write(fd, s.data() + put, s.size() - put);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    put += static_cast<std::size_t>(n);
  }
}

// A source can make NVRTC grow without end (12,000 warnings that each echo a
// 73 KB line reached 24 GB, docs/security.md, "Denial of service"): the compiling child's address space is
// bounded. Not under AddressSanitizer, whose shadow memory needs terabytes of it.
constexpr std::uint64_t kCompileMemoryBytes = std::uint64_t{16} << 30;

void limitMemory() {
#if !defined(__SANITIZE_ADDRESS__)
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
  return;
#endif
#endif
  const rlimit lim{kCompileMemoryBytes, kCompileMemoryBytes};
  ::setrlimit(RLIMIT_AS, &lim);
#endif
}

const std::string kMemoryNote =
    " (the compile may use " + std::to_string(kCompileMemoryBytes >> 30) + " GiB of memory at most)";

CompileInfo failed(const std::string& compiler, const std::string& arch, const std::string& why,
                   double seconds) {
  CompileInfo c;
  c.attempted = true;
  c.compiler = compiler;
  c.arch = arch;
  c.log = "error: " + why;
  c.seconds = seconds;
  return c;
}

}  // namespace

CompileInfo compileKernelIsolated(const KernelSpec& k,
                                  const std::vector<std::pair<std::string, DefineValue>>& defines,
                                  const std::string& arch, double timeoutS) {
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  int fds[2];
  if (::pipe(fds) != 0)
    return compileKernel(k, defines, arch, nullptr);  // no isolation possible: compile here
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return compileKernel(k, defines, arch, nullptr);
  }
  if (pid == 0) {
    ::setpgid(0, 0);  // its own group: the kill reaches nvcc and the host compiler too
    ::close(fds[0]);
    limitMemory();
    CompileInfo info = compileKernel(k, defines, arch, nullptr);
    // A log with invalid UTF-8 (a binary included by mistake) must still travel.
    writeAll(fds[1], infoToJson(info).dump(-1, ' ', false, json::error_handler_t::replace));
    ::close(fds[1]);
    ::_exit(0);
  }
  ::setpgid(pid, pid);  // also from here: no race with the child's own call
  ::close(fds[1]);
  std::string out;
  bool timedOut = false;
  char buf[65536];
  while (true) {
    const double left = timeoutS - elapsed();
    if (timeoutS > 0 && left <= 0) {
      timedOut = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ms = timeoutS > 0 ? static_cast<int>(std::min(left * 1000.0 + 1, 1000.0)) : 1000;
    const int n = ::poll(&p, 1, ms);
    if (n < 0 && errno != EINTR) break;
    if (n <= 0) continue;
    const ssize_t got = ::read(fds[0], buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    out.append(buf, static_cast<std::size_t>(got));
  }
  ::close(fds[0]);
  if (timedOut) ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::kill(-pid, SIGKILL);  // whatever it left in its group
  const std::string compiler = k.compiler;
  if (timedOut)
    return failed(compiler, arch,
                  "compilation did not finish within " + std::to_string(static_cast<int>(timeoutS)) +
                      " s; it was stopped (raise the limit with --compile-timeout)",
                  elapsed());
  if (WIFSIGNALED(status))
    return failed(compiler, arch,
                  "the compiler crashed: " + signalDescription(WTERMSIG(status)) + kMemoryNote, elapsed());
  const json j = json::parse(out, nullptr, false);
  if (!j.is_object())
    return failed(compiler, arch, "the compiling process returned no result" + kMemoryNote, elapsed());
  CompileInfo info = infoFromJson(j);
  if (!info.ok && (info.log.find("out of memory") != std::string::npos ||
                   info.log.find("OUT_OF_MEMORY") != std::string::npos))
    info.log += "\nnote:" + kMemoryNote;
  return info;
}

}  // namespace tilescope::cuda
