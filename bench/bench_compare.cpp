// Times scanOutput + compareOutputs on f32 outputs of 4096^2 and 16384^2 (1 GiB
// per tensor), the sizes a large GEMM produces: both must stay well under a second
// or two so that a capture's evidence does not dominate its run time. Each size
// runs on the calling thread alone (threads = 1) and then with the default threads
// (compare.h), so the lines show what the threads gain on this machine.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <thread>

#include "tilescope/analysis/compare.h"

using namespace tilescope;

namespace {

HostTensor filled(const char* name, std::int64_t n) {
  HostTensor t;
  t.name = name;
  t.dtype = DType::f32;
  t.shape = {n, n};
  t.bytes.resize(static_cast<std::size_t>(n * n) * 4);
  float* p = reinterpret_cast<float*>(t.bytes.data());
  for (std::int64_t i = 0; i < n * n; ++i) p[i] = static_cast<float>(i % 1009) * 0.01f;
  return t;
}

double seconds(std::chrono::steady_clock::time_point a) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
}

struct Timing {
  double scan = 0, compare = 0, cpu = 0;
};

// One scan + compare with `threads` (0: the default, compare.h).
Timing timed(const HostTensor& out, const HostTensor& ref, std::uint32_t sentinel, int threads,
             const char* label) {
  const std::clock_t c0 = std::clock();
  auto t0 = std::chrono::steady_clock::now();
  const ScanResult scan = scanOutput(out, sentinel, {128, 128}, &ref, threads);
  Timing t;
  t.scan = seconds(t0);
  auto t1 = std::chrono::steady_clock::now();
  const CompareResult cmp = compareOutputs(out, ref, 1e-3, 1e-3, {128, 128}, &scan, threads);
  t.compare = seconds(t1);
  t.cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  const std::int64_t n = out.shape[0];
  const double wall = t.scan + t.compare;
  std::printf(
      "%6lld^2 f32, %-17s scan %.3f s, compare %.3f s, total %.3f s wall, %.3f s CPU (%.2f GB/s of out+ref "
      "per pass, by wall time); unwritten %lld, mismatches %lld, max rel err %.6g, findings %zu+%zu\n",
      static_cast<long long>(n), label, t.scan, t.compare, wall, t.cpu,
      2.0 * static_cast<double>(n * n) * 4 / (wall / 2) / 1e9,
      static_cast<long long>(scan.coverage.unwritten), static_cast<long long>(cmp.info.mismatches),
      cmp.info.maxRelErr, scan.findings.size(), cmp.findings.size());
  return t;
}

void bench(std::int64_t n) {
  const HostTensor ref = filled("ref", n);
  HostTensor out = ref;
  out.name = "C";
  float* p = reinterpret_cast<float*>(out.bytes.data());
  // A realistic failing output: the last tile row unwritten, a few wrong values.
  const auto sentinel = static_cast<std::uint32_t>(sentinelBits(DType::f32));
  for (std::int64_t i = (n - 64) * n; i < n * n; ++i) std::memcpy(&p[i], &sentinel, 4);
  for (std::int64_t i = 0; i < n * n; i += 999983) p[i] += 1.0f;

  // The calling thread alone, then the default (hardware threads, at most 16).
  const Timing serial = timed(out, ref, sentinel, 1, "1 thread:");
  char label[32];
  std::snprintf(label, sizeof label,
                "%d threads (dflt):", std::min(std::max(1u, std::thread::hardware_concurrency()), 16u));
  const Timing threaded = timed(out, ref, sentinel, 0, label);
  std::printf("%6lld^2 f32, speedup: scan %.2fx, compare %.2fx, total %.2fx\n", static_cast<long long>(n),
              serial.scan / threaded.scan, serial.compare / threaded.compare,
              (serial.scan + serial.compare) / (threaded.scan + threaded.compare));
}

}  // namespace

int main() {
  bench(4096);
  bench(16384);
  return 0;
}
